//go:build linux

package trace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/btfinline/btfinline/internal/kprobelink"
	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// kernel holds what a run created in the kernel: maps, programs and one
// BPF link per attached site. Closing the link releases its perf event,
// so that the kprobe goes with it.
type kernel struct {
	sites, scratch, ring, counts, stats, hist *ebpf.Map
	countsMem, statsMem, histMem              *ebpf.Memory
	progs                                     []*ebpf.Program
	pmu                                       *kprobelink.PMU

	mu    sync.Mutex
	links []int // by site; -1: not attached

	// The maps' room: sites, and the size of a site's spec and of an
	// event.
	room                int
	specSize, eventSize int
	fds                 mapFDs
}

// addProbes writes the specs of the sites from site on and loads the
// programs of the probes from probe on (the plan's, at the start; those
// of a module that came, later). On an error it loads none of them, so
// that k.progs stays indexed by probe when the caller drops them.
func (k *kernel) addProbes(pl *plan, probe, site int) (err error) {
	loaded := len(k.progs)
	defer func() {
		if err != nil {
			for _, p := range k.progs[loaded:] {
				p.Close()
			}
			k.progs = k.progs[:loaded]
		}
	}()
	for i := site; i < len(pl.sites); i++ {
		s := pl.sites[i]
		if s.refused != "" {
			continue
		}
		b, err := pl.probes[s.probe].layout.encodeSpec(s.slots)
		if err != nil {
			return fmt.Errorf("site %s: %w", placeName(s), err)
		}
		b = append(b, make([]byte, k.specSize-len(b))...)
		if err := k.sites.Put(uint32(i), b); err != nil {
			return fmt.Errorf("site spec %d: %w", i, err)
		}
	}
	for _, pp := range pl.probes[probe:] {
		insns, err := pp.program(pl, k.fds)
		if err != nil {
			return err
		}
		prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Name: "btfi_" + sanitizeName(pp.probe.Func), Type: ebpf.Kprobe, License: "GPL", Instructions: insns})
		if err != nil {
			var ve *ebpf.VerifierError
			if errors.As(err, &ve) {
				return fmt.Errorf("the kernel's verifier refused the program of %s: %+v", pp.probe, ve)
			}
			return explain("loading the program of "+pp.probe.String(), err)
		}
		k.progs = append(k.progs, prog)
	}
	for len(k.links) < len(pl.sites) {
		k.links = append(k.links, -1)
	}
	return nil
}

// PermissionError says the process may not load BPF or open kprobes.
type PermissionError struct{ Msg string }

func (e *PermissionError) Error() string { return e.Msg }

// capabilities checks CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) in the
// effective set, before anything is created.
func capabilities() error {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil // cannot tell; the kernel will say
	}
	return checkCaps(b)
}

// checkCaps reads the CapEff line of a /proc/PID/status.
func checkCaps(b []byte) error {
	for _, l := range strings.Split(string(b), "\n") {
		v, ok := strings.CutPrefix(l, "CapEff:")
		if !ok {
			continue
		}
		c, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err != nil {
			return nil
		}
		const sysAdmin, perfmon, bpf = 21, 38, 39
		if c&(1<<sysAdmin) != 0 || c&(1<<perfmon) != 0 && c&(1<<bpf) != 0 {
			return nil
		}
		return &PermissionError{"btfinline trace needs root, or CAP_BPF and CAP_PERFMON (and CAP_SYSLOG to read kernel addresses): run it with sudo"}
	}
	return nil
}

// explain turns errors of the bpf syscall into what to do.
func explain(what string, err error) error {
	switch {
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return &PermissionError{fmt.Sprintf("%s: %v: btfinline trace needs root, or CAP_BPF and CAP_PERFMON", what, err)}
	case errors.Is(err, unix.ENOSYS):
		return fmt.Errorf("%s: the kernel has no BPF (CONFIG_BPF_SYSCALL)", what)
	}
	return fmt.Errorf("%s: %w", what, err)
}

