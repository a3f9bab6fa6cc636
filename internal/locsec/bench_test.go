package locsec

import (
	"testing"

	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/btf"
)

// benchSites: n sites of a few functions with varied locations, like a
// kernel's mix (many sites, few distinct LOC_PROTOs).
func benchSites(n int) []site.Site {
	fs := make([]*site.Func, 64)
	for i := range fs {
		fs[i] = &site.Func{Name: "f" + string(rune('a'+i%26)) + string(rune('a'+i/26)), RetTypeID: 1,
			Params: []site.Param{{Name: "a", TypeID: 1}, {Name: "p", TypeID: 2}}}
	}
	sites := make([]site.Site, n)
	for i := range sites {
		sites[i] = site.Site{Func: fs[i%len(fs)], Section: ".text", SectionOff: uint64(i * 7),
			Params: []site.Location{{Kind: site.LocReg, Reg: uint32(i % 16), Size: 4},
				{Kind: site.LocMem, Reg: 7, Offset: int64(i%100) * 8, Size: 8}}}
	}
	return sites
}

func BenchmarkEncode(b *testing.B) {
	base := testBase(b)
	sites := benchSites(100000)
	b.ReportAllocs()
	var size int
	for i := 0; i < b.N; i++ {
		_, _, raw := encodeTest(b, base, sites)
		size = len(raw)
	}
	b.ReportMetric(float64(size)/float64(len(sites)), "B/site")
}

func BenchmarkDecode(b *testing.B) {
	base := testBase(b)
	_, _, raw := encodeTest(b, base, benchSites(100000))
	spec, err := btf.Parse(raw, base)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Decode(spec, nil); err != nil {
			b.Fatal(err)
		}
	}
}
