package dwarfsite

import (
	"debug/elf"
	"encoding/binary"
	"testing"

	"github.com/btfinline/btfinline/internal/insn"
	"github.com/btfinline/btfinline/internal/site"
)

// TestProvenAt: at a moved probe a parameter takes the location DWARF
// gives there when it provably holds the argument, else the binding's
// when that still does; unlocated, it is described as it is at the moved
// address, not by the reason of a binding LOC_PARAM cannot carry.
func TestProvenAt(t *testing.T) {
	w := &worker{fmt: exprFormat{AddrSize: 8, RefSize: 4, Order: binary.LittleEndian}}
	// rdx + 1 as a long from an int: "breg1 1; const1u 32; shl;
	// const1u 32; shra; stack_value", the binding of movedreg.c's offset.
	sext := []byte{byte(opBreg0 + 1), 1, byte(opConst1u), 32, byte(opShl), byte(opConst1u), 32, byte(opShra), byte(opStackValue)}
	reg1 := []byte{byte(opReg0 + 1)}
	multiOp := unavailable(ReasonArithmetic)
	// The state after "lea 1(%rdx),%edx; movslq %edx,%rdx" (8d5201 4863d2).
	st := insn.NewState(elf.EM_X86_64)
	for _, code := range [][]byte{{0x8d, 0x52, 0x01}, {0x48, 0x63, 0xd2}} {
		in, err := insn.Decode(elf.EM_X86_64, code, 0)
		if err != nil {
			t.Fatal(err)
		}
		st.Step(&in)
	}
	unchanged := insn.NewState(elf.EM_X86_64)
	// A register that holds something else: rdx after "xor %edx,%edx".
	clobbered := insn.NewState(elf.EM_X86_64)
	if in, err := insn.Decode(elf.EM_X86_64, []byte{0x31, 0xd2}, 0); err == nil {
		clobbered.Step(&in)
	}
	want, ok := w.symEval(sext, unchanged, 8)
	if !ok {
		t.Fatal("the binding does not evaluate")
	}
	for _, tc := range []struct {
		name   string
		bind   site.Location
		bexpr  []byte
		at     site.Location
		atExpr []byte
		st     *insn.State
		want   site.Location
	}{
		{"the register DWARF gives, proven", multiOp, sext, site.Location{Kind: site.LocReg, Reg: 1}, reg1, st, site.Location{Kind: site.LocReg, Reg: 1}},
		{"the register DWARF gives, not the argument", multiOp, sext, site.Location{Kind: site.LocReg, Reg: 1}, reg1, clobbered, unavailable(ReasonNotProven)},
		{"unavailable there for its own reason", multiOp, sext, unavailable(ReasonEntryValue), []byte{0xa3}, st, unavailable(ReasonEntryValue)},
		{"no location there", multiOp, sext, site.Location{Kind: site.LocUnavailable}, nil, st, site.Location{Kind: site.LocUnavailable}},
		{"no binding", site.Location{Kind: site.LocUnavailable}, nil, site.Location{Kind: site.LocReg, Reg: 1}, reg1, st, site.Location{Kind: site.LocUnavailable}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var wnt []symPiece
			if tc.bexpr != nil {
				wnt = want
			}
			got := w.provenAt(tc.bind, tc.bexpr, wnt, tc.at, tc.atExpr, tc.st, 8)
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
