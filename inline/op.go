package inline

import "strconv"

// Op is a DWARF expression opcode (DWARF 5 section 7.7.1 plus the GNU
// extensions gcc emits).
type Op uint8

// DWARF expression opcodes. DW_OP_lit<N>, DW_OP_reg<N> and DW_OP_breg<N>
// are ranges starting at OpLit0, OpReg0 and OpBreg0.
const (
	OpAddr              Op = 0x03
	OpDeref             Op = 0x06
	OpConst1u           Op = 0x08
	OpConst1s           Op = 0x09
	OpConst2u           Op = 0x0a
	OpConst2s           Op = 0x0b
	OpConst4u           Op = 0x0c
	OpConst4s           Op = 0x0d
	OpConst8u           Op = 0x0e
	OpConst8s           Op = 0x0f
	OpConstu            Op = 0x10
	OpConsts            Op = 0x11
	OpDup               Op = 0x12
	OpDrop              Op = 0x13
	OpOver              Op = 0x14
	OpPick              Op = 0x15
	OpSwap              Op = 0x16
	OpRot               Op = 0x17
	OpXderef            Op = 0x18
	OpAbs               Op = 0x19
	OpAnd               Op = 0x1a
	OpDiv               Op = 0x1b
	OpMinus             Op = 0x1c
	OpMod               Op = 0x1d
	OpMul               Op = 0x1e
	OpNeg               Op = 0x1f
	OpNot               Op = 0x20
	OpOr                Op = 0x21
	OpPlus              Op = 0x22
	OpPlusUconst        Op = 0x23
	OpShl               Op = 0x24
	OpShr               Op = 0x25
	OpShra              Op = 0x26
	OpXor               Op = 0x27
	OpBra               Op = 0x28
	OpEq                Op = 0x29
	OpGe                Op = 0x2a
	OpGt                Op = 0x2b
	OpLe                Op = 0x2c
	OpLt                Op = 0x2d
	OpNe                Op = 0x2e
	OpSkip              Op = 0x2f
	OpLit0              Op = 0x30
	OpLit31             Op = 0x4f
	OpReg0              Op = 0x50
	OpReg31             Op = 0x6f
	OpBreg0             Op = 0x70
	OpBreg31            Op = 0x8f
	OpRegx              Op = 0x90
	OpFbreg             Op = 0x91
	OpBregx             Op = 0x92
	OpPiece             Op = 0x93
	OpDerefSize         Op = 0x94
	OpXderefSize        Op = 0x95
	OpNop               Op = 0x96
	OpPushObjectAddress Op = 0x97
	OpCall2             Op = 0x98
	OpCall4             Op = 0x99
	OpCallRef           Op = 0x9a
	OpFormTLSAddress    Op = 0x9b
	OpCallFrameCFA      Op = 0x9c
	OpBitPiece          Op = 0x9d
	OpImplicitValue     Op = 0x9e
	OpStackValue        Op = 0x9f
	OpImplicitPointer   Op = 0xa0
	OpAddrx             Op = 0xa1
	OpConstx            Op = 0xa2
	OpEntryValue        Op = 0xa3
	OpConstType         Op = 0xa4
	OpRegvalType        Op = 0xa5
	OpDerefType         Op = 0xa6
	OpXderefType        Op = 0xa7
	OpConvert           Op = 0xa8
	OpReinterpret       Op = 0xa9

	OpGNUPushTLSAddress  Op = 0xe0
	OpGNUUninit          Op = 0xf0
	OpGNUEncodedAddr     Op = 0xf1
	OpGNUImplicitPointer Op = 0xf2
	OpGNUEntryValue      Op = 0xf3
	OpGNUConstType       Op = 0xf4
	OpGNURegvalType      Op = 0xf5
	OpGNUDerefType       Op = 0xf6
	OpGNUConvert         Op = 0xf7
	OpGNUReinterpret     Op = 0xf9
	OpGNUParameterRef    Op = 0xfa
	OpGNUAddrIndex       Op = 0xfb
	OpGNUConstIndex      Op = 0xfc
	OpGNUVariableValue   Op = 0xfd
)

