package dwarfsite

import (
	"debug/dwarf"
	"os"
	"path/filepath"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

// BenchmarkKernelSites reads every inline site of the Debian vmlinux.
// Goal: less wall time than "pahole -J" on the same file (about 5 s),
// peak RSS under 1 GiB.
func BenchmarkKernelSites(b *testing.B) {
	dir := testutil.KernelData(b)
	b.ReportAllocs()
	for b.Loop() {
		res, err := ReadFile(filepath.Join(dir, "vmlinux"), Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(res.Sites)), "sites")
	}
}

// BenchmarkFixtureSites reads the checked-in x86-64 fixture.
func BenchmarkFixtureSites(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFile(filepath.Join(fixtureDir, "sites-x86_64"), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEntryReader walks every entry of a module with EntryReader and
// with debug/dwarf's Reader (what the type converter reads through):
// the allocations per entry are what EntryReader saves.
func BenchmarkEntryReader(b *testing.B) {
	path := filepath.Join(fixtureDir, "sites-x86_64.o")
	if dir := os.Getenv("BTFI_KERNEL_DATA"); dir != "" {
		path = filepath.Join(dir, "modules", "xfs.ko")
	}
	x := loadObject(b, path)
	type reader interface {
		Seek(dwarf.Offset)
		Next() (*dwarf.Entry, error)
	}
	walk := func(b *testing.B, r reader) {
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			// Unit by unit, as the converter seeks: up to the next
			// unit's entry.
			for _, u := range x.units {
				r.Seek(u.dieOff)
				for first := true; ; first = false {
					e, err := r.Next()
					if err != nil {
						b.Fatal(err)
					}
					if e == nil || !first && e.Tag == dwarf.TagCompileUnit {
						break
					}
					n++
				}
			}
			b.ReportMetric(float64(n), "entries")
		}
	}
	b.Run("EntryReader", func(b *testing.B) { walk(b, x.EntryReader()) })
	d, err := x.Data()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("dwarf.Reader", func(b *testing.B) { walk(b, d.Reader()) })
}
