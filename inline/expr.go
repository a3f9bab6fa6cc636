package inline

import (
	"encoding/binary"
	"fmt"
)

// FormatError reports malformed DWARF data: which section, the byte offset
// within it, and what was wrong.
type FormatError struct {
	Section string
	Offset  int64
	Msg     string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s+0x%x: %s", e.Section, e.Offset, e.Msg)
}

// cursor decodes little- or big-endian DWARF data. The first error sticks:
// later reads return zero values, so callers check err once at the end.
type cursor struct {
	sec   string
	base  int64 // section offset of data[0]
	data  []byte
	off   int
	order binary.ByteOrder
	err   error
}

func (c *cursor) fail(msg string) {
	if c.err == nil {
		c.err = &FormatError{Section: c.sec, Offset: c.base + int64(c.off), Msg: msg}
	}
}

func (c *cursor) pos() int64 { return c.base + int64(c.off) }

func (c *cursor) left() int { return len(c.data) - c.off }

func (c *cursor) bytes(n uint64) []byte {
	if c.err != nil {
		return nil
	}
	if n > uint64(c.left()) {
		c.fail(fmt.Sprintf("need %d bytes, have %d", n, c.left()))
		c.off = len(c.data)
		return nil
	}
	b := c.data[c.off : c.off+int(n)]
	c.off += int(n)
	return b
}

func (c *cursor) u8() uint8 {
	b := c.bytes(1)
	if b == nil {
		return 0
	}
	return b[0]
}

func (c *cursor) u16() uint16 {
	b := c.bytes(2)
	if b == nil {
		return 0
	}
	return c.order.Uint16(b)
}

func (c *cursor) u32() uint32 {
	b := c.bytes(4)
	if b == nil {
		return 0
	}
	return c.order.Uint32(b)
}

func (c *cursor) u64() uint64 {
	b := c.bytes(8)
	if b == nil {
		return 0
	}
	return c.order.Uint64(b)
}

// sized reads an n-byte unsigned integer (n = 1, 2, 4 or 8).
func (c *cursor) sized(n int) uint64 {
	switch n {
	case 1:
		return uint64(c.u8())
	case 2:
		return uint64(c.u16())
	case 4:
		return uint64(c.u32())
	case 8:
		return c.u64()
	}
	c.fail(fmt.Sprintf("unsupported operand size %d", n))
	return 0
}

func (c *cursor) uleb() uint64 {
	var v uint64
	var shift uint
	for {
		if c.err != nil {
			return 0
		}
		if c.off >= len(c.data) {
			c.fail("truncated LEB128")
			return 0
		}
		b := c.data[c.off]
		c.off++
		if shift < 64 {
			v |= uint64(b&0x7f) << shift
		} else if b&0x7f != 0 {
			c.fail("LEB128 overflows 64 bits")
			return 0
		}
		shift += 7
		if b&0x80 == 0 {
			return v
		}
	}
}

