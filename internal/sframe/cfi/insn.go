package cfi

import "fmt"

// Op is a DW_CFA_* call frame instruction opcode. The three "primary"
// opcodes that carry an operand in their low six bits are normalised to
// their high-bit value (AdvanceLoc, Offset, Restore).
type Op uint8

const (
	OpNop                        Op = 0x00
	OpSetLoc                     Op = 0x01
	OpAdvanceLoc1                Op = 0x02
	OpAdvanceLoc2                Op = 0x03
	OpAdvanceLoc4                Op = 0x04
	OpOffsetExtended             Op = 0x05
	OpRestoreExtended            Op = 0x06
	OpUndefined                  Op = 0x07
	OpSameValue                  Op = 0x08
	OpRegister                   Op = 0x09
	OpRememberState              Op = 0x0a
	OpRestoreState               Op = 0x0b
	OpDefCFA                     Op = 0x0c
	OpDefCFARegister             Op = 0x0d
	OpDefCFAOffset               Op = 0x0e
	OpDefCFAExpression           Op = 0x0f
	OpExpression                 Op = 0x10
	OpOffsetExtendedSF           Op = 0x11
	OpDefCFASF                   Op = 0x12
	OpDefCFAOffsetSF             Op = 0x13
	OpValOffset                  Op = 0x14
	OpValOffsetSF                Op = 0x15
	OpValExpression              Op = 0x16
	OpMIPSAdvanceLoc8            Op = 0x1d
	OpAArch64NegateRAStateWithPC Op = 0x2c
	OpGNUWindowSave              Op = 0x2d // also DW_CFA_AARCH64_negate_ra_state
	OpGNUArgsSize                Op = 0x2e
	OpGNUNegativeOffsetExtended  Op = 0x2f
	OpAdvanceLoc                 Op = 0x40
	OpOffset                     Op = 0x80
	OpRestore                    Op = 0xc0
)

var opNames = map[Op]string{
	OpNop: "DW_CFA_nop", OpSetLoc: "DW_CFA_set_loc", OpAdvanceLoc1: "DW_CFA_advance_loc1",
	OpAdvanceLoc2: "DW_CFA_advance_loc2", OpAdvanceLoc4: "DW_CFA_advance_loc4",
	OpOffsetExtended: "DW_CFA_offset_extended", OpRestoreExtended: "DW_CFA_restore_extended",
	OpUndefined: "DW_CFA_undefined", OpSameValue: "DW_CFA_same_value", OpRegister: "DW_CFA_register",
	OpRememberState: "DW_CFA_remember_state", OpRestoreState: "DW_CFA_restore_state",
	OpDefCFA: "DW_CFA_def_cfa", OpDefCFARegister: "DW_CFA_def_cfa_register",
	OpDefCFAOffset: "DW_CFA_def_cfa_offset", OpDefCFAExpression: "DW_CFA_def_cfa_expression",
	OpExpression: "DW_CFA_expression", OpOffsetExtendedSF: "DW_CFA_offset_extended_sf",
	OpDefCFASF: "DW_CFA_def_cfa_sf", OpDefCFAOffsetSF: "DW_CFA_def_cfa_offset_sf",
	OpValOffset: "DW_CFA_val_offset", OpValOffsetSF: "DW_CFA_val_offset_sf",
	OpValExpression: "DW_CFA_val_expression", OpMIPSAdvanceLoc8: "DW_CFA_MIPS_advance_loc8",
	OpAArch64NegateRAStateWithPC: "DW_CFA_AARCH64_negate_ra_state_with_pc",
	OpGNUWindowSave:              "DW_CFA_GNU_window_save", OpGNUArgsSize: "DW_CFA_GNU_args_size",
	OpGNUNegativeOffsetExtended: "DW_CFA_GNU_negative_offset_extended",
	OpAdvanceLoc:                "DW_CFA_advance_loc", OpOffset: "DW_CFA_offset", OpRestore: "DW_CFA_restore",
}

func (o Op) String() string {
	if s, ok := opNames[o]; ok {
		return s
	}
	return fmt.Sprintf("DW_CFA_%#x", uint8(o))
}

// Insn is one decoded call frame instruction. Offsets are already
// multiplied by the data alignment factor where the opcode says so, and
// advances by the code alignment factor.
type Insn struct {
	Op    Op
	Reg   uint64 // register operand
	Reg2  uint64 // second register (DW_CFA_register)
	Off   int64  // offset operand (factored where defined), args size
	Delta uint64 // advance in bytes; new location for DW_CFA_set_loc
	Expr  []byte // DWARF expression block
	Pos   int64  // section offset of the opcode byte
	Raw   []byte // the instruction's bytes (operands included)
}

