package debuginfod

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/btfinline/btfinline/internal/testutil"
)

// The fixtures: linked ELF files with DWARF and a GNU build id, from
// package resolve's testdata (its Makefile builds them).
var (
	fixA = loadFixture("x86_64.elf")     // in the test .deb
	fixB = loadFixture("abi-x86_64.elf") // in the test .deb: "another file"
	fixC = loadFixture("aarch64.elf")    // a plain file, for -F
)

// unknownID is a build id no server has.
const unknownID = "00112233445566778899aabbccddeeff00112233"

func loadFixture(name string) fixture {
	p := filepath.Join("..", "resolve", "testdata", name)
	id, _ := fileBuildID(p)
	return fixture{path: p, id: id}
}

func fixtureBytes(t testing.TB, f fixture) []byte {
	t.Helper()
	if f.id == "" {
		t.Fatalf("%s: no build id", f.path)
	}
	b, err := os.ReadFile(f.path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// debServer is a real debuginfod indexing one .deb holding fixA and fixB.
func debServer(t testing.TB) *server {
	t.Helper()
	dir := t.TempDir()
	buildDeb(t, dir, "btfi-fixture-dbg", fixA, fixB)
	return startServer(t, 1, "-U", dir)
}

func client(t testing.TB, urls ...string) *Client {
	return &Client{URLs: urls, CacheDir: filepath.Join(t.TempDir(), "cache"), Timeout: 10 * time.Second}
}

// wantFile checks that path holds exactly the fixture's bytes.
func wantFile(t testing.TB, path string, f fixture) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, fixtureBytes(t, f)) {
		t.Errorf("%s: %d bytes, not those of %s (%d bytes)", path, len(got), f.path, len(fixtureBytes(t, f)))
	}
}

// wantNoCacheEntry checks that a failed fetch of id left nothing in the
// cache: no debuginfo, no temporary file, no empty folder.
func wantNoCacheEntry(t testing.TB, c *Client, id string) {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(c.CacheDir, id))
	if err == nil {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("cache folder of %s left behind, holding %v", id, names)
	}
}

// lookupErr checks that err is a *LookupError whose servers' errors are
// want, in order, and returns it.
func lookupErr(t testing.TB, err error, want ...error) *LookupError {
	t.Helper()
	var le *LookupError
	if !errors.As(err, &le) {
		t.Fatalf("error %v (%T), want a *LookupError", err, err)
	}
	if len(le.Servers) != len(want) {
		t.Fatalf("%v: %d servers, want %d", err, len(le.Servers), len(want))
	}
	for i, w := range want {
		if !errors.Is(le.Servers[i], w) {
			t.Errorf("server %d: %v, want %v", i, le.Servers[i], w)
		}
	}
	return le
}

