//go:build linux

package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/btfinline/btfinline/internal/ksys"
	"golang.org/x/sys/unix"
)

// Pausing kprobe jump optimization changes the whole kernel, and nothing a
// run changes may outlive it, however it ends (docs/trace.md, "Nothing left
// behind"). Three layers see to that:
//
//   - a record (/run/btfinline/optprobes) of the value before and of every
//     session that holds the pause, written before the sysctl is: the
//     value goes back when the last live session lets go, so two
//     overlapping runs do not turn it on under each other;
//   - a watchdog, the same binary re-executed in its own session, holding
//     the read end of a pipe from the run: when the run dies, even of
//     SIGKILL, the pipe closes, and the watchdog waits for the run's fds to
//     be released (its kprobes are unregistered then) and lets go for it;
//   - the next run, and "btfinline trace --cleanup", which restore the
//     value when the record names no live session (the watchdog was
//     killed too, or the machine's /run survived both).

// WatchdogArg, as the first argument, runs the watchdog instead of the
// command line (see HelperMain).
const WatchdogArg = "__btfinline-optprobes-watchdog"

// optprobesSysctl switches kprobe jump optimization for the whole kernel.
const optprobesSysctl = "/proc/sys/debug/kprobes-optimization"

// optRecordDir holds the record and its lock; /run is a tmpfs, so a reboot,
// which resets the sysctl, also forgets the record.
const optRecordDir = "/run/btfinline"

// writeSysctl is a variable so that a test can look at the record at the
// moment the sysctl changes.
var writeSysctl = func(path, v string) error { return os.WriteFile(path, []byte(v), 0) }

// session names a process in a way that survives pid reuse.
type session struct {
	pid   int
	start uint64 // starttime of /proc/PID/stat, in clock ticks since boot
}

// processStart reads the state and starttime of /proc/PID/stat; ok is
// false when the process is gone.
func processStart(pid int) (state byte, start uint64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// comm may hold spaces and parentheses: the fields start after the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], v, true
}

// alive: a zombie counts as dead, for its fds, and with them its kprobes
// and BPF objects, are released before it becomes one.
func (s session) alive() bool {
	state, start, ok := processStart(s.pid)
	return ok && start == s.start && state != 'Z' && state != 'X'
}

func self() (session, error) {
	pid := os.Getpid()
	_, start, ok := processStart(pid)
	if !ok {
		return session{}, errors.New("cannot read /proc/self/stat")
	}
	return session{pid, start}, nil
}

// optRecord is the record file: the sysctl's value before the first
// session paused it, and the sessions holding the pause.
type optRecord struct {
	value    string
	sessions []session
}

type optStore struct{ root string }

func (st optStore) sysctl() string { return filepath.Join(st.root, optprobesSysctl) }
func (st optStore) dir() string    { return filepath.Join(st.root, optRecordDir) }
func (st optStore) record() string { return filepath.Join(st.dir(), "optprobes") }

// lock serialises every reader and writer of the record across processes;
// the kernel drops a dead holder's flock.
func (st optStore) lock() (unlock func(), err error) {
	if err := os.MkdirAll(st.dir(), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(st.dir(), "optprobes.lock"), os.O_RDWR|os.O_CREATE|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// load reads the record; nil when there is none.
func (st optStore) load() (*optRecord, error) {
	b, err := os.ReadFile(st.record())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r := &optRecord{}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#"):
		case f[0] == "value" && len(f) == 2:
			r.value = f[1]
		case f[0] == "session" && len(f) == 3:
			pid, err1 := strconv.Atoi(f[1])
			start, err2 := strconv.ParseUint(f[2], 10, 64)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("%s: bad line %q", st.record(), sc.Text())
			}
			r.sessions = append(r.sessions, session{pid, start})
		default:
			return nil, fmt.Errorf("%s: bad line %q", st.record(), sc.Text())
		}
	}
	if r.value == "" {
		return nil, fmt.Errorf("%s: no value line", st.record())
	}
	return r, nil
}

