package resolve

import (
	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/locsec"
)

// TypeInfo is what a fetch argument needs to know about a parameter's C
// type: its size and how to print it.
type TypeInfo struct {
	Name      string // C spelling
	Size      int    // bytes; 0 when unknown
	Signed    bool
	Pointer   bool
	Float     bool
	Aggregate bool // struct, union or array
}

// maxTypeDepth bounds aggregate nesting so that a cyclic (malformed) BTF
// cannot hang us.
const maxTypeDepth = 64

// BTFTypeInfo describes type id of spec.
func BTFTypeInfo(spec *btf.Spec, id btf.TypeID) TypeInfo {
	ti := TypeInfo{Name: locsec.TypeName(spec, id)}
	t, _, err := spec.Resolve(id)
	if err != nil {
		return ti
	}
	switch t.Kind() {
	case btf.KindInt:
		enc, _, _ := t.IntEncoding()
		ti.Size = int(t.SizeType)
		ti.Signed = enc&btf.IntSigned != 0
		ti.Float = legacyFloat(spec, t)
	case btf.KindPtr:
		ti.Size, ti.Pointer = ptrSize, true
	case btf.KindEnum, btf.KindEnum64:
		ti.Size = int(t.SizeType)
		ti.Signed = t.KindFlag()
	case btf.KindFloat:
		ti.Size, ti.Float = int(t.SizeType), true
	case btf.KindStruct, btf.KindUnion:
		ti.Size, ti.Aggregate = int(t.SizeType), true
	case btf.KindArray:
		// A parameter of array type decays to a pointer.
		ti.Size, ti.Pointer = ptrSize, true
	}
	return ti
}
