package btf

// Facts about types across a base chain: the one place that walks the
// chain, follows typedefs and qualifiers, sizes a type and finds a
// function by name, for every package that asks.

import (
	"errors"
	"iter"
	"math"
	"sort"
)

// maxChain bounds walks along type references (typedefs, qualifiers,
// array elements): a cycle in corrupt BTF ends there.
const maxChain = 64

// Chain returns the specs of s's base chain, root (vmlinux) first and s
// last.
func (s *Spec) Chain() []*Spec {
	n := 0
	for p := s; p != nil; p = p.base {
		n++
	}
	c := make([]*Spec, n)
	for p := s; p != nil; p = p.base {
		n--
		c[n] = p
	}
	return c
}

// All yields every type of the chain in id order (the root's first).
func (s *Spec) All() iter.Seq2[TypeID, *Type] {
	return func(yield func(TypeID, *Type) bool) {
		for _, p := range s.Chain() {
			for j := range p.types {
				if !yield(p.firstID+TypeID(j), &p.types[j]) {
					return
				}
			}
		}
	}
}

// OfKind returns the ids of every type of kind k in the chain, ascending.
func (s *Spec) OfKind(k Kind) []TypeID {
	var ids []TypeID
	for id, t := range s.All() {
		if t.Kind() == k {
			ids = append(ids, id)
		}
	}
	return ids
}

// FuncsByName returns the ids of the FUNCs named name anywhere in the
// chain, ascending.
func (s *Spec) FuncsByName(name string) []TypeID {
	chain := s.Chain()
	// Compare the name in place in the string sections: building a Go
	// string for each of the kernel's 60,000 FUNC names costs more than
	// the search.
	nameIs := func(off uint32) bool {
		for i := len(chain) - 1; i >= 0; i-- {
			p := chain[i]
			if off < p.strStart {
				continue
			}
			o := uint64(off - p.strStart)
			end := o + uint64(len(name))
			return end < uint64(len(p.strings)) && string(p.strings[o:end]) == name && p.strings[end] == 0
		}
		return false
	}
	var ids []TypeID
	for id, t := range s.All() {
		if t.Kind() == KindFunc && nameIs(t.NameOff) {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// ErrVoid is Resolve's error for type id 0.
var ErrVoid = errors.New("btf: void type")

// Resolve follows typedefs and qualifiers (TYPEDEF, CONST, VOLATILE,
// RESTRICT, TYPE_TAG) from id to the first other type and returns it with
// its id.
func (s *Spec) Resolve(id TypeID) (*Type, TypeID, error) {
	for range maxChain {
		if id == 0 {
			return nil, 0, ErrVoid
		}
		t, err := s.TypeByID(id)
		if err != nil {
			return nil, 0, err
		}
		if !isModifier(t) {
			return t, id, nil
		}
		id = TypeID(t.SizeType)
	}
	return nil, 0, errors.New("btf: type chain too deep")
}

// Size returns the byte size of a value of type id, through typedefs and
// qualifiers: an INT, STRUCT, UNION, ENUM, ENUM64 or FLOAT's size, ptrSize
// for a PTR, element size times count for an ARRAY; 0 for anything else
// (void, FUNC_PROTO, FWD), a chain that does not resolve or a size that
// does not fit in 32 bits.
func (s *Spec) Size(id TypeID, ptrSize uint32) uint32 {
	return s.size(id, ptrSize, 0)
}

func (s *Spec) size(id TypeID, ptrSize uint32, depth int) uint32 {
	if depth > maxChain {
		return 0
	}
	t, _, err := s.Resolve(id)
	if err != nil {
		return 0
	}
	switch t.Kind() {
	case KindInt, KindStruct, KindUnion, KindEnum, KindEnum64, KindFloat:
		return t.SizeType
	case KindPtr:
		return ptrSize
	case KindArray:
		elem, _, n := t.Array()
		es := s.size(elem, ptrSize, depth+1)
		if uint64(es)*uint64(n) > math.MaxUint32 {
			return 0
		}
		return es * n
	}
	return 0
}
