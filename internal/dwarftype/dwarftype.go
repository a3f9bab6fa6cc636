// Package dwarftype owns Entry, a DWARF type entry as a reader of types
// looks at it: the attributes of a type, a member, an enumerator or a
// subrange, each typed, without debug/dwarf's Entry, whose every Field
// boxes its value in an interface (an allocation for most values, and the
// type converter reads a million entries of a vmlinux). A decoder fills
// an Entry directly (package dwarfsite's EntryReader.NextType); any other
// reader's entries convert with Set, to the same Entry.
//
// It imports debug/dwarf only, so that the decoder and the converter
// (package dedup) share it without importing each other.
package dwarftype

import "debug/dwarf"

// Entry is an entry's attributes of Attrs, each the first of its kind as
// dwarf.Entry.Val takes it, and set only when debug/dwarf gives it the Go
// type its field holds: otherwise the field is zero (a name of another
// class, a DW_AT_data_member_location expression).
type Entry struct {
	Offset   dwarf.Offset
	Tag      dwarf.Tag
	Children bool

	Name        string       // DW_AT_name, a string
	Type        dwarf.Offset // DW_AT_type, a dwarf.Offset
	Declaration bool         // DW_AT_declaration, a bool

	ByteSize, Encoding, ConstValue, Count, UpperBound, LowerBound,
	BitSize, DataBitOffset, DataMemberLoc, BitOffset Int
}

// Int is an attribute debug/dwarf gives as an int64 or a uint64 (Val, as
// two's complement); OK is false when the entry lacks the attribute or
// has a value of another type for it, and Val is then 0.
type Int struct {
	Val int64
	OK  bool
}

// Attrs are the attributes an Entry holds.
var Attrs = []dwarf.Attr{dwarf.AttrName, dwarf.AttrByteSize, dwarf.AttrType, dwarf.AttrDeclaration,
	dwarf.AttrEncoding, dwarf.AttrConstValue, dwarf.AttrCount, dwarf.AttrUpperBound, dwarf.AttrLowerBound,
	dwarf.AttrBitSize, dwarf.AttrDataBitOffset, dwarf.AttrDataMemberLoc, dwarf.AttrBitOffset}

// IntOf is the field of t for attribute at, nil for an attribute that is
// not one of its Ints.
func (t *Entry) IntOf(at dwarf.Attr) *Int {
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

// Set makes t the entry e.
func (t *Entry) Set(e *dwarf.Entry) {
	*t = Entry{Offset: e.Offset, Tag: e.Tag, Children: e.Children}
	t.Name, _ = e.Val(dwarf.AttrName).(string)
	t.Type, _ = e.Val(dwarf.AttrType).(dwarf.Offset)
	t.Declaration, _ = e.Val(dwarf.AttrDeclaration).(bool)
	for _, at := range Attrs {
		if k := t.IntOf(at); k != nil {
			switch v := e.Val(at).(type) {
			case int64:
				*k = Int{v, true}
			case uint64:
				*k = Int{int64(v), true}
			}
		}
	}
}
