// Package btfindex owns the lookup tables of a BTF base chain by which the
// encoders reuse what the chain already has instead of adding it again:
// the type converter (internal/dedup) finds types by name, shape and
// target, and the LOCSEC encoder (internal/locsec) finds FUNCs by name,
// FUNC_PROTOs by content and LOC_PARAMs and LOC_PROTOs by value. One
// Index serves both, built in one pass over a Spec's types, once per Spec
// and shared: a vmlinux is indexed once however many modules are encoded
// against it, in parallel (an Index is read-only once built).
//
// Names are keyed by their canonical string offset
// (btf.Spec.CanonicalString), not by Go strings, and a layer's tables
// share flat idmap.Maps, so indexing the ~95,000 types of a vmlinux
// allocates no string and no entry. Keys are hashes of the fields a table
// is keyed by; a caller verifies each candidate against the fields. The
// tables of a chain are layered, root first, and a lookup walks the layers
// in that order, which keeps the answers of one table built over the
// whole chain in id order: lists ascending, the lowest id first.
//
// It imports internal/btf and internal/idmap only.
package btfindex

import (
	"encoding/binary"
	"slices"
	"sync"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/idmap"
)

// Index holds the tables of one Spec's own types, on top of the Index of
// its base chain.
type Index struct {
	spec   *btf.Spec
	parent *Index
	Layer
}

// New indexes s's own types; parent must be the Index of s.Base() (nil
// when s is base BTF).
func New(s *btf.Spec, parent *Index) *Index {
	if (parent == nil) != (s.Base() == nil) || parent != nil && parent.spec != s.Base() {
		panic("btfindex: New: parent does not index the base of the Spec")
	}
	x := &Index{spec: s, parent: parent}
	x.Layer = *NewLayer(s)
	x.AddOwn(s)
	return x
}

// Chain indexes s and its whole base chain.
func Chain(s *btf.Spec) *Index {
	var x *Index
	for _, p := range s.Chain() {
		x = New(p, x)
	}
	return x
}

// Spec returns the Spec whose types x indexes last.
func (x *Index) Spec() *btf.Spec { return x.spec }

// Layers returns the layers of x's chain, root first (nil for a nil x).
func (x *Index) Layers() []*Layer {
	var out []*Layer
	for ; x != nil; x = x.parent {
		out = append(out, &x.Layer)
	}
	slices.Reverse(out)
	return out
}

// Layer is the tables of one Spec's own types, or of the types a
// converter adds, in the order they are added.
type Layer struct {
	// named holds the named kinds (and FUNCs) by name; other the rest
	// (anonymous types, references, arrays, prototypes). Two maps: a
	// TYPEDEF is in both, and an id has one place in a map.
	named, other *idmap.Map
	params       map[ParamKey]btf.TypeID // the first LOC_PARAM of each value
	lprotos      map[string]btf.TypeID   // the first LOC_PROTO of each list
	// firstInt is the first INT "int", arraySize the last INT
	// "__ARRAY_SIZE_TYPE__": the array index type is the latter if any.
	firstInt, arraySize btf.TypeID
	// The canonical offsets of those two names in the layer's Spec.
	intName, sizeName uint32
}

// NewLayer returns empty tables for s's own types and those added to s
// later.
func NewLayer(s *btf.Spec) *Layer {
	n := len(s.Types())
	l := &Layer{
		// About two thirds of a kernel's types are indexed, under 60%
		// distinct keys.
		named: idmap.New(uint32(s.FirstID()), n, n/2),
		other: idmap.New(uint32(s.FirstID()), n, n/2),
	}
	l.intName, _ = s.FindString("int")
	l.sizeName, _ = s.FindString("__ARRAY_SIZE_TYPE__")
	return l
}

// AddOwn adds every one of s's own types: the named table on one
// goroutine, the rest on another, for a vmlinux has 95,000 types and more.
func (l *Layer) AddOwn(s *btf.Spec) {
	types := s.Types()
	first := s.FirstID()
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range types {
			l.addNamed(first+btf.TypeID(i), &types[i], s)
		}
	})
	for i := range types {
		l.addOther(first+btf.TypeID(i), &types[i], s)
	}
	wg.Wait()
}

