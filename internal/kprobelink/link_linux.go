//go:build linux

package kprobelink

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/unix"
)

// AttachWorkers is how many places to attach at once: registering a
// kprobe takes the kernel's kprobe_mutex, but opening the perf event and
// creating the link around it do not. More workers than CPUs only wait
// on each other in the kernel.
var AttachWorkers = min(4, runtime.NumCPU())

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
	// The event is opened disabled: the kprobe is armed and runs the
	// link's program on every hit either way (the program belongs to
	// the kprobe's trace event, not to the perf event's context), but an
	// enabled CPU event makes perf_install_in_context reschedule every
	// event already in the kprobe PMU's context of that CPU, so that
	// opening n places costs n*n/2 event moves; events that are off are
	// only looked at (docs/trace.md, "What attaching costs").
	attr := unix.PerfEventAttr{
		Type: p.typ,
		Size: uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Bits: unix.PerfBitDisabled,
		Ext1: 0,    // kprobe_func: none
		Ext2: addr, // kprobe_addr
	}
	// The system calls here are raw: the first takes milliseconds under
	// qemu (a kprobe's registration), and a Go system call that long has
	// its P taken by sysmon and handed to another thread, which wakes,
	// finds nothing and sleeps again, and the caller's thread waits for a
	// P on return: 13 to 17 context switches a place on one CPU, each
	// through the scheduler code whose places a trace of a hot function
	// attaches first (docs/trace.md, "What attaching costs"). A raw
	// call keeps its P; Gosched after each place tells sysmon the
	// goroutine is not stuck, so that it sends no preemption signal
	// either. A raw call that blocks delays a stop of the world by as
	// long, which an attach can afford.
	r, _, errno := unix.RawSyscall6(unix.SYS_PERF_EVENT_OPEN, uintptr(unsafe.Pointer(&attr)),
		^uintptr(0) /* pid -1 */, 0 /* cpu */, ^uintptr(0) /* group -1 */, unix.PERF_FLAG_FD_CLOEXEC, 0)
	if errno != 0 {
		return -1, errno
	}
	pfd := int(r)
	lfd, err := linkCreate(prog, pfd, cookie)
	// The link holds the perf event; its fd is not needed any more.
	unix.RawSyscall(unix.SYS_CLOSE, uintptr(pfd), 0, 0)
	runtime.Gosched()
	if err != nil {
		return -1, fmt.Errorf("BPF link: %w", err)
	}
	return lfd, nil
}

// linkCreate attaches prog to a perf event with a cookie (a raw call, as
// in Attach). cilium/ebpf creates such links only inside link.Kprobe,
// which takes a symbol name.
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
	fd, _, errno := unix.RawSyscall(unix.SYS_BPF, bpfLinkCreate, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
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
	if workers <= 1 {
		// On one CPU the calls are made where they are asked for: a
		// goroutine each would only add the runtime's scheduling to
		// every kprobe.
		for i := range n {
			if err := fn(i); err != nil {
				return err
			}
		}
		return nil
	}
	g, ctx := errgroup.WithContext(context.Background())
	g.SetLimit(workers)
	for i := 0; i < n && ctx.Err() == nil; i++ {
		g.Go(func() error { return fn(i) })
	}
	return g.Wait()
}