// TestFetch runs the fetches and failures that one real server (indexing
// a .deb) and proxies of the test's own in front of it can show.
func TestFetch(t *testing.T) {
	srv := debServer(t)
	ctx := context.Background()

	// A fetch writes the server's file to elfutils' cache path, read-only
	// as elfutils leaves it, with no temporary file left, and reports
	// progress up to the whole size.
	t.Run("fetch", func(t *testing.T) {
		c := client(t, srv.URL)
		var mu sync.Mutex
		var reports []Progress
		c.Progress = func(p Progress) { mu.Lock(); reports = append(reports, p); mu.Unlock() }
		p, err := c.Debuginfo(ctx, fixA.id)
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(c.CacheDir, fixA.id, "debuginfo"); p != want {
			t.Errorf("path %s, want %s", p, want)
		}
		wantFile(t, p, fixA)
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o400 {
			t.Errorf("mode %v, want 0400", st.Mode())
		}
		if st, _ := os.Stat(filepath.Dir(p)); st.Mode().Perm() != 0o700 {
			t.Errorf("folder mode %v, want 0700", st.Mode())
		}
		if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
			t.Errorf("cache folder holds %d files, want 1", len(ents))
		}
		size := int64(len(fixtureBytes(t, fixA)))
		if len(reports) < 2 {
			t.Fatalf("progress reports %v", reports)
		}
		last := reports[len(reports)-1]
		wantURL := srv.URL + "/buildid/" + fixA.id + "/debuginfo"
		if !last.Finished || last.Done != size || last.Total != size || last.URL != wantURL {
			t.Errorf("last progress %+v, want finished %d/%d of %s", last, size, size, wantURL)
		}
	})

	// The size before the download: the real server refuses HEAD (0.188
	// answers 400), so it comes from the headers of a GET not read; an
	// unknown build id has no size; a cached file's is its own.
	t.Run("size", func(t *testing.T) {
		c := client(t, srv.URL)
		want := int64(len(fixtureBytes(t, fixA)))
		if n := c.Size(ctx, fixA.id); n != want {
			t.Errorf("size %d, want %d", n, want)
		}
		if n := c.Size(ctx, unknownID); n != -1 {
			t.Errorf("unknown build id: size %d, want -1", n)
		}
		if ents, _ := os.ReadDir(c.CacheDir); len(ents) != 0 {
			t.Errorf("asking the size left %d cache entries", len(ents))
		}
		if _, err := c.Debuginfo(ctx, fixA.id); err != nil {
			t.Fatal(err)
		}
		c.URLs = nil
		if n := c.Size(ctx, fixA.id); n != want {
			t.Errorf("cached: size %d, want %d", n, want)
		}
	})

	// Upper-case hex is the same build id; the cache name is lower case.
	t.Run("uppercase", func(t *testing.T) {
		c := client(t, srv.URL)
		p, err := c.Debuginfo(ctx, strings.ToUpper(fixA.id))
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(filepath.Dir(p)) != fixA.id {
			t.Errorf("path %s", p)
		}
	})

	// Without a cache folder the file goes to a temporary file.
	t.Run("no cache", func(t *testing.T) {
		c := client(t, srv.URL)
		c.CacheDir = ""
		p, err := c.Debuginfo(ctx, fixA.id)
		if err != nil {
			t.Fatal(err)
		}
		defer os.Remove(p)
		wantFile(t, p, fixA)
	})

	// The second fetch is the cache's: no request reaches the server.
	t.Run("second from cache", func(t *testing.T) {
		var requests atomic.Int32
		px := proxy(t, srv, func(w http.ResponseWriter, r *http.Request, forward func() *http.Response) {
			requests.Add(1)
			copyResponse(w, forward())
		})
		c := client(t, px.URL)
		for i := 0; i < 2; i++ {
			if _, err := c.Debuginfo(ctx, fixA.id); err != nil {
				t.Fatal(err)
			}
		}
		if n := requests.Load(); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})

	// A 404 is ErrNotFound, says so in words, and leaves no cache entry
	// (this client writes no negative-result marker of its own).
	t.Run("not found", func(t *testing.T) {
		c := client(t, srv.URL)
		_, err := c.Debuginfo(ctx, unknownID)
		le := lookupErr(t, err, ErrNotFound)
		if !le.NotFound() || le.Servers[0].Status != 404 || le.BuildID != unknownID {
			t.Errorf("%+v", le.Servers[0])
		}
		if msg := err.Error(); !strings.Contains(msg, "the server has no debuginfo for build id "+unknownID) || !strings.Contains(msg, srv.URL) {
			t.Errorf("message %q", msg)
		}
		wantNoCacheEntry(t, c, unknownID)
	})

	// An empty file at the cache path is elfutils' negative-result marker:
	// never returned; the server is asked and its file replaces it.
	t.Run("negative marker", func(t *testing.T) {
		c := client(t, srv.URL)
		p := c.CachePath(fixA.id)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := c.Debuginfo(ctx, fixA.id)
		if err != nil {
			t.Fatal(err)
		}
		wantFile(t, got, fixA)
	})

	// A cached file of another build id (or a cut one) is not trusted: it
	// is fetched again and replaced.
	t.Run("stale cache", func(t *testing.T) {
		for name, content := range map[string][]byte{
			"other file": fixtureBytes(t, fixB),
			"cut":        fixtureBytes(t, fixA)[:len(fixtureBytes(t, fixA))/2],
			"not ELF":    []byte("hello"),
		} {
			c := client(t, srv.URL)
			p := c.CachePath(fixA.id)
			os.MkdirAll(filepath.Dir(p), 0o700)
			if err := os.WriteFile(p, content, 0o400); err != nil {
				t.Fatal(err)
			}
			got, err := c.Debuginfo(ctx, fixA.id)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			wantFile(t, got, fixA)
		}
	})

	// A proxy that cuts the body short of its Content-Length: truncated,
	// nothing kept.
	t.Run("truncated body", func(t *testing.T) {
		px := proxy(t, srv, func(w http.ResponseWriter, r *http.Request, forward func() *http.Response) {
			resp := forward()
			b, _ := io.ReadAll(resp.Body)
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			w.WriteHeader(200)
			w.Write(b[:len(b)/2])
			// Returning short of Content-Length makes net/http close
			// the connection: the client sees the body end early.
		})
		c := client(t, px.URL)
		_, err := c.Debuginfo(ctx, fixA.id)
		lookupErr(t, err, ErrTruncated)
		if !strings.Contains(err.Error(), "of "+strconv.Itoa(len(fixtureBytes(t, fixA)))+" bytes") {
			t.Errorf("message %q", err)
		}
		wantNoCacheEntry(t, c, fixA.id)
	})

	// A proxy that sends half the ELF file as a whole response: the ELF
	// is cut, refused with the reason, nothing kept.
	t.Run("cut ELF", func(t *testing.T) {
		px := proxy(t, srv, func(w http.ResponseWriter, r *http.Request, forward func() *http.Response) {
			b, _ := io.ReadAll(forward().Body)
			w.Write(b[:len(b)/2])
		})
		c := client(t, px.URL)
		_, err := c.Debuginfo(ctx, fixA.id)
		lookupErr(t, err, ErrCorrupt)
		if !strings.Contains(err.Error(), "truncated ELF file") {
			t.Errorf("message %q", err)
		}
		wantNoCacheEntry(t, c, fixA.id)
	})

	// A proxy that serves another build id's file (from the same server):
	// refused, naming both ids, nothing kept.
	t.Run("wrong file", func(t *testing.T) {
		px := proxy(t, srv, func(w http.ResponseWriter, r *http.Request, forward func() *http.Response) {
			resp, err := http.Get(srv.URL + "/buildid/" + fixB.id + "/debuginfo")
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			copyResponse(w, resp)
		})
		c := client(t, px.URL)
		_, err := c.Debuginfo(ctx, fixA.id)
		lookupErr(t, err, ErrWrongFile)
		if msg := err.Error(); !strings.Contains(msg, fixA.id) || !strings.Contains(msg, "build id "+fixB.id) {
			t.Errorf("message %q", msg)
		}
		wantNoCacheEntry(t, c, fixA.id)
	})

	// Another status: ErrStatus with the status and the server's words.
	t.Run("status", func(t *testing.T) {
		px := proxy(t, srv, func(w http.ResponseWriter, r *http.Request, forward func() *http.Response) {
			http.Error(w, "too busy\nsecond line", http.StatusServiceUnavailable)
		})
		c := client(t, px.URL)
		_, err := c.Debuginfo(ctx, fixA.id)
		le := lookupErr(t, err, ErrStatus)
		if le.Servers[0].Status != 503 || le.NotFound() || !strings.Contains(err.Error(), `503 Service Unavailable: "too busy"`) {
			t.Errorf("%v", err)
		}
	})

	// Several servers: tried in order, the first that has the file wins;
	// when none has it, the error names each and what it said.
	t.Run("several servers", func(t *testing.T) {
		refused := "http://127.0.0.1:" + strconv.Itoa(freePort(t))
		c := client(t, refused, srv.URL)
		p, err := c.Debuginfo(ctx, fixA.id)
		if err != nil {
			t.Fatal(err)
		}
		wantFile(t, p, fixA)

		_, err = c.Debuginfo(ctx, unknownID)
		le := lookupErr(t, err, ErrUnreachable, ErrNotFound)
		if le.NotFound() {
			t.Error("NotFound with a server unreachable")
		}
		msg := err.Error()
		for _, s := range []string{"2 servers tried", refused + "/buildid/", "connection refused", srv.URL + "/buildid/", "HTTP 404"} {
			if !strings.Contains(msg, s) {
				t.Errorf("message %q lacks %q", msg, s)
			}
		}
	})

	// A server that accepts and never answers, and one that answers and
	// then stalls: both timed out, by DEBUGINFOD_TIMEOUT's rule (less
	// than 100 KiB within the time), soon after it.
	t.Run("timeout", func(t *testing.T) {
		silent := silentServer(t)
		stall := proxy(t, srv, func(w http.ResponseWriter, r *http.Request, forward func() *http.Response) {
			w.Header().Set("Content-Length", "1000000")
			w.WriteHeader(200)
			w.Write([]byte("\x7fELF"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		})
		// A stall after the first 100 KiB is caught too.
		stallLater := proxy(t, srv, func(w http.ResponseWriter, r *http.Request, forward func() *http.Response) {
			w.Header().Set("Content-Length", "1000000")
			w.WriteHeader(200)
			w.Write(make([]byte, 150<<10))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		})
		for _, u := range []string{silent, stall.URL, stallLater.URL} {
			c := client(t, u)
			c.Timeout = 300 * time.Millisecond
			start := time.Now()
			_, err := c.Debuginfo(ctx, fixA.id)
			lookupErr(t, err, ErrTimeout)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%s: timed out after %v", u, d)
			}
			if !strings.Contains(err.Error(), "DEBUGINFOD_TIMEOUT") {
				t.Errorf("message %q", err)
			}
			wantNoCacheEntry(t, c, fixA.id)
		}

		// A transfer longer than the timeout that keeps sending 100 KiB
		// within each period is not cut: it ends, and is then refused
		// for what it is (not ELF), not for time.
		steady := proxy(t, srv, func(w http.ResponseWriter, r *http.Request, forward func() *http.Response) {
			w.Header().Set("Content-Length", strconv.Itoa(6*(100<<10)))
			w.WriteHeader(200)
			for i := 0; i < 6; i++ {
				w.Write(make([]byte, 100<<10))
				w.(http.Flusher).Flush()
				time.Sleep(150 * time.Millisecond)
			}
		})
		c := client(t, steady.URL)
		c.Timeout = 400 * time.Millisecond
		start := time.Now()
		_, err := c.Debuginfo(ctx, fixA.id)
		lookupErr(t, err, ErrCorrupt)
		if d := time.Since(start); d < c.Timeout {
			t.Errorf("steady transfer over in %v, not longer than the timeout", d)
		}
	})

	// The caller's cancel ends the lookup with ctx's error, not a
	// server's fault.
	t.Run("cancel", func(t *testing.T) {
		c := client(t, silentServer(t), srv.URL)
		cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		_, err := c.Debuginfo(cctx, fixA.id)
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) || errors.Is(err, ErrUnreachable) {
			t.Errorf("%v", err)
		}
	})
}

