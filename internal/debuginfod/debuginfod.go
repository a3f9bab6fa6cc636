// Package debuginfod owns fetching debug files by GNU build id from the
// servers elfutils' client uses (DEBUGINFOD_URLS), through the cache that
// client keeps: a file debuginfod-find already downloaded is reused, and a
// file fetched here is put where debuginfod-find would look for it. The
// environment is read with elfutils 0.188's meanings
// (debuginfod_find_debuginfo(3)); the server protocol is its webapi
// (debuginfod(8)): GET URL/buildid/HEX/debuginfo.
//
// A fetched file is accepted only when it is a whole ELF file whose GNU
// build id is the one asked for: a server or proxy that sends another
// file, or a body cut short, must not leave a file in the cache that
// later runs would trust.
//
// It imports the standard library and internal/elfobj only.
package debuginfod

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/btfinline/btfinline/internal/elfobj"
)

// DefaultTimeout is elfutils' default DEBUGINFOD_TIMEOUT.
const DefaultTimeout = 90 * time.Second

// timeoutBytes is how much a server must send within Timeout to be kept:
// elfutils' "at least 100K of data within this many seconds".
const timeoutBytes = 100 << 10

// maxBuildIDHex is elfutils' limit on a hex build id (256 characters).
const maxBuildIDHex = 256

// Client fetches debuginfo files. The zero value has no servers and no
// cache directory; FromEnv fills it as elfutils' client would. A Client
// is not changed by its use, so it may serve concurrent lookups.
type Client struct {
	// URLs are the servers' URL prefixes, tried in order (elfutils may
	// ask them in parallel; in order keeps the traffic to the first
	// server that has the file, and the error report in a fixed order).
	URLs []string
	// CacheDir is elfutils' client cache; "" means no cache: every call
	// downloads, into a temporary file the caller owns.
	CacheDir string
	// Timeout is DEBUGINFOD_TIMEOUT: a server that sends less than 100
	// KiB within it is given up, counted from the request (connecting
	// included) and again from each 100 KiB received, so a transfer that
	// stalls later is given up too; zero or negative means no limit.
	Timeout time.Duration
	// Progress, if set, is called as bytes arrive and once more with
	// Finished when a transfer ends (whole or not). The caller prints.
	Progress func(Progress)
	// WantProgress is set when DEBUGINFOD_PROGRESS is: the user asked
	// elfutils' tools for progress lines, so a caller may set Progress.
	WantProgress bool
	// HTTP is the client requests go through; nil means a plain
	// net/http client (no overall time limit: Timeout and ctx bound it).
	HTTP *http.Client
}

// Progress is one report of a transfer.
type Progress struct {
	URL         string
	Done, Total int64 // bytes received, and expected (0 when not known)
	Finished    bool  // the transfer ended: the last report for URL
}

// FromEnv returns a client configured as elfutils 0.188's client is:
// DEBUGINFOD_URLS, DEBUGINFOD_CACHE_PATH (else the default cache folder),
// DEBUGINFOD_TIMEOUT and DEBUGINFOD_PROGRESS.
func FromEnv() *Client {
	c := &Client{
		URLs:     ParseURLs(os.Getenv("DEBUGINFOD_URLS")),
		CacheDir: cacheDir(os.Getenv),
		Timeout:  ParseTimeout(os.Getenv("DEBUGINFOD_TIMEOUT")),
	}
	_, c.WantProgress = os.LookupEnv("DEBUGINFOD_PROGRESS")
	return c
}

// cacheDir is elfutils' choice of cache folder: DEBUGINFOD_CACHE_PATH;
// else the deprecated $HOME/.debuginfod_client_cache when it exists (0.188
// keeps using an old cache there); else $XDG_CACHE_HOME/debuginfod_client;
// else $HOME/.cache/debuginfod_client. "" when none can be named.
func cacheDir(getenv func(string) string) string {
	if p := getenv("DEBUGINFOD_CACHE_PATH"); p != "" {
		return p
	}
	home := getenv("HOME")
	if home != "" {
		old := filepath.Join(home, ".debuginfod_client_cache")
		if st, err := os.Stat(old); err == nil && st.IsDir() {
			return old
		}
	}
	if x := getenv("XDG_CACHE_HOME"); x != "" {
		return filepath.Join(x, "debuginfod_client")
	}
	if home != "" {
		return filepath.Join(home, ".cache", "debuginfod_client")
	}
	return ""
}

