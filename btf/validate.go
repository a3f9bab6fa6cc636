package btf

// Validation follows the kernel verifier (kernel/bpf/btf.c: btf_parse_hdr,
// btf_check_sec_info, btf_parse_str_sec, the per-kind check_meta and
// resolve steps, and the LOC kind checks of the September 2026 series).
// Rules are named after the kernel's log messages where there is one. Type
// ids in other blobs of the chain are looked up but only s's own types are
// checked. Sizes are resolved with a memo and a visiting state, so that
// reference loops are reported ("Loop detected") instead of followed.

import (
	"fmt"
	"sort"
)

type validator struct {
	s    *Spec
	errs []error
	// per own type: 0 unvisited, 1 visiting, 2 done; size memo
	state  []uint8
	size   []uint64
	sizeOK []bool
	deep   bool // sizeOf hit its depth bound: do not memoize
	// bit off-strStart: the own string at off is a valid identifier.
	identOK []uint64
	stack   []frame // resolve's work stack, reused
}

type frame struct {
	id   TypeID
	next int
}

// Validate checks s's header (for parsed blobs), string section and own
// types and returns every violation as a *ValidationError.
func (s *Spec) Validate() []error {
	v := &validator{s: s, state: make([]uint8, len(s.types)), size: make([]uint64, len(s.types)), sizeOK: make([]bool, len(s.types))}
	v.header()
	v.strings()
	for i := range s.types {
		v.typ(s.firstID+TypeID(i), &s.types[i])
	}
	for i := range s.types {
		v.resolve(s.firstID + TypeID(i))
	}
	// Header and string violations first, then by type id.
	sort.SliceStable(v.errs, func(i, j int) bool {
		return v.errs[i].(*ValidationError).ID < v.errs[j].(*ValidationError).ID
	})
	return v.errs
}

func (v *validator) hdrErr(format string, a ...any) {
	v.errs = append(v.errs, &ValidationError{Rule: fmt.Sprintf(format, a...)})
}

func (v *validator) err(id TypeID, t *Type, format string, a ...any) {
	v.errs = append(v.errs, &ValidationError{ID: id, Kind: t.Kind(), Rule: fmt.Sprintf(format, a...)})
}

func (v *validator) header() {
	s := v.s
	if s.base == nil && len(s.types) == 0 {
		v.hdrErr("header: No type found")
	}
	if uint64(s.NextID())-1 > MaxType {
		v.hdrErr("header: more than %#x types", MaxType)
	}
	if !s.parsed {
		return
	}
	h := s.hdr
	if h.version != 1 {
		v.hdrErr("header: Unsupported version %d", h.version)
	}
	if h.flags != 0 {
		v.hdrErr("header: Unsupported flags %#x", h.flags)
	}
	for i, b := range h.extra {
		if b != 0 {
			v.hdrErr("header: Unsupported btf_header: non-zero byte at offset %d beyond the known header", hdrLenLayout+i)
			break
		}
	}
	if h.layoutLen != 0 {
		if h.layoutLen < 4 {
			v.hdrErr("header: layout_len %d < 4", h.layoutLen)
		}
		if h.layoutOff < h.typeOff+h.typeLen && h.layoutOff >= h.typeOff {
			v.hdrErr("header: layout section inside the type section")
		}
		if h.layoutOff < h.typeOff {
			v.hdrErr("header: layout section before the type section")
		}
	} else if h.layoutOff != 0 {
		v.hdrErr("header: layout_off %#x with layout_len 0", h.layoutOff)
	}
	// Sections must tile the data after the header exactly.
	type sec struct {
		name     string
		off, len uint32
	}
	secs := []sec{{"types", h.typeOff, h.typeLen}, {"strings", h.strOff, h.strLen}}
	if h.layoutLen != 0 {
		secs = append(secs, sec{"layout", h.layoutOff, h.layoutLen})
	}
	sort.SliceStable(secs, func(i, j int) bool { return secs[i].off < secs[j].off })
	expect := uint64(0)
	for _, sc := range secs {
		if uint64(sc.off) < expect {
			v.hdrErr("header: Section overlap found: %s at %#x", sc.name, sc.off)
		} else if uint64(sc.off) > expect {
			v.hdrErr("header: Unsupported section found: gap before %s at %#x (expected %#x)", sc.name, sc.off, expect)
		}
		expect = uint64(sc.off) + uint64(sc.len)
	}
	// The data length is what Parse saw: the blob is the header plus the
	// furthest section end only when nothing trails; Parse keeps no copy of
	// trailing bytes, so record it at parse time.
	if s.hdr.trailing != 0 {
		v.hdrErr("header: Total section length too long: %d trailing bytes", s.hdr.trailing)
	}
	if h.typeLen%4 != 0 {
		v.hdrErr("header: Unaligned type_len %d", h.typeLen)
	}
	if h.typeOff%4 != 0 {
		v.hdrErr("header: Unaligned type_off %#x", h.typeOff)
	}
}

