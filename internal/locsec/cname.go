package locsec

import (
	"strconv"

	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/btf"
)

// maxTypeDepth bounds the declarator nesting TypeName follows, so that a
// reference cycle in malformed BTF cannot recurse forever, and
// maxTypeNodes the nodes it builds: a prototype whose parameters refer to
// itself would otherwise take exponential time within that depth.
const (
	maxTypeDepth = 32
	maxTypeNodes = 1024
)

// TypeName returns the C spelling of type id as a parameter type, the way
// pfunct and bpftool print it: "struct tcp_sock *", "const char *", "u32",
// "void (*)(struct sock *, int)", "int [4]". Id 0 is "void". The spelling
// is site.CType's, so that sites read from DWARF and from BTF print the
// same text.
func TypeName(s *btf.Spec, id btf.TypeID) string {
	nodes := 0
	return ctype(s, id, 0, &nodes).String()
}

// ctype converts type id to the C type model; nil is void.
func ctype(s *btf.Spec, id btf.TypeID, depth int, nodes *int) *site.CType {
	if *nodes++; depth > maxTypeDepth || *nodes > maxTypeNodes {
		return &site.CType{Name: "?"}
	}
	if id == 0 {
		return nil
	}
	t, err := s.TypeByID(id)
	if err != nil {
		return &site.CType{Name: "<bad type " + strconv.FormatUint(uint64(id), 10) + ">"}
	}
	name := s.Name(t)
	target := btf.TypeID(t.SizeType)
	switch t.Kind() {
	case btf.KindInt, btf.KindFloat, btf.KindTypedef, btf.KindFunc:
		return &site.CType{Name: name}
	case btf.KindStruct:
		return &site.CType{Name: tagged("struct", name)}
	case btf.KindUnion:
		return &site.CType{Name: tagged("union", name)}
	case btf.KindEnum, btf.KindEnum64:
		return &site.CType{Name: tagged("enum", name)}
	case btf.KindFwd:
		if t.KindFlag() {
			return &site.CType{Name: tagged("union", name)}
		}
		return &site.CType{Name: tagged("struct", name)}
	case btf.KindPtr:
		return &site.CType{Kind: site.CPtr, Elem: ctype(s, target, depth+1, nodes)}
	case btf.KindConst, btf.KindVolatile, btf.KindRestrict:
		q := map[btf.Kind]string{btf.KindConst: "const", btf.KindVolatile: "volatile", btf.KindRestrict: "restrict"}[t.Kind()]
		return &site.CType{Kind: site.CQual, Name: q, Elem: ctype(s, target, depth+1, nodes)}
	case btf.KindTypeTag:
		return ctype(s, target, depth+1, nodes)
	case btf.KindArray:
		elem, _, n := t.Array()
		return &site.CType{Kind: site.CArray, N: int64(n), Elem: ctype(s, elem, depth+1, nodes)}
	case btf.KindFuncProto:
		fn := &site.CType{Kind: site.CFunc, Elem: ctype(s, target, depth+1, nodes)}
		ps := t.Params()
		for i, p := range ps {
			if i == len(ps)-1 && p.NameOff == 0 && p.Type == 0 {
				fn.Variadic = true
				continue
			}
			fn.Args = append(fn.Args, ctype(s, p.Type, depth+1, nodes))
		}
		return fn
	}
	return &site.CType{Name: "<" + t.Kind().String() + ">"}
}

func tagged(tag, name string) string {
	if name == "" {
		return tag + " {...}"
	}
	return tag + " " + name
}