// ParseURLs splits DEBUGINFOD_URLS: URL prefixes separated by white
// space, each without its trailing slashes (elfutils appends "/buildid"
// itself). Malformed entries are kept, so that the lookup reports them
// against their server rather than dropping them silently.
func ParseURLs(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		if f = strings.TrimRight(f, "/"); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// ParseTimeout reads DEBUGINFOD_TIMEOUT: whole seconds, as elfutils reads
// it (leading digits, like atoi: "10s" is 10); zero or negative means no
// limit. Unset, or with no digits at all, it is the default 90 s: where
// elfutils' atoi would turn a typo into "no limit", a client that may
// download 600 MB keeps its guard.
func ParseTimeout(s string) time.Duration {
	s = strings.TrimSpace(s)
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return DefaultTimeout
	}
	n, err := strconv.ParseInt(s[:j], 10, 64)
	// Out of int64's range, or past what a Duration holds: either way
	// no practical limit, or a negative one, which means none.
	if err != nil || n <= 0 || n > int64(1<<63-1)/int64(time.Second) {
		return 0
	}
	return time.Duration(n) * time.Second
}

// The reasons a lookup fails; an *Error wraps one of them (errors.Is).
var (
	// ErrNoServers: DEBUGINFOD_URLS names no server.
	ErrNoServers = errors.New("no debuginfod server: DEBUGINFOD_URLS is unset or empty")
	// ErrBadBuildID: the build id is not an even number of hex digits.
	ErrBadBuildID = errors.New("not a GNU build id (an even number of hex digits, at most 256)")
	// ErrBadURL: a DEBUGINFOD_URLS entry is not an http or https URL.
	ErrBadURL = errors.New("not an http:// or https:// URL")
	// ErrUnreachable: no connection to the server (down, wrong host or
	// port) or it broke before an answer.
	ErrUnreachable = errors.New("cannot reach the server")
	// ErrNotFound: the server answered 404: it has no such file.
	ErrNotFound = errors.New("HTTP 404 Not Found")
	// ErrStatus: the server answered another status than 200 or 404.
	ErrStatus = errors.New("the server refused the request")
	// ErrTimeout: the server sent less than 100 KiB within the timeout.
	ErrTimeout = errors.New("timed out")
	// ErrTruncated: the body ended before the size the server announced.
	ErrTruncated = errors.New("truncated download")
	// ErrCorrupt: the file is not a whole ELF file.
	ErrCorrupt = errors.New("not a whole ELF file")
	// ErrWrongFile: the file's GNU build id is another one.
	ErrWrongFile = errors.New("wrong file")
	// ErrCache: the file could not be written into the cache.
	ErrCache = errors.New("cannot write the cache")
)

// Error is the failure of one server (URL is the request's), or of the
// lookup before any server (URL ""). Status is the HTTP status, 0 when
// there was none.
type Error struct {
	URL     string
	BuildID string
	Status  int
	Err     error
}

func (e *Error) Error() string {
	if e.URL == "" {
		return fmt.Sprintf("debuginfod: build id %s: %v", e.BuildID, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.URL, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// LookupError is a lookup that no server satisfied: what each server
// tried said, in order. errors.Is and errors.As see through it to each.
type LookupError struct {
	BuildID string
	Servers []*Error
}

func (e *LookupError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "debuginfod: no server gave the debuginfo of build id %s", e.BuildID)
	if len(e.Servers) == 1 {
		fmt.Fprintf(&b, ": %v", e.Servers[0])
		return b.String()
	}
	fmt.Fprintf(&b, " (%d servers tried):", len(e.Servers))
	for i, s := range e.Servers {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, " %v", s)
	}
	return b.String()
}

func (e *LookupError) Unwrap() []error {
	out := make([]error, len(e.Servers))
	for i, s := range e.Servers {
		out[i] = s
	}
	return out
}

// NotFound says whether every server answered 404: the file does not
// exist anywhere the user pointed at (as opposed to a server that could
// not be asked).
func (e *LookupError) NotFound() bool {
	for _, s := range e.Servers {
		if !errors.Is(s.Err, ErrNotFound) {
			return false
		}
	}
	return len(e.Servers) > 0
}

// NormalizeBuildID returns id in lowercase hex, the form of elfutils'
// cache names and of the webapi, or ErrBadBuildID.
func NormalizeBuildID(id string) (string, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" || len(id)%2 != 0 || len(id) > maxBuildIDHex {
		return "", ErrBadBuildID
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", ErrBadBuildID
		}
	}
	return id, nil
}