var opNames = map[Op]string{
	OpAddr: "DW_OP_addr", OpDeref: "DW_OP_deref",
	OpConst1u: "DW_OP_const1u", OpConst1s: "DW_OP_const1s", OpConst2u: "DW_OP_const2u",
	OpConst2s: "DW_OP_const2s", OpConst4u: "DW_OP_const4u", OpConst4s: "DW_OP_const4s",
	OpConst8u: "DW_OP_const8u", OpConst8s: "DW_OP_const8s", OpConstu: "DW_OP_constu",
	OpConsts: "DW_OP_consts", OpDup: "DW_OP_dup", OpDrop: "DW_OP_drop", OpOver: "DW_OP_over",
	OpPick: "DW_OP_pick", OpSwap: "DW_OP_swap", OpRot: "DW_OP_rot", OpXderef: "DW_OP_xderef",
	OpAbs: "DW_OP_abs", OpAnd: "DW_OP_and", OpDiv: "DW_OP_div", OpMinus: "DW_OP_minus",
	OpMod: "DW_OP_mod", OpMul: "DW_OP_mul", OpNeg: "DW_OP_neg", OpNot: "DW_OP_not",
	OpOr: "DW_OP_or", OpPlus: "DW_OP_plus", OpPlusUconst: "DW_OP_plus_uconst",
	OpShl: "DW_OP_shl", OpShr: "DW_OP_shr", OpShra: "DW_OP_shra", OpXor: "DW_OP_xor",
	OpBra: "DW_OP_bra", OpEq: "DW_OP_eq", OpGe: "DW_OP_ge", OpGt: "DW_OP_gt", OpLe: "DW_OP_le",
	OpLt: "DW_OP_lt", OpNe: "DW_OP_ne", OpSkip: "DW_OP_skip", OpRegx: "DW_OP_regx",
	OpFbreg: "DW_OP_fbreg", OpBregx: "DW_OP_bregx", OpPiece: "DW_OP_piece",
	OpDerefSize: "DW_OP_deref_size", OpXderefSize: "DW_OP_xderef_size", OpNop: "DW_OP_nop",
	OpPushObjectAddress: "DW_OP_push_object_address", OpCall2: "DW_OP_call2",
	OpCall4: "DW_OP_call4", OpCallRef: "DW_OP_call_ref", OpFormTLSAddress: "DW_OP_form_tls_address",
	OpCallFrameCFA: "DW_OP_call_frame_cfa", OpBitPiece: "DW_OP_bit_piece",
	OpImplicitValue: "DW_OP_implicit_value", OpStackValue: "DW_OP_stack_value",
	OpImplicitPointer: "DW_OP_implicit_pointer", OpAddrx: "DW_OP_addrx", OpConstx: "DW_OP_constx",
	OpEntryValue: "DW_OP_entry_value", OpConstType: "DW_OP_const_type",
	OpRegvalType: "DW_OP_regval_type", OpDerefType: "DW_OP_deref_type",
	OpXderefType: "DW_OP_xderef_type", OpConvert: "DW_OP_convert", OpReinterpret: "DW_OP_reinterpret",
	OpGNUPushTLSAddress: "DW_OP_GNU_push_tls_address", OpGNUUninit: "DW_OP_GNU_uninit",
	OpGNUEncodedAddr: "DW_OP_GNU_encoded_addr", OpGNUImplicitPointer: "DW_OP_GNU_implicit_pointer",
	OpGNUEntryValue: "DW_OP_GNU_entry_value", OpGNUConstType: "DW_OP_GNU_const_type",
	OpGNURegvalType: "DW_OP_GNU_regval_type", OpGNUDerefType: "DW_OP_GNU_deref_type",
	OpGNUConvert: "DW_OP_GNU_convert", OpGNUReinterpret: "DW_OP_GNU_reinterpret",
	OpGNUParameterRef: "DW_OP_GNU_parameter_ref", OpGNUAddrIndex: "DW_OP_GNU_addr_index",
	OpGNUConstIndex: "DW_OP_GNU_const_index", OpGNUVariableValue: "DW_OP_GNU_variable_value",
}

func (o Op) String() string {
	switch {
	case o >= OpLit0 && o <= OpLit31:
		return "DW_OP_lit" + strconv.Itoa(int(o-OpLit0))
	case o >= OpReg0 && o <= OpReg31:
		return "DW_OP_reg" + strconv.Itoa(int(o-OpReg0))
	case o >= OpBreg0 && o <= OpBreg31:
		return "DW_OP_breg" + strconv.Itoa(int(o-OpBreg0))
	}
	if s, ok := opNames[o]; ok {
		return s
	}
	return "DW_OP_0x" + strconv.FormatUint(uint64(o), 16)
}

// LLE is a DWARF 5 location list entry kind (DW_LLE_*), section 7.7.3,
// plus gcc's DW_LLE_GNU_view_pair.
type LLE uint8

const (
	LLEEndOfList    LLE = 0x00
	LLEBaseAddressx LLE = 0x01
	LLEStartxEndx   LLE = 0x02
	LLEStartxLength LLE = 0x03
	LLEOffsetPair   LLE = 0x04
	LLEDefaultLoc   LLE = 0x05
	LLEBaseAddress  LLE = 0x06
	LLEStartEnd     LLE = 0x07
	LLEStartLength  LLE = 0x08
	LLEGNUViewPair  LLE = 0x09
)

var lleNames = [...]string{
	"DW_LLE_end_of_list", "DW_LLE_base_addressx", "DW_LLE_startx_endx",
	"DW_LLE_startx_length", "DW_LLE_offset_pair", "DW_LLE_default_location",
	"DW_LLE_base_address", "DW_LLE_start_end", "DW_LLE_start_length",
	"DW_LLE_GNU_view_pair",
}

func (k LLE) String() string {
	if int(k) < len(lleNames) {
		return lleNames[k]
	}
	return "DW_LLE_0x" + strconv.FormatUint(uint64(k), 16)
}