// Add adds type id, ty, whose strings are s's.
func (l *Layer) Add(id btf.TypeID, ty *btf.Type, s *btf.Spec) {
	l.addNamed(id, ty, s)
	l.addOther(id, ty, s)
}

// addNamed adds ty to the named table if it is of a named kind.
func (l *Layer) addNamed(id btf.TypeID, ty *btf.Type, s *btf.Spec) {
	k := ty.Kind()
	switch k {
	case btf.KindEnum64:
		k = btf.KindEnum
	case btf.KindInt, btf.KindFloat, btf.KindFwd, btf.KindFunc, btf.KindTypedef, btf.KindStruct, btf.KindUnion, btf.KindEnum:
	default:
		return
	}
	name := s.CanonicalString(ty.NameOff)
	if name == 0 && (k == btf.KindStruct || k == btf.KindUnion || k == btf.KindEnum) {
		return // anonymous: in the other table
	}
	l.named.Add(NamedKey(k, name), uint32(id))
	if k == btf.KindInt && name != 0 {
		if name == l.intName && l.firstInt == 0 {
			l.firstInt = id
		}
		if name == l.sizeName {
			l.arraySize = id
		}
	}
}

// addOther adds ty to the other tables if it is of their kinds.
func (l *Layer) addOther(id btf.TypeID, ty *btf.Type, s *btf.Spec) {
	switch k := ty.Kind(); k {
	case btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64:
		if k == btf.KindEnum64 {
			k = btf.KindEnum
		}
		if s.CanonicalString(ty.NameOff) == 0 {
			l.other.Add(AnonKey(k, ty.SizeType, ty.Vlen(), FirstName(s, ty)), uint32(id))
		}
	case btf.KindPtr, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypedef:
		l.other.Add(RefKey(k, btf.TypeID(ty.SizeType), s.CanonicalString(ty.NameOff)), uint32(id))
	case btf.KindArray:
		elem, _, n := ty.Array()
		l.other.Add(ArrayKey(elem, n), uint32(id))
	case btf.KindFuncProto:
		l.other.Add(ShapeOf(ty).Key(), uint32(id))
	case btf.KindLocParam:
		flags, vals := ty.LocParam()
		if len(vals) > len(ParamKey{}.V) {
			break
		}
		pk := ParamKey{Size: ty.SizeType, Flags: flags, N: len(vals)}
		copy(pk.V[:], vals)
		if l.params == nil {
			l.params = map[ParamKey]btf.TypeID{}
		}
		if _, ok := l.params[pk]; !ok {
			l.params[pk] = id
		}
	case btf.KindLocProto:
		pk := IDsKey(ty.LocProtoParams())
		if l.lprotos == nil {
			l.lprotos = map[string]btf.TypeID{}
		}
		if _, ok := l.lprotos[pk]; !ok {
			l.lprotos[pk] = id
		}
	}
}

// Named calls f with each id added under key to the table of named
// kinds, in the order they were added, until f returns false.
func (l *Layer) Named(key uint64, f func(id btf.TypeID) bool) {
	l.named.Each(key, func(id uint32) bool { return f(btf.TypeID(id)) })
}

// Other is Named for the table of the rest: anonymous types, references,
// arrays and prototypes.
func (l *Layer) Other(key uint64, f func(id btf.TypeID) bool) {
	l.other.Each(key, func(id uint32) bool { return f(btf.TypeID(id)) })
}

// Param returns the layer's first LOC_PARAM of value k.
func (l *Layer) Param(k ParamKey) (btf.TypeID, bool) {
	id, ok := l.params[k]
	return id, ok
}

// LocProto returns the layer's first LOC_PROTO whose parameter list has
// IDsKey k.
func (l *Layer) LocProto(k string) (btf.TypeID, bool) {
	id, ok := l.lprotos[k]
	return id, ok
}

// FirstInt returns the layer's first INT named "int" (0: none).
func (l *Layer) FirstInt() btf.TypeID { return l.firstInt }

// ArraySize returns the layer's last INT named "__ARRAY_SIZE_TYPE__" (0:
// none), the array index type pahole adds.
func (l *Layer) ArraySize() btf.TypeID { return l.arraySize }

