package locsec

import (
	"strconv"
	"strings"

	"github.com/btfinline/btfinline/btf"
)

// maxTypeDepth bounds the declarator nesting TypeName follows, so that a
// reference cycle in malformed BTF cannot recurse forever.
const maxTypeDepth = 32

// TypeName returns the C spelling of type id as a parameter type, the way
// pfunct and bpftool print it: "struct tcp_sock *", "const char *", "u32",
// "void (*)(struct sock *, int)", "int [4]". Id 0 is "void".
func TypeName(s *btf.Spec, id btf.TypeID) string {
	return strings.TrimSpace(declarator(s, id, "", 0))
}

// declarator spells type id around the declarator text inner (what is
// "inside" the type: pointers, array bounds, parameter lists).
func declarator(s *btf.Spec, id btf.TypeID, inner string, depth int) string {
	if depth > maxTypeDepth {
		return join("?", inner)
	}
	if id == 0 {
		return join("void", inner)
	}
	t, err := s.TypeByID(id)
	if err != nil {
		return join("<bad type "+strconv.FormatUint(uint64(id), 10)+">", inner)
	}
	name := s.Name(t)
	switch t.Kind() {
	case btf.KindInt, btf.KindFloat, btf.KindTypedef:
		return join(name, inner)
	case btf.KindStruct:
		return join(tagged("struct", name), inner)
	case btf.KindUnion:
		return join(tagged("union", name), inner)
	case btf.KindEnum, btf.KindEnum64:
		return join(tagged("enum", name), inner)
	case btf.KindFwd:
		if t.KindFlag() {
			return join(tagged("union", name), inner)
		}
		return join(tagged("struct", name), inner)
	case btf.KindPtr:
		target := btf.TypeID(t.SizeType)
		in := "*" + spaced(inner)
		if tt, err := s.TypeByID(target); err == nil && (tt.Kind() == btf.KindArray || tt.Kind() == btf.KindFuncProto) {
			in = "(" + in + ")"
		}
		return declarator(s, target, in, depth+1)
	case btf.KindConst, btf.KindVolatile, btf.KindRestrict:
		q := map[btf.Kind]string{btf.KindConst: "const", btf.KindVolatile: "volatile", btf.KindRestrict: "restrict"}[t.Kind()]
		target := btf.TypeID(t.SizeType)
		if tt, err := s.TypeByID(target); err == nil && tt.Kind() == btf.KindPtr {
			// A qualified pointer: the qualifier goes after the '*'.
			if inner != "" {
				q += " " + inner
			}
			return declarator(s, target, q, depth+1)
		}
		return q + " " + declarator(s, target, inner, depth+1)
	case btf.KindTypeTag:
		return declarator(s, btf.TypeID(t.SizeType), inner, depth+1)
	case btf.KindArray:
		elem, _, n := t.Array()
		return declarator(s, elem, inner+"["+strconv.FormatUint(uint64(n), 10)+"]", depth+1)
	case btf.KindFuncProto:
		var b strings.Builder
		b.WriteString(inner)
		b.WriteByte('(')
		ps := t.Params()
		if len(ps) == 0 {
			b.WriteString("void")
		}
		for i, p := range ps {
			if i > 0 {
				b.WriteString(", ")
			}
			if i == len(ps)-1 && p.NameOff == 0 && p.Type == 0 {
				b.WriteString("...")
				continue
			}
			b.WriteString(strings.TrimSpace(declarator(s, p.Type, "", depth+1)))
		}
		b.WriteByte(')')
		return declarator(s, btf.TypeID(t.SizeType), b.String(), depth+1)
	case btf.KindFunc:
		return join(name, inner)
	}
	return join("<"+t.Kind().String()+">", inner)
}

func tagged(tag, name string) string {
	if name == "" {
		return tag + " {...}"
	}
	return tag + " " + name
}

// join puts a type name before its declarator: "char" + "*" = "char *".
func join(base, inner string) string {
	if inner == "" {
		return base
	}
	if inner[0] == '[' || inner[0] == '(' && !strings.HasPrefix(inner, "(*") {
		return base + inner
	}
	return base + " " + inner
}

// spaced prefixes inner with a space when it starts with an identifier
// character, so that "*" + "const" reads "* const".
func spaced(inner string) string {
	if inner == "" {
		return ""
	}
	c := inner[0]
	if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		return " " + inner
	}
	return inner
}
