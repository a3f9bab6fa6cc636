package site

import (
	"strconv"
	"strings"
)

// CKind is what a CType node is.
type CKind uint8

const (
	// CNamed is a type spelled by name: a base type, a typedef, or a
	// tagged "struct x" / "union x" / "enum x" (Name holds the spelling).
	CNamed CKind = iota
	// CPtr is a pointer to Elem (Name "&" or "&&" for C++ references).
	CPtr
	// CQual is Elem qualified by Name ("const", "volatile", "restrict",
	// "_Atomic").
	CQual
	// CArray is an array of N Elem; N < 0 when the bound is unknown.
	CArray
	// CFunc is a function returning Elem with Args (Variadic adds "...").
	CFunc
)

// CType is a C type as the DWARF reader and the BTF reader both see it,
// so that one declarator algorithm spells parameter types for both and
// "sites --dwarf" and "sites" print the same text.
type CType struct {
	Kind     CKind
	Name     string
	Elem     *CType // nil means void
	N        int64
	Args     []*CType
	Variadic bool
}

// String spells t as a parameter type, the way pfunct and bpftool print
// it: "struct tcp_sock *", "const char *", "void (*)(struct sock *, int)",
// "u32 (*)[256]", "char * const".
func (t *CType) String() string {
	nodes := 0
	return strings.TrimSpace(declare(t, "", 0, &nodes))
}

// maxCTypeDepth bounds the nesting declare follows, and maxCTypeNodes the
// nodes it spells: a tree built from malformed input may share subtrees
// (a prototype whose parameters are that prototype) and would otherwise
// spell exponentially many. Real parameter types have a few dozen.
const (
	maxCTypeDepth = 32
	maxCTypeNodes = 1024
)

// declare spells t around the declarator text inner (what is "inside" the
// type: pointers, array bounds, parameter lists).
func declare(t *CType, inner string, depth int, nodes *int) string {
	if *nodes++; depth > maxCTypeDepth || *nodes > maxCTypeNodes {
		return joinDecl("?", inner)
	}
	if t == nil {
		return joinDecl("void", inner)
	}
	switch t.Kind {
	case CPtr:
		star := t.Name
		if star == "" {
			star = "*"
		}
		in := star + spacedDecl(inner)
		if e := t.Elem; e != nil && (e.Kind == CArray || e.Kind == CFunc) {
			in = "(" + in + ")"
		}
		return declare(t.Elem, in, depth+1, nodes)
	case CQual:
		if e := t.Elem; e != nil && e.Kind == CPtr {
			// A qualified pointer: the qualifier goes after the '*'.
			q := t.Name
			if inner != "" {
				q += " " + inner
			}
			return declare(e, q, depth+1, nodes)
		}
		return t.Name + " " + declare(t.Elem, inner, depth+1, nodes)
	case CArray:
		n := ""
		if t.N >= 0 {
			n = strconv.FormatInt(t.N, 10)
		}
		return declare(t.Elem, inner+"["+n+"]", depth+1, nodes)
	case CFunc:
		var b strings.Builder
		b.WriteString(inner)
		b.WriteByte('(')
		for i, a := range t.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strings.TrimSpace(declare(a, "", depth+1, nodes)))
		}
		if t.Variadic {
			if len(t.Args) > 0 {
				b.WriteString(", ")
			}
			b.WriteString("...")
		} else if len(t.Args) == 0 {
			b.WriteString("void")
		}
		b.WriteByte(')')
		return declare(t.Elem, b.String(), depth+1, nodes)
	}
	return joinDecl(t.Name, inner)
}

// joinDecl puts a type name before its declarator: "char" + "*" = "char *".
func joinDecl(base, inner string) string {
	if inner == "" {
		return base
	}
	if inner[0] == '[' || inner[0] == '(' && !strings.HasPrefix(inner, "(*") && !strings.HasPrefix(inner, "(&") {
		return base + inner
	}
	return base + " " + inner
}

// spacedDecl prefixes inner with a space when it starts with an identifier
// character, so that "*" + "const" reads "* const".
func spacedDecl(inner string) string {
	if inner == "" {
		return ""
	}
	c := inner[0]
	if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		return " " + inner
	}
	return inner
}