// CachePath is where elfutils' client keeps the debuginfo of buildID
// (lowercase hex): CacheDir/BUILDID/debuginfo.
func (c *Client) CachePath(buildID string) string {
	return filepath.Join(c.CacheDir, buildID, "debuginfo")
}

// Debuginfo returns a local path to the debuginfo (DWARF) file of buildID:
// the file elfutils' client already cached if it is there and has that
// build id, else the file fetched from the first server in URLs that has
// it, written into the cache atomically (a temporary name then a rename,
// so the cache never holds a partial file) and checked first. Without a
// CacheDir the file goes to a temporary file the caller must remove.
//
// The cache is looked at before the servers, so a cached file is found
// with no server set. An empty file at the cache path is elfutils'
// negative-result marker (a recent 404, remembered for cache_miss_s): it
// is treated as no file, never returned, and the servers are asked again.
func (c *Client) Debuginfo(ctx context.Context, buildID string) (string, error) {
	id, err := NormalizeBuildID(buildID)
	if err != nil {
		return "", &Error{BuildID: buildID, Err: err}
	}
	if c.CacheDir != "" {
		if p := c.CachePath(id); cached(p, id) {
			return p, nil
		}
	}
	if len(c.URLs) == 0 {
		return "", &Error{BuildID: id, Err: ErrNoServers}
	}
	if err := ctx.Err(); err != nil {
		return "", &Error{BuildID: id, Err: err}
	}
	lerr := &LookupError{BuildID: id}
	for _, u := range c.URLs {
		p, e := c.fetch(ctx, u, id)
		if e == nil {
			return p, nil
		}
		lerr.Servers = append(lerr.Servers, e)
		if ctx.Err() != nil {
			break // the caller gave up: the servers not asked are not named
		}
	}
	return "", lerr
}

// Size is the size of id's debuginfo: the cached file's, else the first
// server's that announces one (announcedSize); -1 when none says. It is for telling a user what
// a fetch will cost, so a failure is only an unknown size.
func (c *Client) Size(ctx context.Context, buildID string) int64 {
	id, err := NormalizeBuildID(buildID)
	if err != nil {
		return -1
	}
	if c.CacheDir != "" {
		if p := c.CachePath(id); cached(p, id) {
			if st, err := os.Stat(p); err == nil {
				return st.Size()
			}
		}
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	for _, base := range c.URLs {
		if n := headSize(ctx, hc, base+"/buildid/"+id+"/debuginfo", c.Timeout); n >= 0 {
			return n
		}
	}
	return -1
}

// headSize asks u for its size without its body: HEAD, and when the
// server refuses HEAD (debuginfod 0.188 answers 400), a GET closed once
// its headers are in (the server extracts the file then, and keeps it in
// its fd cache for the download that follows).
func headSize(ctx context.Context, hc *http.Client, u string, timeout time.Duration) int64 {
	if timeout > 0 {
		var cancel func()
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	ask := func(method string) (status int, size int64) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel() // a GET's body is never read
		req, err := http.NewRequestWithContext(ctx, method, u, nil)
		if err != nil {
			return 0, -1
		}
		req.Header.Set("User-Agent", "btfinline-debuginfod")
		resp, err := hc.Do(req)
		if err != nil {
			return 0, -1
		}
		resp.Body.Close()
		return resp.StatusCode, announcedSize(resp)
	}
	status, n := ask(http.MethodHead)
	if status == http.StatusBadRequest || status == http.StatusMethodNotAllowed || status == http.StatusNotImplemented {
		status, n = ask(http.MethodGet)
	}
	if status != http.StatusOK {
		return -1
	}
	return n
}

// announcedSize is the size a server announced for a response's file:
// Content-Length, else debuginfod's X-DEBUGINFOD-SIZE (the uncompressed
// size, also sent when the transfer is compressed); -1 when neither says.
func announcedSize(resp *http.Response) int64 {
	if resp.ContentLength >= 0 {
		return resp.ContentLength
	}
	if n, err := strconv.ParseInt(resp.Header.Get("X-DEBUGINFOD-SIZE"), 10, 64); err == nil && n >= 0 {
		return n
	}
	return -1
}

// cached says whether p is a usable cached debuginfo of id: a non-empty
// regular file (an empty one is a negative-result marker), a whole ELF
// file, with that build id. A file that fails is left for the fetch to
// replace.
func cached(p, id string) bool {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return false
	}
	got, err := fileBuildID(p)
	return err == nil && got == id
}

