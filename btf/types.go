// Package btf owns the BPF Type Format: decoding and encoding raw BTF blobs
// (24- and 32-byte headers, the layout section, the widened info word, both
// byte orders), every kind from INT to LOCSEC, split and multi-split chains,
// and validation with the kernel verifier's rules. It knows nothing of DWARF
// or of how inline sites are found; see packages inline, locsec and dedup.
//
// Byte-level reference: ../shared/spec/btf-inline.md sections 0-5 and 7.
package btf

// TypeID identifies a type across a whole base chain: ids of split BTF
// continue where its base ends. 0 is void.
type TypeID uint32

// Kind is a BTF_KIND_* value (7 bits in the widened info word).
type Kind uint8

const (
	KindUnknown   Kind = 0
	KindInt       Kind = 1
	KindPtr       Kind = 2
	KindArray     Kind = 3
	KindStruct    Kind = 4
	KindUnion     Kind = 5
	KindEnum      Kind = 6
	KindFwd       Kind = 7
	KindTypedef   Kind = 8
	KindVolatile  Kind = 9
	KindConst     Kind = 10
	KindRestrict  Kind = 11
	KindFunc      Kind = 12
	KindFuncProto Kind = 13
	KindVar       Kind = 14
	KindDatasec   Kind = 15
	KindFloat     Kind = 16
	KindDeclTag   Kind = 17
	KindTypeTag   Kind = 18
	KindEnum64    Kind = 19
	KindLocParam  Kind = 20
	KindLocProto  Kind = 21
	KindLocSec    Kind = 22

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

// LOC_PARAM flags (enum btf_loc_param_flags).
const (
	LocSigned = 0x01
	LocConst  = 0x02
	LocAddr   = 0x04
	LocReg    = 0x08
	LocDeref  = 0x10
	LocOffset = 0x20

	// LocFBReg is the register number that stands for the DWARF frame base.
	LocFBReg = 0xffffffff
)

var kindNames = [NumKinds]string{
	"UNKNOWN", "INT", "PTR", "ARRAY", "STRUCT", "UNION", "ENUM", "FWD",
	"TYPEDEF", "VOLATILE", "CONST", "RESTRICT", "FUNC", "FUNC_PROTO", "VAR",
	"DATASEC", "FLOAT", "DECL_TAG", "TYPE_TAG", "ENUM64", "LOC_PARAM",
	"LOC_PROTO", "LOCSEC",
}

// String returns the kind's name as bpftool prints it.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "UNKNOWN"
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