func newKernel(pl *plan, ringSize int) (k *kernel, err error) {
	if err := capabilities(); err != nil {
		return nil, err
	}
	k = &kernel{}
	defer func() {
		if err != nil {
			k.close()
		}
	}()
	if k.pmu, err = kprobelink.OpenPMU(); err != nil {
		return nil, err
	}
	n := pl.capacity()
	spec, ev := 8, 8
	for _, pp := range pl.probes {
		spec, ev = max(spec, pp.layout.specSize()), max(ev, pp.layout.eventSize())
	}
	if len(pl.follow) > 0 {
		// A probe planned when its module comes may need the largest
		// layout.
		spec, ev = max(spec, maxLayout.specSize()), max(ev, maxLayout.eventSize())
	}
	k.room, k.specSize, k.eventSize = n, spec, ev
	if ringSize == 0 {
		ringSize = 8 << 20
	}
	mk := func(name string, s *ebpf.MapSpec) (*ebpf.Map, error) {
		s.Name = name
		m, err := ebpf.NewMap(s)
		if err != nil {
			return nil, explain("creating map "+name, err)
		}
		return m, nil
	}
	if k.sites, err = mk("btfi_sites", &ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: uint32(spec), MaxEntries: uint32(max(n, 1))}); err != nil {
		return nil, err
	}
	if k.scratch, err = mk("btfi_scratch", &ebpf.MapSpec{Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: uint32(scratchEvent + ev), MaxEntries: 1}); err != nil {
		return nil, err
	}
	if k.ring, err = mk("btfi_events", &ebpf.MapSpec{Type: ebpf.RingBuf, MaxEntries: uint32(ringSize)}); err != nil {
		return nil, err
	}
	mmapable := func(name string, entries int) (*ebpf.Map, *ebpf.Memory, error) {
		m, err := mk(name, &ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: uint32(max(entries, 1)), Flags: unix.BPF_F_MMAPABLE})
		if err != nil {
			return nil, nil, err
		}
		mem, err := m.Memory()
		if err != nil {
			m.Close()
			return nil, nil, fmt.Errorf("map %s: %w", name, err)
		}
		return m, mem, nil
	}
	if k.counts, k.countsMem, err = mmapable("btfi_counts", n); err != nil {
		return nil, err
	}
	if k.stats, k.statsMem, err = mmapable("btfi_stats", 1); err != nil {
		return nil, err
	}
	hn := 1
	if pl.mode == ModeHist {
		hn = n * HistBuckets
	}
	if k.hist, k.histMem, err = mmapable("btfi_hist", hn); err != nil {
		return nil, err
	}
	k.fds = mapFDs{k.sites.FD(), k.scratch.FD(), k.ring.FD(), k.counts.FD(), k.stats.FD(), k.hist.FD()}
	if err := k.addProbes(pl, 0, 0); err != nil {
		return nil, err
	}
	return k, nil
}

func sanitizeName(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	n := b.String()
	if len(n) > 10 {
		n = n[:10]
	}
	return n
}

// attach attaches site i; the error is the kernel's refusal.
func (k *kernel) attach(pl *plan, i int) error {
	s := pl.sites[i]
	lfd, err := k.pmu.Attach(k.progs[s.probe].FD(), s.place.Addr, uint64(i))
	if err != nil {
		return err
	}
	k.mu.Lock()
	k.links[i] = lfd
	k.mu.Unlock()
	return nil
}

// detach closes the links of sites, and returns how many were attached.
func (k *kernel) detach(sites []int) int {
	k.mu.Lock()
	var fds []int
	for _, i := range sites {
		if fd := k.links[i]; fd >= 0 {
			fds = append(fds, fd)
			k.links[i] = -1
		}
	}
	k.mu.Unlock()
	kprobelink.CloseAll(fds)
	return len(fds)
}

// detachAll closes every link from many goroutines: each close waits for
// RCU grace periods in the kernel, and concurrent closes share them.
func (k *kernel) detachAll() {
	all := make([]int, len(k.links))
	for i := range all {
		all[i] = i
	}
	k.detach(all)
}

func (k *kernel) close() {
	if k == nil {
		return
	}
	k.detachAll()
	for _, p := range k.progs {
		p.Close()
	}
	for _, m := range []*ebpf.Map{k.sites, k.scratch, k.ring, k.counts, k.stats, k.hist} {
		if m != nil {
			m.Close()
		}
	}
}

func readU64s(mem *ebpf.Memory, n int) []uint64 {
	out := make([]uint64, n)
	b := make([]byte, 8*n)
	if _, err := mem.ReadAt(b, 0); err != nil {
		return out
	}
	for i := range out {
		out[i] = binary.NativeEndian.Uint64(b[8*i:])
	}
	return out
}

func (k *kernel) counters(n int) []uint64 { return readU64s(k.countsMem, n) }
func (k *kernel) lost() uint64            { return readU64s(k.statsMem, 1)[0] }
func (k *kernel) histograms(n int) []uint64 {
	return readU64s(k.histMem, n*HistBuckets)
}
