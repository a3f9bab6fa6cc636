package cframe

import (
	"debug/elf"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/btfinline/btfinline/sframe"
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

func (lb *lookupBench) run(b *testing.B, cframe bool) {
	l, p := lb.touched(cframe)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		pc := lb.pcs[i&(benchPCs-1)]
		i++
		if cframe {
			s, _ := lb.cf.Lookup(pc)
			sink = s.Frame
		} else {
			sink, _ = lb.sf.Lookup(pc, nil)
		}
	}
	b.ReportMetric(l, "lines/lookup")
	b.ReportMetric(p, "pages/lookup")
}

func BenchmarkLookupAdhoc(b *testing.B) {
	p := os.Getenv("CFRAME_FILE")
	if p == "" {
		b.Skip()
	}
	lb := newLookupBench(b, p, Options{Strategy: StrategyCalleeSaved, Dedup: true, InnerBits: -1})
	b.Run("sframe-v3", func(b *testing.B) { lb.run(b, false) })
	b.Run("cframe", func(b *testing.B) { lb.run(b, true) })
}
