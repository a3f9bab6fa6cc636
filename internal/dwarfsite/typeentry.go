package dwarfsite

import (
	"debug/dwarf"

	"github.com/btfinline/btfinline/internal/dwarftype"
)

// NextType is Next for a reader of types (package dedup's TypeReader):
// the entry Next would return, in t, decoded without a dwarf.Entry when
// the own decoder reads it, else converted from debug/dwarf's (Set);
// false where Next returns no entry. An attribute the reader does not
// keep (EntryReaderOf) is absent from t. SkipChildren skips the children
// of the entry either way.
func (r *EntryReader) NextType(t *dwarftype.Entry) (bool, error) {
	ok, _, err := r.nextType(t)
	return ok, err
}

// nextType is NextType, and whether the own decoder read the entry.
func (r *EntryReader) nextType(t *dwarftype.Entry) (ok, own bool, err error) {
	if r.fast {
		off := dwarf.Offset(r.c.Off())
		if ab, ok := r.head(); ok {
			if ab == nil {
				*t = dwarftype.Entry{} // a null entry, as Next's
				r.read(off, 0, false, 0)
				return true, true, nil
			}
			if sib, ok := r.typeAttrs(ab, t); ok {
				t.Offset, t.Tag, t.Children = off, ab.tag, ab.children
				r.read(off, ab.tag, ab.children, sib)
				return true, true, nil
			}
		}
		r.slow()
	}
	e, err := r.lk.Next()
	if err != nil || e == nil {
		return false, false, err
	}
	t.Set(e)
	return true, false, nil
}

// typeAttrs reads the attributes of an entry with abbreviation ab (r.c
// just past its code) into t and returns its DW_AT_sibling; false for an
// entry left to debug/dwarf. It decodes the same attributes as fieldsOf,
// so that both leave the same entries to debug/dwarf.
func (r *EntryReader) typeAttrs(ab *abbrev, t *dwarftype.Entry) (dwarf.Offset, bool) {
	*t = dwarftype.Entry{}
	var sib dwarf.Offset
	// seen: the attributes (below 128, as all of t's are) met before.
	var seen [2]uint64
	var v attrVal
	for i, form := range ab.forms {
		at := ab.attrs[i]
		if !r.kept(at) {
			if !r.skipValue(form) {
				return 0, false
			}
			continue
		}
		if !r.value(ab, i, &v) {
			return 0, false
		}
		if at >= 128 {
			continue
		}
		bit := uint64(1) << (at % 64)
		if seen[at/64]&bit != 0 {
			continue
		}
		seen[at/64] |= bit
		switch at {
		case dwarf.AttrSibling:
			if v.kind == valOffset {
				sib = dwarf.Offset(v.u)
			}
		case dwarf.AttrName:
			if v.kind == valString {
				t.Name = v.s
			}
		case dwarf.AttrType:
			if v.kind == valOffset {
				t.Type = dwarf.Offset(v.u)
			}
		case dwarf.AttrDeclaration:
			if v.kind == valBool {
				t.Declaration = v.u == 1
			}
		default:
			if k := t.IntOf(at); k != nil && (v.kind == valInt || v.kind == valUint) {
				*k = dwarftype.Int{Val: int64(v.u), OK: true}
			}
		}
	}
	return sib, true
}