// What a key is made of; each caller verifies its candidates against
// these fields.
const (
	tagNamed uint64 = iota + 1 // kind (ENUM64 as ENUM), canonical name
	tagAnon                    // kind, size, vlen, canonical first member name
	tagRef                     // kind, target, canonical name
	tagArray                   // element, count
	tagProto                   // named parameters, return and parameter types
)

// NamedKey is the key of a named INT, FLOAT, FWD, FUNC, STRUCT, UNION,
// ENUM (ENUM64 too) or TYPEDEF in the named table.
func NamedKey(k btf.Kind, name uint32) uint64 {
	return idmap.Key(tagNamed, uint64(k), uint64(name))
}

// AnonKey is the key of an anonymous STRUCT, UNION or ENUM: its kind,
// size, member count and first member's canonical name.
func AnonKey(k btf.Kind, size uint32, vlen int, first uint32) uint64 {
	return idmap.Key(tagAnon, uint64(k), uint64(size), uint64(vlen), uint64(first))
}

// RefKey is the key of a PTR, CONST, VOLATILE, RESTRICT or TYPEDEF by
// kind, target and canonical name.
func RefKey(k btf.Kind, target btf.TypeID, name uint32) uint64 {
	return idmap.Key(tagRef, uint64(k), uint64(target), uint64(name))
}

// ArrayKey is the key of an ARRAY by element type and count.
func ArrayKey(elem btf.TypeID, n uint32) uint64 {
	return idmap.Key(tagArray, uint64(elem), uint64(n))
}

// FirstName is the canonical name of t's first member or enumerator (0
// for none).
func FirstName(s *btf.Spec, t *btf.Type) uint32 {
	// The first word of a member or enumerator is its name.
	if t.Vlen() > 0 && len(t.Data) > 0 {
		return s.CanonicalString(t.Data[0])
	}
	return 0
}

// ProtoShape is what a FUNC_PROTO is keyed by: return and parameter types
// (names are not part of a function pointer's type), and whether any
// parameter is named. A DWARF subroutine type is a function pointer's
// target: it matches a prototype without parameter names (what pointers in
// pahole's BTF refer to) before a FUNC's named one; a FUNC's prototype is
// matched by its names too, which the caller verifies.
type ProtoShape struct {
	Named bool
	Ret   btf.TypeID
	Words []uint32 // name, type per parameter: the record as it is
}

// ShapeOf returns FUNC_PROTO t's shape.
func ShapeOf(t *btf.Type) ProtoShape {
	sh := ProtoShape{Ret: btf.TypeID(t.SizeType), Words: t.Data[:min(len(t.Data), 2*t.Vlen())]}
	for i := 0; i < len(sh.Words); i += 2 {
		if sh.Words[i] != 0 {
			sh.Named = true
			break
		}
	}
	return sh
}

// Equal reports whether a and b have the same shape (the names aside).
func (a ProtoShape) Equal(b ProtoShape) bool {
	if a.Named != b.Named || a.Ret != b.Ret || len(a.Words) != len(b.Words) {
		return false
	}
	for i := 1; i < len(a.Words); i += 2 {
		if a.Words[i] != b.Words[i] {
			return false
		}
	}
	return true
}

// Key is the shape's key in the other table.
func (a ProtoShape) Key() uint64 {
	h := ProtoKey(a.Ret, len(a.Words)/2, a.Named)
	for i := 1; i < len(a.Words); i += 2 {
		h = ProtoKeyParam(h, btf.TypeID(a.Words[i]))
	}
	return h
}

// ProtoKey starts the key of a FUNC_PROTO returning ret with n parameters,
// named or not; ProtoKeyParam adds each parameter's type, in order.
func ProtoKey(ret btf.TypeID, n int, named bool) uint64 {
	h := idmap.Key(tagProto, uint64(ret), uint64(2*n))
	if named {
		h = ^h
	}
	return h
}

// ProtoKeyParam adds a parameter of type typ to the key h.
func ProtoKeyParam(h uint64, typ btf.TypeID) uint64 { return idmap.Key(h, uint64(typ)) }

// ParamKey is a LOC_PARAM's value: the size word, flags, and up to three
// values.
type ParamKey struct {
	Size  uint32
	Flags btf.LocFlags
	N     int
	V     [3]uint32
}

// IDsKey is the key of a list of type ids, for maps keyed by lists.
func IDsKey(v []btf.TypeID) string {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return string(b)
}
