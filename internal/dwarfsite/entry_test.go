package dwarfsite

import (
	"debug/dwarf"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/btfinline/btfinline/internal/dwarfbuf"
	"github.com/btfinline/btfinline/internal/testutil"
)

// checkDecoders reads every entry of the object at path with the worker's
// decoders and with debug/dwarf and requires the same values: the
// attributes of a site's entries (siteAttrsAt), and the lookup reader's
// Next and SkipChildren from each entry against debug/dwarf's Reader
// (the entry after the skipped children is the same). It returns how
// many entries the decoders themselves read.
func checkDecoders(t *testing.T, path string) (fast int) {
	t.Helper()
	x := loadObject(t, path)
	w := newWorker(x, &Options{})
	info := x.o.debug[".debug_info"]
	ref := &lazyReader{x: x}
	d, err := x.Data()
	if err != nil {
		t.Fatal(err)
	}
	er, raw := x.EntryReader(), d.Reader()
	kept := []dwarf.Attr{dwarf.AttrName, dwarf.AttrType, dwarf.AttrByteSize, dwarf.AttrDataMemberLoc, dwarf.AttrUpperBound}
	of := x.EntryReaderOf(kept...)
	for i := range x.units {
		u := &x.units[i]
		w.u = u
		w.fastLook = x.ownDecoders(u)
		if err := w.tab.parse(x.o.debug[".debug_abbrev"], u.abbrev, u); err != nil {
			t.Fatal(err)
		}
		c := dwarfbuf.Make(".debug_info", x.o.order, 0, info[:u.end])
		c.Skip(uint64(u.dieOff))
		for c.Left() > 0 && c.Err() == nil {
			off := dwarf.Offset(c.Off())
			code := c.Uleb()
			if code == 0 {
				continue
			}
			ab := w.tab.get(code)
			if ab == nil {
				t.Fatalf("%s+%#x: no abbreviation %d", path, off, code)
			}
			skipAttrs(&c, ab, u)

			// Through worker.next, as the worker reads: it refuses the
			// entries of foreign abbreviations (badform.go).
			ref.Seek(off)
			e, err := w.next(ref)
			if err != nil {
				if !ab.foreign {
					t.Fatalf("%#x: %v", off, err)
				}
				continue
			}
			if off == u.dieOff {
				w.setUnit(e) // as the worker does at a unit's first entry
			}
			var want siteAttrs
			want.fromEntry(e)
			var got siteAttrs
			if w.decodeSiteAttrs(off, ab, &got) {
				fast++
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s+%#x: site attributes\n got %+v\nwant %+v", path, off, got, want)
				}
			}
			// The EntryReader against a plain dwarf.Reader (no
			// worker.next): the entry, and the one after its children.
			raw.Seek(off)
			re, err := raw.Next()
			er.Seek(off)
			ge, gerr := er.Next()
			if (err == nil) != (gerr == nil) || err == nil && !reflect.DeepEqual(re, ge) {
				t.Fatalf("%s+%#x: EntryReader\n got %+v (%v)\nwant %+v (%v)", path, off, ge, gerr, re, err)
			}
			// EntryReaderOf: the same entry, in the attributes kept.
			of.Seek(off)
			if oe, oerr := of.Next(); (oerr == nil) != (err == nil) || err == nil && (oe.Offset != re.Offset || oe.Tag != re.Tag || oe.Children != re.Children) {
				t.Fatalf("%s+%#x: EntryReaderOf: %+v (%v), want %+v", path, off, oe, oerr, re)
			} else if err == nil {
				for _, at := range append(kept, dwarf.AttrSibling) {
					if g, w := oe.AttrField(at), re.AttrField(at); !reflect.DeepEqual(g, w) {
						t.Fatalf("%s+%#x: EntryReaderOf %v: %+v, want %+v", path, off, at, g, w)
					}
				}
			}
			raw.SkipChildren()
			er.SkipChildren()
			re, err = raw.Next()
			ge, gerr = er.Next()
			if (err == nil) != (gerr == nil) || err == nil && !reflect.DeepEqual(re, ge) {
				t.Fatalf("%s+%#x: EntryReader after the children\n got %+v (%v)\nwant %+v (%v)", path, off, ge, gerr, re, err)
			}

			var wantL lookEntry
			wantL.fromEntry(e)
			w.look.Seek(off)
			le, err := w.look.Next()
			if err != nil || le == nil || !reflect.DeepEqual(*le, wantL) {
				t.Fatalf("%s+%#x: lookup entry\n got %+v (%v)\nwant %+v", path, off, le, err, wantL)
			}
			w.look.SkipChildren()
			ref.SkipChildren()
			after, err1 := w.next(ref)
			le, err2 := w.look.Next()
			switch {
			case (err1 == nil) != (err2 == nil) || (after == nil) != (le == nil):
				t.Fatalf("%s+%#x: after the children: %v, %v / %v, %v", path, off, after, err1, le, err2)
			case after != nil && after.Tag != 0 && le.off != after.Offset:
				t.Fatalf("%s+%#x: after the children: entry %#x, want %#x", path, off, le.off, after.Offset)
			}
		}
	}
	return fast
}

func TestDecodersMatchDebugDWARF(t *testing.T) {
	for _, name := range allFixtures {
		t.Run(name, func(t *testing.T) {
			n := checkDecoders(t, filepath.Join(fixtureDir, name))
			if n == 0 && name != "sites-x86_64-dwarf4" {
				t.Error("no entry read by the worker's decoder")
			}
		})
	}
	t.Run("badform", func(t *testing.T) { checkDecoders(t, filepath.Join(fixtureDir, "badform-x86_64.o")) })
	t.Run("rust", func(t *testing.T) { checkDecoders(t, filepath.Join("..", "encode", "testdata", "rust.elf")) })
}

// TestKernelDecodersMatchDebugDWARF: the same on each kernel's tcp_bbr.ko
// (make check-kernel).
func TestKernelDecodersMatchDebugDWARF(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		t.Run(k.Name+"/tcp_bbr", func(t *testing.T) {
			checkDecoders(t, filepath.Join(k.Dir, "modules", "tcp_bbr.ko"))
		})
	}
}
