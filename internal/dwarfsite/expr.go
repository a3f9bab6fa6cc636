package dwarfsite

import (
	"encoding/binary"
	"fmt"

	"github.com/btfinline/btfinline/internal/dwarfbuf"
)

// FormatError reports malformed DWARF data: which section, the byte offset
// within it, and what was wrong. It is the error type of the shared DWARF
// byte cursor, so errors.As finds the cursor's errors under this name.
type FormatError = dwarfbuf.Error

// instr is one decoded DWARF expression operation. A and B hold the
// operands in the order the opcode defines them (signed operands are
// stored as two's complement); Block holds the inline block of
// DW_OP_implicit_value, DW_OP_entry_value and DW_OP_const_type.
type instr struct {
	opcode opcode
	Off    int // offset of the opcode within the expression
	A, B   uint64
	Block  []byte
	// Wide: a LEB128 constant or offset operand did not fit in 64 bits;
	// A or B holds its low 64 bits.
	Wide bool
}

// exprFormat is what decoding an expression needs to know about its unit.
type exprFormat struct {
	AddrSize int              // 4 or 8
	RefSize  int              // offset size: 4 (32-bit DWARF) or 8
	Order    binary.ByteOrder // byte order of the object
}

// decodeExpr decodes a DWARF expression. sec and base name where expr
// sits (e.g. ".debug_loclists", its section offset) for error messages.
// The result holds at most len(expr) instructions.
func decodeExpr(expr []byte, f exprFormat, sec string, base int64) ([]instr, error) {
	return decodeExprTo(nil, expr, f, sec, base)
}

// decodeExprTo is decodeExpr appending to out, for a caller that reuses
// one buffer (an expression is decoded at every candidate probe address).
func decodeExprTo(out []instr, expr []byte, f exprFormat, sec string, base int64) ([]instr, error) {
	if f.AddrSize != 4 && f.AddrSize != 8 {
		return nil, &FormatError{Section: sec, Offset: base, Msg: fmt.Sprintf("unsupported address size %d", f.AddrSize)}
	}
	c := dwarfbuf.Make(sec, f.Order, base, expr)
	refSize := f.RefSize
	if refSize != 8 {
		refSize = 4
	}
	for c.Left() > 0 {
		in := instr{Off: c.Off(), opcode: opcode(c.U8())}
		switch op := in.opcode; {
		case op >= opLit0 && op <= opLit31, op >= opReg0 && op <= opReg31:
		case op >= opBreg0 && op <= opBreg31:
			in.A = sleb(&c, &in)
		default:
			switch op {
			case opAddr:
				in.A = c.Sized(f.AddrSize)
			case opConst1u, opPick, opDerefSize, opXderefSize:
				in.A = uint64(c.U8())
			case opConst1s:
				in.A = uint64(int64(int8(c.U8())))
			case opConst2u, opCall2:
				in.A = uint64(c.U16())
			case opConst2s, opBra, opSkip:
				in.A = uint64(int64(int16(c.U16())))
			case opConst4u, opCall4, opGNUParameterRef:
				in.A = uint64(c.U32())
			case opConst4s:
				in.A = uint64(int64(int32(c.U32())))
			case opConst8u, opConst8s:
				in.A = c.U64()
			case opConstu, opPlusUconst:
				// Constants and offsets are read at any width (gcc writes
				// 65-bit ones); the evaluator decides what the low 64 bits
				// are worth. Register numbers and indexes stay strict.
				var exact bool
				in.A, exact = c.UlebWide()
				in.Wide = !exact
			case opRegx, opPiece, opAddrx, opConstx,
				opConvert, opReinterpret, opGNUConvert, opGNUReinterpret,
				opGNUAddrIndex, opGNUConstIndex:
				in.A = c.Uleb()
			case opConsts, opFbreg:
				in.A = sleb(&c, &in)
			case opBregx:
				in.A = c.Uleb()
				in.B = sleb(&c, &in)
			case opBitPiece, opRegvalType, opGNURegvalType:
				in.A = c.Uleb()
				in.B = c.Uleb()
			case opImplicitValue, opEntryValue, opGNUEntryValue:
				n := c.Uleb()
				in.Block = c.Bytes(n)
			case opConstType, opGNUConstType:
				in.A = c.Uleb()
				n := c.U8()
				in.Block = c.Bytes(uint64(n))
			case opDerefType, opXderefType, opGNUDerefType:
				in.A = uint64(c.U8())
				in.B = c.Uleb()
			case opCallRef, opGNUVariableValue:
				in.A = c.Sized(refSize)
			case opImplicitPointer, opGNUImplicitPointer:
				in.A = c.Sized(refSize)
				in.B = uint64(c.Sleb())
			case opGNUEncodedAddr:
				// The operand is a pointer-encoded value (DW_EH_PE_*);
				// only the absolute encodings are decodable here.
				enc := c.U8()
				switch enc & 0x0f {
				case 0x00:
					in.A = c.Sized(f.AddrSize)
				case 0x02, 0x0a:
					in.A = uint64(c.U16())
				case 0x03, 0x0b:
					in.A = uint64(c.U32())
				case 0x04, 0x0c:
					in.A = c.U64()
				default:
					c.Failf("DW_OP_GNU_encoded_addr: unsupported encoding 0x%x", enc)
				}
				in.B = uint64(enc)
			case opDeref, opDup, opDrop, opOver, opSwap, opRot, opXderef, opAbs, opAnd,
				opDiv, opMinus, opMod, opMul, opNeg, opNot, opOr, opPlus, opShl, opShr,
				opShra, opXor, opEq, opGe, opGt, opLe, opLt, opNe, opNop,
				opPushObjectAddress, opFormTLSAddress, opCallFrameCFA, opStackValue,
				opGNUPushTLSAddress, opGNUUninit:
			default:
				c.FailAt(c.Pos()-1, "unknown opcode "+op.String())
			}
		}
		if c.Err() == nil {
			out = append(out, in)
		}
	}
	return out, c.Err()
}

// sleb reads a signed LEB128 operand of any width, noting in in.Wide when
// only its low 64 bits are kept.
func sleb(c *dwarfbuf.Buf, in *instr) uint64 {
	v, exact := c.SlebWide()
	if !exact {
		in.Wide = true
	}
	return uint64(v)
}
