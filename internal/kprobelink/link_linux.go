//go:build linux

package kprobelink

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/unix"
)

// PMU is the kernel's kprobe event source.
type PMU struct{ typ uint32 }

// OpenPMU reads the type of the kprobe PMU.
func OpenPMU() (*PMU, error) {
	const p = "/sys/bus/event_source/devices/kprobe/type"
	b, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errors.New("the kernel has no kprobe PMU (" + p + "): it needs CONFIG_KPROBES and CONFIG_KPROBE_EVENTS (Linux 4.17 or later)")
		}
		return nil, err
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	if err != nil {
		return nil, fmt.Errorf("%s: %q", p, b)
	}
	return &PMU{uint32(v)}, nil
}

// Attach puts the program prog (a file descriptor) at the kernel address
// addr with cookie, and returns the link's file descriptor; the error is
// the kernel's refusal.
func (p *PMU) Attach(prog int, addr, cookie uint64) (int, error) {
	attr := unix.PerfEventAttr{
		Type: p.typ,
		Size: uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Ext1: 0,    // kprobe_func: none
		Ext2: addr, // kprobe_addr
	}
	return openLink(&attr, prog, cookie)
}

// openLink opens the perf event attr describes, which arms its kprobe,
// and links prog to it with cookie.
func openLink(attr *unix.PerfEventAttr, prog int, cookie uint64) (int, error) {
	pfd, err := unix.PerfEventOpen(attr, -1, 0, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return -1, err
	}
	lfd, err := linkCreate(prog, pfd, cookie)
	// The link holds the perf event; its fd is not needed any more.
	unix.Close(pfd)
	if err != nil {
		return -1, fmt.Errorf("BPF link: %w", err)
	}
	return lfd, nil
}

// linkCreate attaches prog to a perf event with a cookie. cilium/ebpf
// creates such links only inside link.Kprobe, which takes a symbol name.
func linkCreate(prog, perf int, cookie uint64) (int, error) {
	const (
		bpfLinkCreate = 28
		bpfPerfEvent  = 41
	)
	attr := struct {
		progFD, targetFD, attachType, flags uint32
		cookie                              uint64
		_                                   [16]byte
	}{uint32(prog), uint32(perf), bpfPerfEvent, 0, cookie, [16]byte{}}
	fd, _, errno := unix.Syscall(unix.SYS_BPF, bpfLinkCreate, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// CloseAll closes links from many goroutines: each close waits for RCU
// grace periods in the kernel, and concurrent closes share them.
func CloseAll(fds []int) {
	_ = Parallel(len(fds), 64, func(i int) error { unix.Close(fds[i]); return nil })
}

// Parallel runs fn(0) ... fn(n-1) on at most workers goroutines and
// returns the first error; once one fails, the calls not yet started are
// not made.
func Parallel(n, workers int, fn func(i int) error) error {
	g, ctx := errgroup.WithContext(context.Background())
	g.SetLimit(workers)
	for i := 0; i < n && ctx.Err() == nil; i++ {
		g.Go(func() error { return fn(i) })
	}
	return g.Wait()
}

// Group is a group of kprobe events of tracefs, owned by one run: each
// kprobe is registered disarmed when its event is defined, and armed
// when a perf event is opened on the event. Defining every place first
// and arming them in one pass is what makes kprobe_events fast on a hot
// function: no place fires while the others are still being registered.
// The events are global state that outlives the process: the owner
// removes them, and a run that dies leaves them to whoever finds its
// group (Stale).
type Group struct {
	dir, name string
	f         *os.File // kprobe_events, for appending
}

// TracingDir is the tracefs mount with kprobe events under root, "" when
// there is none.
func TracingDir(root string) string {
	for _, d := range []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"} {
		d = filepath.Join(root, d)
		if _, err := os.Stat(filepath.Join(d, "kprobe_events")); err == nil {
			return d
		}
	}
	return ""
}

// OpenGroup opens kprobe_events of tracefs dir to define the events of
// group name. It never truncates: opening kprobe_events with O_TRUNC
// removes every kprobe event of the system.
func OpenGroup(dir, name string) (*Group, error) {
	f, err := os.OpenFile(filepath.Join(dir, "kprobe_events"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	return &Group{dir: dir, name: name, f: f}, nil
}

// Name is the group's name.
func (g *Group) Name() string { return g.name }

// Define registers a disarmed kprobe at the kernel address addr as event
// ev of the group; the error is the kernel's refusal.
func (g *Group) Define(ev string, addr uint64) error {
	_, err := fmt.Fprintf(g.f, "p:%s/%s 0x%x\n", g.name, ev, addr)
	return err
}

// Attach arms the kprobe of event ev by opening a perf event on it, and
// attaches prog (a file descriptor) with cookie; it returns the link's
// file descriptor. The event stays defined until Remove.
func (g *Group) Attach(prog int, ev string, cookie uint64) (int, error) {
	b, err := os.ReadFile(filepath.Join(g.dir, "events", g.name, ev, "id"))
	if err != nil {
		return -1, err
	}
	id, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return -1, fmt.Errorf("event %s/%s: id %q", g.name, ev, b)
	}
	attr := unix.PerfEventAttr{
		Type:        unix.PERF_TYPE_TRACEPOINT,
		Size:        uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Config:      id,
		Sample_type: unix.PERF_SAMPLE_RAW,
		Sample:      1,
		Wakeup:      1,
	}
	return openLink(&attr, prog, cookie)
}

// Remove removes events of the group, each once its perf events are
// closed. An event stays busy until the kernel has released the perf
// events on it, which the last close of a dead process' files may leave
// to a workqueue: a busy event is tried again until wait has passed. It
// goes on past a failure and returns the first, but for an event that is
// not there.
func (g *Group) Remove(evs []string, wait time.Duration) error {
	t0 := time.Now()
	for {
		var first error
		var busy []string
		for _, ev := range evs {
			_, err := fmt.Fprintf(g.f, "-:%s/%s\n", g.name, ev)
			switch {
			case err == nil, errors.Is(err, unix.ENOENT):
			case errors.Is(err, unix.EBUSY):
				busy = append(busy, ev)
			case first == nil:
				first = fmt.Errorf("removing kprobe event %s/%s: %w", g.name, ev, err)
			}
		}
		if len(busy) == 0 || time.Since(t0) > wait {
			if first == nil && len(busy) > 0 {
				first = fmt.Errorf("removing kprobe event %s/%s: %w", g.name, busy[0], unix.EBUSY)
			}
			return first
		}
		evs = busy
		time.Sleep(50 * time.Millisecond)
	}
}

// Close closes kprobe_events; the events stay.
func (g *Group) Close() error { return g.f.Close() }

// Events lists the kprobe events of tracefs dir by group, in the order
// kprobe_events lists them.
func Events(dir string) (map[string][]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "kprobe_events"))
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		_, name, ok := strings.Cut(f[0], ":")
		grp, ev, ok2 := strings.Cut(name, "/")
		switch {
		case !ok || !ok2:
		case strings.HasPrefix(f[0], "-"):
			// The kernel's file lists what is there; a plain file that
			// stands in for it (the tests') keeps the removals too.
			out[grp] = slices.DeleteFunc(out[grp], func(e string) bool { return e == ev })
			if len(out[grp]) == 0 {
				delete(out, grp)
			}
		default:
			out[grp] = append(out[grp], ev)
		}
	}
	return out, nil
}