// proxy is an HTTP server of the test's own on 127.0.0.1 in front of
// srv; handle answers each request, forward fetching it from srv.
func proxy(t testing.TB, srv *server, handle func(w http.ResponseWriter, r *http.Request, forward func() *http.Response)) *httptest.Server {
	px := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var resp *http.Response
		forward := func() *http.Response {
			var err error
			resp, err = http.Get(srv.URL + r.URL.Path)
			if err != nil {
				resp = &http.Response{StatusCode: 502, Body: io.NopCloser(strings.NewReader(err.Error())), Header: http.Header{}}
			}
			return resp
		}
		handle(w, r, forward)
		if resp != nil {
			resp.Body.Close()
		}
	}))
	t.Cleanup(px.Close)
	return px
}

func copyResponse(w http.ResponseWriter, resp *http.Response) {
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// silentServer accepts connections on 127.0.0.1 and never answers; its
// URL is returned.
func silentServer(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return "http://" + l.Addr().String()
}

// TestServerStopped: a fetched file is served from the cache with the
// server gone (so with no request), and with no server named at all; a
// file not cached then fails as unreachable.
func TestServerStopped(t *testing.T) {
	srv := debServer(t)
	ctx := context.Background()
	c := client(t, srv.URL)
	first, err := c.Debuginfo(ctx, fixA.id)
	if err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	again, err := c.Debuginfo(ctx, fixA.id)
	if err != nil || again != first {
		t.Fatalf("with the server stopped: %q, %v; want %q", again, err, first)
	}
	wantFile(t, again, fixA)
	c2 := &Client{CacheDir: c.CacheDir}
	if p, err := c2.Debuginfo(ctx, fixA.id); err != nil || p != first {
		t.Errorf("with no server: %q, %v", p, err)
	}
	_, err = c.Debuginfo(ctx, fixB.id)
	lookupErr(t, err, ErrUnreachable)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("%v: not ECONNREFUSED", err)
	}
	wantNoCacheEntry(t, c, fixB.id)
}

