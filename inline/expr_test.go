package inline

import (
	"errors"
	"testing"
)

var fmt8 = ExprFormat{AddrSize: 8, RefSize: 4, Order: le}

func TestClassify(t *testing.T) {
	r := func(n int) byte { return byte(OpReg0) + byte(n) }
	br := func(n int) byte { return byte(OpBreg0) + byte(n) }
	for _, c := range []struct {
		name    string
		expr    []byte
		atEntry bool
		want    string // FormatLocation, or "unavailable (reason)"
		size    uint8  // of the parameter's type; 0 means 8
	}{
		{"reg", []byte{r(5)}, false, "reg5", 0},
		{"regx", []byte{byte(OpRegx), 17}, false, "reg17", 0},
		{"breg value", []byte{br(5), 0x10, byte(OpStackValue)}, false, "reg5 + 0x10", 0},
		{"breg0 value", []byte{br(3), 0, byte(OpStackValue)}, false, "reg3", 0},
		{"breg memory", []byte{br(7), 0x08}, false, "*(reg7 + 0x8)", 0},
		{"breg deref value", []byte{br(5), 0x10, byte(OpDeref), byte(OpStackValue)}, false, "*(reg5 + 0x10)", 0},
		{"fbreg", []byte{byte(OpFbreg), 0x60}, false, "*(fbreg - 0x20)", 0},
		{"fbreg value", []byte{byte(OpFbreg), 0x70, byte(OpStackValue)}, false, "fbreg - 0x10", 0},
		{"lit", []byte{byte(OpLit0) + 10, byte(OpStackValue)}, false, "const 0xa", 0},
		{"consts", []byte{byte(OpConsts), 0x7b, byte(OpStackValue)}, false, "const 0xfffffffffffffffb", 0},
		{"const fold", []byte{byte(OpConst1u), 6, byte(OpLit0) + 7, byte(OpMul), byte(OpStackValue)}, false, "const 0x2a", 0},
		{"implicit value", []byte{byte(OpImplicitValue), 2, 0x34, 0x12}, false, "const 0x1234", 0},
		{"addr", cat([]byte{byte(OpAddr)}, u64le(0xffffffff82000000), []byte{byte(OpStackValue)}), false, "address 0xffffffff82000000", 0},
		{"addr memory", cat([]byte{byte(OpAddr)}, u64le(0x1000)), false, "unavailable (memory at absolute address)", 0},
		{"plus_uconst", []byte{br(5), 0, byte(OpPlusUconst), 0x20, byte(OpStackValue)}, false, "reg5 + 0x20", 0},
		{"pair", []byte{r(5), byte(OpPiece), 8, r(4), byte(OpPiece), 8}, false, "reg5, reg4", 0},
		{"one piece", []byte{r(0), byte(OpPiece), 4}, false, "reg0", 0},
		{"partial", []byte{byte(OpPiece), 8, r(4), byte(OpPiece), 8}, false, "unavailable (partially optimized out)", 0},
		{"piece of memory", []byte{br(7), 8, byte(OpPiece), 8, r(4), byte(OpPiece), 8}, false, "unavailable (piece of memory)", 0},
		{"three pieces", []byte{r(1), byte(OpPiece), 4, r(2), byte(OpPiece), 4, r(3), byte(OpPiece), 4}, false, "unavailable (more than two pieces)", 0},
		{"entry value away", []byte{byte(OpEntryValue), 1, r(5), byte(OpStackValue)}, false, "unavailable (entry_value away from function entry)", 0},
		{"entry value at entry", []byte{byte(OpGNUEntryValue), 1, r(5), byte(OpStackValue)}, true, "reg5", 0},
		{"entry value plus", []byte{byte(OpEntryValue), 1, r(5), byte(OpPlusUconst), 1, byte(OpStackValue)}, true, "reg5 + 0x1", 0},
		{"entry value expr", []byte{byte(OpEntryValue), 2, br(5), 0, byte(OpStackValue)}, true, "unavailable (entry_value of an expression)", 0},
		{"and mask", []byte{br(0), 0, byte(OpConst1u), 0xff, byte(OpAnd), byte(OpStackValue)}, false, "unavailable (multi-op arithmetic)", 0},
		{"double deref", []byte{br(5), 0, byte(OpDeref)}, false, "unavailable (double dereference)", 0},
		{"implicit pointer", []byte{byte(OpImplicitPointer), 1, 2, 3, 4, 0}, false, "unavailable (implicit_pointer)", 0},
		{"parameter ref", []byte{byte(OpGNUParameterRef), 1, 2, 3, 4}, false, "unavailable (GNU_parameter_ref)", 0},
		{"convert", []byte{r(0), byte(OpConvert), 0x30}, false, "unavailable (malformed expression)", 0},
		{"typed", []byte{byte(OpRegvalType), 0, 0x30, byte(OpConvert), 0x31, byte(OpStackValue)}, false, "unavailable (typed conversion)", 0},
		{"cfa", []byte{byte(OpCallFrameCFA)}, false, "unavailable (call_frame_cfa)", 0},
		{"tls", []byte{byte(OpConst8u), 1, 2, 3, 4, 5, 6, 7, 8, byte(OpGNUPushTLSAddress)}, false, "unavailable (TLS address)", 0},
		{"bit piece", []byte{r(0), byte(OpBitPiece), 3, 0}, false, "unavailable (bit_piece)", 0},
		{"underflow", []byte{byte(OpPlus), byte(OpStackValue)}, false, "unavailable (malformed expression)", 0},
		{"empty", nil, false, "unavailable", 0},
		// gcc's 65-bit signed LEB128 of 0x9000000000000000: its low 64
		// bits are the value of a 64-bit type; a 16-byte type would
		// need the bits above them.
		{"consts 65 bits", []byte{byte(OpConsts), 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x90, 0x01, byte(OpStackValue)}, false, "const 0x9000000000000000", 0},
		{"consts 65 bits, 16-byte type", []byte{byte(OpConsts), 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x90, 0x01, byte(OpStackValue)}, false, "unavailable (constant wider than 8 bytes)", 16},
		{"constu 70 bits", []byte{byte(OpConstu), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, byte(OpStackValue)}, false, "const 0xffffffffffffffff", 0},
		{"breg offset 65 bits", []byte{br(5), 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, byte(OpStackValue)}, false, "reg5 - 0x8000000000000000", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ins, err := DecodeExpr(c.expr, fmt8, "test", 0)
			if err != nil {
				t.Fatal(err)
			}
			size := c.size
			if size == 0 {
				size = 8
			}
			l := classify(ins, &evalEnv{f: fmt8, atEntry: c.atEntry, size: size})
			got := FormatLocation(&l, nil)
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
		{"truncated addr", []byte{byte(OpAddr), 1, 2}, 0x101},
		{"truncated leb", []byte{byte(OpLit0), byte(OpConstu), 0x80, 0x80}, 0x104},
		{"truncated block", []byte{byte(OpImplicitValue), 8, 1}, 0x102},
		{"unknown opcode", []byte{byte(OpNop), 0xff}, 0x101},
		{"truncated const2", []byte{byte(OpConst2u), 1}, 0x101},
	} {
		_, err := DecodeExpr(c.expr, fmt8, ".debug_loclists", 0x100)
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
	for op, want := range map[Op]string{
		OpReg0 + 5: "DW_OP_reg5", OpBreg0 + 31: "DW_OP_breg31", OpLit0 + 3: "DW_OP_lit3",
		OpEntryValue: "DW_OP_entry_value", OpGNUParameterRef: "DW_OP_GNU_parameter_ref", 0xee: "DW_OP_0xee",
	} {
		if got := op.String(); got != want {
			t.Errorf("%#x: %s, want %s", uint8(op), got, want)
		}
	}
	if LLEGNUViewPair.String() != "DW_LLE_GNU_view_pair" || LLE(0x42).String() != "DW_LLE_0x42" {
		t.Error("LLE names")
	}
}
