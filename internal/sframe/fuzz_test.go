package sframe

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/btfinline/btfinline/internal/sframe/cfi"
)

func seedSections(f *testing.F) {
	for _, name := range []string{"x86-O2.gas.o", "x86-O2-realign.gas.o", "x86-O2.exe"} {
		in, err := func() (*Input, error) {
			raw, err := os.ReadFile(filepath.Join(fixtures, name))
			if err != nil {
				return nil, err
			}
			return Open(raw)
		}()
		if err != nil {
			continue
		}
		if d, _, _, err := in.SFrameSection(); err == nil {
			f.Add(d)
		}
	}
}

// FuzzDecode: the decoder and the dumper never panic, and whatever
// decodes re-encodes into something that decodes again.
func FuzzDecode(f *testing.F) {
	seedSections(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(b, 0x1000, ".sframe")
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if err := Dump(io.Discard, s, ".sframe"); err != nil {
			t.Fatal(err)
		}
		for i := range s.FDEs {
			for j := range s.FDEs[i].FREs {
				s.Lookup(s.FDEs[i].Start + int64(s.FDEs[i].FREs[j].Start))
			}
		}
		out, err := Encode(s, EncodeOptions{Addr: 0x1000, Sort: s.Flags&FlagFDESorted != 0})
		if err != nil {
			return // e.g. a v2 start out of reach after re-sorting
		}
		if _, err := Decode(out, 0x1000, ".sframe"); err != nil {
			t.Fatalf("re-encoded section does not decode: %v", err)
		}
	})
}

// FuzzTranslate runs arbitrary CFI programs through the gas-style
// translator and the encoder.
func FuzzTranslate(f *testing.F) {
	f.Add(uint8(3), []byte{0x41, 0x0e, 0x10, 0x86, 0x02, 0x43, 0x0d, 0x06, 0x0a, 0x4a, 0x0c, 0x07, 0x08, 0x41, 0x0b})
	f.Add(uint8(3), []byte{0x44, 0x0c, 0x0a, 0x00, 0x45, 0x0f, 0x03, 0x76, 0x78, 0x06, 0x10, 0x06, 0x02, 0x76, 0x00, 0x4a, 0x0c, 0x07, 0x08})
	f.Add(uint8(2), []byte{0x2d, 0x44, 0x0e, 0x10, 0x9d, 0x02, 0x9e, 0x01, 0x48, 0x0d, 0x1d, 0x48, 0xde, 0xdd, 0x0c, 0x1f, 0x00, 0x2d})
	f.Fuzz(func(t *testing.T, abi uint8, prog []byte) {
		if len(prog) > 4096 {
			return
		}
		a := ABIAMD64LE
		cie := []byte{0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 0x10, 1, 0x1b, 0x0c, 7, 8, 0x90, 1, 0, 0}
		if abi&1 == 0 {
			a = ABIAArch64LE
			cie = []byte{0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 4, 0x78, 0x1e, 1, 0x1b, 0x0c, 0x1f, 0, 0, 0, 0, 0}
		}
		body := append([]byte{0, 0, 0, 0, 0xe0, 0xff, 0xff, 0xff, 0x40, 0, 0, 0, 0}, prog...)
		fde := binary.LittleEndian.AppendUint32(nil, uint32(len(body)))
		fde = append(fde, body...)
		binary.LittleEndian.PutUint32(fde[4:], uint32(len(cie)+4))
		data := append(append(append([]byte(nil), cie...), fde...), 0, 0, 0, 0)
		res, err := cfi.Parse(&cfi.Section{Kind: cfi.EHFrame, Data: data, Addr: 0x1000, PtrSize: 8})
		if err != nil || len(res.FDEs) != 1 {
			return
		}
		for _, v := range []uint8{Version2, Version3} {
			fd, reason := Translate(res.FDEs[0], a, v)
			if reason != "" {
				continue
			}
			s := &Section{Version: v, ABI: a, FDEs: []FDE{*fd}}
			if a == ABIAMD64LE {
				s.FixedRA = -8
			}
			b, err := Encode(s, EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Decode(b, 0, ".sframe"); err != nil {
				t.Fatalf("v%d: our encoding does not decode: %v", v, err)
			}
		}
	})
}
