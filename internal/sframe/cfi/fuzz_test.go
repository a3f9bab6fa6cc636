package cfi

import (
	"encoding/binary"
	"testing"
)

// ehFrameSeed is a small .eh_frame: a zR CIE (pcrel|sdata4 FDE pointers,
// x86-64 initial instructions) and one FDE with push/mov/pop rows, then a
// terminator.
var ehFrameSeed = buildEH([]byte{0x41, 0x0e, 0x10, 0x86, 0x02, 0x43, 0x0d, 0x06, 0x0a, 0x4a, 0x0c, 0x07, 0x08, 0x41, 0x0b})

var cieSeed = []byte{0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 0x10, 1, 0x1b, 0x0c, 7, 8, 0x90, 1, 0, 0}

// buildEH makes an .eh_frame (at address 0x1000) with the seed CIE and one
// FDE for [0x1000, 0x1020) running prog.
func buildEH(prog []byte) []byte {
	body := append([]byte{0, 0, 0, 0, 0xe0, 0xff, 0xff, 0xff, 0x20, 0, 0, 0, 0}, prog...)
	fde := binary.LittleEndian.AppendUint32(nil, uint32(len(body)))
	fde = append(fde, body...)
	binary.LittleEndian.PutUint32(fde[4:], uint32(len(cieSeed)+4))
	return append(append(append([]byte(nil), cieSeed...), fde...), 0, 0, 0, 0)
}

var debugFrameSeed = []byte{
	0x10, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 4, 0, 8, 0, 1, 0x78, 0x10, 0x0c, 7, 8, 0x90, 1,
	0x24, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0,
	0x41, 0x0e, 0x10, 0x86, 0x02, 0x43, 0x0d, 0x06, 0x4a, 0x0c, 0x07, 0x08, 0, 0, 0, 0,
}

func parseAndRun(t *testing.T, kind Kind, data []byte) {
	s := &Section{Kind: kind, Data: data, Addr: 0x1000, Order: binary.LittleEndian, PtrSize: 8,
		Deref: func(uint64) (uint64, bool) { return 0, false }}
	res, err := Parse(s)
	if res == nil {
		if err == nil {
			t.Fatal("nil result without error")
		}
		return
	}
	for _, f := range res.FDEs {
		n := 0
		_ = f.Execute(func(r *Row) error {
			if r.End <= r.Loc || r.Loc < f.Begin || r.End > f.End() {
				t.Fatalf("bad row [%#x,%#x) in FDE [%#x,%#x)", r.Loc, r.End, f.Begin, f.End())
			}
			n++
			return nil
		})
	}
}

// FuzzParse feeds arbitrary bytes to the .eh_frame and .debug_frame
// parsers and the row interpreter: errors are fine, panics are not.
func FuzzParse(f *testing.F) {
	f.Add(uint8(0), ehFrameSeed)
	f.Add(uint8(1), debugFrameSeed)
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		parseAndRun(t, Kind(kind&1), data)
	})
}

// FuzzRows runs arbitrary instruction bytes as the FDE program of the seed
// .eh_frame.
func FuzzRows(f *testing.F) {
	f.Add([]byte{0x41, 0x0e, 0x10, 0x86, 0x02, 0x43, 0x0d, 0x06, 0x0a, 0x4a, 0x0c, 0x07, 0x08, 0x41, 0x0b})
	f.Add([]byte{0x0f, 0x03, 0x76, 0x78, 0x06, 0x10, 0x06, 0x02, 0x76, 0x00, 0x2e, 0x10, 0x2d})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 4096 {
			return
		}
		parseAndRun(t, EHFrame, buildEH(prog))
	})
}
