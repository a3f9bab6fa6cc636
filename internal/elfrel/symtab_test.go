package elfrel

import (
	"debug/elf"
	"path/filepath"
	"testing"
)

// TestSymtab holds Symtab to debug/elf's Symbols, entry by entry, on ELF64
// and ELF32 objects.
func TestSymtab(t *testing.T) {
	paths := []string{"testdata/pie-x86_64", "testdata/pie-arm64", "../dwarfsite/testdata/sites-x86_64.o",
		"../dwarfsite/testdata/sites-aarch64.o", "../dwarfsite/testdata/tiny-i386.o"}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			f, err := elf.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			want, err := f.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			st, err := ReadSymtab(f, (*elf.Section).Data)
			if err != nil || st == nil {
				t.Fatalf("%v, %v", st, err)
			}
			if st.Len() != len(want)+1 {
				t.Fatalf("%d entries, want %d and the null symbol", st.Len(), len(want))
			}
			for i, w := range want {
				s := st.At(i + 1)
				if got := (elf.Symbol{Name: st.Name(s), Info: s.Info, Other: w.Other, Section: s.Section, Value: s.Value, Size: s.Size}); got != w {
					t.Fatalf("entry %d: %+v, want %+v", i+1, got, w)
				}
			}
		})
	}
}
