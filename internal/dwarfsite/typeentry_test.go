package dwarfsite

import (
	"debug/dwarf"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/btfinline/btfinline/internal/dwarftype"
	"github.com/btfinline/btfinline/internal/testutil"
)

// typeEntryOf is the Entry of an entry debug/dwarf read (nil: none).
func typeEntryOf(e *dwarf.Entry) *dwarftype.Entry {
	if e == nil {
		return nil
	}
	var t dwarftype.Entry
	t.Set(e)
	return &t
}

// checkTypeEntries reads the entries of x with NextType as the type
// converter does (an entry, the next one, and the one after that one's
// children) and with a debug/dwarf Reader, and requires the same
// Entries and errors, each of which it hands to each (when not nil). It
// returns how many entries NextType decoded itself.
func checkTypeEntries(t testing.TB, x *Object, each func(*dwarftype.Entry)) (typed int) {
	t.Helper()
	d, err := x.Data()
	if err != nil {
		t.Fatal(err)
	}
	raw := d.Reader()
	var offs []dwarf.Offset
	for {
		e, err := raw.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			break
		}
		if e.Tag != 0 {
			offs = append(offs, e.Offset)
		}
	}
	ty := x.EntryReaderOf(dwarftype.Attrs...)
	var te dwarftype.Entry
	for _, off := range offs {
		raw.Seek(off)
		ty.Seek(off)
		for step := range 3 {
			if step == 2 {
				raw.SkipChildren()
				ty.SkipChildren()
			}
			re, rerr := raw.Next()
			ok, own, gerr := ty.nextType(&te)
			if (rerr == nil) != (gerr == nil) {
				t.Fatalf("%#x step %d: NextType error %v, debug/dwarf %v", off, step, gerr, rerr)
			}
			if rerr != nil {
				break
			}
			var got *dwarftype.Entry
			if ok {
				got = &te
			}
			if own {
				typed++
			}
			if want := typeEntryOf(re); !reflect.DeepEqual(got, want) {
				t.Fatalf("%#x step %d (own decoder %v): NextType\n got %+v\nwant %+v", off, step, own, got, want)
			}
			if re == nil {
				break
			}
			if each != nil {
				each(got)
			}
		}
	}
	return typed
}

// checkTypeEntriesNext reads the first entries of each unit of x (up to
// limit in all) with NextType and with another EntryReader's Next, in
// step, skipping the children of every third entry, and requires the same
// Entries and errors: the typed decoder leaves the same entries to
// debug/dwarf as fieldsOf and reads the others alike, whatever the bytes.
// (debug/dwarf itself is no reference for any bytes: it takes the last
// of two abbreviations with one code, the own table the first.)
func checkTypeEntriesNext(t testing.TB, x *Object, limit int) {
	t.Helper()
	ty, er := x.EntryReaderOf(dwarftype.Attrs...), x.EntryReaderOf(dwarftype.Attrs...)
	var te dwarftype.Entry
	n := 0
	for i := range x.units {
		off := x.units[i].dieOff
		ty.Seek(off)
		er.Seek(off)
		for ; n < limit; n++ {
			if n%3 == 2 {
				ty.SkipChildren()
				er.SkipChildren()
			}
			ok, own, gerr := ty.nextType(&te)
			re, rerr := er.Next()
			if (gerr == nil) != (rerr == nil) {
				t.Fatalf("unit at %#x, entry %d: NextType error %v, Next %v", off, n, gerr, rerr)
			}
			if rerr != nil {
				break
			}
			var got *dwarftype.Entry
			if ok {
				got = &te
			}
			if want := typeEntryOf(re); !reflect.DeepEqual(got, want) {
				t.Fatalf("unit at %#x, entry %d (own decoder %v): NextType\n got %+v\nwant %+v", off, n, own, got, want)
			}
			if re == nil {
				break
			}
		}
	}
}

func TestTypeEntriesMatchDebugDWARF(t *testing.T) {
	paths := []string{filepath.Join(fixtureDir, "badform-x86_64.o")}
	for _, name := range allFixtures {
		paths = append(paths, filepath.Join(fixtureDir, name))
	}
	// The encoder's objects: a kernel image, modules, a Rust unit.
	encoded, _ := filepath.Glob(filepath.Join(encodeFixtures, "*.elf"))
	for _, n := range []string{"mod.ko", "mod-other.ko", "mod-distilled.ko"} {
		encoded = append(encoded, filepath.Join(encodeFixtures, n))
	}
	paths = append(paths, encoded...)
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			x := loadObject(t, p)
			checkTypeEntriesNext(t, x, 1<<30)
			n := checkTypeEntries(t, x, nil)
			// badform's foreign forms leave every entry to debug/dwarf.
			if n == 0 && filepath.Base(p) != "badform-x86_64.o" {
				t.Error("no entry read by NextType's own decoder")
			}
		})
	}
}

// TestKernelTypeEntriesMatchDebugDWARF: the same on each kernel's
// tcp_bbr.ko (make check-kernel).
func TestKernelTypeEntriesMatchDebugDWARF(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		t.Run(k.Name+"/tcp_bbr", func(t *testing.T) {
			if checkTypeEntries(t, loadObject(t, filepath.Join(k.Dir, "modules", "tcp_bbr.ko")), nil) == 0 {
				t.Error("no entry read by NextType's own decoder")
			}
		})
	}
}

// encodeFixtures are the objects package encode's tests encode.
var encodeFixtures = filepath.Join("..", "encode", "testdata")
