package dwarfsite

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corruptFixture is the x86-64 fixture with a way to patch .debug_info.
type corruptFixture struct {
	data    []byte
	infoOff uint64 // file offset of .debug_info
	d       *dwarf.Data
}

func loadCorrupt(t *testing.T) *corruptFixture {
	t.Helper()
	path := filepath.Join(fixtureDir, "sites-x86_64")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	return &corruptFixture{data: b, infoOff: f.Section(".debug_info").Offset, d: d}
}

// entries returns the entries of the given tag (with the unit offset).
func (c *corruptFixture) entries(t *testing.T, match func(*dwarf.Entry) bool) (es []*dwarf.Entry, units []dwarf.Offset) {
	r := c.d.Reader()
	var cu dwarf.Offset
	for {
		e, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			return
		}
		if e.Tag == dwarf.TagCompileUnit {
			// The unit header precedes the unit DIE: 12 bytes in DWARF 5.
			cu = e.Offset - 12
		}
		if match(e) {
			es = append(es, e)
			units = append(units, cu)
		}
	}
}

// patchOrigin rewrites the DW_AT_abstract_origin (DW_FORM_ref4, the first
// attribute gcc emits, right after the one-byte abbreviation code) of the
// entry at off to point to target.
func (c *corruptFixture) patchOrigin(t *testing.T, b []byte, off, unit, target dwarf.Offset, old dwarf.Offset) {
	p := c.infoOff + uint64(off) + 1
	if got := binary.LittleEndian.Uint32(b[p:]); got != uint32(old-unit) {
		t.Fatalf("entry 0x%x: first attribute is 0x%x, not the abstract origin 0x%x", off, got, old-unit)
	}
	binary.LittleEndian.PutUint32(b[p:], uint32(target-unit))
}

func wantWarning(t *testing.T, b []byte, substr string) *Result {
	t.Helper()
	res, err := ReadBytes(b, Options{Workers: 2})
	if err != nil {
		t.Fatalf("error instead of a counted skip: %v", err)
	}
	if res.Stats.Warnings == 0 {
		t.Fatalf("no warning; want %q", substr)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, substr) && strings.Contains(w, ".debug_info+0x") {
			return res
		}
	}
	t.Fatalf("warnings %q lack %q with a section offset", res.Warnings, substr)
	return nil
}

func TestCorruptDWARF(t *testing.T) {
	c := loadCorrupt(t)
	good, err := ReadBytes(c.data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	inl, inlUnits := c.entries(t, func(e *dwarf.Entry) bool { return e.Tag == dwarf.TagInlinedSubroutine })
	concrete, concUnits := c.entries(t, func(e *dwarf.Entry) bool {
		_, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
		return e.Tag == dwarf.TagSubprogram && ok
	})
	if len(inl) == 0 || len(concrete) == 0 {
		t.Fatal("fixture lacks inlined subroutines or an out-of-line copy of an inline function")
	}
	origin := func(e *dwarf.Entry) dwarf.Offset { return e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset) }

	t.Run("cyclic abstract origin", func(t *testing.T) {
		b := append([]byte(nil), c.data...)
		s, su := concrete[0], concUnits[0]
		// The out-of-line copy points to itself; an inlined subroutine
		// of the same unit points to the copy.
		c.patchOrigin(t, b, s.Offset, su, s.Offset, origin(s))
		for i, e := range inl {
			if inlUnits[i] == su {
				c.patchOrigin(t, b, e.Offset, su, s.Offset, origin(e))
				break
			}
		}
		res := wantWarning(t, b, "cyclic")
		if len(res.Sites) != len(good.Sites)-1 {
			t.Errorf("%d sites, want %d (one skipped)", len(res.Sites), len(good.Sites)-1)
		}
	})
	t.Run("origin past the section", func(t *testing.T) {
		b := append([]byte(nil), c.data...)
		c.patchOrigin(t, b, inl[0].Offset, inlUnits[0], 0x7ffffff0, origin(inl[0]))
		res := wantWarning(t, b, "abstract origin")
		if len(res.Sites) != len(good.Sites)-1 {
			t.Errorf("%d sites, want %d", len(res.Sites), len(good.Sites)-1)
		}
	})
	t.Run("origin not a subprogram", func(t *testing.T) {
		b := append([]byte(nil), c.data...)
		c.patchOrigin(t, b, inl[0].Offset, inlUnits[0], inl[0].Offset, origin(inl[0]))
		wantWarning(t, b, "not a subprogram")
	})
	t.Run("bad abbreviation code", func(t *testing.T) {
		b := append([]byte(nil), c.data...)
		b[c.infoOff+uint64(inl[0].Offset)] = 0x7f // no such abbreviation
		wantWarning(t, b, "abbreviation")
	})
	t.Run("unit length past the section", func(t *testing.T) {
		b := append([]byte(nil), c.data...)
		binary.LittleEndian.PutUint32(b[c.infoOff:], 0x7ffffff0)
		_, err := ReadBytes(b, Options{})
		if err == nil || !strings.Contains(err.Error(), ".debug_info") {
			t.Fatalf("error %v, want one naming .debug_info", err)
		}
	})
	t.Run("random bytes", func(t *testing.T) {
		// Overwrite every 7th byte of one unit's entries in turn: the
		// reader must end with sites or an error, never panic.
		for start := uint64(20); start < 400; start += 37 {
			b := append([]byte(nil), c.data...)
			for i := c.infoOff + start; i < c.infoOff+start+64; i += 7 {
				b[i] ^= 0xa5
			}
			if _, err := ReadBytes(b, Options{}); err != nil {
				var fe *FormatError
				var de dwarf.DecodeError
				if !errors.As(err, &fe) && !errors.As(err, &de) && !strings.Contains(err.Error(), "debug") {
					t.Logf("error without a section: %v", err)
				}
			}
		}
	})
}
