package locsec

// The prototypes Encode reuses from the base chain: a FUNC_PROTO is found
// in the chain's index (internal/btfindex) by its shape and verified by
// its parameters' canonical names.

import (
	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/btfindex"
)

// protoContent is what a FUNC_PROTO is reused by: return type, and the
// type and canonical name of each parameter.
type protoContent struct {
	ret   btf.TypeID
	pairs []uint32 // type, canonical name per parameter
}

func protoWords(t *btf.Type) []uint32 { return t.Data[:min(len(t.Data), 2*t.Vlen())] }

// key is the content's key in the index: that of its shape, the names
// aside (matches verifies them).
func (a protoContent) key() uint64 {
	named := false
	for i := 1; i < len(a.pairs); i += 2 {
		named = named || a.pairs[i] != 0
	}
	h := btfindex.ProtoKey(a.ret, len(a.pairs)/2, named)
	for i := 0; i < len(a.pairs); i += 2 {
		h = btfindex.ProtoKeyParam(h, btf.TypeID(a.pairs[i]))
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