// fileBuildID opens p as ELF and returns its GNU build id, or ErrCorrupt
// when it is not a whole ELF file (headers or section data past its end).
func fileBuildID(p string) (string, error) {
	f, err := elfobj.Open(p)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	defer f.Close()
	if err := f.CheckSections(); err != nil {
		return "", fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	id, err := f.BuildID()
	if err != nil {
		return "", fmt.Errorf("%w: reading its notes: %w", ErrCorrupt, err)
	}
	return id, nil
}

// fetch downloads id's debuginfo from server prefix base and returns its
// path in the cache.
func (c *Client) fetch(ctx context.Context, base, id string) (string, *Error) {
	reqURL := base + "/buildid/" + id + "/debuginfo"
	fail := func(status int, err error) (string, *Error) {
		return "", &Error{URL: reqURL, BuildID: id, Status: status, Err: err}
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fail(0, ErrBadURL)
	}

	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	guard := newStallGuard(c.Timeout, cancel)
	defer guard.stop()
	// netErr names a transfer that broke: the guard's cancel, the
	// caller's, or the network.
	netErr := func(status int, done int64, err error) (string, *Error) {
		switch {
		case guard.timedOut():
			return fail(status, fmt.Errorf("%w: less than 100 KiB in %v (DEBUGINFOD_TIMEOUT), after %d bytes", ErrTimeout, c.Timeout, done))
		case parent.Err() != nil:
			return fail(status, parent.Err())
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its text repeats the URL the Error names
		}
		return fail(status, fmt.Errorf("%w: %w", ErrUnreachable, err))
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, reqURL, nil)
	if err != nil {
		return fail(0, fmt.Errorf("%w: %w", ErrBadURL, err))
	}
	req.Header.Set("User-Agent", "btfinline-debuginfod")
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return netErr(0, 0, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return fail(resp.StatusCode, fmt.Errorf("the server has no debuginfo for build id %s (%w)", id, ErrNotFound))
	case resp.StatusCode != http.StatusOK:
		return fail(resp.StatusCode, fmt.Errorf("%w: HTTP %s%s", ErrStatus, resp.Status, bodyExcerpt(resp.Body)))
	}

	total := announcedSize(resp)

	dir, tmp, f, err := c.tempFile(id)
	if err != nil {
		return fail(resp.StatusCode, fmt.Errorf("%w: %w", ErrCache, err))
	}
	keep := false
	defer func() {
		if !keep {
			f.Close()
			os.Remove(tmp)
			if dir != "" {
				os.Remove(dir) // only if empty: never another's files
			}
		}
	}()

	w := &progressWriter{f: f, url: reqURL, total: max(total, 0), report: c.Progress, guard: guard}
	_, cerr := io.CopyBuffer(w, resp.Body, make([]byte, 1<<20))
	if c.Progress != nil {
		c.Progress(Progress{URL: reqURL, Done: w.done, Total: w.total, Finished: true})
	}
	if cerr != nil {
		if w.werr != nil {
			return fail(resp.StatusCode, fmt.Errorf("%w: %w", ErrCache, w.werr))
		}
		if errors.Is(cerr, io.ErrUnexpectedEOF) && !guard.timedOut() && parent.Err() == nil {
			return fail(resp.StatusCode, fmt.Errorf("%w: %d of %d bytes arrived: %w", ErrTruncated, w.done, total, cerr))
		}
		return netErr(resp.StatusCode, w.done, fmt.Errorf("after %d bytes: %w", w.done, cerr))
	}
	guard.stop()
	if xs := resp.Header.Get("X-DEBUGINFOD-SIZE"); xs != "" {
		if n, err := strconv.ParseInt(xs, 10, 64); err == nil && n != w.done {
			return fail(resp.StatusCode, fmt.Errorf("%w: %d bytes arrived, X-DEBUGINFOD-SIZE says %d", ErrTruncated, w.done, n))
		}
	}
	if total >= 0 && w.done != total {
		return fail(resp.StatusCode, fmt.Errorf("%w: %d of %d bytes arrived", ErrTruncated, w.done, total))
	}
	// Synced before the rename, so that after a crash the cache holds the
	// whole file or none (a cached file is also rechecked when found).
	if err := f.Sync(); err != nil {
		return fail(resp.StatusCode, fmt.Errorf("%w: %w", ErrCache, err))
	}
	if err := f.Close(); err != nil {
		return fail(resp.StatusCode, fmt.Errorf("%w: %w", ErrCache, err))
	}
	got, err := fileBuildID(tmp)
	if err != nil {
		return fail(resp.StatusCode, fmt.Errorf("%d bytes: %w", w.done, err))
	}
	if got != id {
		if got == "" {
			return fail(resp.StatusCode, fmt.Errorf("%w: the server sent a file with no GNU build id, asked for %s", ErrWrongFile, id))
		}
		return fail(resp.StatusCode, fmt.Errorf("%w: the server sent the file of build id %s, asked for %s", ErrWrongFile, got, id))
	}
	if c.CacheDir == "" {
		keep = true
		return tmp, nil
	}
	// Read-only, as elfutils leaves its cached files.
	os.Chmod(tmp, 0o400)
	final := c.CachePath(id)
	if err := os.Rename(tmp, final); err != nil {
		return fail(resp.StatusCode, fmt.Errorf("%w: %w", ErrCache, err))
	}
	keep = true
	if d, err := os.Open(filepath.Dir(final)); err == nil {
		d.Sync()
		d.Close()
	}
	return final, nil
}

// tempFile creates the file a download goes into: in the build id's
// cache folder (so the rename is atomic), made as elfutils makes it (the
// cache folder with the umask's permissions, the build id's folder
// 0700), or in the system's temporary folder without a cache. dir is the
// build id's folder when this call created it, for removal on failure.
func (c *Client) tempFile(id string) (dir, tmp string, f *os.File, err error) {
	if c.CacheDir == "" {
		f, err = os.CreateTemp("", "debuginfo-"+id+"-*")
		if err != nil {
			return "", "", nil, err
		}
		return "", f.Name(), f, nil
	}
	if err := os.MkdirAll(c.CacheDir, 0o777); err != nil {
		return "", "", nil, err
	}
	d := filepath.Join(c.CacheDir, id)
	switch err := os.Mkdir(d, 0o700); {
	case err == nil:
		dir = d
	case !errors.Is(err, os.ErrExist):
		return "", "", nil, err
	}
	f, err = os.CreateTemp(d, "debuginfo.btfinline-*")
	if err != nil {
		if dir != "" {
			os.Remove(dir)
		}
		return "", "", nil, err
	}
	return dir, f.Name(), f, nil
}

// bodyExcerpt is the first line of an error response, bounded, for the
// message (debuginfod explains itself in one short text/plain line).
func bodyExcerpt(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 200))
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if s == "" {
		return ""
	}
	return ": " + strconv.Quote(s)
}

