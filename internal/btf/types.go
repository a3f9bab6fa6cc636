// Package btf owns the BPF Type Format: decoding and encoding raw BTF blobs
// (24- and 32-byte headers, the layout section, the widened info word, both
// byte orders), every kind from INT to LOCSEC, split and multi-split chains,
// and validation with the kernel verifier's rules. It knows nothing of DWARF
// or of how inline sites are found; see packages dwarfsite, locsec and
// dedup.
//
// Byte-level reference: the BTF uapi of the BPF tree
// (include/uapi/linux/btf.h and Documentation/bpf/btf.rst in bpf-next:
// the layout section, the widened info word and the LOC_PARAM, LOC_PROTO
// and LOCSEC kinds, merged as 740eb74b8d2e "Merge branch
// 'support-inline-functions-in-btf'"), and the kernel's kernel/bpf/btf.c
// for the verifier's rules.
//
// It imports the standard library and internal/elfobj (to read a
// section): it knows no DWARF and nothing of sites.
package btf

import "strconv"

// TypeID identifies a type across a whole base chain: ids of split BTF
// continue where its base ends. 0 is void.
type TypeID uint32

// Kind is a BTF_KIND_* value (7 bits in the widened info word). String
// gives bpftool's name of a known kind and Kind(N) for others.
type Kind uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Kind,Linkage,IntEncoding -linecomment -output=consts_string.go

const (
	KindUnknown   Kind = 0  // UNKNOWN
	KindInt       Kind = 1  // INT
	KindPtr       Kind = 2  // PTR
	KindArray     Kind = 3  // ARRAY
	KindStruct    Kind = 4  // STRUCT
	KindUnion     Kind = 5  // UNION
	KindEnum      Kind = 6  // ENUM
	KindFwd       Kind = 7  // FWD
	KindTypedef   Kind = 8  // TYPEDEF
	KindVolatile  Kind = 9  // VOLATILE
	KindConst     Kind = 10 // CONST
	KindRestrict  Kind = 11 // RESTRICT
	KindFunc      Kind = 12 // FUNC
	KindFuncProto Kind = 13 // FUNC_PROTO
	KindVar       Kind = 14 // VAR
	KindDatasec   Kind = 15 // DATASEC
	KindFloat     Kind = 16 // FLOAT
	KindDeclTag   Kind = 17 // DECL_TAG
	KindTypeTag   Kind = 18 // TYPE_TAG
	KindEnum64    Kind = 19 // ENUM64
	KindLocParam  Kind = 20 // LOC_PARAM
	KindLocProto  Kind = 21 // LOC_PROTO
	KindLocSec    Kind = 22 // LOCSEC

	// NumKinds is NR_BTF_KINDS: the kinds this package knows.
	NumKinds = 23
)

// Limits from enum btf_max (widened form).
const (
	MaxKind       = 0x7f
	MaxType       = 0x000fffff
	MaxNameOffset = 0x00ffffff
	MaxVlen       = 0x00ffffff
)

// Linkage is a FUNC's (its vlen) or VAR's linkage (enum btf_func_linkage,
// BTF_VAR_*).
type Linkage uint32

const (
	LinkageStatic Linkage = 0 // static
	LinkageGlobal Linkage = 1 // global
	LinkageExtern Linkage = 2 // extern
)

// IntEncoding is an INT's encoding bits (BTF_INT_*).
type IntEncoding uint8

const (
	IntSigned IntEncoding = 0x1 // SIGNED
	IntChar   IntEncoding = 0x2 // CHAR
	IntBool   IntEncoding = 0x4 // BOOL
)

// LocFlags is a LOC_PARAM's flags word (enum btf_loc_param_flags).
type LocFlags uint32

const (
	LocSigned LocFlags = 0x01
	LocConst  LocFlags = 0x02
	LocAddr   LocFlags = 0x04
	LocReg    LocFlags = 0x08
	LocDeref  LocFlags = 0x10
	LocOffset LocFlags = 0x20
)

// LocFBReg is the LOC_PARAM register number that stands for the DWARF
// frame base (DW_OP_fbreg).
const LocFBReg = 0xffffffff

var locFlagNames = [...]string{"SIGNED", "CONST", "ADDR", "REG", "DEREF", "OFFSET"}

// String spells a flags word as its flag names joined by "|", a bit no
// flag names as 0x..., and 0 as "0". (A set of bits, so not stringer's.)
func (f LocFlags) String() string {
	if f == 0 {
		return "0"
	}
	var b []byte
	for i := 0; i < 32; i++ {
		bit := LocFlags(1) << i
		if f&bit == 0 {
			continue
		}
		if len(b) > 0 {
			b = append(b, '|')
		}
		if i < len(locFlagNames) {
			b = append(b, locFlagNames[i]...)
		} else {
			b = append(b, "0x"...)
			b = strconv.AppendUint(b, uint64(bit), 16)
		}
	}
	return string(b)
}

