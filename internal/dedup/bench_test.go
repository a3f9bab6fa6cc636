package dedup

import (
	"debug/dwarf"
	"path/filepath"
	"testing"

	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/dwarfsite"
	"github.com/btfinline/btfinline/internal/testutil"
)

// BenchmarkKernelConvert converts the prototype types of every inlined
// function of the Debian vmlinux against its .BTF (the DWARF read is not
// timed).
func BenchmarkKernelConvert(b *testing.B) {
	path := filepath.Join(testutil.KernelData(b), "vmlinux")
	res, err := dwarfsite.ReadFile(path, dwarfsite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	o, err := openObject(path)
	if err != nil {
		b.Fatal(err)
	}
	defer o.Close()
	base, err := btf.LoadELFSection(o.ELF, ".BTF", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := New(o.DWARF, btf.NewSpec(base))
		seen := map[*site.Func]bool{}
		for _, s := range res.Sites {
			if seen[s.Func] {
				continue
			}
			seen[s.Func] = true
			if _, err := c.TypeID(dwarf.Offset(s.Func.RetTypeOff)); err != nil {
				b.Fatal(err)
			}
			for _, p := range s.Func.Params {
				if _, err := c.TypeID(dwarf.Offset(p.TypeOff)); err != nil {
					b.Fatal(err)
				}
			}
		}
		if c.Added() != 0 {
			b.Fatalf("%d types added", c.Added())
		}
		b.ReportMetric(float64(c.Resolved()), "types")
	}
}

// BenchmarkConvertFixture converts every type of encode/testdata/kern.elf.
func BenchmarkConvertFixture(b *testing.B) {
	o, err := openObject(fixture("kern.elf"))
	if err != nil {
		b.Fatal(err)
	}
	defer o.Close()
	base, err := btf.LoadELFSection(o.ELF, ".BTF", nil)
	if err != nil {
		b.Fatal(err)
	}
	offs, _ := typeDIEs(b, o.DWARF)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c := New(o.DWARF, btf.NewSpec(base))
		for _, off := range offs {
			if _, err := c.TypeID(off); err != nil {
				b.Fatal(err)
			}
		}
	}
}
