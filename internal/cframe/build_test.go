package cframe

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"testing"

	"github.com/btfinline/btfinline/internal/sframe"
)

func st(off int64) State {
	return State{Frame: sframe.Frame{CFA: sframe.Value{Kind: sframe.ValReg, Reg: 7, Off: off}, RA: sframe.Value{Kind: sframe.ValAt, Off: -8}}}
}

// TestBuildEdges: what SFrame's rows cannot give the fixtures: signal and
// key-B attributes, a first row after the function start, overlapping and
// empty functions, a PC-mask function restarted at bucket boundaries.
func TestBuildEdges(t *testing.T) {
	sig := st(16)
	sig.Signal = true
	keyB := State{Frame: sframe.Frame{CFA: sframe.Value{Kind: sframe.ValReg, Reg: 31, Off: 32}, RA: sframe.Value{Kind: sframe.ValAt, Off: -8}, FP: sframe.Value{Kind: sframe.ValAt, Off: -16}, Mangled: true}, KeyB: true}
	undef := State{Frame: sframe.Frame{RAUndefined: true}}
	funcs := []Func{
		{Addr: 0x1000, Size: 0x40, Rows: []FuncRow{{0, st(8)}, {1, st(16)}, {0x30, st(8)}}},
		{Addr: 0x1010, Size: 0x10, Rows: []FuncRow{{0, st(8)}}}, // overlaps the first
		{Addr: 0x1040, Size: 0x20, Rows: []FuncRow{{4, sig}}},   // first row at 4
		{Addr: 0x1060, Size: 0x10},                              // no rows
		{Addr: 0x1080, Size: 0x30, Rows: []FuncRow{{0, st(8)}, {6, st(16)}, {11, undef}}, Rep: 16},
		{Addr: 0x10b0, Size: 0x10, Rows: []FuncRow{{0, keyB}}},
	}
	type probe struct {
		pc   uint64
		want State
		ok   bool
	}
	probes := []probe{
		{0xfff, State{}, false}, {0x1000, st(8), true}, {0x1001, st(16), true}, {0x102f, st(16), true}, {0x1030, st(8), true}, {0x103f, st(8), true},
		{0x1040, State{}, false}, {0x1043, State{}, false}, {0x1044, sig, true}, {0x105f, sig, true},
		{0x1060, State{}, false}, {0x107f, State{}, false},
		{0x1080, st(8), true}, {0x1086, st(16), true}, {0x108b, undef, true}, {0x1090, st(8), true}, {0x10a5, st(8), true}, {0x10a6, st(16), true}, {0x10af, undef, true},
		{0x10b0, keyB, true}, {0x10bf, keyB, true}, {0x10c0, State{}, false}, {0x20000, State{}, false},
	}
	for _, o := range []Options{{InnerBits: -1}, {InnerBits: 0}, {InnerBits: 2}, {InnerBits: 5, Strategy: StrategyCalleeSaved, Dedup: true}, {InnerBits: -1, Strategy: StrategyCalleeSaved, Dedup: true}, {InnerBits: -1, ABI: sframe.ABIAArch64BE}} {
		if o.ABI == 0 {
			o.ABI = sframe.ABIAMD64LE
		}
		t.Run(optName(o)+"/"+o.ABI.String(), func(t *testing.T) {
			bt, err := Build(funcs, o)
			if err != nil {
				t.Fatal(err)
			}
			if d := bt.Stats.Dropped; d[DropOverlap] != 1 || d[DropNoRows] != 1 || len(d) != 2 {
				t.Errorf("dropped %v", d)
			}
			if want := []bool{true, false, true, false, true, true}; len(bt.Kept) != len(want) {
				t.Fatalf("kept %v", bt.Kept)
			} else {
				for i := range want {
					if bt.Kept[i] != want[i] {
						t.Errorf("kept %v, want %v", bt.Kept, want)
						break
					}
				}
			}
			b, err := bt.Encode(0x800)
			if err != nil {
				t.Fatal(err)
			}
			tab, err := Decode(b, 0x800, ".cframe")
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range probes {
				got, ok := tab.Lookup(p.pc)
				if ok != p.ok || got != p.want {
					t.Errorf("%#x: %v %v, want %v %v", p.pc, got, ok, p.want, p.ok)
				}
			}
		})
	}
}

// TestRelocatableRefused: a CFrame table is for finished objects; an
// object file is linker input.
func TestRelocatableRefused(t *testing.T) {
	in, done, err := sframe.OpenFile(filepath.Join(sframeFixtures, "x86-O2.o"))
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if _, err := Emit(in, Options{InnerBits: -1}); !errors.Is(err, ErrRelocatable) {
		t.Fatalf("got %v, want ErrRelocatable", err)
	}
}

// TestDecodeZeroWidths: zero-width fields take no bits, so counts are
// bounded by the section's size, not by the areas (the fuzzer found
// validation looping over 2^32 zero-width buckets).
func TestDecodeZeroWidths(t *testing.T) {
	b := make([]byte, HeaderSize)
	b[0], b[1], b[2], b[4] = Magic&0xff, Magic>>8, Version, uint8(sframe.ABIAMD64LE)
	b[8] = 32 // chunk_w
	for _, c := range []struct{ buckets, chunks uint32 }{{0xfffffffe, 0}, {1, 0xfffffffe}} {
		binary.LittleEndian.PutUint32(b[24:], c.buckets)
		binary.LittleEndian.PutUint32(b[32:], c.chunks)
		if _, err := Decode(b, 0, ".cframe"); err == nil {
			t.Errorf("%d buckets, %d chunks of zero width: no error", c.buckets, c.chunks)
		}
	}
}