// Type is one raw type record: the 12-byte struct btf_type and the 32-bit
// words that follow it, kept verbatim (in host order) so that decoding and
// re-encoding reproduces the input exactly, unknown kinds included. Typed
// views (members, params, LOC entries) are accessor methods.
type Type struct {
	NameOff  uint32
	Info     uint32
	SizeType uint32   // size or type, per kind
	Data     []uint32 // trailing words: info_sz/4 fixed words, then vlen elements
}

// Kind returns bits 24-30 of info.
func (t *Type) Kind() Kind { return Kind((t.Info >> 24) & 0x7f) }

// Vlen returns bits 0-23 of info.
func (t *Type) Vlen() int { return int(t.Info & 0xffffff) }

// KindFlag returns bit 31 of info.
func (t *Type) KindFlag() bool { return t.Info>>31 != 0 }

// MakeInfo builds an info word; vlen must fit in 24 bits.
func MakeInfo(k Kind, vlen int, kflag bool) uint32 {
	info := uint32(k&0x7f)<<24 | uint32(vlen)&0xffffff
	if kflag {
		info |= 1 << 31
	}
	return info
}

// Member is a STRUCT/UNION member. With the kind flag set, Offset is
// bitfield_size<<24 | bit_offset.
type Member struct {
	NameOff uint32
	Type    TypeID
	Offset  uint32
}

// Param is a FUNC_PROTO parameter; {0, 0} last means varargs.
type Param struct {
	NameOff uint32
	Type    TypeID
}

// EnumValue is an ENUM or ENUM64 enumerator. Value holds the bit pattern:
// sign-extended for signed ENUM (kind flag), zero-extended otherwise.
type EnumValue struct {
	NameOff uint32
	Value   int64
}

// VarSecinfo is a DATASEC entry.
type VarSecinfo struct {
	Type         TypeID
	Offset, Size uint32
}

// LocEntry is a LOCSEC entry (struct btf_loc).
type LocEntry struct {
	Func, LocProto TypeID
	Offset         uint32
}

// elems returns the trailing words after skip fixed words, cut to whole
// elements of w words and at most vlen of them.
func (t *Type) elems(skip, w int) []uint32 {
	if len(t.Data) < skip {
		return nil
	}
	d := t.Data[skip:]
	n := min(len(d)/w, t.Vlen())
	return d[:n*w]
}

// Members returns the members of a STRUCT or UNION.
func (t *Type) Members() []Member {
	d := t.elems(0, 3)
	m := make([]Member, len(d)/3)
	for i := range m {
		m[i] = Member{d[3*i], TypeID(d[3*i+1]), d[3*i+2]}
	}
	return m
}

// NumMembers is len(t.Members()), and Member(i) its i-th element,
// without the slice: for a reader of many structs that keeps none.
func (t *Type) NumMembers() int { return len(t.elems(0, 3)) / 3 }

// Member returns member i of a STRUCT or UNION, 0 <= i < NumMembers().
func (t *Type) Member(i int) Member {
	d := t.elems(0, 3)[3*i:]
	return Member{d[0], TypeID(d[1]), d[2]}
}

// MemberBitOffset returns the bit offset and bitfield size of m in t.
func (t *Type) MemberBitOffset(m Member) (bitOff, bitSize uint32) {
	if t.KindFlag() {
		return m.Offset & 0xffffff, m.Offset >> 24
	}
	return m.Offset, 0
}

// Params returns the parameters of a FUNC_PROTO.
func (t *Type) Params() []Param {
	d := t.elems(0, 2)
	p := make([]Param, len(d)/2)
	for i := range p {
		p[i] = Param{d[2*i], TypeID(d[2*i+1])}
	}
	return p
}

// enumValue decodes one ENUM (2 words) or ENUM64 (3 words) element.
func enumValue(t *Type, w []uint32) EnumValue {
	if len(w) == 3 {
		return EnumValue{w[0], int64(uint64(w[1]) | uint64(w[2])<<32)}
	}
	if t.KindFlag() {
		return EnumValue{w[0], int64(int32(w[1]))}
	}
	return EnumValue{w[0], int64(w[1])}
}

// EnumValues returns the enumerators of an ENUM or ENUM64.
func (t *Type) EnumValues() []EnumValue {
	if t.Kind() == KindEnum64 {
		d := t.elems(0, 3)
		v := make([]EnumValue, len(d)/3)
		for i := range v {
			v[i] = EnumValue{d[3*i], int64(uint64(d[3*i+1]) | uint64(d[3*i+2])<<32)}
		}
		return v
	}
	d := t.elems(0, 2)
	v := make([]EnumValue, len(d)/2)
	for i := range v {
		val := int64(d[2*i+1])
		if t.KindFlag() {
			val = int64(int32(d[2*i+1]))
		}
		v[i] = EnumValue{d[2*i], val}
	}
	return v
}

