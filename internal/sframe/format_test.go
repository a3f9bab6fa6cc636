package sframe

import (
	"bytes"
	"debug/elf"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func gasSection(t *testing.T) ([]byte, uint64) {
	t.Helper()
	f, err := elf.Open(filepath.Join(fixtures, "x86-O2.exe"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".sframe")
	d, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	return d, s.Addr
}

// TestCorruptSFrame: truncations and corruptions of a real section give a
// FormatError naming the section and an offset, never a panic.
func TestCorruptSFrame(t *testing.T) {
	d, addr := gasSection(t)
	for n := 0; n < len(d); n++ {
		if _, err := Decode(d[:n], addr, ".sframe"); err == nil {
			// Cutting inside the FRE sub-section must be noticed.
			t.Fatalf("truncated to %d bytes decoded without error", n)
		}
	}
	for i := range d {
		for _, x := range []byte{0xff, 0x80, 0x01} {
			c := append([]byte(nil), d...)
			c[i] ^= x
			s, err := Decode(c, addr, ".sframe")
			if err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) || fe.Section != ".sframe" || !strings.Contains(err.Error(), ".sframe+0x") {
					t.Fatalf("byte %d: bad error %v", i, err)
				}
				continue
			}
			var b bytes.Buffer
			Dump(&b, s, ".sframe")
		}
	}
}

// TestHasMagic: the raw section in either byte order, and nothing that
// only starts like one (an ELF file, a CFrame table, one byte).
func TestHasMagic(t *testing.T) {
	for _, c := range []struct {
		b    []byte
		want bool
	}{
		{[]byte{0xe2, 0xde, 3, 5}, true},
		{[]byte{0xde, 0xe2, 2, 1}, true},
		{[]byte{0x7f, 'E', 'L', 'F'}, false},
		{[]byte{0xe2, 0xcf, 1}, false},
		{[]byte{0xe2}, false},
		{nil, false},
	} {
		if got := HasMagic(c.b); got != c.want {
			t.Errorf("HasMagic(% x) = %v", c.b, got)
		}
	}
}

// TestBigEndianRoundTrip: an AArch64 big-endian section encodes with the
// big-endian magic and decodes back to the same FDEs and dump.
func TestBigEndianRoundTrip(t *testing.T) {
	s := &Section{Version: Version3, Flags: FlagFDEFuncStartPCRel | FlagFDESorted, ABI: ABIAArch64BE, FDEs: []FDE{{
		Start: 0x400000, Size: 0x300, Info: 0x20,
		FREs: []FRE{
			{Start: 0, Info: FREInfo(BaseSP, 1, 0, false)},
			{Start: 4, Info: FREInfo(BaseSP, 1, 0, true)},
			{Start: 8, Info: FREInfo(BaseSP, 3, 0, true), W: [6]int32{16, -8, -16}},
			{Start: 0x200, Info: FREInfo(BaseFP, 3, 0, true), W: [6]int32{4000, -8, -16}},
		},
	}}}
	for _, v := range []uint8{Version2, Version3} {
		s.Version = v
		b, err := Encode(s, EncodeOptions{Addr: 0x500000, Sort: true})
		if err != nil {
			t.Fatal(err)
		}
		if b[0] != 0xde || b[1] != 0xe2 || !HasMagic(b) {
			t.Fatalf("magic %x", b[:2])
		}
		got, err := Decode(b, 0x500000, ".sframe")
		if err != nil {
			t.Fatal(err)
		}
		var d1, d2 bytes.Buffer
		Dump(&d1, s, ".sframe")
		Dump(&d2, got, ".sframe")
		if v == Version3 && d1.String() != d2.String() {
			t.Errorf("v%d dump differs:\n%s\n%s", v, d1.String(), d2.String())
		}
		if !strings.Contains(d2.String(), "pauth = B key") || !strings.Contains(d2.String(), "fp+4000   c-16      c-8[s]") {
			t.Errorf("v%d dump:\n%s", v, d2.String())
		}
		if got.FDEs[0].FREType() != FREAddr2 || got.FDEs[0].FREs[3].SizeCode() != 1 {
			t.Errorf("FRE type %d, size code %d", got.FDEs[0].FREType(), got.FDEs[0].FREs[3].SizeCode())
		}
		b2, _ := Encode(got, EncodeOptions{Addr: 0x500000, Sort: true})
		if !bytes.Equal(b, b2) {
			t.Errorf("v%d re-encode differs", v)
		}
	}
}