func (v *validator) strings() {
	s := v.s
	if s.base == nil {
		if len(s.strings) == 0 || s.strings[0] != 0 {
			v.hdrErr("strings: Invalid string section: base BTF must start with NUL")
		}
	}
	if len(s.strings) > 0 && s.strings[len(s.strings)-1] != 0 {
		v.hdrErr("strings: Invalid string section: not NUL-terminated")
	}
	if uint64(s.strStart)+uint64(len(s.strings)) > MaxNameOffset+1 {
		v.hdrErr("strings: Invalid string section: ends beyond BTF_MAX_NAME_OFFSET")
	}
}

// nameState classifies a name offset.
func (v *validator) name(off uint32) (b []byte, ok bool) {
	if off > MaxNameOffset {
		return nil, false
	}
	end := uint64(v.s.strStart) + uint64(len(v.s.strings))
	if uint64(off) >= end && !(off == 0) {
		return nil, false
	}
	return v.s.stringBytes(off)
}

func isIdent(b []byte) bool {
	if len(b) == 0 || len(b) >= 512 { // KSYM_NAME_LEN
		return false
	}
	if identChar[b[0]] != 1 {
		return false
	}
	for _, c := range b[1:] {
		if identChar[c] == 0 {
			return false
		}
	}
	return true
}

// identChar: 1 may start an identifier (letters, '_', '.'), 2 may follow.
var identChar = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			t[c] = 1
		case c >= '0' && c <= '9':
			t[c] = 2
		}
	}
	return t
}()

