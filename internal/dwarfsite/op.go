package dwarfsite

import "strconv"

// opcode is a DWARF expression opcode (DWARF 5 section 7.7.1 plus the GNU
// extensions gcc emits).
type opcode uint8

// DWARF expression opcodes. DW_OP_lit<N>, DW_OP_reg<N> and DW_OP_breg<N>
// are ranges starting at opLit0, opReg0 and opBreg0.
const (
	opAddr              opcode = 0x03
	opDeref             opcode = 0x06
	opConst1u           opcode = 0x08
	opConst1s           opcode = 0x09
	opConst2u           opcode = 0x0a
	opConst2s           opcode = 0x0b
	opConst4u           opcode = 0x0c
	opConst4s           opcode = 0x0d
	opConst8u           opcode = 0x0e
	opConst8s           opcode = 0x0f
	opConstu            opcode = 0x10
	opConsts            opcode = 0x11
	opDup               opcode = 0x12
	opDrop              opcode = 0x13
	opOver              opcode = 0x14
	opPick              opcode = 0x15
	opSwap              opcode = 0x16
	opRot               opcode = 0x17
	opXderef            opcode = 0x18
	opAbs               opcode = 0x19
	opAnd               opcode = 0x1a
	opDiv               opcode = 0x1b
	opMinus             opcode = 0x1c
	opMod               opcode = 0x1d
	opMul               opcode = 0x1e
	opNeg               opcode = 0x1f
	opNot               opcode = 0x20
	opOr                opcode = 0x21
	opPlus              opcode = 0x22
	opPlusUconst        opcode = 0x23
	opShl               opcode = 0x24
	opShr               opcode = 0x25
	opShra              opcode = 0x26
	opXor               opcode = 0x27
	opBra               opcode = 0x28
	opEq                opcode = 0x29
	opGe                opcode = 0x2a
	opGt                opcode = 0x2b
	opLe                opcode = 0x2c
	opLt                opcode = 0x2d
	opNe                opcode = 0x2e
	opSkip              opcode = 0x2f
	opLit0              opcode = 0x30
	opLit31             opcode = 0x4f
	opReg0              opcode = 0x50
	opReg31             opcode = 0x6f
	opBreg0             opcode = 0x70
	opBreg31            opcode = 0x8f
	opRegx              opcode = 0x90
	opFbreg             opcode = 0x91
	opBregx             opcode = 0x92
	opPiece             opcode = 0x93
	opDerefSize         opcode = 0x94
	opXderefSize        opcode = 0x95
	opNop               opcode = 0x96
	opPushObjectAddress opcode = 0x97
	opCall2             opcode = 0x98
	opCall4             opcode = 0x99
	opCallRef           opcode = 0x9a
	opFormTLSAddress    opcode = 0x9b
	opCallFrameCFA      opcode = 0x9c
	opBitPiece          opcode = 0x9d
	opImplicitValue     opcode = 0x9e
	opStackValue        opcode = 0x9f
	opImplicitPointer   opcode = 0xa0
	opAddrx             opcode = 0xa1
	opConstx            opcode = 0xa2
	opEntryValue        opcode = 0xa3
	opConstType         opcode = 0xa4
	opRegvalType        opcode = 0xa5
	opDerefType         opcode = 0xa6
	opXderefType        opcode = 0xa7
	opConvert           opcode = 0xa8
	opReinterpret       opcode = 0xa9

	opGNUPushTLSAddress  opcode = 0xe0
	opGNUUninit          opcode = 0xf0
	opGNUEncodedAddr     opcode = 0xf1
	opGNUImplicitPointer opcode = 0xf2
	opGNUEntryValue      opcode = 0xf3
	opGNUConstType       opcode = 0xf4
	opGNURegvalType      opcode = 0xf5
	opGNUDerefType       opcode = 0xf6
	opGNUConvert         opcode = 0xf7
	opGNUReinterpret     opcode = 0xf9
	opGNUParameterRef    opcode = 0xfa
	opGNUAddrIndex       opcode = 0xfb
	opGNUConstIndex      opcode = 0xfc
	opGNUVariableValue   opcode = 0xfd
)

