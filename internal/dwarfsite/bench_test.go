package dwarfsite

import (
	"debug/dwarf"
	"os"
	"path/filepath"
	"testing"

	"github.com/btfinline/btfinline/internal/dwarftype"
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

// BenchmarkKernelFloor decodes every DIE of an object once, on one
// goroutine, with the type converter's typed decoder (NextType: the tag,
// and the attributes the converter reads, the others skipped): what
// reading the whole .debug_info once costs, the DWARF floor issue 26 set
// its CPU goal beside, and which bench-kernel sets the encode's CPU
// against on the same machine. It is a yardstick, not a bound: the encode
// passes over the children of types. The object is $BTFI_FLOOR_OBJECT,
// else the Debian 6.1 vmlinux of the kernel data.
func BenchmarkKernelFloor(b *testing.B) {
	path := os.Getenv("BTFI_FLOOR_OBJECT")
	if path == "" {
		path = filepath.Join(testutil.KernelData(b), "vmlinux")
	}
	x := loadObject(b, path)
	dies := 0
	for b.Loop() {
		r := x.EntryReaderOf(dwarftype.Attrs...)
		var t dwarftype.Entry
		_, dies = walkUnits(b, x, r.Seek, func() (dwarf.Tag, bool, error) {
			ok, err := r.NextType(&t)
			return t.Tag, ok, err
		})
	}
	b.ReportMetric(float64(dies), "entries")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(dies*b.N), "ns/entry")
}

// walkUnits reads every entry of x with next, which gives an entry's tag,
// false after the last: unit by unit, as the converter seeks, up to the
// next unit's entry. It returns the entries read and, of them, the DIEs
// (the null entries ending lists of children left out).
func walkUnits(b *testing.B, x *Object, seek func(dwarf.Offset), next func() (dwarf.Tag, bool, error)) (entries, dies int) {
	for _, u := range x.units {
		seek(u.dieOff)
		for first := true; ; first = false {
			tag, ok, err := next()
			if err != nil {
				b.Fatal(err)
			}
			if !ok || !first && tag == dwarf.TagCompileUnit {
				break
			}
			entries++
			if tag != 0 {
				dies++
			}
		}
	}
	return entries, dies
}

// BenchmarkEntryReader walks every entry of a module with EntryReader and
// with debug/dwarf's Reader (what the type converter reads through):
// the allocations per entry are what EntryReader saves. EntryReaderOf and
// NextType read the type converter's attributes only, as Entries and as
// TypeEntries.
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
	walk := func(b *testing.B, seek func(dwarf.Offset), next func() (dwarf.Tag, bool, error)) {
		b.ReportAllocs()
		for b.Loop() {
			n, _ := walkUnits(b, x, seek, next)
			b.ReportMetric(float64(n), "entries")
		}
	}
	entries := func(b *testing.B, r reader) {
		walk(b, r.Seek, func() (dwarf.Tag, bool, error) {
			e, err := r.Next()
			if e == nil {
				return 0, false, err
			}
			return e.Tag, true, err
		})
	}
	b.Run("EntryReader", func(b *testing.B) { entries(b, x.EntryReader()) })
	b.Run("EntryReaderOf", func(b *testing.B) { entries(b, x.EntryReaderOf(dwarftype.Attrs...)) })
	b.Run("NextType", func(b *testing.B) {
		r := x.EntryReaderOf(dwarftype.Attrs...)
		var t dwarftype.Entry
		walk(b, r.Seek, func() (dwarf.Tag, bool, error) {
			ok, err := r.NextType(&t)
			return t.Tag, ok, err
		})
	})
	d, err := x.Data()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("dwarf.Reader", func(b *testing.B) { entries(b, d.Reader()) })
}
