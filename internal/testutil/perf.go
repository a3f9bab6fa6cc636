package testutil

import (
	"debug/elf"
	"sort"
	"testing"
)

// PerfAddrs returns the addresses perf probe may mean by an address it
// gives for a place in vmlinux (its sym+off, taken as the symbol's
// address plus off). That is the address itself, but in a
// position-independent image (ET_DYN: Debian 13's arm64 6.12) whose text
// sections do not all keep the first load segment's distance between
// address and file offset. There Debian 12's perf (6.1) looks a place of
// such a section up at the address plus the difference of the two
// distances (0x10000 for .init.text and .exit.text, in the third load
// segment), and prints the function symbol that covers that, so that
// rcu_init+0x3d8, where msecs_to_jiffies is inlined, comes out as
// pcpu_populate_pte+0x1a8. Where no function symbol covers the moved
// address (it falls between two), perf prints the place right. So an
// address in the moved range means the place before the move, and also
// itself when no symbol covers its own moved address: both are returned.
func PerfAddrs(t testing.TB, vmlinux string) func(addr uint64) []uint64 {
	t.Helper()
	same := func(a uint64) []uint64 { return []uint64{a} }
	f, err := elf.Open(vmlinux)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Type != elf.ET_DYN {
		return same
	}
	var first *elf.Prog
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			first = p
			break
		}
	}
	if first == nil {
		return same
	}
	type moved struct{ lo, hi, by uint64 } // a section, and how far perf moves it
	var ms []moved
	for _, s := range f.Sections {
		if s.Type != elf.SHT_PROGBITS || s.Flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		if by := (s.Addr - s.Offset) - (first.Vaddr - first.Off); by != 0 {
			ms = append(ms, moved{s.Addr, s.Addr + s.Size, by})
		}
	}
	if len(ms) == 0 {
		return same
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	type span struct{ lo, hi uint64 }
	var funcs []span
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 {
			funcs = append(funcs, span{s.Value, s.Value + s.Size})
		}
	}
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].lo < funcs[j].lo })
	covered := func(a uint64) bool {
		i := sort.Search(len(funcs), func(i int) bool { return funcs[i].lo > a })
		for j := i - 1; j >= 0 && j > i-8; j-- {
			if a < funcs[j].hi {
				return true
			}
		}
		return false
	}
	return func(a uint64) []uint64 {
		for _, m := range ms {
			if a >= m.lo+m.by && a < m.hi+m.by {
				if a >= m.lo && a < m.hi && !covered(a+m.by) {
					return []uint64{a - m.by, a}
				}
				return []uint64{a - m.by}
			}
		}
		return same(a)
	}
}
