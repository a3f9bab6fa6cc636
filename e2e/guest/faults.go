//go:build linux

package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	btftrace "github.com/btfinline/btfinline/internal/trace"
	"github.com/cilium/ebpf"
)

const (
	optprobes   = "/proc/sys/debug/kprobes-optimization"
	kprobesList = "/sys/kernel/debug/kprobes/list"
	optRecord   = "/run/btfinline/optprobes"
)

// kernelState is what a trace run may change in the kernel, and must not
// leave changed.
type kernelState struct {
	optprobes  string
	kprobes    []string
	progs      []string // "ID NAME" of every BPF program
	maps       []string
	record     bool
	watchdogs  []int
	traceProcs []int
}

func bpfObjects(next func(uint32) (uint32, error), name func(uint32) string) []string {
	var out []string
	for id := uint32(0); ; {
		n, err := next(id)
		if err != nil {
			return out
		}
		id = n
		out = append(out, fmt.Sprintf("%d %s", id, name(id)))
	}
}

// processesOf lists the pids whose command line holds arg.
func processesOf(arg string) []int {
	var out []int
	ds, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range ds {
		b, err := os.ReadFile(d)
		if err != nil || !strings.Contains(string(b), arg) {
			continue
		}
		var pid int
		fmt.Sscanf(d, "/proc/%d/cmdline", &pid)
		if pid != os.Getpid() {
			out = append(out, pid)
		}
	}
	return out
}

func readState() kernelState {
	var s kernelState
	b, _ := os.ReadFile(optprobes)
	s.optprobes = strings.TrimSpace(string(b))
	if l, err := readLines(kprobesList); err == nil {
		s.kprobes = l
	} else {
		s.kprobes = []string{"unreadable: " + err.Error()}
	}
	s.progs = bpfObjects(func(id uint32) (uint32, error) {
		n, err := ebpf.ProgramGetNextID(ebpf.ProgramID(id))
		return uint32(n), err
	}, func(id uint32) string {
		p, err := ebpf.NewProgramFromID(ebpf.ProgramID(id))
		if err != nil {
			return "?"
		}
		defer p.Close()
		if i, err := p.Info(); err == nil {
			return i.Name
		}
		return "?"
	})
	s.maps = bpfObjects(func(id uint32) (uint32, error) {
		n, err := ebpf.MapGetNextID(ebpf.MapID(id))
		return uint32(n), err
	}, func(id uint32) string {
		m, err := ebpf.NewMapFromID(ebpf.MapID(id))
		if err != nil {
			return "?"
		}
		defer m.Close()
		if i, err := m.Info(); err == nil {
			return i.Name
		}
		return "?"
	})
	_, err := os.Stat(optRecord)
	s.record = err == nil
	s.watchdogs = processesOf(btftrace.WatchdogArg)
	s.traceProcs = processesOf("btfinline\x00trace\x00")
	return s
}

// differs says what of s is not as in before.
func (s kernelState) differs(before kernelState) []string {
	var d []string
	if s.optprobes != before.optprobes {
		d = append(d, fmt.Sprintf("%s is %q, was %q", optprobes, s.optprobes, before.optprobes))
	}
	if len(s.kprobes) != len(before.kprobes) {
		d = append(d, fmt.Sprintf("%d kprobes registered (%s), were %d", len(s.kprobes), strings.Join(first(s.kprobes, 3), "; "), len(before.kprobes)))
	}
	if x := added(before.progs, s.progs); len(x) > 0 {
		d = append(d, fmt.Sprintf("%d BPF programs left (%s)", len(x), strings.Join(first(x, 3), "; ")))
	}
	if x := added(before.maps, s.maps); len(x) > 0 {
		d = append(d, fmt.Sprintf("%d BPF maps left (%s)", len(x), strings.Join(first(x, 3), "; ")))
	}
	if s.record && !before.record {
		d = append(d, optRecord+" left")
	}
	if len(s.watchdogs) > 0 {
		d = append(d, fmt.Sprintf("watchdog processes left: %v", s.watchdogs))
	}
	if len(s.traceProcs) > 0 {
		d = append(d, fmt.Sprintf("trace processes left: %v", s.traceProcs))
	}
	return d
}

func added(before, after []string) []string {
	had := map[string]bool{}
	for _, x := range before {
		had[x] = true
	}
	var out []string
	for _, x := range after {
		if !had[x] {
			out = append(out, x)
		}
	}
	return out
}

func first(l []string, n int) []string { return l[:min(n, len(l))] }

