package btfinline

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/cilium/ebpf"
)

// Links are the kprobes of one Attach: one BPF link at each attached
// place. They go when Close is called or the process ends, however it
// ends: the kernel removes a kprobe with its last file descriptor.
type Links struct {
	mu     sync.Mutex
	fds    []int // by place; -1: not attached
	failed map[int]error
}

// Attached returns the indices of the places prog is attached at.
func (l *Links) Attached() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []int
	for i, fd := range l.fds {
		if fd >= 0 {
			out = append(out, i)
		}
	}
	return out
}

// Failed returns, by index, the places Attach skipped or the kernel
// refused, with why.
func (l *Links) Failed() map[int]error {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[int]error, len(l.failed))
	for i, err := range l.failed {
		out[i] = err
	}
	return out
}

// Close detaches prog from every place.
func (l *Links) Close() error {
	l.mu.Lock()
	fds := slices.DeleteFunc(slices.Clone(l.fds), func(fd int) bool { return fd < 0 })
	for i := range l.fds {
		l.fds[i] = -1
	}
	l.mu.Unlock()
	closeLinks(fds)
	return nil
}

// Attach attaches prog, a kprobe program, at every place of places that
// has the running kernel's address and that no kprobe rule refuses, with
// the place's index as its BPF cookie (bpf_get_attach_cookie), so that
// the program knows which place fired and can look up that place's
// fetches. Places skipped and places the kernel refuses are in
// Links.Failed; Attach fails as a whole, with nothing left attached,
// when the process may not attach at all (it needs CAP_BPF and
// CAP_PERFMON, or root) or when no place could be attached. Its system
// calls are raw (docs/trace.md, "What attaching costs", says why): a
// goroutine attaching keeps its Go processor through each kernel
// registration and yields it between places.
func Attach(prog *ebpf.Program, places []Place) (*Links, error) {
	l := &Links{fds: make([]int, len(places)), failed: map[int]error{}}
	var todo []int
	for i := range places {
		l.fds[i] = -1
		switch p := &places[i]; {
		case !p.running || !p.HasAddress:
			l.failed[i] = errors.New("no address in the running kernel (open the target with OpenRunning)")
		case p.Refusal != nil:
			l.failed[i] = p.Refusal
		default:
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		if len(places) == 0 {
			return nil, errors.New("btfinline.Attach: no places")
		}
		return nil, fmt.Errorf("btfinline.Attach: none of %d places can be attached, the first: %w", len(places), l.failed[0])
	}
	if prog == nil || prog.Type() != ebpf.Kprobe {
		return nil, errors.New("btfinline.Attach: want a kprobe program")
	}
	if err := attachAll(l, prog, places, todo); err != nil {
		l.Close()
		return nil, err
	}
	if len(l.Attached()) == 0 {
		return nil, fmt.Errorf("btfinline.Attach: the kernel refused all %d places, the first with: %w", len(todo), l.failed[todo[0]])
	}
	return l, nil
}
