package dedup

import "github.com/btfinline/btfinline/internal/dwarftype"

// TypeReader is a Reader that also reads the next entry straight into a
// dwarftype.Entry, without the dwarf.Entry and the boxed value per
// attribute of Next: the converter reads a million entries of a vmlinux.
type TypeReader interface {
	Reader
	// NextType reads into t what Set would make of the entry Next would
	// return; false where Next returns no entry.
	NextType(t *dwarftype.Entry) (bool, error)
}

// viaEntry is a Reader as a TypeReader: its entries through Set.
type viaEntry struct {
	Reader
}

func (r viaEntry) NextType(t *dwarftype.Entry) (bool, error) {
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
