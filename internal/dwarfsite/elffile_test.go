package dwarfsite

import (
	"debug/elf"
	"path/filepath"
	"slices"
	"testing"

	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/testutil"
)

// checkLoadFuncs holds loadFuncs, which reads the symbol table itself, to
// the FUNC symbols debug/elf's Symbols gives, and returns how many.
func checkLoadFuncs(t *testing.T, path string) int {
	t.Helper()
	f, err := elfobj.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o := &object{ef: f, f: f.File}
	o.layout()
	if err := o.loadFuncs(); err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var want []funcSym
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Section == elf.SHN_UNDEF || int(s.Section) >= len(f.Sections) {
			continue
		}
		addr := s.Value
		if o.rel {
			addr += o.base[s.Section]
		}
		want = append(want, funcSym{addr: addr, size: s.Size, name: s.Name, global: elf.ST_BIND(s.Info) != elf.STB_LOCAL})
	}
	if len(want) == 0 || !slices.Equal(o.funcs, sortedFuncs(want)) {
		t.Fatalf("%s: %d functions, want %d:\n got %v\nwant %v", path, len(o.funcs), len(want), o.funcs[:min(len(o.funcs), 5)], want[:min(len(want), 5)])
	}
	return len(want)
}

func sortedFuncs(fs []funcSym) []funcSym {
	o := &object{funcs: fs}
	o.sortFuncs()
	return o.funcs
}

func TestLoadFuncs(t *testing.T) {
	for _, n := range []string{"sites-x86_64", "sites-x86_64.o", "sites-aarch64.o", "tiny-x86_64.o", "tiny-i386.o"} {
		t.Run(n, func(t *testing.T) { checkLoadFuncs(t, filepath.Join(fixtureDir, n)) })
	}
}

func TestKernelLoadFuncs(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		t.Run(k.Name, func(t *testing.T) {
			if n := checkLoadFuncs(t, k.Vmlinux()); n < 10000 {
				t.Fatalf("%d functions", n)
			}
			for _, m := range k.Modules() {
				checkLoadFuncs(t, k.Module(m))
			}
		})
	}
}