// InsnReader decodes a call frame instruction stream with a sticky error.
type InsnReader struct {
	r        reader
	insns    []byte
	cie      *CIE
	err      *Error
	fdeBegin uint64
}

// newInsnReader decodes the instructions in b, which sit at section offset
// pos of the CIE's section (so that errors point at the right byte).
func newInsnReader(c *CIE, b []byte, pos int64, fdeBegin uint64) InsnReader {
	return InsnReader{r: newReader(c.sec, int(pos), b), insns: b, cie: c, fdeBegin: fdeBegin}
}

// CIEInsns returns a reader over the CIE's initial instructions.
func (c *CIE) Insns() InsnReader {
	return newInsnReader(c, c.Initial, c.initOff, 0)
}

// Insns returns a reader over the FDE's own instructions.
func (f *FDE) Insns() InsnReader {
	return newInsnReader(f.CIE, f.Instructions, f.insnOff, f.Begin)
}

// Err returns the first decoding error.
func (ir *InsnReader) Err() error {
	if ir.err == nil {
		return nil
	}
	return ir.err
}

// Next decodes the next instruction; false at the end or on error.
func (ir *InsnReader) Next(in *Insn) bool {
	r := &ir.r
	if ir.err != nil || r.Left() == 0 {
		return false
	}
	c := ir.cie
	start := r.Off()
	*in = Insn{Pos: r.Pos()}
	b := r.U8()
	switch b & 0xc0 {
	case 0x40:
		in.Op = OpAdvanceLoc
		in.Delta = uint64(b&0x3f) * c.CodeAlign
	case 0x80:
		in.Op = OpOffset
		in.Reg = uint64(b & 0x3f)
		in.Off = int64(r.Uleb()) * c.DataAlign
	case 0xc0:
		in.Op = OpRestore
		in.Reg = uint64(b & 0x3f)
	default:
		in.Op = Op(b)
		switch in.Op {
		case OpNop, OpRememberState, OpRestoreState, OpGNUWindowSave, OpAArch64NegateRAStateWithPC:
		case OpSetLoc:
			if r.sec.Kind == EHFrame {
				in.Delta = r.encoded(c.FDEEncoding, ir.fdeBegin)
			} else {
				in.Delta = r.Sized(int(c.AddressSize))
			}
		case OpAdvanceLoc1:
			in.Delta = uint64(r.U8()) * c.CodeAlign
		case OpAdvanceLoc2:
			in.Delta = uint64(r.U16()) * c.CodeAlign
		case OpAdvanceLoc4:
			in.Delta = uint64(r.U32()) * c.CodeAlign
		case OpMIPSAdvanceLoc8:
			in.Delta = r.U64() * c.CodeAlign
		case OpOffsetExtended, OpValOffset:
			in.Reg = r.Uleb()
			in.Off = int64(r.Uleb()) * c.DataAlign
		case OpOffsetExtendedSF, OpValOffsetSF:
			in.Reg = r.Uleb()
			in.Off = r.Sleb() * c.DataAlign
		case OpGNUNegativeOffsetExtended:
			in.Reg = r.Uleb()
			in.Off = -int64(r.Uleb()) * c.DataAlign
		case OpRestoreExtended, OpUndefined, OpSameValue, OpDefCFARegister:
			in.Reg = r.Uleb()
		case OpRegister:
			in.Reg = r.Uleb()
			in.Reg2 = r.Uleb()
		case OpDefCFA:
			in.Reg = r.Uleb()
			in.Off = int64(r.Uleb())
		case OpDefCFASF:
			in.Reg = r.Uleb()
			in.Off = r.Sleb() * c.DataAlign
		case OpDefCFAOffset:
			in.Off = int64(r.Uleb())
		case OpDefCFAOffsetSF:
			in.Off = r.Sleb() * c.DataAlign
		case OpDefCFAExpression:
			in.Expr = r.Bytes(r.Uleb())
		case OpExpression, OpValExpression:
			in.Reg = r.Uleb()
			in.Expr = r.Bytes(r.Uleb())
		case OpGNUArgsSize:
			in.Off = int64(r.Uleb())
		default:
			r.FailAt(in.Pos, fmt.Sprintf("unknown call frame instruction %#02x", b))
		}
	}
	if r.Err() != nil {
		ir.err = r.Failure()
		return false
	}
	in.Raw = ir.insns[start:r.Off():r.Off()]
	return true
}