func isPrintable(b []byte) bool {
	if len(b) == 0 || len(b) > 128 {
		return false
	}
	for _, c := range b {
		if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// requireName checks a mandatory identifier name; anonOK allows offset 0.
func (v *validator) identName(id TypeID, t *Type, off uint32, what string, anonOK bool) {
	v.identNameN(id, t, off, what, -1, anonOK)
}

// what formats a field description lazily: "member %d" with its index.
func what(format string, idx int) string {
	if idx < 0 {
		return format
	}
	return fmt.Sprintf(format, idx)
}

func (v *validator) identNameN(id TypeID, t *Type, off uint32, whatf string, idx int, anonOK bool) {
	if off == 0 {
		if !anonOK {
			v.err(id, t, "Invalid name: %s must be named", what(whatf, idx))
		}
		return
	}
	// Names repeat (member "next", param "sk"): remember offsets of own
	// strings already found to be identifiers.
	rel := int64(off) - int64(v.s.strStart)
	if rel >= 0 && rel < int64(len(v.s.strings)) {
		if v.identOK == nil {
			v.identOK = make([]uint64, len(v.s.strings)/64+1)
		}
		if v.identOK[rel/64]&(1<<(rel%64)) != 0 {
			return
		}
	}
	b, ok := v.name(off)
	if !ok {
		v.err(id, t, "Invalid name_offset %#x of %s", off, what(whatf, idx))
		return
	}
	if !isIdent(b) {
		v.err(id, t, "Invalid name %q of %s", b, what(whatf, idx))
		return
	}
	if rel >= 0 && rel < int64(len(v.s.strings)) {
		v.identOK[rel/64] |= 1 << (rel % 64)
	}
}

// anyName checks a mandatory name that need not be an identifier.
func (v *validator) anyName(id TypeID, t *Type, what string) {
	b, ok := v.name(t.NameOff)
	if !ok {
		v.err(id, t, "Invalid name_offset %#x of %s", t.NameOff, what)
	} else if len(b) == 0 {
		v.err(id, t, "Invalid name: %s must be named", what)
	}
}

func (v *validator) noName(id TypeID, t *Type) {
	if t.NameOff != 0 {
		v.err(id, t, "Invalid name: must be anonymous")
	}
}

func (v *validator) noKflag(id TypeID, t *Type) {
	if t.KindFlag() {
		v.err(id, t, "Invalid btf_info kind_flag")
	}
}

func (v *validator) noVlen(id TypeID, t *Type) {
	if t.Vlen() != 0 {
		v.err(id, t, "vlen != 0")
	}
}

// ref checks that a type id exists in the chain (void allowed if voidOK).
func (v *validator) ref(id TypeID, t *Type, target TypeID, what string, voidOK bool) *Type {
	return v.refN(id, t, target, what, -1, voidOK)
}

func (v *validator) refN(id TypeID, t *Type, target TypeID, whatf string, idx int, voidOK bool) *Type {
	if target == 0 {
		if !voidOK {
			v.err(id, t, "Invalid %s: void", what(whatf, idx))
		}
		return nil
	}
	tt, err := v.s.TypeByID(target)
	if err != nil {
		v.err(id, t, "Invalid %s %d: no such type", what(whatf, idx), target)
		return nil
	}
	return tt
}

func (v *validator) typ(id TypeID, t *Type) {
	k := t.Kind()
	if k == KindUnknown || k >= NumKinds {
		v.err(id, t, "Invalid kind %d", uint8(k))
		return
	}
	switch k {
	case KindInt:
		v.noKflag(id, t)
		v.noVlen(id, t)
		v.anyName(id, t, "int") // "unsigned int" is no identifier
		w := t.word(0)
		enc, off, bits := t.IntEncoding()
		if w&^0x0fff00ff != 0 {
			v.err(id, t, "Invalid int_data %#x", w)
		}
		switch {
		case bits > 128:
			v.err(id, t, "nr_bits exceeds 128")
		case (uint64(bits)+7)/8 > uint64(t.SizeType):
			v.err(id, t, "nr_bits exceeds type_size")
		case uint64(off)+uint64(bits) > 128:
			v.err(id, t, "bits_offset + nr_bits exceeds 128")
		}
		if t.SizeType != 1 && t.SizeType != 2 && t.SizeType != 4 && t.SizeType != 8 && t.SizeType != 16 {
			v.err(id, t, "Invalid int size %d", t.SizeType)
		}
		if enc != 0 && enc != 1 && enc != 2 && enc != 4 {
			v.err(id, t, "Unsupported encoding %d", enc)
		}
	case KindPtr, KindVolatile, KindConst, KindRestrict:
		v.noName(id, t)
		v.noKflag(id, t)
		v.noVlen(id, t)
		v.ref(id, t, TypeID(t.SizeType), "type_id", true)
	case KindTypedef:
		v.noKflag(id, t)
		v.noVlen(id, t)
		v.identName(id, t, t.NameOff, "typedef", false)
		v.ref(id, t, TypeID(t.SizeType), "type_id", true)
	case KindTypeTag:
		v.noVlen(id, t)
		v.tagName(id, t)
		// void is accepted: 6.18 vmlinux has address_space(1) -> void.
		v.ref(id, t, TypeID(t.SizeType), "type_id", true)
	case KindArray:
		v.noName(id, t)
		v.noKflag(id, t)
		v.noVlen(id, t)
		if t.SizeType != 0 {
			v.err(id, t, "size != 0")
		}
		elem, index, n := t.Array()
		v.ref(id, t, elem, "elem", false)
		if es, ok := v.sizeOf(elem, 0); ok && es*uint64(n) > 1<<32-1 {
			v.err(id, t, "Array size overflows U32_MAX")
		}
		if it := v.ref(id, t, index, "index", false); it != nil {
			if r := v.strip(it); r != nil && r.Kind() != KindInt {
				v.err(id, t, "Invalid index: not an int")
			}
		}
	case KindStruct, KindUnion:
		v.identName(id, t, t.NameOff, "struct", true)
		last := uint32(0)
		d := t.elems(0, 3)
		for i := 0; 3*i+2 < len(d); i++ {
			m := Member{d[3*i], TypeID(d[3*i+1]), d[3*i+2]}
			v.identNameN(id, t, m.NameOff, "member %d", i, true)
			v.refN(id, t, m.Type, "member %d type_id", i, false)
			off, sz := t.MemberBitOffset(m)
			if t.KindFlag() && sz > 128 {
				v.err(id, t, "Invalid member bitfield_size %d of member %d", sz, i)
			}
			if k == KindUnion && off != 0 {
				v.err(id, t, "Invalid member bits_offset %d of union member %d", off, i)
			}
			if k == KindStruct && off < last {
				v.err(id, t, "Invalid member bits_offset %d of member %d (decreasing)", off, i)
			}
			if (uint64(off)+7)/8 > uint64(t.SizeType) {
				v.err(id, t, "Member bits_offset exceeds its struct size: member %d", i)
			} else if sz != 0 {
				if mt := v.strip(v.lookup(m.Type)); mt != nil && mt.Kind() != KindInt && mt.Kind() != KindEnum && mt.Kind() != KindEnum64 {
					v.err(id, t, "Invalid member bitfield_size %d of member %d: not an int or enum", sz, i)
				} else if (uint64(off)+uint64(sz)+7)/8 > uint64(t.SizeType) {
					v.err(id, t, "Member exceeds struct_size: member %d", i)
				}
			} else if msz, ok := v.sizeOf(m.Type, 0); ok {
				mt := v.strip(v.lookup(m.Type))
				if off%8 != 0 && mt != nil && mt.Kind() != KindInt {
					v.err(id, t, "Member is not byte aligned: member %d", i)
				} else if uint64(off)/8+msz > uint64(t.SizeType) {
					v.err(id, t, "Member exceeds struct_size: member %d", i)
				}
			}
			last = off
		}
	case KindEnum, KindEnum64:
		v.identName(id, t, t.NameOff, "enum", true)
		if k == KindEnum && t.SizeType != 1 && t.SizeType != 2 && t.SizeType != 4 && t.SizeType != 8 ||
			k == KindEnum64 && t.SizeType != 1 && t.SizeType != 2 && t.SizeType != 4 && t.SizeType != 8 {
			v.err(id, t, "Unexpected size %d", t.SizeType)
		}
		w := 2
		if k == KindEnum64 {
			w = 3
		}
		d := t.elems(0, w)
		for i := 0; w*i < len(d); i++ {
			e := EnumValue{NameOff: d[w*i]}
			v.identNameN(id, t, e.NameOff, "enumerator %d", i, false)
		}
	case KindFwd:
		v.noVlen(id, t)
		v.identName(id, t, t.NameOff, "fwd", false)
		if t.SizeType != 0 {
			v.err(id, t, "type != 0")
		}
	case KindFunc:
		v.noKflag(id, t)
		v.identName(id, t, t.NameOff, "func", false)
		if t.Vlen() > 1 {
			v.err(id, t, "Invalid func linkage %d (only static 0 and global 1)", t.Vlen())
		}
		if p := v.ref(id, t, TypeID(t.SizeType), "type_id", false); p != nil {
			if p.Kind() != KindFuncProto {
				v.err(id, t, "Invalid type_id: %s is not a FUNC_PROTO", p.Kind())
			} else {
				d := p.elems(0, 2)
				for i := 0; 2*i+1 < len(d); i++ {
					if d[2*i] == 0 && !(2*i+2 == len(d) && d[2*i+1] == 0) {
						v.err(id, t, "Invalid arg#%d: parameter has no name", i+1)
					}
				}
			}
		}
	case KindFuncProto:
		v.noName(id, t)
		v.noKflag(id, t)
		v.ref(id, t, TypeID(t.SizeType), "return type_id", true)
		d := t.elems(0, 2)
		n := len(d) / 2
		for i := 0; i < n; i++ {
			p := Param{d[2*i], TypeID(d[2*i+1])}
			if p.Type == 0 {
				if i != n-1 || p.NameOff != 0 {
					v.err(id, t, "Invalid arg#%d: void parameter", i+1)
				}
				continue
			}
			v.identNameN(id, t, p.NameOff, "arg#%d", i+1, true)
			v.refN(id, t, p.Type, "arg#%d type_id", i+1, false)
		}
	case KindVar:
		v.noKflag(id, t)
		v.noVlen(id, t)
		v.identName(id, t, t.NameOff, "var", false)
		if l := t.Linkage(); l > 1 {
			v.err(id, t, "Linkage not supported: %d", l)
		}
		v.ref(id, t, TypeID(t.SizeType), "type_id", false)
	case KindDatasec:
		v.noKflag(id, t)
		v.secName(id, t)
		if t.Vlen() == 0 {
			v.err(id, t, "vlen == 0")
		}
		if t.SizeType == 0 {
			v.err(id, t, "size == 0")
		}
		end := uint64(0)
		d := t.elems(0, 3)
		for i := 0; 3*i+2 < len(d); i++ {
			si := VarSecinfo{TypeID(d[3*i]), d[3*i+1], d[3*i+2]}
			if vt := v.refN(id, t, si.Type, "var#%d type_id", i, false); vt != nil && vt.Kind() != KindVar {
				v.err(id, t, "Not a VAR kind member: var#%d", i)
			}
			if si.Size == 0 || uint64(si.Offset) < end || t.SizeType != 0 && uint64(si.Offset)+uint64(si.Size) > uint64(t.SizeType) {
				v.err(id, t, "Invalid offset+size: var#%d", i)
			}
			end = uint64(si.Offset) + uint64(si.Size)
		}
	case KindFloat:
		v.noKflag(id, t)
		v.noVlen(id, t)
		v.anyName(id, t, "float") // "long double"
		switch t.SizeType {
		case 2, 4, 8, 12, 16:
		default:
			v.err(id, t, "Invalid type_size %d", t.SizeType)
		}
	case KindDeclTag:
		v.noVlen(id, t)
		v.tagName(id, t)
		idx := t.ComponentIdx()
		if idx < -1 {
			v.err(id, t, "Invalid component_idx %d", idx)
		}
		if tt := v.ref(id, t, TypeID(t.SizeType), "type_id", false); tt != nil && idx >= 0 {
			n := -1
			switch tt.Kind() {
			case KindStruct, KindUnion:
				n = tt.Vlen()
			case KindFunc:
				if p, err := v.s.TypeByID(TypeID(tt.SizeType)); err == nil && p.Kind() == KindFuncProto {
					n = p.Vlen()
				}
			}
			if int(idx) >= n {
				v.err(id, t, "Invalid component_idx %d", idx)
			}
		}
	case KindLocParam:
		v.noName(id, t)
		v.noKflag(id, t)
		fl, vals := t.LocParam()
		if t.SizeType == 0 || t.SizeType > 16 {
			v.err(id, t, "Invalid loc_param size %d (1..16)", t.SizeType)
		} else if !LocParamValid(t.SizeType, fl, len(vals)) {
			v.err(id, t, "Invalid flags %#x with vlen %d and size %d", uint32(fl), len(vals), t.SizeType)
		}
	case KindLocProto:
		v.noName(id, t)
		v.noKflag(id, t)
		if t.SizeType != 0 {
			v.err(id, t, "Invalid loc_proto type %d", t.SizeType)
		}
		for i, w := range t.elems(0, 1) {
			p := TypeID(w)
			if p == 0 {
				continue
			}
			if pt := v.refN(id, t, p, "loc_proto param#%d", i, false); pt != nil && pt.Kind() != KindLocParam {
				v.err(id, t, "Invalid loc_proto param#%d: %s is not a LOC_PARAM", i, pt.Kind())
			}
		}
	case KindLocSec:
		v.noKflag(id, t)
		v.secName(id, t)
		if t.SizeType != 0 {
			v.err(id, t, "Invalid locsec type %d", t.SizeType)
		}
		d := t.elems(0, 3)
		for i := 0; 3*i+2 < len(d); i++ {
			e := LocEntry{TypeID(d[3*i]), TypeID(d[3*i+1]), d[3*i+2]}
			var protoVlen = -1
			if fn := v.refN(id, t, e.Func, "loc#%d func", i, false); fn != nil {
				if fn.Kind() != KindFunc {
					v.err(id, t, "Invalid loc#%d func %d: %s is not a FUNC", i, e.Func, fn.Kind())
				} else if p, err := v.s.TypeByID(TypeID(fn.SizeType)); err != nil || p.Kind() != KindFuncProto {
					v.err(id, t, "Invalid loc#%d func %d: its type is not a FUNC_PROTO", i, e.Func)
				} else {
					protoVlen = p.Vlen()
				}
			}
			if lp := v.refN(id, t, e.LocProto, "loc#%d loc_proto", i, false); lp != nil {
				if lp.Kind() != KindLocProto {
					v.err(id, t, "Invalid loc#%d loc_proto %d: %s is not a LOC_PROTO", i, e.LocProto, lp.Kind())
				} else if protoVlen >= 0 && lp.Vlen() != protoVlen {
					v.err(id, t, "Mismatched vlen for loc_proto#%d: LOC_PROTO %d has %d, FUNC_PROTO %d", i, e.LocProto, lp.Vlen(), protoVlen)
				}
			}
		}
	}
}

func (v *validator) tagName(id TypeID, t *Type) {
	b, ok := v.name(t.NameOff)
	if t.NameOff == 0 || !ok || len(b) == 0 {
		v.err(id, t, "Invalid name: tag value must be a non-empty string")
	}
}

func (v *validator) secName(id TypeID, t *Type) {
	b, ok := v.name(t.NameOff)
	if t.NameOff == 0 || !ok || !isPrintable(b) {
		v.err(id, t, "Invalid name: section name must be non-empty printable")
	}
}

// lookup returns the type with id, nil for void or a bad id.
func (v *validator) lookup(id TypeID) *Type {
	if id == 0 {
		return nil
	}
	t, err := v.s.TypeByID(id)
	if err != nil {
		return nil
	}
	return t
}

// sizeOf resolves the byte size of id like the kernel's resolve step
// (modifiers and typedefs followed, arrays multiplied). Pointers, FWD,
// FUNC and void have no size here (a pointer's size depends on the
// target). Own results are memoized; depth bounds loops, which resolve
// reports.
func (v *validator) sizeOf(id TypeID, depth int) (uint64, bool) {
	if depth > 32 {
		v.deep = true
		return 0, false
	}
	if depth == 0 {
		v.deep = false
	}
	own := id >= v.s.firstID && id < v.s.NextID()
	i := int(id - v.s.firstID)
	if own && v.sizeOK[i] {
		return v.size[i], v.size[i] != noSize
	}
	t := v.lookup(id)
	if t == nil {
		return 0, false
	}
	sz := uint64(noSize)
	switch t.Kind() {
	case KindInt, KindStruct, KindUnion, KindEnum, KindEnum64, KindFloat, KindDatasec:
		sz = uint64(t.SizeType)
	case KindTypedef, KindConst, KindVolatile, KindRestrict, KindTypeTag, KindVar:
		if n, ok := v.sizeOf(TypeID(t.SizeType), depth+1); ok {
			sz = n
		}
	case KindArray:
		elem, _, n := t.Array()
		if es, ok := v.sizeOf(elem, depth+1); ok && es*uint64(n) <= 1<<32-1 {
			sz = es * uint64(n)
		}
	}
	if own && !v.deep {
		v.size[i], v.sizeOK[i] = sz, true
	}
	return sz, sz != noSize
}

const noSize = ^uint64(0)

// strip follows modifiers and typedefs (bounded: loops are reported by
// resolve).
func (v *validator) strip(t *Type) *Type {
	for n := 0; t != nil && n < 64; n++ {
		switch t.Kind() {
		case KindTypedef, KindConst, KindVolatile, KindRestrict, KindTypeTag:
			nt, err := v.s.TypeByID(TypeID(t.SizeType))
			if err != nil {
				return nil
			}
			t = nt
		default:
			return t
		}
	}
	return nil
}

// resolve walks the edges along which the kernel resolves sizes (modifiers,
// typedefs, array elements, struct members, vars, datasec entries; not
// pointers) from every own type, iteratively, and reports loops.
func (v *validator) resolve(root TypeID) {
	s := v.s
	idx := func(id TypeID) int {
		if id < s.firstID || id >= s.NextID() {
			return -1
		}
		return int(id - s.firstID)
	}
	if v.state[idx(root)] != 0 {
		return
	}
	stack := append(v.stack[:0], frame{root, 0})
	defer func() { v.stack = stack[:0] }()
	v.state[idx(root)] = 1
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		t := &s.types[idx(f.id)]
		child, more := v.edge(t, f.next)
		f.next++
		if !more {
			v.state[idx(f.id)] = 2
			stack = stack[:len(stack)-1]
			continue
		}
		ci := idx(child)
		if ci < 0 {
			continue
		}
		switch v.state[ci] {
		case 1:
			v.err(f.id, t, "Loop detected: type %d refers back to %d", child, f.id)
		case 0:
			v.state[ci] = 1
			stack = append(stack, frame{child, 0})
		}
	}
}

// edge returns the n-th size-resolution edge of t.
func (v *validator) edge(t *Type, n int) (TypeID, bool) {
	switch t.Kind() {
	case KindTypedef, KindConst, KindVolatile, KindRestrict, KindTypeTag, KindVar:
		if n == 0 {
			return TypeID(t.SizeType), true
		}
	case KindArray:
		if n == 0 {
			e, _, _ := t.Array()
			return e, true
		}
	case KindStruct, KindUnion:
		d := t.elems(0, 3)
		if 3*n+1 < len(d) {
			return TypeID(d[3*n+1]), true
		}
	case KindDatasec:
		d := t.elems(0, 3)
		if 3*n < len(d) {
			return TypeID(d[3*n]), true
		}
	}
	return 0, false
}
