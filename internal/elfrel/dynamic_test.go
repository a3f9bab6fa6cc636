package elfrel

import (
	"bytes"
	"debug/elf"
	"os"
	"testing"
)

var pieFixtures = []string{"testdata/pie-x86_64", "testdata/pie-arm64"}

// TestApplyDynamic: the pointers of pie.c's table come out of the dynamic
// relocations as the addresses of target[0] and target[2] (arm64 is linked
// with --no-apply-dynamic-relocs, so the file holds zeros there).
func TestApplyDynamic(t *testing.T) {
	for _, name := range pieFixtures {
		t.Run(name, func(t *testing.T) {
			f, err := elf.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			syms, err := f.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			var table, target uint64
			for _, s := range syms {
				switch s.Name {
				case "table":
					table = s.Value
				case "target":
					target = s.Value
				}
			}
			if table == 0 || target == 0 {
				t.Fatal("no table or target symbol")
			}
			var data []byte
			for _, s := range f.Sections {
				if s.Flags&elf.SHF_ALLOC != 0 && s.Type == elf.SHT_PROGBITS && table >= s.Addr && table+16 <= s.Addr+s.Size {
					b, err := s.Data()
					if err != nil {
						t.Fatal(err)
					}
					data = append([]byte(nil), b[table-s.Addr:table-s.Addr+16]...)
				}
			}
			if data == nil {
				t.Fatal("table in no section")
			}
			// One word before the table as well: it must stay as it was.
			n, err := ApplyDynamic(f, table, data)
			if err != nil {
				t.Fatal(err)
			}
			if n != 2 {
				t.Errorf("%d relocations applied, want 2", n)
			}
			if got := [2]uint64{f.ByteOrder.Uint64(data), f.ByteOrder.Uint64(data[8:])}; got != [2]uint64{target, target + 8} {
				t.Errorf("table = %#x, want %#x, %#x", got, target, target+8)
			}
			// A range past the table gets nothing.
			if n, err := ApplyDynamic(f, table+16, make([]byte, 8)); err != nil || n != 0 {
				t.Errorf("past the table: %d applied, %v", n, err)
			}
		})
	}
	// Not a position-independent image: nothing to do.
	f, err := elf.Open("../elfwrite/testdata/hello.o")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, err := ApplyDynamic(f, 0, make([]byte, 64)); n != 0 || err != nil {
		t.Errorf("ET_REL: %d applied, %v", n, err)
	}
}

// FuzzApplyDynamic: any file debug/elf accepts gives relocated words or an
// error, never a panic or a write outside the buffer.
func FuzzApplyDynamic(f *testing.F) {
	for _, name := range pieFixtures {
		raw, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw, uint64(0x2000), uint16(16))
	}
	f.Fuzz(func(t *testing.T, raw []byte, addr uint64, n uint16) {
		ef, err := elf.NewFile(bytes.NewReader(raw))
		if err != nil {
			return
		}
		buf := make([]byte, n)
		ApplyDynamic(ef, addr, buf)
	})
}
