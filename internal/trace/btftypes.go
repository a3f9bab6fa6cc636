package trace

import (
	"fmt"

	"github.com/btfinline/btfinline/internal/locsec"

	"github.com/btfinline/btfinline/internal/btf"
)

// maxTypeDepth bounds walks through modifier chains and nested members,
// so that a malformed BTF cannot loop.
const maxTypeDepth = 32

// strip skips typedefs and qualifiers.
func strip(spec *btf.Spec, id btf.TypeID) (*btf.Type, btf.TypeID, error) {
	for i := 0; i < maxTypeDepth; i++ {
		if id == 0 {
			return nil, 0, nil // void
		}
		t, err := spec.TypeByID(id)
		if err != nil {
			return nil, id, err
		}
		switch t.Kind() {
		case btf.KindTypedef, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypeTag:
			id = btf.TypeID(t.SizeType)
			continue
		}
		return t, id, nil
	}
	return nil, id, fmt.Errorf("type [%d]: modifier chain deeper than %d", id, maxTypeDepth)
}

// sizeOf returns the byte size of a type (0 for void, functions and
// unknown kinds).
func sizeOf(spec *btf.Spec, id btf.TypeID) int {
	return sizeAt(spec, id, 0)
}

func sizeAt(spec *btf.Spec, id btf.TypeID, depth int) int {
	t, _, err := strip(spec, id)
	if err != nil || t == nil || depth > maxTypeDepth {
		return 0
	}
	switch t.Kind() {
	case btf.KindInt, btf.KindEnum, btf.KindEnum64, btf.KindStruct, btf.KindUnion, btf.KindFloat:
		return int(t.SizeType)
	case btf.KindPtr:
		return 8
	case btf.KindArray:
		elem, _, n := t.Array()
		s := uint64(sizeAt(spec, elem, depth+1)) * uint64(n)
		if s > 1<<30 {
			return 0
		}
		return int(s)
	}
	return 0
}

// scalarInfo says how a value of type id is normalised in BPF: its size
// and signedness; ok is false for aggregates.
func scalarInfo(spec *btf.Spec, id btf.TypeID) (size int, signed, ok bool) {
	t, _, err := strip(spec, id)
	if err != nil || t == nil {
		return 0, false, false
	}
	switch t.Kind() {
	case btf.KindInt:
		enc, _, _ := t.IntEncoding()
		return int(t.SizeType), enc&1 != 0, true
	case btf.KindEnum, btf.KindEnum64:
		return int(t.SizeType), t.KindFlag(), true
	case btf.KindPtr:
		return 8, false, true
	}
	return 0, false, false
}

// isCharType: an INT of one byte (char, signed char, unsigned char, u8).
func isCharType(spec *btf.Spec, id btf.TypeID) bool {
	t, _, err := strip(spec, id)
	return err == nil && t != nil && t.Kind() == btf.KindInt && t.SizeType == 1
}

// pointee returns the type a pointer points to; ok false when id is not a
// pointer.
func pointee(spec *btf.Spec, id btf.TypeID) (btf.TypeID, bool) {
	t, _, err := strip(spec, id)
	if err != nil || t == nil || t.Kind() != btf.KindPtr {
		return 0, false
	}
	return btf.TypeID(t.SizeType), true
}

// findMember looks name up in struct or union id, descending into
// anonymous members; off is the member's byte offset.
func findMember(spec *btf.Spec, id btf.TypeID, name string) (mt btf.TypeID, off int, err error) {
	t, sid, err := strip(spec, id)
	if err != nil {
		return 0, 0, err
	}
	if t == nil || t.Kind() != btf.KindStruct && t.Kind() != btf.KindUnion {
		return 0, 0, fmt.Errorf("%s is not a struct or union", typeName(spec, id))
	}
	mt, off, found, err := memberIn(spec, sid, t, name, 0)
	if err != nil {
		return 0, 0, err
	}
	if !found {
		return 0, 0, fmt.Errorf("%s has no member %q", typeName(spec, id), name)
	}
	return mt, off, nil
}

func memberIn(spec *btf.Spec, id btf.TypeID, t *btf.Type, name string, depth int) (btf.TypeID, int, bool, error) {
	if depth > maxTypeDepth {
		return 0, 0, false, fmt.Errorf("type [%d]: anonymous members nested deeper than %d", id, maxTypeDepth)
	}
	for _, m := range t.Members() {
		bitOff, bitSize := t.MemberBitOffset(m)
		mname, _ := spec.StringAt(m.NameOff)
		if mname == name {
			if bitSize != 0 || bitOff%8 != 0 {
				return 0, 0, false, fmt.Errorf("member %q is a bitfield", name)
			}
			return m.Type, int(bitOff / 8), true, nil
		}
		if mname != "" {
			continue
		}
		at, aid, err := strip(spec, m.Type)
		if err != nil || at == nil || at.Kind() != btf.KindStruct && at.Kind() != btf.KindUnion {
			continue
		}
		if mt, off, ok, err := memberIn(spec, aid, at, name, depth+1); err != nil || ok {
			return mt, off + int(bitOff/8), ok, err
		}
	}
	return 0, 0, false, nil
}

func typeName(spec *btf.Spec, id btf.TypeID) string {
	n := locsec.TypeName(spec, id)
	if n == "" {
		return fmt.Sprintf("type [%d]", id)
	}
	return n
}

// enumerators maps every enumerator name of the chain to its value, for
// named constants in --filter (the first definition wins).
func enumerators(spec *btf.Spec) map[string]uint64 {
	out := map[string]uint64{}
	var chain []*btf.Spec
	for s := spec; s != nil; s = s.Base() {
		chain = append([]*btf.Spec{s}, chain...)
	}
	for _, s := range chain {
		ts := s.Types()
		for i := range ts {
			if k := ts[i].Kind(); k != btf.KindEnum && k != btf.KindEnum64 {
				continue
			}
			for _, v := range ts[i].EnumValues() {
				n, _ := s.StringAt(v.NameOff)
				if _, dup := out[n]; !dup && n != "" {
					out[n] = uint64(v.Value)
				}
			}
		}
	}
	return out
}