func (c *cursor) sleb() int64 {
	var v int64
	var shift uint
	for {
		if c.err != nil {
			return 0
		}
		if c.off >= len(c.data) {
			c.fail("truncated LEB128")
			return 0
		}
		b := c.data[c.off]
		c.off++
		if shift < 64 {
			v |= int64(b&0x7f) << shift
		}
		shift += 7
		if b&0x80 == 0 {
			if shift < 64 && b&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}

// Instr is one decoded DWARF expression operation. A and B hold the
// operands in the order the opcode defines them (signed operands are
// stored as two's complement); Block holds the inline block of
// DW_OP_implicit_value, DW_OP_entry_value and DW_OP_const_type.
type Instr struct {
	Op    Op
	Off   int // offset of the opcode within the expression
	A, B  uint64
	Block []byte
}

// ExprFormat is what decoding an expression needs to know about its unit.
type ExprFormat struct {
	AddrSize int              // 4 or 8
	RefSize  int              // offset size: 4 (32-bit DWARF) or 8
	Order    binary.ByteOrder // byte order of the object
}

// DecodeExpr decodes a DWARF expression. sec and base name where expr
// sits (e.g. ".debug_loclists", its section offset) for error messages.
// The result holds at most len(expr) instructions.
func DecodeExpr(expr []byte, f ExprFormat, sec string, base int64) ([]Instr, error) {
	c := &cursor{sec: sec, base: base, data: expr, order: f.Order}
	if f.Order == nil {
		c.order = binary.LittleEndian
	}
	if f.AddrSize != 4 && f.AddrSize != 8 {
		return nil, &FormatError{sec, base, fmt.Sprintf("unsupported address size %d", f.AddrSize)}
	}
	refSize := f.RefSize
	if refSize != 8 {
		refSize = 4
	}
	var out []Instr
	for c.left() > 0 && c.err == nil {
		in := Instr{Off: c.off, Op: Op(c.u8())}
		switch op := in.Op; {
		case op >= OpLit0 && op <= OpLit31, op >= OpReg0 && op <= OpReg31:
		case op >= OpBreg0 && op <= OpBreg31:
			in.A = uint64(c.sleb())
		default:
			switch op {
			case OpAddr:
				in.A = c.sized(f.AddrSize)
			case OpConst1u, OpPick, OpDerefSize, OpXderefSize:
				in.A = uint64(c.u8())
			case OpConst1s:
				in.A = uint64(int64(int8(c.u8())))
			case OpConst2u, OpCall2:
				in.A = uint64(c.u16())
			case OpConst2s, OpBra, OpSkip:
				in.A = uint64(int64(int16(c.u16())))
			case OpConst4u, OpCall4, OpGNUParameterRef:
				in.A = uint64(c.u32())
			case OpConst4s:
				in.A = uint64(int64(int32(c.u32())))
			case OpConst8u, OpConst8s:
				in.A = c.u64()
			case OpConstu, OpPlusUconst, OpRegx, OpPiece, OpAddrx, OpConstx,
				OpConvert, OpReinterpret, OpGNUConvert, OpGNUReinterpret,
				OpGNUAddrIndex, OpGNUConstIndex:
				in.A = c.uleb()
			case OpConsts, OpFbreg:
				in.A = uint64(c.sleb())
			case OpBregx:
				in.A = c.uleb()
				in.B = uint64(c.sleb())
			case OpBitPiece, OpRegvalType, OpGNURegvalType:
				in.A = c.uleb()
				in.B = c.uleb()
			case OpImplicitValue, OpEntryValue, OpGNUEntryValue:
				n := c.uleb()
				in.Block = c.bytes(n)
			case OpConstType, OpGNUConstType:
				in.A = c.uleb()
				n := c.u8()
				in.Block = c.bytes(uint64(n))
			case OpDerefType, OpXderefType, OpGNUDerefType:
				in.A = uint64(c.u8())
				in.B = c.uleb()
			case OpCallRef, OpGNUVariableValue:
				in.A = c.sized(refSize)
			case OpImplicitPointer, OpGNUImplicitPointer:
				in.A = c.sized(refSize)
				in.B = uint64(c.sleb())
			case OpGNUEncodedAddr:
				// The operand is a pointer-encoded value (DW_EH_PE_*);
				// only the absolute encodings are decodable here.
				enc := c.u8()
				switch enc & 0x0f {
				case 0x00:
					in.A = c.sized(f.AddrSize)
				case 0x02, 0x0a:
					in.A = uint64(c.u16())
				case 0x03, 0x0b:
					in.A = uint64(c.u32())
				case 0x04, 0x0c:
					in.A = c.u64()
				default:
					c.fail(fmt.Sprintf("DW_OP_GNU_encoded_addr: unsupported encoding 0x%x", enc))
				}
				in.B = uint64(enc)
			case OpDeref, OpDup, OpDrop, OpOver, OpSwap, OpRot, OpXderef, OpAbs, OpAnd,
				OpDiv, OpMinus, OpMod, OpMul, OpNeg, OpNot, OpOr, OpPlus, OpShl, OpShr,
				OpShra, OpXor, OpEq, OpGe, OpGt, OpLe, OpLt, OpNe, OpNop,
				OpPushObjectAddress, OpFormTLSAddress, OpCallFrameCFA, OpStackValue,
				OpGNUPushTLSAddress, OpGNUUninit:
			default:
				c.off--
				c.fail("unknown opcode " + op.String())
			}
		}
		if c.err == nil {
			out = append(out, in)
		}
	}
	if c.err != nil {
		return out, c.err
	}
	return out, nil
}
