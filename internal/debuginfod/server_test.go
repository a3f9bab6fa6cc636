package debuginfod

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/btfinline/btfinline/internal/testutil"
)

// server is a real elfutils debuginfod, started by startServer.
//
// debuginfod 0.188 has no option to choose its listening address: it
// binds the port on every interface (IPv4 and IPv6). The tests therefore
// only ever point the client at 127.0.0.1, run the server with no
// DEBUGINFOD_URLS (so it never forwards a miss to an upstream server),
// and stop it when the test ends; no traffic leaves the machine.
type server struct {
	URL  string // http://127.0.0.1:PORT
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// startServer starts debuginfod on a free port with its database in a
// temporary folder, with scan arguments args (-U DIR for .deb files, -F
// DIR for plain ELF files), and waits until it has indexed files
// archives or ELF files (scanned_files_total in /metrics) and its scan
// queue is empty. It is stopped when t ends.
func startServer(t testing.TB, files int, args ...string) *server {
	t.Helper()
	bin := testutil.SystemTool(t, "debuginfod")
	for _, a := range args {
		if a == "-U" {
			// 0.188 unpacks .deb files by running bsdtar; without it the
			// server indexes nothing and says nothing.
			testutil.SystemTool(t, "bsdtar")
		}
	}
	var lastErr error
	// A free port is found by listening and closing; another process may
	// take it before debuginfod binds, so a start that fails is retried.
	for attempt := 0; attempt < 3; attempt++ {
		s, err := tryStart(t, bin, args)
		if err != nil {
			lastErr = err
			continue
		}
		if err := s.waitIndexed(files, 10*time.Minute); err != nil {
			t.Fatalf("debuginfod %v: %v\n%s", args, err, s.logTail())
		}
		return s
	}
	t.Fatalf("debuginfod %v did not start: %v", args, lastErr)
	return nil
}

func tryStart(t testing.TB, bin string, args []string) (*server, error) {
	port := freePort(t)
	dir := t.TempDir()
	s := &server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), log: filepath.Join(dir, "log"), done: make(chan struct{})}
	logf, err := os.Create(s.log)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	argv := append([]string{
		"-d", filepath.Join(dir, "db.sqlite"),
		"-p", strconv.Itoa(port),
		"-t", "0", // no rescans: the folders do not change
		"-g", "0", // no grooming
		"-v",
	}, args...)
	s.cmd = exec.Command(bin, argv...)
	s.cmd.Dir = dir
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	s.cmd.Env = serverEnv(dir)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	t.Cleanup(s.Stop)
	// Up when /metrics answers; a server that exits first lost the port.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return nil, fmt.Errorf("exited: %v\n%s", s.cmd.ProcessState, s.logTail())
		default:
		}
		if _, err := s.metrics(); err == nil {
			return s, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.Stop()
	return nil, fmt.Errorf("no answer on %s in 30 s\n%s", s.URL, s.logTail())
}

// serverEnv is the test's environment without DEBUGINFOD_* (a server
// with DEBUGINFOD_URLS would forward misses upstream) and with TMPDIR,
// where it unpacks archive members, in the test's folder.
func serverEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DEBUGINFOD_") && !strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	return append(env, "TMPDIR="+dir)
}

// freePort is a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Stop kills the server and waits for it to exit.
func (s *server) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Kill()
	<-s.done
}

// metrics reads /metrics: the value of each line, by name with labels.
func (s *server) metrics() (map[string]float64, error) {
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("/metrics: %s", resp.Status)
	}
	m := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		if i < 0 || strings.HasPrefix(line, "#") {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			m[line[:i]] = v
		}
	}
	return m, sc.Err()
}

// waitIndexed polls /metrics until files archives or ELF files were
// scanned and no scan is pending or running, or the deadline passes.
func (s *server) waitIndexed(files int, within time.Duration) error {
	deadline := time.Now().Add(within)
	var last map[string]float64
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("exited while indexing: %v", s.cmd.ProcessState)
		default:
		}
		m, err := s.metrics()
		if err == nil {
			last = m
			scanned := 0.0
			for k, v := range m {
				if strings.HasPrefix(k, "scanned_files_total{") {
					scanned += v
				}
			}
			if scanned >= float64(files) && m[`thread_work_pending{role="scan"}`] == 0 && m[`thread_busy{role="scan"}`] == 0 {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("not indexed %d files in %v; last metrics: %v", files, within, last)
}

// logTail is the end of the server's log, for a failure's message.
func (s *server) logTail() string {
	b, _ := os.ReadFile(s.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// fixture is a checked-in ELF file with a GNU build id and DWARF (package
// resolve's, see resolve/testdata/Makefile).
type fixture struct {
	path, id string
}

// buildDeb makes a .deb in dir holding each fixture at its
// /usr/lib/debug/.build-id/xx/rest.debug path, as Debian's -dbg packages
// place them, and returns its path.
func buildDeb(t testing.TB, dir, name string, fs ...fixture) string {
	t.Helper()
	dpkg := testutil.SystemTool(t, "dpkg-deb")
	root := t.TempDir()
	for _, f := range fs {
		p := filepath.Join(root, "usr", "lib", "debug", ".build-id", f.id[:2], f.id[2:]+".debug")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctl := filepath.Join(root, "DEBIAN", "control")
	os.MkdirAll(filepath.Dir(ctl), 0o755)
	control := "Package: " + name + "\nVersion: 1.0\nArchitecture: amd64\nMaintainer: btfinline tests <tests@localhost>\nDescription: debuginfod test fixture\n"
	if err := os.WriteFile(ctl, []byte(control), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name+"_1.0_amd64.deb")
	if b, err := exec.Command(dpkg, "--root-owner-group", "-Zgzip", "--build", root, out).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb: %v\n%s", err, b)
	}
	return out
}