var opNames = map[opcode]string{
	opAddr: "DW_OP_addr", opDeref: "DW_OP_deref",
	opConst1u: "DW_OP_const1u", opConst1s: "DW_OP_const1s", opConst2u: "DW_OP_const2u",
	opConst2s: "DW_OP_const2s", opConst4u: "DW_OP_const4u", opConst4s: "DW_OP_const4s",
	opConst8u: "DW_OP_const8u", opConst8s: "DW_OP_const8s", opConstu: "DW_OP_constu",
	opConsts: "DW_OP_consts", opDup: "DW_OP_dup", opDrop: "DW_OP_drop", opOver: "DW_OP_over",
	opPick: "DW_OP_pick", opSwap: "DW_OP_swap", opRot: "DW_OP_rot", opXderef: "DW_OP_xderef",
	opAbs: "DW_OP_abs", opAnd: "DW_OP_and", opDiv: "DW_OP_div", opMinus: "DW_OP_minus",
	opMod: "DW_OP_mod", opMul: "DW_OP_mul", opNeg: "DW_OP_neg", opNot: "DW_OP_not",
	opOr: "DW_OP_or", opPlus: "DW_OP_plus", opPlusUconst: "DW_OP_plus_uconst",
	opShl: "DW_OP_shl", opShr: "DW_OP_shr", opShra: "DW_OP_shra", opXor: "DW_OP_xor",
	opBra: "DW_OP_bra", opEq: "DW_OP_eq", opGe: "DW_OP_ge", opGt: "DW_OP_gt", opLe: "DW_OP_le",
	opLt: "DW_OP_lt", opNe: "DW_OP_ne", opSkip: "DW_OP_skip", opRegx: "DW_OP_regx",
	opFbreg: "DW_OP_fbreg", opBregx: "DW_OP_bregx", opPiece: "DW_OP_piece",
	opDerefSize: "DW_OP_deref_size", opXderefSize: "DW_OP_xderef_size", opNop: "DW_OP_nop",
	opPushObjectAddress: "DW_OP_push_object_address", opCall2: "DW_OP_call2",
	opCall4: "DW_OP_call4", opCallRef: "DW_OP_call_ref", opFormTLSAddress: "DW_OP_form_tls_address",
	opCallFrameCFA: "DW_OP_call_frame_cfa", opBitPiece: "DW_OP_bit_piece",
	opImplicitValue: "DW_OP_implicit_value", opStackValue: "DW_OP_stack_value",
	opImplicitPointer: "DW_OP_implicit_pointer", opAddrx: "DW_OP_addrx", opConstx: "DW_OP_constx",
	opEntryValue: "DW_OP_entry_value", opConstType: "DW_OP_const_type",
	opRegvalType: "DW_OP_regval_type", opDerefType: "DW_OP_deref_type",
	opXderefType: "DW_OP_xderef_type", opConvert: "DW_OP_convert", opReinterpret: "DW_OP_reinterpret",
	opGNUPushTLSAddress: "DW_OP_GNU_push_tls_address", opGNUUninit: "DW_OP_GNU_uninit",
	opGNUEncodedAddr: "DW_OP_GNU_encoded_addr", opGNUImplicitPointer: "DW_OP_GNU_implicit_pointer",
	opGNUEntryValue: "DW_OP_GNU_entry_value", opGNUConstType: "DW_OP_GNU_const_type",
	opGNURegvalType: "DW_OP_GNU_regval_type", opGNUDerefType: "DW_OP_GNU_deref_type",
	opGNUConvert: "DW_OP_GNU_convert", opGNUReinterpret: "DW_OP_GNU_reinterpret",
	opGNUParameterRef: "DW_OP_GNU_parameter_ref", opGNUAddrIndex: "DW_OP_GNU_addr_index",
	opGNUConstIndex: "DW_OP_GNU_const_index", opGNUVariableValue: "DW_OP_GNU_variable_value",
}

func (o opcode) String() string {
	switch {
	case o >= opLit0 && o <= opLit31:
		return "DW_OP_lit" + strconv.Itoa(int(o-opLit0))
	case o >= opReg0 && o <= opReg31:
		return "DW_OP_reg" + strconv.Itoa(int(o-opReg0))
	case o >= opBreg0 && o <= opBreg31:
		return "DW_OP_breg" + strconv.Itoa(int(o-opBreg0))
	}
	if s, ok := opNames[o]; ok {
		return s
	}
	return "DW_OP_0x" + strconv.FormatUint(uint64(o), 16)
}

// lleKind is a DWARF 5 location list entry kind (DW_LLE_*), section 7.7.3,
// plus gcc's DW_LLE_GNU_view_pair.
type lleKind uint8

const (
	lleEndOfList    lleKind = 0x00
	lleBaseAddressx lleKind = 0x01
	lleStartxEndx   lleKind = 0x02
	lleStartxLength lleKind = 0x03
	lleOffsetPair   lleKind = 0x04
	lleDefaultLoc   lleKind = 0x05
	lleBaseAddress  lleKind = 0x06
	lleStartEnd     lleKind = 0x07
	lleStartLength  lleKind = 0x08
	lleGNUViewPair  lleKind = 0x09
)

var lleNames = [...]string{
	"DW_LLE_end_of_list", "DW_LLE_base_addressx", "DW_LLE_startx_endx",
	"DW_LLE_startx_length", "DW_LLE_offset_pair", "DW_LLE_default_location",
	"DW_LLE_base_address", "DW_LLE_start_end", "DW_LLE_start_length",
	"DW_LLE_GNU_view_pair",
}

func (k lleKind) String() string {
	if int(k) < len(lleNames) {
		return lleNames[k]
	}
	return "DW_LLE_0x" + strconv.FormatUint(uint64(k), 16)
}
