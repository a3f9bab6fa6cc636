package elfrel

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"os"
	"testing"
)

// TestDebugInfoAgreesWithGo: Go's debug/elf relocates .debug_info of ET_REL
// objects itself (with every section at 0); ours must give the same bytes
// for the same layout, on x86-64 and AArch64 objects.
func TestDebugInfoAgreesWithGo(t *testing.T) {
	for _, name := range []string{"../elfwrite/testdata/hello.o", "../elfwrite/testdata/hello-arm64.o"} {
		t.Run(name, func(t *testing.T) {
			f, err := elf.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var idx int
			for i, s := range f.Sections {
				if s.Name == ".debug_info" {
					idx = i
				}
			}
			raw, err := f.Sections[idx].Data()
			if err != nil {
				t.Fatal(err)
			}
			res, err := Apply(f, idx, raw, Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Applied == 0 {
				t.Fatal("no relocation applied")
			}
			d, err := f.DWARF()
			if err != nil {
				t.Fatal(err)
			}
			// Read our bytes with debug/dwarf and compare every entry with
			// what debug/dwarf makes of the file (which it relocates itself):
			// unrelocated string offsets or addresses would differ.
			ours, err := dwarf.New(mustData(t, f, ".debug_abbrev"), nil, nil, raw, nil, nil, nil, mustData(t, f, ".debug_str"))
			if err != nil {
				t.Fatal(err)
			}
			if err := ours.AddSection(".debug_line_str", mustData(t, f, ".debug_line_str")); err != nil {
				t.Fatal(err)
			}
			want, got := d.Reader(), ours.Reader()
			n := 0
			for {
				we, err1 := want.Next()
				ge, err2 := got.Next()
				if err1 != nil || err2 != nil {
					t.Fatalf("reading: %v %v", err1, err2)
				}
				if we == nil || ge == nil {
					if we != ge {
						t.Fatal("entry counts differ")
					}
					break
				}
				for _, a := range []dwarf.Attr{dwarf.AttrName, dwarf.AttrLowpc, dwarf.AttrCompDir} {
					if wv, gv := we.Val(a), ge.Val(a); wv != gv {
						t.Fatalf("entry %#x %v: %v, want %v", ge.Offset, a, gv, wv)
					}
				}
				n++
			}
			if n < 10 {
				t.Fatalf("only %d entries compared", n)
			}
		})
	}
}

func mustData(t *testing.T, f *elf.File, name string) []byte {
	s := f.Section(name)
	if s == nil {
		t.Fatalf("no %s", name)
	}
	b, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKind: the relocation types and how they store their result.
func TestKind(t *testing.T) {
	if size, pcrel, ok := Kind(elf.EM_X86_64, uint32(elf.R_X86_64_PC32)); !ok || size != 4 || !pcrel {
		t.Fatalf("PC32: %d %v %v", size, pcrel, ok)
	}
	if size, pcrel, ok := Kind(elf.EM_AARCH64, uint32(elf.R_AARCH64_ABS64)); !ok || size != 8 || pcrel {
		t.Fatalf("ABS64: %d %v %v", size, pcrel, ok)
	}
	if _, _, ok := Kind(elf.EM_X86_64, uint32(elf.R_X86_64_GOTPCREL)); ok {
		t.Fatal("GOTPCREL accepted")
	}
}

// FuzzApply: any file debug/elf accepts gives relocated bytes or an error,
// never a panic or a write outside the section.
func FuzzApply(f *testing.F) {
	for _, name := range []string{"../elfwrite/testdata/hello.o", "../elfwrite/testdata/hello-arm64.o"} {
		raw, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		ef, err := elf.NewFile(bytes.NewReader(raw))
		if err != nil {
			return
		}
		for i, s := range ef.Sections {
			if i == 0 || s.Type == elf.SHT_NOBITS || s.Size > uint64(len(raw)) {
				continue
			}
			data, err := s.Data()
			if err != nil {
				continue
			}
			Apply(ef, i, data, Options{SectionAddr: func(j int) uint64 { return uint64(j) << 12 }})
		}
	})
}