// TestDebuginfodFindCache: the file elfutils' own client cached is
// reused, and its negative-result marker (an empty file, which
// debuginfod-find leaves after a 404) is never returned.
func TestDebuginfodFindCache(t *testing.T) {
	find := testutil.SystemTool(t, "debuginfod-find")
	srv := debServer(t)
	cache := filepath.Join(t.TempDir(), "cache")
	run := func(id string) (string, error) {
		cmd := exec.Command(find, "debuginfo", id)
		cmd.Env = append(serverEnv(t.TempDir()), "DEBUGINFOD_URLS="+srv.URL, "DEBUGINFOD_CACHE_PATH="+cache)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", errors.New(err.Error() + ": " + stderr.String())
		}
		return strings.TrimSpace(string(out)), nil
	}
	theirs, err := run(fixA.id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run(unknownID); err == nil {
		t.Fatalf("debuginfod-find found %s", unknownID)
	}
	marker := filepath.Join(cache, unknownID, "debuginfo")
	if st, err := os.Stat(marker); err != nil || st.Size() != 0 {
		t.Fatalf("debuginfod-find 0.188 left no empty marker at %s: %v", marker, err)
	}
	srv.Stop()

	ctx := context.Background()
	c := &Client{URLs: []string{srv.URL}, CacheDir: cache, Timeout: 10 * time.Second}
	mine, err := c.Debuginfo(ctx, fixA.id)
	if err != nil || mine != theirs {
		t.Fatalf("Debuginfo = %q, %v; debuginfod-find cached %q", mine, err, theirs)
	}
	wantFile(t, mine, fixA)
	p, err := c.Debuginfo(ctx, unknownID)
	if p != "" || err == nil {
		t.Fatalf("the marker was returned: %q, %v", p, err)
	}
	lookupErr(t, err, ErrUnreachable)

	// And the other way round: debuginfod-find finds a file this client
	// cached (started again, the server indexes afresh).
	srv2 := debServer(t)
	c.URLs = []string{srv2.URL}
	if _, err := c.Debuginfo(ctx, fixB.id); err != nil {
		t.Fatal(err)
	}
	srv2.Stop()
	srv.URL = srv2.URL // run's DEBUGINFOD_URLS: stopped, so only the cache can answer
	if theirs, err := run(fixB.id); err != nil || theirs != c.CachePath(fixB.id) {
		t.Errorf("debuginfod-find of the file this client cached: %q, %v", theirs, err)
	}
}