// Secinfos returns the entries of a DATASEC.
func (t *Type) Secinfos() []VarSecinfo {
	d := t.elems(0, 3)
	v := make([]VarSecinfo, len(d)/3)
	for i := range v {
		v[i] = VarSecinfo{TypeID(d[3*i]), d[3*i+1], d[3*i+2]}
	}
	return v
}

// word returns trailing word i or 0.
func (t *Type) word(i int) uint32 {
	if i < len(t.Data) {
		return t.Data[i]
	}
	return 0
}

// IntEncoding decodes an INT's trailing word.
func (t *Type) IntEncoding() (enc IntEncoding, bitOff, bits uint8) {
	w := t.word(0)
	return IntEncoding(w >> 24 & 0x0f), uint8(w >> 16), uint8(w)
}

// Array decodes an ARRAY's trailing struct btf_array.
func (t *Type) Array() (elem, index TypeID, nelems uint32) {
	return TypeID(t.word(0)), TypeID(t.word(1)), t.word(2)
}

// Linkage returns a FUNC's linkage (its vlen) or a VAR's linkage word.
func (t *Type) Linkage() Linkage {
	if t.Kind() == KindVar {
		return Linkage(t.word(0))
	}
	return Linkage(t.Vlen())
}

// ComponentIdx returns a DECL_TAG's component_idx.
func (t *Type) ComponentIdx() int32 { return int32(t.word(0)) }

// LocParam returns a LOC_PARAM's flags and value words; its size is
// t.SizeType.
func (t *Type) LocParam() (flags LocFlags, values []uint32) {
	return LocFlags(t.word(0)), t.elems(1, 1)
}

// LocProtoParams returns a LOC_PROTO's LOC_PARAM ids (0 = unavailable).
func (t *Type) LocProtoParams() []TypeID {
	d := t.elems(0, 1)
	p := make([]TypeID, len(d))
	for i, w := range d {
		p[i] = TypeID(w)
	}
	return p
}

// LocSecEntries returns a LOCSEC's sites.
func (t *Type) LocSecEntries() []LocEntry {
	d := t.elems(0, 3)
	e := make([]LocEntry, len(d)/3)
	for i := range e {
		e[i] = LocEntry{TypeID(d[3*i]), TypeID(d[3*i+1]), d[3*i+2]}
	}
	return e
}

// NewInt returns an INT of size bytes.
func NewInt(nameOff, size uint32, enc IntEncoding, bitOff, bits uint8) Type {
	return Type{NameOff: nameOff, Info: MakeInfo(KindInt, 0, false), SizeType: size,
		Data: []uint32{uint32(enc)<<24 | uint32(bitOff)<<16 | uint32(bits)}}
}

func newRef(k Kind, nameOff uint32, target TypeID) Type {
	return Type{NameOff: nameOff, Info: MakeInfo(k, 0, false), SizeType: uint32(target)}
}

// NewPtr returns a PTR to target.
func NewPtr(target TypeID) Type { return newRef(KindPtr, 0, target) }

// NewConst returns a CONST of target.
func NewConst(target TypeID) Type { return newRef(KindConst, 0, target) }

// NewVolatile returns a VOLATILE of target.
func NewVolatile(target TypeID) Type { return newRef(KindVolatile, 0, target) }

// NewRestrict returns a RESTRICT of target.
func NewRestrict(target TypeID) Type { return newRef(KindRestrict, 0, target) }

// NewTypedef returns a TYPEDEF named nameOff of target.
func NewTypedef(nameOff uint32, target TypeID) Type { return newRef(KindTypedef, nameOff, target) }

// NewTypeTag returns a TYPE_TAG with value nameOff on target.
func NewTypeTag(nameOff uint32, target TypeID) Type { return newRef(KindTypeTag, nameOff, target) }

// NewArray returns an ARRAY of n elem indexed by index.
func NewArray(elem, index TypeID, n uint32) Type {
	return Type{Info: MakeInfo(KindArray, 0, false), Data: []uint32{uint32(elem), uint32(index), n}}
}

// NewStruct returns a STRUCT (or UNION). The kind flag is set when a member
// offset carries a bitfield size (bits 24-31): the caller encodes Offset.
func NewStruct(nameOff, size uint32, members []Member, union bool) Type {
	k := KindStruct
	if union {
		k = KindUnion
	}
	kflag := false
	d := make([]uint32, 0, 3*len(members))
	for _, m := range members {
		if m.Offset>>24 != 0 {
			kflag = true
		}
		d = append(d, m.NameOff, uint32(m.Type), m.Offset)
	}
	return Type{NameOff: nameOff, Info: MakeInfo(k, len(members), kflag), SizeType: size, Data: d}
}