// settled waits for the state to be back as before: the kernel frees the
// maps of a program an RCU grace period after the program, and the
// watchdog needs a moment once the run is gone. It returns what still
// differs after the wait, and how long it waited.
func settled(before kernelState, wait time.Duration) ([]string, time.Duration) {
	t0 := time.Now()
	for {
		d := readState().differs(before)
		if len(d) == 0 || time.Since(t0) > wait {
			return d, time.Since(t0)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// traceRun is one btfinline trace in the background, its stderr watched
// for the "Attached" and "detached" lines.
type traceRun struct {
	cmd      *exec.Cmd
	start    time.Time
	attached chan struct{}
	paused   chan struct{} // the sysctl is paused
	pausedAt time.Time
	done     chan struct{}
	mu       sync.Mutex
	stderr   []string
	places   string
	err      error
}

func startTrace(bin string, args []string) (*traceRun, error) {
	r := &traceRun{attached: make(chan struct{}), paused: make(chan struct{}), done: make(chan struct{})}
	r.cmd = exec.Command(bin, append([]string{"trace"}, args...)...)
	pipe, err := r.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	r.start = time.Now()
	if err := r.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(pipe)
		once, paused := false, false
		for sc.Scan() {
			l := sc.Text()
			r.mu.Lock()
			r.stderr = append(r.stderr, l)
			r.mu.Unlock()
			if strings.Contains(l, "kprobe jump optimization paused") && !paused {
				paused = true
				r.pausedAt = time.Now()
				close(r.paused)
			}
			if strings.HasPrefix(l, "Attached ") && !once {
				once = true
				r.places = strings.Fields(l)[1]
				close(r.attached)
			}
		}
		io.Copy(io.Discard, pipe)
		r.err = r.cmd.Wait()
		close(r.done)
	}()
	return r, nil
}

func (r *traceRun) saw(prefix string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.stderr {
		if strings.Contains(l, prefix) {
			return true
		}
	}
	return false
}

// waitAttached: false when the run ended (or 300 s passed) first.
func (r *traceRun) waitAttached() bool {
	select {
	case <-r.attached:
		return true
	case <-r.done:
		return false
	case <-time.After(300 * time.Second):
		return false
	}
}

// faultsCmd [-n N] [-seed S] [-selftest] -btfinline BIN FUNC: SIGKILL
// btfinline trace FUNC at N seeded moments of its attach, event loop and
// detach; after each the kernel must be as before.
func faultsCmd(args []string) error {
	fs := flag.NewFlagSet("faults", flag.ContinueOnError)
	n := fs.Int("n", 21, "kills")
	seed := fs.Uint64("seed", 4242, "seed of the moments")
	bin := fs.String("btfinline", "/bin/btfinline", "the btfinline binary")
	selftest := fs.Bool("selftest", false, "leave the state changed after the first three kills (the check must fail)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: faults [-n N] [-seed S] [-selftest] -btfinline BIN FUNC")
	}
	fn := fs.Arg(0)
	targs := []string{fn, "--json"}
	before := readState()
	if before.optprobes != "1" {
		return fmt.Errorf("%s is %q before: the pause would not be tested", optprobes, before.optprobes)
	}
	if len(before.kprobes) != 0 || before.record || len(before.watchdogs) > 0 {
		return fmt.Errorf("not clean before: %v", kernelState{}.differs(before))
	}
	t00 := time.Now()
	// check says what differs from before once the run is reaped.
	bad := 0
	check := func(what string, wait time.Duration) {
		d, waited := settled(before, wait)
		if len(d) > 0 {
			bad++
			fmt.Printf("E2E error faults %s: left behind after %.2f s: %s\n", what, waited.Seconds(), strings.Join(d, "; "))
			return
		}
		fmt.Printf("E2E faults %s: clean after %.2f s\n", what, waited.Seconds())
	}
	// One whole run first: it must work, and it gives the phases' lengths.
	full := func(what string) (attach, setup, detach time.Duration, places string, err error) {
		r, err := startTrace(*bin, targs)
		if err != nil {
			return 0, 0, 0, "", err
		}
		if !r.waitAttached() {
			<-r.done
			return 0, 0, 0, "", fmt.Errorf("%s: trace did not attach: %v: %s", what, r.err, strings.Join(r.stderr, " | "))
		}
		attach = time.Since(r.start)
		setup = r.pausedAt.Sub(r.start)
		time.Sleep(500 * time.Millisecond)
		t1 := time.Now()
		r.cmd.Process.Signal(syscall.SIGINT)
		<-r.done
		detach = time.Since(t1)
		if r.err != nil {
			return 0, 0, 0, "", fmt.Errorf("%s: trace exited with %v: %s", what, r.err, strings.Join(r.stderr, " | "))
		}
		if !r.saw("kprobe jump optimization paused") {
			return 0, 0, 0, "", fmt.Errorf("%s: trace did not pause jump optimization: %s", what, strings.Join(r.stderr, " | "))
		}
		return attach, setup, detach, r.places, nil
	}
	ta, tsetup, td, places, err := full("first run")
	if err != nil {
		return err
	}
	fmt.Printf("E2E faults %s places=%s setup=%.2f attach=%.2f detach=%.2f\n", fn, places, tsetup.Seconds(), (ta - tsetup).Seconds(), td.Seconds())
	check("first run", 10*time.Second)
	rng := rand.New(rand.NewPCG(*seed, 0))
	phases := []string{"attach", "loop", "detach"}
	count := map[string]int{}
	for i := 0; i < *n; i++ {
		phase := phases[i%3]
		var delay time.Duration
		switch phase {
		case "attach":
			// Most while it registers kprobes with the sysctl paused,
			// one in four from the start (loading programs and maps).
			if i%12 == 0 {
				delay = time.Duration(rng.Float64() * float64(ta))
			} else {
				delay = time.Duration(rng.Float64() * float64(ta-tsetup))
				phase = "attach-paused"
			}
		case "loop":
			delay = time.Duration(rng.Float64() * float64(time.Second))
		case "detach":
			delay = time.Duration(rng.Float64() * float64(td))
		}
		r, err := startTrace(*bin, targs)
		if err != nil {
			return err
		}
		if *selftest && i == 0 {
			// Break it: no watchdog to restore the sysctl. Killed in the
			// event loop, the run's watchdog is not there any more when
			// the detach pauses the sysctl again, and the run is killed
			// in that detach (2 s for 120 places).
			phase = "selftest-detach"
			if !r.waitAttached() {
				<-r.done
				return fmt.Errorf("kill %d: trace did not attach: %v: %s", i, r.err, strings.Join(r.stderr, " | "))
			}
			for _, p := range processesOf(btftrace.WatchdogArg) {
				syscall.Kill(p, syscall.SIGKILL)
			}
			for t0 := time.Now(); len(processesOf(btftrace.WatchdogArg)) > 0 && time.Since(t0) < 5*time.Second; {
				time.Sleep(10 * time.Millisecond)
			}
			r.cmd.Process.Signal(syscall.SIGINT)
			delay = 300 * time.Millisecond
		}
		switch {
		case phase == "selftest-detach":
		case phase == "attach-paused":
			select {
			case <-r.paused:
			case <-r.done:
			}
		case phase != "attach" && !r.waitAttached():
			<-r.done
			return fmt.Errorf("kill %d: trace did not attach: %v: %s", i, r.err, strings.Join(r.stderr, " | "))
		}
		if phase == "detach" {
			r.cmd.Process.Signal(syscall.SIGINT)
		}
		time.Sleep(delay)
		select {
		case <-r.done:
		default:
			r.cmd.Process.Signal(syscall.SIGKILL)
		}
		<-r.done
		// What it was doing when it died.
		at := "attach"
		switch {
		case r.saw(" hits"):
			at = "exited"
		case r.saw("Tracing..."):
			at = map[bool]string{true: "detach", false: "loop"}[strings.HasSuffix(phase, "detach")]
		case !r.saw("kprobe jump optimization paused"):
			at = "setup"
		}
		count[at]++
		what := fmt.Sprintf("kill %d (%s at %.3f s, in %s)", i, phase, delay.Seconds(), at)
		var undo func()
		if *selftest {
			switch i {
			case 1:
				m, err := ebpf.NewMap(&ebpf.MapSpec{Name: "selftest_left", Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: 1})
				if err == nil {
					undo = func() { m.Close() }
				}
			case 2:
				if writeEvent("p:btfi_selftest/left vfs_read") == nil {
					undo = func() { clearEvents() }
				}
			}
		}
		check(what, 10*time.Second)
		if undo != nil {
			undo()
		}
		if *selftest && i == 0 {
			out, err := exec.Command(*bin, "trace", "--cleanup").CombinedOutput()
			fmt.Printf("E2E faults selftest cleanup: %v %s", err, out)
		}
	}
	var ks []string
	for k, v := range count {
		ks = append(ks, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(ks)
	// The next run works, on every place.
	_, _, _, places2, err := full("run after the kills")
	if err != nil {
		return err
	}
	check("run after the kills", 10*time.Second)
	if places2 != places {
		bad++
		fmt.Printf("E2E error faults: %s places attached after the kills, %s before\n", places2, places)
	}
	fmt.Printf("E2E faults summary kills=%d %s left-behind=%d seconds=%.1f\n", *n, strings.Join(ks, " "), bad, time.Since(t00).Seconds())
	return nil
}