// progressWriter writes to the temporary file, counts, reports progress,
// and tells the guard each time another timeoutBytes have arrived.
type progressWriter struct {
	f           *os.File
	url         string
	done, total int64
	mark        int64 // done when the guard was last told
	report      func(Progress)
	guard       *stallGuard
	werr        error
}

func (w *progressWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.done += int64(n)
	if err != nil {
		w.werr = err
		return n, err
	}
	if w.done-w.mark >= timeoutBytes {
		w.mark = w.done
		w.guard.progress()
	}
	if w.report != nil {
		w.report(Progress{URL: w.url, Done: w.done, Total: w.total})
	}
	return n, nil
}

// stallGuard applies DEBUGINFOD_TIMEOUT to one transfer: it cancels the
// transfer when d passes without another 100 KiB arriving, counted from
// the request (so connecting and the first 100 KiB are bounded as
// elfutils documents) and again from each 100 KiB (elfutils' curl
// low-speed limit also catches a server that stalls later, and a 600 MB
// body must not hang on one). A nil guard (no timeout) does nothing.
type stallGuard struct {
	mu    sync.Mutex
	t     *time.Timer
	d     time.Duration
	fired bool
	done  bool
}

func newStallGuard(d time.Duration, cancel func()) *stallGuard {
	if d <= 0 {
		return nil
	}
	g := &stallGuard{d: d}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.t = time.AfterFunc(d, func() {
		g.mu.Lock()
		stopped := g.done
		g.fired = !stopped
		g.mu.Unlock()
		if !stopped {
			cancel()
		}
	})
	return g
}

// progress restarts the period: another 100 KiB arrived.
func (g *stallGuard) progress() {
	if g == nil {
		return
	}
	g.mu.Lock()
	if !g.fired && !g.done {
		g.t.Reset(g.d)
	}
	g.mu.Unlock()
}

// stop ends the guard: the transfer is over.
func (g *stallGuard) stop() {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.done = true
	g.t.Stop()
	g.mu.Unlock()
}

// timedOut says whether the guard cancelled the transfer.
func (g *stallGuard) timedOut() bool {
	if g == nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.fired
}
