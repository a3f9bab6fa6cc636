package dwarfsite

import (
	"errors"
	"testing"

	"github.com/btfinline/btfinline/internal/site"
)

var fmt8 = exprFormat{AddrSize: 8, RefSize: 4, Order: le}

func TestClassify(t *testing.T) {
	r := func(n int) byte { return byte(opReg0) + byte(n) }
	br := func(n int) byte { return byte(opBreg0) + byte(n) }
	for _, c := range []struct {
		name    string
		expr    []byte
		atEntry bool
		want    string // FormatLocation, or "unavailable (reason)"
		size    uint8  // of the parameter's type; 0 means 8
	}{
		{"reg", []byte{r(5)}, false, "reg5", 0},
		{"regx", []byte{byte(opRegx), 17}, false, "reg17", 0},
		{"breg value", []byte{br(5), 0x10, byte(opStackValue)}, false, "reg5 + 0x10", 0},
		{"breg0 value", []byte{br(3), 0, byte(opStackValue)}, false, "reg3", 0},
		{"breg memory", []byte{br(7), 0x08}, false, "*(reg7 + 0x8)", 0},
		{"breg deref value", []byte{br(5), 0x10, byte(opDeref), byte(opStackValue)}, false, "*(reg5 + 0x10)", 0},
		{"fbreg", []byte{byte(opFbreg), 0x60}, false, "*(fbreg - 0x20)", 0},
		{"fbreg value", []byte{byte(opFbreg), 0x70, byte(opStackValue)}, false, "fbreg - 0x10", 0},
		{"lit", []byte{byte(opLit0) + 10, byte(opStackValue)}, false, "const 0xa", 0},
		{"consts", []byte{byte(opConsts), 0x7b, byte(opStackValue)}, false, "const 0xfffffffffffffffb", 0},
		{"const fold", []byte{byte(opConst1u), 6, byte(opLit0) + 7, byte(opMul), byte(opStackValue)}, false, "const 0x2a", 0},
		{"implicit value", []byte{byte(opImplicitValue), 2, 0x34, 0x12}, false, "const 0x1234", 0},
		{"addr", cat([]byte{byte(opAddr)}, u64le(0xffffffff82000000), []byte{byte(opStackValue)}), false, "address 0xffffffff82000000", 0},
		{"addr memory", cat([]byte{byte(opAddr)}, u64le(0x1000)), false, "unavailable (memory at absolute address)", 0},
		{"plus_uconst", []byte{br(5), 0, byte(opPlusUconst), 0x20, byte(opStackValue)}, false, "reg5 + 0x20", 0},
		{"pair", []byte{r(5), byte(opPiece), 8, r(4), byte(opPiece), 8}, false, "reg5, reg4", 0},
		{"one piece", []byte{r(0), byte(opPiece), 4}, false, "reg0", 0},
		{"partial", []byte{byte(opPiece), 8, r(4), byte(opPiece), 8}, false, "unavailable (partially optimized out)", 0},
		{"piece of memory", []byte{br(7), 8, byte(opPiece), 8, r(4), byte(opPiece), 8}, false, "unavailable (piece of memory)", 0},
		{"three pieces", []byte{r(1), byte(opPiece), 4, r(2), byte(opPiece), 4, r(3), byte(opPiece), 4}, false, "unavailable (more than two pieces)", 0},
		{"entry value away", []byte{byte(opEntryValue), 1, r(5), byte(opStackValue)}, false, "unavailable (entry_value away from function entry)", 0},
		{"entry value at entry", []byte{byte(opGNUEntryValue), 1, r(5), byte(opStackValue)}, true, "reg5", 0},
		{"entry value plus", []byte{byte(opEntryValue), 1, r(5), byte(opPlusUconst), 1, byte(opStackValue)}, true, "reg5 + 0x1", 0},
		{"entry value expr", []byte{byte(opEntryValue), 2, br(5), 0, byte(opStackValue)}, true, "unavailable (entry_value of an expression)", 0},
		{"and mask", []byte{br(0), 0, byte(opConst1u), 0xff, byte(opAnd), byte(opStackValue)}, false, "unavailable (multi-op arithmetic)", 0},
		{"double deref", []byte{br(5), 0, byte(opDeref)}, false, "unavailable (double dereference)", 0},
		{"implicit pointer", []byte{byte(opImplicitPointer), 1, 2, 3, 4, 0}, false, "unavailable (implicit_pointer)", 0},
		{"parameter ref", []byte{byte(opGNUParameterRef), 1, 2, 3, 4}, false, "unavailable (GNU_parameter_ref)", 0},
		{"convert", []byte{r(0), byte(opConvert), 0x30}, false, "unavailable (malformed expression)", 0},
		{"typed", []byte{byte(opRegvalType), 0, 0x30, byte(opConvert), 0x31, byte(opStackValue)}, false, "unavailable (typed conversion)", 0},
		{"cfa", []byte{byte(opCallFrameCFA)}, false, "unavailable (call_frame_cfa)", 0},
		{"tls", []byte{byte(opConst8u), 1, 2, 3, 4, 5, 6, 7, 8, byte(opGNUPushTLSAddress)}, false, "unavailable (TLS address)", 0},
		{"bit piece", []byte{r(0), byte(opBitPiece), 3, 0}, false, "unavailable (bit_piece)", 0},
		{"underflow", []byte{byte(opPlus), byte(opStackValue)}, false, "unavailable (malformed expression)", 0},
		{"empty", nil, false, "unavailable", 0},
		// gcc's 65-bit signed LEB128 of 0x9000000000000000: its low 64
		// bits are the value of a 64-bit type; a 16-byte type would
		// need the bits above them.
		{"consts 65 bits", []byte{byte(opConsts), 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x90, 0x01, byte(opStackValue)}, false, "const 0x9000000000000000", 0},
		{"consts 65 bits, 16-byte type", []byte{byte(opConsts), 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x90, 0x01, byte(opStackValue)}, false, "unavailable (constant wider than 8 bytes)", 16},
		{"constu 70 bits", []byte{byte(opConstu), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, byte(opStackValue)}, false, "const 0xffffffffffffffff", 0},
		{"breg offset 65 bits", []byte{br(5), 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, byte(opStackValue)}, false, "reg5 - 0x8000000000000000", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ins, err := decodeExpr(c.expr, fmt8, "test", 0)
			if err != nil {
				t.Fatal(err)
			}
			size := c.size
			if size == 0 {
				size = 8
			}
			l := classify(ins, &evalEnv{f: fmt8, atEntry: c.atEntry, size: size})
			got := site.FormatLocation(&l, nil)
			if l.Reason != "" {
				got += " (" + l.Reason + ")"
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestDecodeExprErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		expr []byte
		off  int64
	}{
		{"truncated addr", []byte{byte(opAddr), 1, 2}, 0x101},
		{"truncated leb", []byte{byte(opLit0), byte(opConstu), 0x80, 0x80}, 0x104},
		{"truncated block", []byte{byte(opImplicitValue), 8, 1}, 0x102},
		{"unknown opcode", []byte{byte(opNop), 0xff}, 0x101},
		{"truncated const2", []byte{byte(opConst2u), 1}, 0x101},
	} {
		_, err := decodeExpr(c.expr, fmt8, ".debug_loclists", 0x100)
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: error %v, want a FormatError", c.name, err)
			continue
		}
		if fe.Section != ".debug_loclists" || fe.Offset != c.off {
			t.Errorf("%s: %v, want offset 0x%x", c.name, err, c.off)
		}
	}
}

func TestOpString(t *testing.T) {
	for op, want := range map[opcode]string{
		opReg0 + 5: "DW_OP_reg5", opBreg0 + 31: "DW_OP_breg31", opLit0 + 3: "DW_OP_lit3",
		opEntryValue: "DW_OP_entry_value", opGNUParameterRef: "DW_OP_GNU_parameter_ref", 0xee: "DW_OP_0xee",
	} {
		if got := op.String(); got != want {
			t.Errorf("%#x: %s, want %s", uint8(op), got, want)
		}
	}
	if lleGNUViewPair.String() != "DW_LLE_GNU_view_pair" || lleKind(0x42).String() != "DW_LLE_0x42" {
		t.Error("lleKind names")
	}
}
