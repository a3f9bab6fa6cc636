package locsec

// The records of a base chain that Encode reuses rather than adds again
// (FUNCs by name, FUNC_PROTOs by content, LOC_PARAMs, LOC_PROTOs), indexed
// once per Spec and shared by every Encode on that chain: a vmlinux is
// indexed once for all of its modules. Names are keyed by their canonical
// string offset (btf.Spec.CanonicalString), so indexing allocates no
// string per type. Tables are layered, root first, and a lookup walks them
// in that order: the lowest id wins, as with one table over the chain.

import (
	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/idmap"
)

// Index holds the tables of one Spec's own types, on top of the Index of
// its base chain. It is read-only once built.
type Index struct {
	spec   *btf.Spec
	parent *Index
	tables
}

type tables struct {
	// m holds FUNCs by canonical name and FUNC_PROTOs by content (return
	// type, parameter types and canonical names); a lookup verifies.
	m       *idmap.Map
	params  map[locKey]btf.TypeID
	lprotos map[string]btf.TypeID
}

const (
	tagFunc uint64 = iota + 1
	tagProto
)

func funcKey(name uint32) uint64 { return idmap.Key(tagFunc, uint64(name)) }

// NewIndex indexes s's own types; parent must be the Index of s.Base()
// (nil when s is base BTF).
func NewIndex(s *btf.Spec, parent *Index) *Index {
	if (parent == nil) != (s.Base() == nil) || parent != nil && parent.spec != s.Base() {
		panic("locsec: NewIndex: parent does not index the base of the Spec")
	}
	x := &Index{spec: s, parent: parent}
	x.index(s)
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

// index adds s's own types.
func (t *tables) index(s *btf.Spec) {
	types := s.Types()
	n := 0
	for i := range types {
		if k := types[i].Kind(); k == btf.KindFunc || k == btf.KindFuncProto {
			n++
		}
	}
	t.m = idmap.New(uint32(s.FirstID()), len(types), n)
	t.params = map[locKey]btf.TypeID{}
	t.lprotos = map[string]btf.TypeID{}
	id := s.FirstID()
	for i := range types {
		ty := &types[i]
		tid := id + btf.TypeID(i)
		switch ty.Kind() {
		case btf.KindFunc:
			t.m.Add(funcKey(s.CanonicalString(ty.NameOff)), uint32(tid))
		case btf.KindFuncProto:
			t.m.Add(protoHash(s, ty), uint32(tid))
		case btf.KindLocParam:
			flags, vals := ty.LocParam()
			if len(vals) > 3 {
				continue
			}
			k := locKey{size: ty.SizeType, flags: flags, n: len(vals)}
			copy(k.v[:], vals)
			if _, ok := t.params[k]; !ok {
				t.params[k] = tid
			}
		case btf.KindLocProto:
			k := idsKey(ty.LocProtoParams())
			if _, ok := t.lprotos[k]; !ok {
				t.lprotos[k] = tid
			}
		}
	}
}

// protoContent is what a FUNC_PROTO is reused by: return type, and the
// type and canonical name of each parameter.
type protoContent struct {
	ret   btf.TypeID
	pairs []uint32 // type, canonical name per parameter
}

func protoWords(t *btf.Type) []uint32 { return t.Data[:min(len(t.Data), 2*t.Vlen())] }

func (a protoContent) hash() uint64 {
	h := idmap.Key(tagProto, uint64(a.ret), uint64(len(a.pairs)))
	for _, w := range a.pairs {
		h = idmap.Key(h, uint64(w))
	}
	return h
}

// protoHash is protoContent.hash of FUNC_PROTO t of s.
func protoHash(s *btf.Spec, t *btf.Type) uint64 {
	w := protoWords(t)
	h := idmap.Key(tagProto, uint64(t.SizeType), uint64(len(w)&^1))
	for i := 0; i+1 < len(w); i += 2 {
		h = idmap.Key(idmap.Key(h, uint64(w[i+1])), uint64(s.CanonicalString(w[i])))
	}
	return h
}

// matches reports whether FUNC_PROTO t of s has content a.
func (a protoContent) matches(s *btf.Spec, t *btf.Type) bool {
	w := protoWords(t)
	if a.ret != btf.TypeID(t.SizeType) || len(a.pairs) != len(w)&^1 {
		return false
	}
	for i := 0; i+1 < len(w); i += 2 {
		if a.pairs[i] != w[i+1] || a.pairs[i+1] != s.CanonicalString(w[i]) {
			return false
		}
	}
	return true
}
