//go:build linux

package trace

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/btfinline/btfinline/internal/ksys"
)

// pauserArg makes the test binary a trace run that holds the pause (on the
// fake tree ROOT) until its stdin closes, its watchdog being the test
// binary too.
const pauserArg = "__btfinline-test-pauser"

func TestMain(m *testing.M) {
	if code, ok := HelperMain(os.Args); ok {
		os.Exit(code)
	}
	if len(os.Args) == 3 && os.Args[1] == pauserArg {
		os.Exit(pauser(os.Args[2]))
	}
	os.Exit(m.Run())
}

func pauser(root string) int {
	g := newOptGuard(ksys.System{Root: root})
	paused, err := g.pause()
	if !paused || err != nil {
		fmt.Printf("not paused: %v\n", err)
		return 1
	}
	fmt.Printf("paused %d\n", g.wd.Process.Pid)
	io.Copy(io.Discard, os.Stdin)
	if err := g.close(); err != nil {
		fmt.Println(err)
		return 1
	}
	return 0
}

// optRoot is a tree with the sysctl at v.
func optRoot(t *testing.T, v string) ksys.System {
	root := t.TempDir()
	p := filepath.Join(root, optprobesSysctl)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(v+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ksys.System{Root: root}
}

func sysctlOf(t *testing.T, sys ksys.System) string {
	b, err := os.ReadFile(filepath.Join(sys.Root, optprobesSysctl))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func recordOf(t *testing.T, sys ksys.System) *optRecord {
	r, err := optStore{sys.Root}.load()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func gone(pid int) bool {
	state, _, ok := processStart(pid)
	return !ok || state == 'Z'
}

// settle waits until cond holds (what a watchdog does takes it a moment).
func settle(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("after 10 s: not %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type pauserProc struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	watchdog int
}

func startPauser(t *testing.T, sys ksys.System) *pauserProc {
	t.Helper()
	cmd := exec.Command("/proc/self/exe", pauserArg, sys.Root)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &pauserProc{cmd: cmd, stdin: in}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, _ := bufio.NewReader(out).ReadString('\n')
	if _, err := fmt.Sscanf(line, "paused %d", &p.watchdog); err != nil {
		t.Fatalf("pauser said %q", line)
	}
	return p
}

func (p *pauserProc) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()
}

func (p *pauserProc) end(t *testing.T) {
	t.Helper()
	p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("pauser: %v", err)
	}
}

func (p *pauserProc) session(t *testing.T) session {
	_, start, ok := processStart(p.cmd.Process.Pid)
	if !ok {
		t.Fatalf("pauser %d gone", p.cmd.Process.Pid)
	}
	return session{p.cmd.Process.Pid, start}
}

func sessionsOf(t *testing.T, sys ksys.System) []session {
	r := recordOf(t, sys)
	if r == nil {
		return nil
	}
	return r.sessions
}

// The record names the session before the sysctl changes, and the value
// is back once the run lets go; the watchdog then ends by itself.
func TestOptprobesRecordFirst(t *testing.T) {
	sys := optRoot(t, "1")
	g := newOptGuard(sys)
	orig := writeSysctl
	defer func() { writeSysctl = orig }()
	writeSysctl = func(path, v string) error {
		r := recordOf(t, sys)
		if v == "0" {
			me, _ := self()
			if r == nil || r.value != "1" || len(r.sessions) != 1 || r.sessions[0] != me {
				t.Errorf("record when pausing: %+v, want value 1, session %v", r, me)
			}
			if g.wd == nil {
				t.Error("no watchdog when pausing")
			}
		}
		return orig(path, v)
	}
	paused, err := g.pause()
	if !paused || err != nil {
		t.Fatalf("pause: %v %v", paused, err)
	}
	if v := sysctlOf(t, sys); v != "0" {
		t.Fatalf("sysctl %s while paused", v)
	}
	wd := g.wd.Process.Pid
	if err := g.resume(); err != nil {
		t.Fatal(err)
	}
	if v, r := sysctlOf(t, sys), recordOf(t, sys); v != "1" || r != nil {
		t.Fatalf("after resume: sysctl %s, record %+v", v, r)
	}
	// Attach and detach pause twice, with one watchdog.
	if paused, err := g.pause(); !paused || err != nil || g.wd.Process.Pid != wd {
		t.Fatalf("second pause: %v %v", paused, err)
	}
	if err := g.close(); err != nil {
		t.Fatal(err)
	}
	if v, r := sysctlOf(t, sys), recordOf(t, sys); v != "1" || r != nil {
		t.Fatalf("after close: sysctl %s, record %+v", v, r)
	}
	if !gone(wd) {
		t.Fatalf("watchdog %d still running after close", wd)
	}
}

// A knob that is off already is not touched, and nothing is recorded.
func TestOptprobesOffAlready(t *testing.T) {
	sys := optRoot(t, "0")
	g := newOptGuard(sys)
	if paused, err := g.pause(); paused || err != nil || g.wd != nil {
		t.Fatalf("pause of an off knob: %v %v, watchdog %v", paused, err, g.wd != nil)
	}
	if _, err := os.Stat(filepath.Join(sys.Root, optRecordDir, "optprobes")); err == nil {
		t.Fatal("a record for an untouched knob")
	}
	g.close()
}

// SIGKILL: the watchdog restores the value once the run is gone.
func TestOptprobesKilled(t *testing.T) {
	sys := optRoot(t, "1")
	p := startPauser(t, sys)
	if v, s := sysctlOf(t, sys), sessionsOf(t, sys); v != "0" || len(s) != 1 || s[0] != p.session(t) {
		t.Fatalf("paused: sysctl %s, sessions %v", v, s)
	}
	p.kill(t)
	settle(t, "restored by the watchdog", func() bool { return sysctlOf(t, sys) == "1" && recordOf(t, sys) == nil })
	settle(t, "watchdog ended", func() bool { return gone(p.watchdog) })
}

// The watchdog killed too: the value stays paused, and --cleanup, or the
// next run, restores it.
func TestOptprobesCleanup(t *testing.T) {
	for _, next := range []string{"cleanup", "next run"} {
		t.Run(next, func(t *testing.T) {
			sys := optRoot(t, "1")
			p := startPauser(t, sys)
			syscall.Kill(p.watchdog, syscall.SIGKILL)
			settle(t, "watchdog killed", func() bool { return gone(p.watchdog) })
			p.kill(t)
			time.Sleep(100 * time.Millisecond)
			if v, r := sysctlOf(t, sys), recordOf(t, sys); v != "0" || r == nil {
				t.Fatalf("both killed: sysctl %s, record %+v (want 0 and the record)", v, r)
			}
			if next == "cleanup" {
				var b bytes.Buffer
				if err := Cleanup(sys, &b); err != nil {
					t.Fatal(err)
				}
				want := fmt.Sprintf("btfinline trace --cleanup: restored %s to 1, which trace session(s) pid %d paused", optprobesSysctl, p.cmd.Process.Pid)
				if !strings.HasPrefix(b.String(), want) {
					t.Errorf("cleanup said %q, want %q...", b.String(), want)
				}
				b.Reset()
				if err := Cleanup(sys, &b); err != nil || !strings.Contains(b.String(), "nothing to restore") {
					t.Errorf("second cleanup: %v %q", err, b.String())
				}
			} else {
				g := newOptGuard(sys)
				if paused, err := g.pause(); !paused || err != nil {
					t.Fatalf("pause after a dead session: %v %v", paused, err)
				}
				me, _ := self()
				if r := recordOf(t, sys); r.value != "1" || len(r.sessions) != 1 || r.sessions[0] != me {
					t.Fatalf("record after the next run paused: %+v", r)
				}
				g.close()
			}
			if v, r := sysctlOf(t, sys), recordOf(t, sys); v != "1" || r != nil {
				t.Fatalf("after %s: sysctl %s, record %+v", next, v, r)
			}
		})
	}
}

// Two sessions at once: the value goes back when the last one ends,
// whichever ends first and however.
func TestOptprobesOverlap(t *testing.T) {
	for _, firstKilled := range []bool{true, false} {
		t.Run("first "+map[bool]string{true: "killed", false: "ends"}[firstKilled], func(t *testing.T) {
			sys := optRoot(t, "1")
			a := startPauser(t, sys)
			b := startPauser(t, sys)
			if s := sessionsOf(t, sys); len(s) != 2 || s[0] != a.session(t) || s[1] != b.session(t) {
				t.Fatalf("sessions %v, want both", s)
			}
			bs := b.session(t)
			if firstKilled {
				a.kill(t)
				settle(t, "first watchdog ended", func() bool { return gone(a.watchdog) })
			} else {
				a.end(t)
			}
			if v, s := sysctlOf(t, sys), sessionsOf(t, sys); v != "0" || len(s) != 1 || s[0] != bs {
				t.Fatalf("first gone: sysctl %s, sessions %v (want 0 and the second)", v, s)
			}
			var out bytes.Buffer
			if err := Cleanup(sys, &out); err != nil || !strings.Contains(out.String(), "paused by running trace session(s) pid "+strconv.Itoa(bs.pid)) {
				t.Errorf("cleanup with a live session: %v %q", err, out.String())
			}
			if v := sysctlOf(t, sys); v != "0" {
				t.Fatalf("cleanup restored under a live session: %s", v)
			}
			if firstKilled {
				b.end(t)
			} else {
				b.kill(t)
			}
			settle(t, "restored after the last", func() bool { return sysctlOf(t, sys) == "1" && recordOf(t, sys) == nil })
		})
	}
}
