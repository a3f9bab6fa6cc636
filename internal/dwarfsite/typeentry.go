package dwarfsite

import "debug/dwarf"

// TypeEntry is an entry as a reader of types looks at it, read by
// EntryReader.NextType without a dwarf.Entry: a Field's Val is an
// interface, which boxes (allocates) most values, and the type converter
// of package dedup reads 930,000 entries of a vmlinux. Each attribute is
// the first of its kind in the entry, as Entry.Val takes it, and is set
// only when debug/dwarf gives it the Go type its field holds: otherwise
// the field is zero (a name by another class, a DW_AT_data_member_location
// expression).
type TypeEntry struct {
	Offset   dwarf.Offset
	Tag      dwarf.Tag
	Children bool

	Name        string       // DW_AT_name, a string
	Type        dwarf.Offset // DW_AT_type, a dwarf.Offset
	Declaration bool         // DW_AT_declaration, a bool

	ByteSize, Encoding, ConstValue, Count, UpperBound, LowerBound,
	BitSize, DataBitOffset, DataMemberLoc, BitOffset Int
}

// Int is an attribute debug/dwarf gives as an int64 or a uint64 (Val,
// as two's complement); OK is false when the entry lacks the attribute or
// has a value of another type for it.
type Int struct {
	Val int64
	OK  bool
}

// intOf is the field of t for attribute at, nil for an attribute
// that is not an Int of TypeEntry.
func (t *TypeEntry) intOf(at dwarf.Attr) *Int {
	switch at {
	case dwarf.AttrByteSize:
		return &t.ByteSize
	case dwarf.AttrEncoding:
		return &t.Encoding
	case dwarf.AttrConstValue:
		return &t.ConstValue
	case dwarf.AttrCount:
		return &t.Count
	case dwarf.AttrUpperBound:
		return &t.UpperBound
	case dwarf.AttrLowerBound:
		return &t.LowerBound
	case dwarf.AttrBitSize:
		return &t.BitSize
	case dwarf.AttrDataBitOffset:
		return &t.DataBitOffset
	case dwarf.AttrDataMemberLoc:
		return &t.DataMemberLoc
	case dwarf.AttrBitOffset:
		return &t.BitOffset
	}
	return nil
}

// NextType is Next for a reader of types: when the own decoder reads the
// entry, it is put in t (typed true, no Entry); otherwise NextType returns
// what Next would, and t is of no use. An attribute the reader does not
// keep (EntryReaderOf) is absent from t. SkipChildren skips the children
// of the entry either way.
func (r *EntryReader) NextType(t *TypeEntry) (e *dwarf.Entry, typed bool, err error) {
	if r.fast {
		off := dwarf.Offset(r.c.Off())
		if ab, ok := r.head(); ok {
			if ab == nil {
				*t = TypeEntry{} // a null entry, as Next's
				r.read(off, 0, false, 0)
				return nil, true, nil
			}
			if sib, ok := r.typeAttrs(ab, t); ok {
				t.Offset, t.Tag, t.Children = off, ab.tag, ab.children
				r.read(off, ab.tag, ab.children, sib)
				return nil, true, nil
			}
		}
		r.slow()
	}
	e, err = r.lk.Next()
	return e, false, err
}

// typeAttrs reads the attributes of an entry with abbreviation ab (r.c
// just past its code) into t and returns its DW_AT_sibling; false for an
// entry left to debug/dwarf. It decodes the same attributes as fieldsOf,
// so that both leave the same entries to debug/dwarf.
func (r *EntryReader) typeAttrs(ab *abbrev, t *TypeEntry) (dwarf.Offset, bool) {
	*t = TypeEntry{}
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
			if k := t.intOf(at); k != nil && (v.kind == valInt || v.kind == valUint) {
				*k = Int{int64(v.u), true}
			}
		}
	}
	return sib, true
}