// save writes the record whole or not at all: a run killed halfway leaves
// the old one.
func (st optStore) save(r *optRecord) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# btfinline trace paused %s: it goes back to this value when no session below is alive\n", optprobesSysctl)
	fmt.Fprintf(&b, "value %s\n", r.value)
	for _, s := range r.sessions {
		fmt.Fprintf(&b, "session %d %d\n", s.pid, s.start)
	}
	tmp := st.record() + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(b.String())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, st.record())
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// release drops the sessions in gone and every dead one, and when none is
// left restores the value and removes the record. Under the lock.
func (st optStore) release(r *optRecord, gone ...session) (restored bool, err error) {
	var live []session
	for _, s := range r.sessions {
		drop := !s.alive()
		for _, g := range gone {
			drop = drop || s == g
		}
		if !drop {
			live = append(live, s)
		}
	}
	if len(live) > 0 {
		r.sessions = live
		return false, st.save(r)
	}
	if err := writeSysctl(st.sysctl(), r.value); err != nil {
		return false, fmt.Errorf("restoring %s to %s: %w", optprobesSysctl, r.value, err)
	}
	return true, os.Remove(st.record())
}

// recoverStale restores the value of a record whose sessions are all dead.
// It is quiet (and creates nothing) when there is no record.
func (st optStore) recoverStale() (msg string, err error) {
	if _, err := os.Stat(st.record()); errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	unlock, err := st.lock()
	if err != nil {
		return "", err
	}
	defer unlock()
	r, err := st.load()
	if err != nil || r == nil {
		return "", err
	}
	pids := r.pids()
	restored, err := st.release(r)
	switch {
	case err != nil:
		return "", err
	case restored:
		return fmt.Sprintf("restored %s to %s, which trace session(s) %s paused and did not restore (killed with their watchdog?)", optprobesSysctl, r.value, pids), nil
	}
	return fmt.Sprintf("%s is paused by running trace session(s) %s: left to them", optprobesSysctl, r.pids()), nil
}

func (r *optRecord) pids() string {
	var p []string
	for _, s := range r.sessions {
		p = append(p, "pid "+strconv.Itoa(s.pid))
	}
	return strings.Join(p, ", ")
}

// optGuard is one run's hold on the pause.
type optGuard struct {
	st   optStore
	me   session
	held bool
	wd   *exec.Cmd
	pipe *os.File // the write end; its close tells the watchdog
}

func newOptGuard(sys ksys.System) *optGuard { return &optGuard{st: optStore{sys.Root}} }

// pause turns kprobe jump optimization off while many kprobes are
// registered or unregistered. The kernel's optimizer holds kprobe_mutex
// across an RCU-tasks grace period in every round, and a round runs after
// each armed kprobe: thousands of kprobes registered one by one wait for
// thousands of grace periods. Without it they are armed as breakpoints
// and optimized together when it is back on. It changes nothing (and
// says why through err, or with neither when the knob is off already)
// unless the change can be undone whatever ends the run: the record is
// written and the watchdog runs before the sysctl is written.
func (g *optGuard) pause() (paused bool, err error) {
	if g.held {
		return true, nil
	}
	if g.me.pid == 0 {
		if g.me, err = self(); err != nil {
			return false, err
		}
	}
	unlock, err := g.st.lock()
	if err != nil {
		return false, fmt.Errorf("record %s: %w", g.st.dir(), err)
	}
	defer unlock()
	r, err := g.st.load()
	if err != nil {
		return false, err
	}
	if r != nil {
		var live []session
		for _, s := range r.sessions {
			if s.alive() {
				live = append(live, s)
			}
		}
		if len(live) == 0 {
			// Paused by runs that died with their watchdogs: back to
			// where they found it, then on as if there were no record.
			if _, err := g.st.release(r); err != nil {
				return false, err
			}
			r = nil
		} else {
			r.sessions = live
		}
	}
	if r == nil {
		b, err := os.ReadFile(g.st.sysctl())
		if err != nil || strings.TrimSpace(string(b)) != "1" {
			return false, nil
		}
		r = &optRecord{value: "1"}
	}
	if err := g.startWatchdog(); err != nil {
		return false, err
	}
	r.sessions = append(r.sessions, g.me)
	if err := g.st.save(r); err != nil {
		return false, fmt.Errorf("record %s: %w", g.st.record(), err)
	}
	if err := writeSysctl(g.st.sysctl(), "0"); err != nil {
		// Not paused: take the session out again.
		_, _ = g.st.release(r, g.me)
		return false, nil
	}
	g.held = true
	return true, nil
}

// resume lets go of the pause: the value goes back unless another live
// session holds it.
func (g *optGuard) resume() error {
	if !g.held {
		return nil
	}
	g.held = false
	unlock, err := g.st.lock()
	if err != nil {
		return err
	}
	defer unlock()
	r, err := g.st.load()
	if err != nil || r == nil {
		return err
	}
	_, err = g.st.release(r, g.me)
	return err
}

