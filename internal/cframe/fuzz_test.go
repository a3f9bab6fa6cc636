package cframe

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/btfinline/btfinline/internal/sframe"
)

// seedTables encodes a few fixtures with each strategy, and a module
// table with its section map.
func seedTables(tb testing.TB) [][]byte {
	var out [][]byte
	for _, f := range []string{"x86-plt.nosf.exe", "x86-O2.nosf.exe", "a64-O2-pac.nosf.exe"} {
		in, done, err := sframe.OpenFile(filepath.Join(sframeFixtures, f))
		if err != nil {
			tb.Fatal(err)
		}
		for _, o := range []Options{strategies[0], strategies[2], {Strategy: StrategyCalleeSaved, Dedup: true, InnerBits: 3}} {
			e, err := Emit(in, o)
			if err != nil {
				tb.Fatal(err)
			}
			b, err := e.Encode(0x10000)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, b)
		}
		done()
	}
	return out
}

// FuzzDecode: the decoder never panics, loops or reads outside the
// section; a bad table is a *FormatError inside the section; whatever
// decodes dumps, and every lookup on it (at each boundary the dump lists
// and around it, in each module section) answers without failing.
func FuzzDecode(f *testing.F) {
	for _, b := range seedTables(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tab, err := Decode(b, 0x10000, ".cframe")
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("untyped error %v", err)
			}
			if fe.Offset < 0 || fe.Offset > int64(len(b)) {
				t.Fatalf("error offset %d outside the %d-byte section: %v", fe.Offset, len(b), err)
			}
			return
		}
		if err := Dump(io.Discard, tab); err != nil {
			t.Fatal(err)
		}
		base := tab.Base()
		span := uint64(tab.NumBuckets) << (tab.InnerBits + tab.BottomTrim)
		for _, off := range []uint64{0, 1, span / 2, span - 1, span, span + 1} {
			tab.Lookup(base + off)
		}
		// Around the first boundaries (at most 256 of them).
		n := 0
		for o := uint32(0); o < tab.NumBuckets && n < 256; o++ {
			s, e := tab.bucket(o)
			for i := s; i < e && n < 256; i, n = i+1, n+1 {
				key := bitsAt(tab.b, tab.inner+i*uint64(tab.innerW), uint(tab.InnerBits))
				off := (uint64(o)<<tab.InnerBits | key) << tab.BottomTrim
				for _, d := range []uint64{0, 1, 7, 64} {
					if st, ok := tab.Lookup(base + off + d); ok && st.Frame.CFA.Kind > sframe.ValUnknown {
						t.Fatalf("state with kind %v", st.Frame.CFA.Kind)
					}
				}
			}
		}
		for _, s := range tab.Sections() {
			tab.LookupSection(s.Index, 0)
			tab.LookupSection(s.Index, uint64(s.Size)-1)
		}
	})
}

// TestWriteSeedCorpus keeps testdata/fuzz/FuzzDecode in step with the
// encoder: BTFI_UPDATE_FUZZ=1 rewrites the seed files.
func TestWriteSeedCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	seeds := seedTables(t)
	if os.Getenv("BTFI_UPDATE_FUZZ") != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, b := range seeds {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, b := range seeds {
		want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)))
		if err != nil || string(got) != want {
			t.Errorf("seed %d is not the encoder's current output (BTFI_UPDATE_FUZZ=1 go test -run TestWriteSeedCorpus ./cframe)", i)
		}
	}
}
