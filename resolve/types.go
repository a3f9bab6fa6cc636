package resolve

import (
	"fmt"
	"strings"

	"github.com/btfinline/btfinline/btf"
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

// maxTypeDepth bounds modifier chains so that a cyclic (malformed) BTF
// cannot hang us.
const maxTypeDepth = 64

// BTFTypeInfo describes type id of spec.
func BTFTypeInfo(spec *btf.Spec, id btf.TypeID) TypeInfo {
	ti := TypeInfo{Name: TypeName(spec, id)}
	for depth := 0; depth < maxTypeDepth; depth++ {
		if id == 0 {
			return ti
		}
		t, err := spec.TypeByID(id)
		if err != nil {
			return ti
		}
		switch t.Kind() {
		case btf.KindTypedef, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypeTag:
			id = btf.TypeID(t.SizeType)
			continue
		case btf.KindInt:
			enc, _, _ := t.IntEncoding()
			ti.Size = int(t.SizeType)
			ti.Signed = enc&1 != 0 // BTF_INT_SIGNED
		case btf.KindPtr:
			ti.Size, ti.Pointer = 8, true
		case btf.KindEnum, btf.KindEnum64:
			ti.Size = int(t.SizeType)
			ti.Signed = t.KindFlag()
		case btf.KindFloat:
			ti.Size, ti.Float = int(t.SizeType), true
		case btf.KindStruct, btf.KindUnion:
			ti.Size, ti.Aggregate = int(t.SizeType), true
		case btf.KindArray:
			// A parameter of array type decays to a pointer.
			ti.Size, ti.Pointer = 8, true
		}
		return ti
	}
	return ti
}

// TypeName spells type id as C, the way bpftool's "format c" would name a
// parameter type (without the parameter name).
func TypeName(spec *btf.Spec, id btf.TypeID) string {
	var b strings.Builder
	typeName(&b, spec, id, 0)
	return b.String()
}

func typeName(b *strings.Builder, spec *btf.Spec, id btf.TypeID, depth int) {
	if depth > maxTypeDepth {
		b.WriteString("?")
		return
	}
	if id == 0 {
		b.WriteString("void")
		return
	}
	t, err := spec.TypeByID(id)
	if err != nil {
		fmt.Fprintf(b, "<bad type %d>", id)
		return
	}
	name := spec.Name(t)
	switch t.Kind() {
	case btf.KindInt, btf.KindFloat, btf.KindTypedef:
		b.WriteString(name)
	case btf.KindStruct:
		b.WriteString("struct " + anon(name))
	case btf.KindUnion:
		b.WriteString("union " + anon(name))
	case btf.KindEnum, btf.KindEnum64:
		b.WriteString("enum " + anon(name))
	case btf.KindFwd:
		if t.KindFlag() {
			b.WriteString("union " + name)
		} else {
			b.WriteString("struct " + name)
		}
	case btf.KindPtr:
		if tt, err := spec.TypeByID(btf.TypeID(t.SizeType)); err == nil && tt.Kind() == btf.KindFuncProto {
			typeName(b, spec, btf.TypeID(tt.SizeType), depth+1)
			b.WriteString(" (*)(")
			for i, p := range tt.Params() {
				if i > 0 {
					b.WriteString(", ")
				}
				if p.Type == 0 {
					b.WriteString("...")
					continue
				}
				typeName(b, spec, p.Type, depth+1)
			}
			b.WriteString(")")
			return
		}
		typeName(b, spec, btf.TypeID(t.SizeType), depth+1)
		b.WriteString(" *")
	case btf.KindConst:
		b.WriteString("const ")
		typeName(b, spec, btf.TypeID(t.SizeType), depth+1)
	case btf.KindVolatile:
		b.WriteString("volatile ")
		typeName(b, spec, btf.TypeID(t.SizeType), depth+1)
	case btf.KindRestrict, btf.KindTypeTag:
		typeName(b, spec, btf.TypeID(t.SizeType), depth+1)
	case btf.KindArray:
		elem, _, n := t.Array()
		typeName(b, spec, elem, depth+1)
		fmt.Fprintf(b, "[%d]", n)
	default:
		fmt.Fprintf(b, "<%s>", t.Kind())
	}
}

func anon(n string) string {
	if n == "" {
		return "(anon)"
	}
	return n
}
