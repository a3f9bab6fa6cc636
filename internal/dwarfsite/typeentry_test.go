package dwarfsite

import (
	"debug/dwarf"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

// typeEntryAttrs are the attributes of a TypeEntry.
var typeEntryAttrs = []dwarf.Attr{dwarf.AttrName, dwarf.AttrType, dwarf.AttrDeclaration,
	dwarf.AttrByteSize, dwarf.AttrEncoding, dwarf.AttrConstValue, dwarf.AttrCount,
	dwarf.AttrUpperBound, dwarf.AttrLowerBound, dwarf.AttrBitSize, dwarf.AttrDataBitOffset,
	dwarf.AttrDataMemberLoc, dwarf.AttrBitOffset}

// typeEntryOf is the TypeEntry of an entry debug/dwarf read (nil: none).
func typeEntryOf(e *dwarf.Entry) *TypeEntry {
	if e == nil {
		return nil
	}
	t := &TypeEntry{Offset: e.Offset, Tag: e.Tag, Children: e.Children}
	t.Name, _ = e.Val(dwarf.AttrName).(string)
	t.Type, _ = e.Val(dwarf.AttrType).(dwarf.Offset)
	t.Declaration, _ = e.Val(dwarf.AttrDeclaration).(bool)
	for _, f := range []struct {
		at dwarf.Attr
		v  *Int
	}{
		{dwarf.AttrByteSize, &t.ByteSize}, {dwarf.AttrEncoding, &t.Encoding},
		{dwarf.AttrConstValue, &t.ConstValue}, {dwarf.AttrCount, &t.Count},
		{dwarf.AttrUpperBound, &t.UpperBound}, {dwarf.AttrLowerBound, &t.LowerBound},
		{dwarf.AttrBitSize, &t.BitSize}, {dwarf.AttrDataBitOffset, &t.DataBitOffset},
		{dwarf.AttrDataMemberLoc, &t.DataMemberLoc}, {dwarf.AttrBitOffset, &t.BitOffset},
	} {
		switch v := e.Val(f.at).(type) {
		case int64:
			*f.v = Int{v, true}
		case uint64:
			*f.v = Int{int64(v), true}
		}
	}
	return t
}

// checkTypeEntries reads the entries of x with NextType as the type
// converter does (an entry, the next one, and the one after that one's
// children) and with a debug/dwarf Reader, and requires the same
// TypeEntries and errors. It returns how many entries NextType decoded
// itself.
func checkTypeEntries(t testing.TB, x *Object) (typed int) {
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
	ty := x.EntryReaderOf(typeEntryAttrs...)
	var te TypeEntry
	for _, off := range offs {
		raw.Seek(off)
		ty.Seek(off)
		for step := range 3 {
			if step == 2 {
				raw.SkipChildren()
				ty.SkipChildren()
			}
			re, rerr := raw.Next()
			ge, isTyped, gerr := ty.NextType(&te)
			if (rerr == nil) != (gerr == nil) {
				t.Fatalf("%#x step %d: NextType error %v, debug/dwarf %v", off, step, gerr, rerr)
			}
			if rerr != nil {
				break
			}
			got := typeEntryOf(ge)
			if isTyped {
				typed++
				got = &te
			}
			if want := typeEntryOf(re); !reflect.DeepEqual(got, want) {
				t.Fatalf("%#x step %d (typed %v): NextType\n got %+v\nwant %+v", off, step, isTyped, got, want)
			}
			if re == nil {
				break
			}
		}
	}
	return typed
}

// checkTypeEntriesNext reads the first entries of each unit of x (up to
// limit in all) with NextType and with another EntryReader's Next, in
// step, skipping the children of every third entry, and requires the same
// TypeEntries and errors: the typed decoder leaves the same entries to
// debug/dwarf as fieldsOf and reads the others alike, whatever the bytes.
// (debug/dwarf itself is no reference for any bytes: it takes the last
// of two abbreviations with one code, the own table the first.)
func checkTypeEntriesNext(t testing.TB, x *Object, limit int) {
	t.Helper()
	ty, er := x.EntryReaderOf(typeEntryAttrs...), x.EntryReaderOf(typeEntryAttrs...)
	var te TypeEntry
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
			ge, isTyped, gerr := ty.NextType(&te)
			re, rerr := er.Next()
			if (gerr == nil) != (rerr == nil) {
				t.Fatalf("unit at %#x, entry %d: NextType error %v, Next %v", off, n, gerr, rerr)
			}
			if rerr != nil {
				break
			}
			got := typeEntryOf(ge)
			if isTyped {
				got = &te
			}
			if want := typeEntryOf(re); !reflect.DeepEqual(got, want) {
				t.Fatalf("unit at %#x, entry %d (typed %v): NextType\n got %+v\nwant %+v", off, n, isTyped, got, want)
			}
			if re == nil {
				break
			}
		}
	}
}

func TestTypeEntriesMatchDebugDWARF(t *testing.T) {
	paths := []string{filepath.Join(fixtureDir, "badform-x86_64.o"), filepath.Join("..", "encode", "testdata", "rust.elf")}
	for _, name := range allFixtures {
		paths = append(paths, filepath.Join(fixtureDir, name))
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			x := loadObject(t, p)
			checkTypeEntriesNext(t, x, 1<<30)
			n := checkTypeEntries(t, x)
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
			checkTypeEntries(t, loadObject(t, filepath.Join(k.Dir, "modules", "tcp_bbr.ko")))
		})
	}
}
