package dedup

// The lookup tables of a base chain's types, built once per Spec and
// shared: a vmlinux is indexed once however many modules are converted
// against it (in parallel: an Index is read-only once built). Names are
// keyed by their canonical string offset (btf.Spec.CanonicalString), not
// by Go strings, and all tables of a Spec share one flat idmap.Map, so
// indexing the ~95,000 types of a vmlinux allocates no string and no entry.
// Keys are hashes of the fields a table is keyed by; a lookup verifies
// each candidate against the fields. The tables of a chain are layered,
// root first, and a lookup walks the layers in that order, which keeps the
// answers of one table built over the whole chain in id order: lists
// ascending, the lowest id first.

import (
	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/idmap"
)

// Index holds the lookup tables of one Spec's own types, on top of the
// Index of its base chain.
type Index struct {
	spec   *btf.Spec
	parent *Index
	tables
}

// tables is one layer: an Index's, or a Converter's own (the types it
// adds, in the order it registers them).
type tables struct {
	// named holds the named kinds by name; m the rest (anonymous types,
	// references, arrays, prototypes). Two maps: a TYPEDEF is in both,
	// and an id has one place in a map.
	named, m *idmap.Map
	// firstInt is the first INT "int", arraySize the last INT
	// "__ARRAY_SIZE_TYPE__": the array index type is the latter if any.
	firstInt, arraySize btf.TypeID
}

// What a key is made of; each table verifies its candidates against
// these fields.
const (
	tagNamed uint64 = iota + 1 // kind (ENUM64 as ENUM), canonical name
	tagAnon                    // kind, size, vlen, canonical first member name
	tagRef                     // kind, target, canonical name
	tagArray                   // element, count
	tagProto                   // named parameters, return and parameter types
)

func namedKey(k btf.Kind, name uint32) uint64 {
	return idmap.Key(tagNamed, uint64(k), uint64(name))
}

func anonKey(k btf.Kind, size uint32, vlen int, first uint32) uint64 {
	return idmap.Key(tagAnon, uint64(k), uint64(size), uint64(vlen), uint64(first))
}

func refKey(k btf.Kind, target btf.TypeID, name uint32) uint64 {
	return idmap.Key(tagRef, uint64(k), uint64(target), uint64(name))
}

func arrayKey(elem btf.TypeID, n uint32) uint64 {
	return idmap.Key(tagArray, uint64(elem), uint64(n))
}

// NewIndex indexes s's own types; parent must be the Index of s.Base()
// (nil when s is base BTF).
func NewIndex(s *btf.Spec, parent *Index) *Index {
	if (parent == nil) != (s.Base() == nil) || parent != nil && parent.spec != s.Base() {
		panic("dedup: NewIndex: parent does not index the base of the Spec")
	}
	x := &Index{spec: s, parent: parent}
	types := s.Types()
	x.init(s.FirstID(), len(types))
	intName, _ := s.FindString("int")
	sizeName, _ := s.FindString("__ARRAY_SIZE_TYPE__")
	id := s.FirstID()
	for i := range types {
		x.register(id+btf.TypeID(i), &types[i], s, intName, sizeName)
	}
	return x
}

// IndexChain indexes s and its whole base chain.
func IndexChain(s *btf.Spec) *Index {
	var x *Index
	for _, p := range s.Chain() {
		x = NewIndex(p, x)
	}
	return x
}

// Spec returns the Spec whose types x indexes last.
func (x *Index) Spec() *btf.Spec { return x.spec }

func (t *tables) init(first btf.TypeID, n int) {
	// About two thirds of a kernel's types are indexed, under 60%
	// distinct keys.
	t.named = idmap.New(uint32(first), n, n/4)
	t.m = idmap.New(uint32(first), n, n/2)
}

// register adds type id to the tables.
func (t *tables) register(id btf.TypeID, ty *btf.Type, s *btf.Spec, intName, sizeName uint32) {
	k := ty.Kind()
	name := s.CanonicalString(ty.NameOff)
	switch k {
	case btf.KindInt, btf.KindFloat, btf.KindFwd:
		t.named.Add(namedKey(k, name), uint32(id))
	case btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64:
		if k == btf.KindEnum64 {
			k = btf.KindEnum
		}
		if name != 0 {
			t.named.Add(namedKey(k, name), uint32(id))
		} else {
			t.m.Add(anonKey(k, ty.SizeType, ty.Vlen(), firstName(s, ty)), uint32(id))
		}
	case btf.KindPtr, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypedef:
		if k == btf.KindTypedef {
			t.named.Add(namedKey(k, name), uint32(id))
		}
		t.m.Add(refKey(k, btf.TypeID(ty.SizeType), name), uint32(id))
	case btf.KindArray:
		elem, _, n := ty.Array()
		t.m.Add(arrayKey(elem, n), uint32(id))
	case btf.KindFuncProto:
		t.m.Add(shapeOf(ty).key(), uint32(id))
	}
	if k == btf.KindInt && name != 0 {
		if name == intName && t.firstInt == 0 {
			t.firstInt = id
		}
		if name == sizeName {
			t.arraySize = id
		}
	}
}

// protoShape is what a FUNC_PROTO is matched by: return and parameter
// types (names are not part of a function pointer's type), and whether any
// parameter is named. A DWARF subroutine type is a function pointer's
// target: it matches a prototype without parameter names (what pointers in
// pahole's BTF refer to) before a FUNC's named one.
type protoShape struct {
	named bool
	ret   btf.TypeID
	words []uint32 // name, type per parameter: the record as it is
}

func shapeOf(t *btf.Type) protoShape {
	sh := protoShape{ret: btf.TypeID(t.SizeType), words: t.Data[:min(len(t.Data), 2*t.Vlen())]}
	for i := 0; i < len(sh.words); i += 2 {
		if sh.words[i] != 0 {
			sh.named = true
			break
		}
	}
	return sh
}

func (a protoShape) equal(b protoShape) bool {
	if a.named != b.named || a.ret != b.ret || len(a.words) != len(b.words) {
		return false
	}
	for i := 1; i < len(a.words); i += 2 {
		if a.words[i] != b.words[i] {
			return false
		}
	}
	return true
}

func (a protoShape) key() uint64 {
	h := idmap.Key(tagProto, uint64(a.ret), uint64(len(a.words)))
	if a.named {
		h = ^h
	}
	for i := 1; i < len(a.words); i += 2 {
		h = idmap.Key(h, uint64(a.words[i]))
	}
	return h
}

func firstName(s *btf.Spec, t *btf.Type) uint32 {
	// The first word of a member or enumerator is its name.
	if t.Vlen() > 0 && len(t.Data) > 0 {
		return s.CanonicalString(t.Data[0])
	}
	return 0
}