// TestScanFileDir: a server indexing plain ELF files (-F) serves them too.
func TestScanFileDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.debug"), fixtureBytes(t, fixC), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, 1, "-F", dir)
	c := client(t, srv.URL)
	p, err := c.Debuginfo(context.Background(), fixC.id)
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, p, fixC)
}

// TestErrorsWithoutServer: the failures that need no debuginfod.
func TestErrorsWithoutServer(t *testing.T) {
	ctx := context.Background()
	var e *Error
	c := &Client{CacheDir: t.TempDir()}
	if _, err := c.Debuginfo(ctx, fixA.id); !errors.Is(err, ErrNoServers) || !errors.As(err, &e) || !strings.Contains(err.Error(), "DEBUGINFOD_URLS") {
		t.Errorf("no servers: %v", err)
	}
	for _, id := range []string{"", "abc", "xyz0", strings.Repeat("ab", 129), "../etc"} {
		if _, err := c.Debuginfo(ctx, id); !errors.Is(err, ErrBadBuildID) {
			t.Errorf("build id %q: %v", id, err)
		}
	}
	// A wrong port: nothing listens there.
	port := freePort(t)
	c.URLs = []string{"http://127.0.0.1:" + strconv.Itoa(port)}
	_, err := c.Debuginfo(ctx, fixA.id)
	lookupErr(t, err, ErrUnreachable)
	if !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), ":"+strconv.Itoa(port)+"/buildid/") {
		t.Errorf("wrong port: %v", err)
	}
	c.URLs = []string{"ftp://127.0.0.1", "127.0.0.1:1"}
	_, err = c.Debuginfo(ctx, fixA.id)
	lookupErr(t, err, ErrBadURL, ErrBadURL)
}