// close resumes and stops the watchdog.
func (g *optGuard) close() error {
	err := g.resume()
	if g.wd != nil {
		g.pipe.Close()
		if err != nil {
			// The record still names this run: the watchdog lets go for
			// it once it has exited, so it must not be waited for.
			g.wd.Process.Release()
		} else if werr := g.wd.Wait(); werr != nil {
			err = fmt.Errorf("optprobes watchdog: %w", werr)
		}
		g.wd = nil
	}
	return err
}

// startWatchdog starts the watchdog once per run and waits until it is
// ready. Its own session keeps it out of the signals a terminal or a
// "kill -- -PGID" sends to the run's process group.
func (g *optGuard) startWatchdog() error {
	if g.wd != nil {
		return nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	ready, readyW, err := os.Pipe()
	if err != nil {
		r.Close()
		w.Close()
		return err
	}
	defer ready.Close()
	cmd := exec.Command("/proc/self/exe", WatchdogArg, g.st.root, strconv.Itoa(g.me.pid), strconv.FormatUint(g.me.start, 10))
	cmd.ExtraFiles = []*os.File{r, readyW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	r.Close()
	readyW.Close()
	if err != nil {
		w.Close()
		return fmt.Errorf("starting the optprobes watchdog: %w", err)
	}
	ready.SetReadDeadline(time.Now().Add(10 * time.Second))
	b := make([]byte, 2)
	if n, _ := io.ReadFull(ready, b); n != 2 || string(b) != "ok" {
		w.Close()
		cmd.Process.Kill()
		cmd.Wait()
		return errors.New("the optprobes watchdog did not start")
	}
	g.wd, g.pipe = cmd, w
	return nil
}

// HelperMain runs the hidden helpers of the trace command when args (a
// whole os.Args) asks for one: the binary's main, and a test binary's
// TestMain, call it first. ok is false for every other command line.
func HelperMain(args []string) (code int, ok bool) {
	if len(args) < 2 || args[1] != WatchdogArg {
		return 0, false
	}
	if err := watchdog(args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "btfinline optprobes watchdog:", err)
		return 1, true
	}
	return 0, true
}

// watchdog ROOT PID START, with the run's pipe on fd 3 and its readiness
// pipe on fd 4.
func watchdog(args []string) error {
	if len(args) != 3 {
		return errors.New("usage: ROOT PID START")
	}
	pid, err1 := strconv.Atoi(args[1])
	start, err2 := strconv.ParseUint(args[2], 10, 64)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("bad session %q %q", args[1], args[2])
	}
	// It must outlive the run; a signal meant for the run's processes is
	// not for it (SIGKILL still is: the record is there for that).
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGPIPE)
	parent := os.NewFile(3, "run")
	ready := os.NewFile(4, "ready")
	if parent == nil || ready == nil {
		return errors.New("no pipes")
	}
	ready.Write([]byte("ok"))
	ready.Close()
	io.Copy(io.Discard, parent)
	st, s := optStore{args[0]}, session{pid, start}
	holds := func() (bool, error) {
		unlock, err := st.lock()
		if err != nil {
			return false, err
		}
		defer unlock()
		r, err := st.load()
		if err != nil || r == nil {
			return false, err
		}
		for _, x := range r.sessions {
			if x == s {
				return true, nil
			}
		}
		return false, nil
	}
	// A run that ends normally lets go itself before closing the pipe.
	if ok, err := holds(); !ok || err != nil {
		return err
	}
	// Killed: the kernel is still closing its fds, unregistering its
	// kprobes one by one; with optimization back on it would run an
	// optimizer round between each.
	for s.alive() {
		time.Sleep(10 * time.Millisecond)
	}
	unlock, err := st.lock()
	if err != nil {
		return err
	}
	defer unlock()
	r, err := st.load()
	if err != nil || r == nil {
		return err
	}
	_, err = st.release(r, s)
	return err
}

// Cleanup restores what a killed run left: kprobe jump optimization, when
// the record names no live session. Kprobes and BPF objects need nothing:
// the kernel releases them with the process' fds.
func Cleanup(sys ksys.System, w io.Writer) error {
	msg, err := optStore{sys.Root}.recoverStale()
	if err != nil {
		return err
	}
	if msg == "" {
		msg = "nothing to restore: no record of a paused " + optprobesSysctl
	}
	fmt.Fprintln(w, "btfinline trace --cleanup:", msg)
	return nil
}