// NewEnum returns an ENUM, or an ENUM64 when size is 8 or a value does not
// fit in 32 bits. signed sets the kind flag.
func NewEnum(nameOff, size uint32, vals []EnumValue, signed bool) Type {
	wide := size > 4
	for _, v := range vals {
		if signed && (v.Value < -1<<31 || v.Value > 1<<31-1) || !signed && (v.Value < 0 || v.Value > 1<<32-1) {
			wide = true
		}
	}
	if wide {
		d := make([]uint32, 0, 3*len(vals))
		for _, v := range vals {
			d = append(d, v.NameOff, uint32(v.Value), uint32(uint64(v.Value)>>32))
		}
		return Type{NameOff: nameOff, Info: MakeInfo(KindEnum64, len(vals), signed), SizeType: size, Data: d}
	}
	d := make([]uint32, 0, 2*len(vals))
	for _, v := range vals {
		d = append(d, v.NameOff, uint32(v.Value))
	}
	return Type{NameOff: nameOff, Info: MakeInfo(KindEnum, len(vals), signed), SizeType: size, Data: d}
}

// NewFwd returns a FWD of a struct (or union).
func NewFwd(nameOff uint32, union bool) Type {
	return Type{NameOff: nameOff, Info: MakeInfo(KindFwd, 0, union)}
}

// NewFunc returns a FUNC.
func NewFunc(nameOff uint32, proto TypeID, linkage Linkage) Type {
	return Type{NameOff: nameOff, Info: MakeInfo(KindFunc, int(linkage), false), SizeType: uint32(proto)}
}

// NewFuncProto returns a FUNC_PROTO.
func NewFuncProto(ret TypeID, params []Param) Type {
	d := make([]uint32, 0, 2*len(params))
	for _, p := range params {
		d = append(d, p.NameOff, uint32(p.Type))
	}
	return Type{Info: MakeInfo(KindFuncProto, len(params), false), SizeType: uint32(ret), Data: d}
}

// NewVar returns a VAR.
func NewVar(nameOff uint32, t TypeID, linkage Linkage) Type {
	return Type{NameOff: nameOff, Info: MakeInfo(KindVar, 0, false), SizeType: uint32(t), Data: []uint32{uint32(linkage)}}
}

// NewDatasec returns a DATASEC of size bytes.
func NewDatasec(nameOff, size uint32, vars []VarSecinfo) Type {
	d := make([]uint32, 0, 3*len(vars))
	for _, v := range vars {
		d = append(d, uint32(v.Type), v.Offset, v.Size)
	}
	return Type{NameOff: nameOff, Info: MakeInfo(KindDatasec, len(vars), false), SizeType: size, Data: d}
}

// NewFloat returns a FLOAT of size bytes.
func NewFloat(nameOff, size uint32) Type {
	return Type{NameOff: nameOff, Info: MakeInfo(KindFloat, 0, false), SizeType: size}
}

// NewDeclTag returns a DECL_TAG; idx -1 tags target itself. attr sets the
// kind flag (an attribute rather than a btf_decl_tag).
func NewDeclTag(nameOff uint32, target TypeID, idx int32, attr bool) Type {
	return Type{NameOff: nameOff, Info: MakeInfo(KindDeclTag, 0, attr), SizeType: uint32(target), Data: []uint32{uint32(idx)}}
}

// NewLocParam returns a LOC_PARAM of a size-byte value.
func NewLocParam(size uint32, flags LocFlags, values ...uint32) Type {
	d := make([]uint32, 0, 1+len(values))
	d = append(d, uint32(flags))
	d = append(d, values...)
	return Type{Info: MakeInfo(KindLocParam, len(values), false), SizeType: size, Data: d}
}

// NewLocProto returns a LOC_PROTO; 0 entries mean "unavailable".
func NewLocProto(params []TypeID) Type {
	d := make([]uint32, len(params))
	for i, p := range params {
		d[i] = uint32(p)
	}
	return Type{Info: MakeInfo(KindLocProto, len(params), false), Data: d}
}

// NewLocSec returns a LOCSEC.
func NewLocSec(nameOff uint32, entries []LocEntry) Type {
	d := make([]uint32, 0, 3*len(entries))
	for _, e := range entries {
		d = append(d, uint32(e.Func), uint32(e.LocProto), e.Offset)
	}
	return Type{NameOff: nameOff, Info: MakeInfo(KindLocSec, len(entries), false), Data: d}
}
