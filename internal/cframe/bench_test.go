package cframe

import (
	"debug/elf"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/btfinline/btfinline/internal/sframe"
)

// lookupBench is one input ready for lookup benchmarks: its SFrame v3
// section and its CFrame table, and random PCs over its executable
// sections.
type lookupBench struct {
	sf  *sframe.Table
	cf  *Table
	pcs []uint64
}

const benchPCs = 1 << 16

func newLookupBench(tb testing.TB, path string, opt Options) *lookupBench {
	tb.Helper()
	in, done, err := sframe.OpenFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer done()
	e, err := Emit(in, opt)
	if err != nil {
		tb.Fatal(err)
	}
	addr := in.SectionAddr()
	sb, err := e.SFrame.Encode(addr)
	if err != nil {
		tb.Fatal(err)
	}
	cb, err := e.Encode(addr)
	if err != nil {
		tb.Fatal(err)
	}
	lb := &lookupBench{}
	// Copies: the input's mapping goes away with done.
	if lb.sf, err = sframe.NewTable(append([]byte(nil), sb...), addr); err != nil {
		tb.Fatal(err)
	}
	if lb.cf, err = Decode(append([]byte(nil), cb...), addr, ".cframe"); err != nil {
		tb.Fatal(err)
	}
	lb.pcs = randomPCs(in.File, benchPCs)
	return lb
}

// randomPCs draws n addresses uniformly over the bytes of the executable
// sections (padding and gaps between functions included), with a fixed
// seed.
func randomPCs(f *elf.File, n int) []uint64 {
	type r struct{ lo, size uint64 }
	var rs []r
	total := uint64(0)
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Flags&elf.SHF_ALLOC != 0 && s.Size > 0 {
			rs = append(rs, r{s.Addr, s.Size})
			total += s.Size
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pcs := make([]uint64, n)
	for i := range pcs {
		x := rng.Uint64N(total)
		for _, s := range rs {
			if x < s.size {
				pcs[i] = s.lo + x
				break
			}
			x -= s.size
		}
	}
	return pcs
}

// touched returns the mean distinct lines and pages one lookup reads.
func (lb *lookupBench) touched(cframe bool) (lines, pages float64) {
	var tr Trace
	for _, pc := range lb.pcs {
		tr.Reset()
		if cframe {
			lb.cf.LookupTraced(pc, &tr)
		} else {
			lb.sf.Lookup(pc, &tr)
		}
		lines += float64(tr.Lines())
		pages += float64(tr.Pages())
	}
	return lines / float64(len(lb.pcs)), pages / float64(len(lb.pcs))
}

var sink sframe.Frame

// benchInterleaved times lookups at the random PCs in batches, SFrame v3
// and CFrame alternately (and in alternating order), so that both see the
// same machine: a loaded machine slows both, not one. It reports ns per
// lookup for each, and the mean distinct 64-byte lines and 4 KiB pages one
// lookup reads.
func benchInterleaved(b *testing.B, lb *lookupBench) {
	sl, sp := lb.touched(false)
	cl, cp := lb.touched(true)
	const batch = 256
	var sfT, cfT time.Duration
	n, i := 0, 0
	sfBatch := func(pcs []uint64) {
		for _, pc := range pcs {
			sink, _ = lb.sf.Lookup(pc, nil)
		}
	}
	cfBatch := func(pcs []uint64) {
		for _, pc := range pcs {
			s, _ := lb.cf.Lookup(pc)
			sink = s.Frame
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		pcs := lb.pcs[i : i+batch]
		i = (i + batch) % len(lb.pcs)
		t0 := time.Now()
		if n&batch == 0 {
			sfBatch(pcs)
		} else {
			cfBatch(pcs)
		}
		t1 := time.Now()
		if n&batch == 0 {
			cfBatch(pcs)
		} else {
			sfBatch(pcs)
		}
		t2 := time.Now()
		if n&batch == 0 {
			sfT, cfT = sfT+t1.Sub(t0), cfT+t2.Sub(t1)
		} else {
			cfT, sfT = cfT+t1.Sub(t0), sfT+t2.Sub(t1)
		}
		n += batch
	}
	b.ReportMetric(float64(sfT.Nanoseconds())/float64(n), "sframe-ns/lookup")
	b.ReportMetric(float64(cfT.Nanoseconds())/float64(n), "cframe-ns/lookup")
	b.ReportMetric(sl, "sframe-lines/lookup")
	b.ReportMetric(cl, "cframe-lines/lookup")
	b.ReportMetric(sp, "sframe-pages/lookup")
	b.ReportMetric(cp, "cframe-pages/lookup")
}

// BenchmarkLookupTable is the lookup half of the table (make
// cframe-table): every binary of the table.
func BenchmarkLookupTable(b *testing.B) {
	if os.Getenv("BTFI_CFRAME_TABLE") == "" {
		b.Skip("make cframe-table runs it")
	}
	for _, in := range tableInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			benchInterleaved(b, newLookupBench(b, in.path, tableOptions[2]))
		})
	}
}

// BenchmarkLookupFixture is the same on a checked-in executable.
func BenchmarkLookupFixture(b *testing.B) {
	benchInterleaved(b, newLookupBench(b, filepath.Join(sframeFixtures, "x86-O2.nosf.exe"), tableOptions[2]))
}
