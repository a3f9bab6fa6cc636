package ksys

import (
	"bufio"
	"debug/elf"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Kcore reads the running kernel's memory through /proc/kcore: its text
// as the kernel has patched it at boot (alternatives, paravirt), which
// is what the kernel's own checks decode when a kprobe is registered.
// Reads are of whole pages, each read once and kept: the places of one
// trace cluster in a few functions, and a listing of every site reads
// the kernel's text at most once.
type Kcore struct {
	f     *os.File
	progs []*elf.Prog
	mu    sync.Mutex
	pages map[uint64][]byte // nil: unreadable
}

// kcorePage is the unit of reading and caching.
const kcorePage = 4096

// kcores holds the open kcore of each root: one per process, kept open
// for its life, so that the pages read serve every object the process
// opens (a trace opens one per traced object and per module loaded).
var kcores struct {
	sync.Mutex
	m map[string]*Kcore
}

// OpenKcore opens /proc/kcore, or returns the one this process opened
// already. It needs root (CAP_SYS_RAWIO) and is refused under lockdown;
// the error says why.
func (s System) OpenKcore() (*Kcore, error) {
	p := s.path("/proc/kcore")
	kcores.Lock()
	defer kcores.Unlock()
	if k := kcores.m[p]; k != nil {
		return k, nil
	}
	k, err := openKcore(p)
	if err != nil {
		return nil, err
	}
	if kcores.m == nil {
		kcores.m = map[string]*Kcore{}
	}
	kcores.m[p] = k
	return k, nil
}

func openKcore(p string) (*Kcore, error) {
	fh, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	f, err := elf.NewFile(fh)
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	k := &Kcore{f: fh, pages: map[uint64][]byte{}}
	for _, pr := range f.Progs {
		if pr.Type == elf.PT_LOAD && pr.Filesz > 0 {
			k.progs = append(k.progs, pr)
		}
	}
	if len(k.progs) == 0 {
		fh.Close()
		return nil, fmt.Errorf("%s: no memory segments", p)
	}
	return k, nil
}

// Read returns the n bytes of kernel memory at addr, or false when any
// of them is outside the memory kcore shows or cannot be read.
func (k *Kcore) Read(addr uint64, n int) ([]byte, bool) {
	if n <= 0 || addr+uint64(n) < addr {
		return nil, false
	}
	out := make([]byte, 0, n)
	k.mu.Lock()
	defer k.mu.Unlock()
	for len(out) < n {
		a := addr + uint64(len(out))
		pg := a &^ (kcorePage - 1)
		b, ok := k.pages[pg]
		if !ok {
			b = k.readPage(pg)
			k.pages[pg] = b
		}
		if b == nil {
			return nil, false
		}
		out = append(out, b[a-pg:min(uint64(len(b)), a-pg+uint64(n-len(out)))]...)
	}
	return out, true
}

// readPage reads the page at pg from the segment that holds it, nil when
// none does or the kernel refuses the read.
func (k *Kcore) readPage(pg uint64) []byte {
	for _, p := range k.progs {
		if pg >= p.Vaddr && pg+kcorePage > pg && pg+kcorePage <= p.Vaddr+p.Filesz {
			b := make([]byte, kcorePage)
			if _, err := k.f.ReadAt(b, int64(p.Off+(pg-p.Vaddr))); err != nil {
				return nil
			}
			return b
		}
	}
	return nil
}

// KprobeAddrs reads the addresses of the kprobes registered now, from
// /sys/kernel/debug/kprobes/list ("ADDR  TYPE  SYM+OFF ..." per line).
// ok is false when it is unreadable or hides the addresses (not root).
// At such an address the text holds the kprobe's breakpoint (or its
// jump, when optimized), not the instruction.
func (s System) KprobeAddrs() (addrs []uint64, ok bool) {
	f, err := os.Open(s.path("/sys/kernel/debug/kprobes/list"))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		a, err := strconv.ParseUint(fs[0], 16, 64)
		if err != nil || a == 0 {
			return nil, false
		}
		addrs = append(addrs, a)
	}
	return addrs, sc.Err() == nil
}

// Release returns the running kernel's release (/proc/sys/kernel/osrelease).
func (s System) Release() (string, error) {
	b, err := os.ReadFile(s.path("/proc/sys/kernel/osrelease"))
	return strings.TrimSpace(string(b)), err
}
