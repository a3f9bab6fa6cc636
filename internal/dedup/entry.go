package dedup

import "debug/dwarf"

// TypeEntry is a DIE as the converter reads it: its attributes of Attrs,
// each the first of its kind as Entry.Val takes it, and set only when
// Entry.Val gives the Go type its field holds (otherwise zero: a
// DW_AT_data_member_location expression is no offset here).
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

// Int is an attribute Entry.Val gives as an int64 or a uint64 (Val, as
// two's complement); OK is false when the entry lacks the attribute or has
// a value of another type for it, and Val is then 0.
type Int struct {
	Val int64
	OK  bool
}

// TypeReader is a Reader that also reads the next entry straight into a
// TypeEntry, without the dwarf.Entry and the boxed value per attribute of
// Next: the converter reads a million entries of a vmlinux.
type TypeReader interface {
	Reader
	// NextType reads into t what Set would make of the entry Next would
	// return; false where Next returns no entry.
	NextType(t *TypeEntry) (bool, error)
}

// Set makes t the entry e.
func (t *TypeEntry) Set(e *dwarf.Entry) {
	*t = TypeEntry{Offset: e.Offset, Tag: e.Tag, Children: e.Children}
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
		f.v.Val, f.v.OK = intVal(e.Val(f.at))
	}
}

func intVal(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case uint64:
		return int64(x), true
	}
	return 0, false
}

// viaEntry is a Reader as a TypeReader: its entries through Set.
type viaEntry struct {
	Reader
}

func (r viaEntry) NextType(t *TypeEntry) (bool, error) {
	e, err := r.Next()
	if err != nil || e == nil {
		return false, err
	}
	t.Set(e)
	return true, nil
}

// typed is r, or r read through Set.
func typed(r Reader) TypeReader {
	if tr, ok := r.(TypeReader); ok {
		return tr
	}
	return viaEntry{r}
}