func TestFromEnv(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("DEBUGINFOD_CACHE_PATH", "")
	t.Setenv("DEBUGINFOD_URLS", " http://127.0.0.1:1/  http://127.0.0.1:2 ")
	t.Setenv("DEBUGINFOD_TIMEOUT", "7")
	os.Unsetenv("DEBUGINFOD_PROGRESS")
	c := FromEnv()
	if len(c.URLs) != 2 || c.URLs[0] != "http://127.0.0.1:1" || c.URLs[1] != "http://127.0.0.1:2" {
		t.Errorf("URLs %q", c.URLs)
	}
	if c.Timeout != 7*time.Second || c.WantProgress {
		t.Errorf("timeout %v, progress %v", c.Timeout, c.WantProgress)
	}
	if want := filepath.Join(home, ".cache", "debuginfod_client"); c.CacheDir != want {
		t.Errorf("cache %s, want %s", c.CacheDir, want)
	}
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	if c := FromEnv(); c.CacheDir != "/xdg/debuginfod_client" {
		t.Errorf("cache %s with XDG_CACHE_HOME", c.CacheDir)
	}
	os.Mkdir(filepath.Join(home, ".debuginfod_client_cache"), 0o700)
	if c := FromEnv(); c.CacheDir != filepath.Join(home, ".debuginfod_client_cache") {
		t.Errorf("cache %s with the deprecated folder present", c.CacheDir)
	}
	t.Setenv("DEBUGINFOD_CACHE_PATH", "/mine")
	t.Setenv("DEBUGINFOD_PROGRESS", "")
	t.Setenv("DEBUGINFOD_TIMEOUT", "")
	if c := FromEnv(); c.CacheDir != "/mine" || !c.WantProgress || c.Timeout != DefaultTimeout {
		t.Errorf("%+v", c)
	}
}

func TestParseTimeout(t *testing.T) {
	for s, want := range map[string]time.Duration{
		"":                     DefaultTimeout,
		"abc":                  DefaultTimeout,
		"30":                   30 * time.Second,
		" 30 ":                 30 * time.Second,
		"10s":                  10 * time.Second,
		"+5":                   5 * time.Second,
		"0":                    0,
		"-1":                   0,
		"99999999999999999999": 0,
		"9999999999999":        0,
	} {
		if got := ParseTimeout(s); got != want {
			t.Errorf("ParseTimeout(%q) = %v, want %v", s, got, want)
		}
	}
}

// The parsers of the environment must not panic on any input.
func FuzzParseURLs(f *testing.F) {
	for _, s := range []string{"", " ", "http://a/ https://b//", "\t\n//", "http://[::1]:80/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, u := range ParseURLs(s) {
			if u == "" || strings.HasSuffix(u, "/") || strings.ContainsAny(u, " \t\n") {
				t.Errorf("ParseURLs(%q) gave %q", s, u)
			}
		}
	})
}

func FuzzParseTimeout(f *testing.F) {
	for _, s := range []string{"", "-", "+", "90", "-9223372036854775808", "9223372036854775807", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d := ParseTimeout(s); d < 0 {
			t.Errorf("ParseTimeout(%q) = %v", s, d)
		}
	})
}

func FuzzNormalizeBuildID(f *testing.F) {
	for _, s := range []string{"", "AB", "abc", "../x", fixA.id} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := NormalizeBuildID(s)
		if err == nil && (strings.ContainsAny(id, "/.") || id == "") {
			t.Errorf("NormalizeBuildID(%q) = %q", s, id)
		}
	})
}
