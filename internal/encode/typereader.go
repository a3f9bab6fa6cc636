package encode

import (
	"github.com/btfinline/btfinline/internal/dedup"
	"github.com/btfinline/btfinline/internal/dwarfsite"
)

// typeReader is the type converter's dedup.TypeReader on the DWARF
// reader's EntryReader: the two packages do not import each other, so the
// typed entry is copied here from one's type to the other's.
type typeReader struct {
	*dwarfsite.EntryReader
	t dwarfsite.TypeEntry
}

func (r *typeReader) NextType(d *dedup.TypeEntry) (bool, error) {
	e, typed, err := r.EntryReader.NextType(&r.t)
	if !typed {
		if err != nil || e == nil {
			return false, err
		}
		d.Set(e)
		return true, nil
	}
	t := &r.t
	*d = dedup.TypeEntry{
		Offset: t.Offset, Tag: t.Tag, Children: t.Children,
		Name: t.Name, Type: t.Type, Declaration: t.Declaration,
		ByteSize: dedup.Int(t.ByteSize), Encoding: dedup.Int(t.Encoding),
		ConstValue: dedup.Int(t.ConstValue), Count: dedup.Int(t.Count),
		UpperBound: dedup.Int(t.UpperBound), LowerBound: dedup.Int(t.LowerBound),
		BitSize: dedup.Int(t.BitSize), DataBitOffset: dedup.Int(t.DataBitOffset),
		DataMemberLoc: dedup.Int(t.DataMemberLoc), BitOffset: dedup.Int(t.BitOffset),
	}
	return true, nil
}
