// Package insn says what one machine instruction does to the flow of
// control: its length, whether it falls through, and where a direct
// branch or call goes. It decodes with golang.org/x/arch (x86asm,
// arm64asm) and only classifies their result, for the readers that must
// know where straight-line code ends: the probe-point choice of package
// dwarfsite and the patch tables of package kprobe.
//
// It imports golang.org/x/arch and the standard library.
package insn

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"

	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"
)

// Kind is what an instruction does to the flow of control.
type Kind uint8

const (
	// Next: control goes on to the next instruction, and only there.
	Next Kind = iota
	// Landing is an indirect-branch landing pad (x86 ENDBR64, arm64 BTI):
	// it falls through, and control may also arrive at it from anywhere.
	Landing
	// Jump goes to Target, always.
	Jump
	// Branch goes to Target or falls through.
	Branch
	// Call calls Target and, as a rule, returns to the next instruction.
	Call
	// IndirectJump goes to an address held in a register or memory.
	IndirectJump
	// IndirectCall calls an address held in a register or memory.
	IndirectCall
	// Return leaves the function.
	Return
	// Stop may not fall through at all: traps (UD2, INT3, BRK), halts,
	// system calls, returns from exceptions and transaction aborts.
	Stop
)

var kindNames = [...]string{"next", "landing", "jump", "branch", "call", "indirect jump", "indirect call", "return", "stop"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// FallsThrough reports whether control may reach the next instruction
// only by falling through from this one: nothing in between leaves.
func (k Kind) FallsThrough() bool { return k == Next || k == Landing }

// Inst is one decoded instruction.
type Inst struct {
	Len    int
	Kind   Kind
	Target uint64 // for Jump, Branch and Call
	// Writes has bit n set when the instruction may change DWARF
	// register n (writes.go); WritesAll when it may change any register
	// (an instruction not modeled, or one that does not fall through);
	// WritesMem when it may store to memory.
	Writes    uint64
	WritesAll bool
	WritesMem bool

	pc uint64
	// The decoding behind it, for State.Step and the kprobe rules, held
	// by value: boxing it allocated for every instruction decoded (half
	// a million while encoding vmlinux).
	raw rawKind
	x86 x86asm.Inst
	a64 arm64asm.Inst
}

// rawKind says which decoding an Inst holds.
type rawKind uint8

const (
	rawNone rawKind = iota // ENDBR64, taken whole
	rawX86
	rawARM64
)

// PC is the address the instruction was decoded at.
func (in *Inst) PC() uint64 { return in.pc }

// X86 returns the x86asm decoding behind an x86-64 instruction, for
// readers that judge an instruction by its opcode and operands (the
// kprobe instruction rules); false for arm64 and for ENDBR64, which is
// taken whole without x86asm.
func (in *Inst) X86() (x86asm.Inst, bool) {
	return in.x86, in.raw == rawX86
}

// ErrUnknown is returned for bytes the decoder does not know as an
// instruction.
var ErrUnknown = errors.New("unknown instruction")

// endbr64 is ENDBR64, which x86asm (older than CET) reads as a REP prefix
// followed by a hint NOP: the one encoding taken whole here, so that a
// function's first instruction on an IBT kernel decodes as one.
var endbr64 = []byte{0xf3, 0x0f, 0x1e, 0xfa}

// Decode decodes the instruction at the start of code, which is at
// address pc, for machine m (EM_X86_64 or EM_AARCH64).
func Decode(m elf.Machine, code []byte, pc uint64) (in Inst, err error) {
	// x86asm panics on some EVEX (AVX-512) encodings it half knows: an
	// error like any other undecodable bytes (the fuzz corpus keeps one).
	defer func() {
		if r := recover(); r != nil {
			in, err = Inst{}, fmt.Errorf("%w: decoder panicked: %v", ErrUnknown, r)
		}
	}()
	switch m {
	case elf.EM_X86_64:
		return decodeX86(code, pc)
	case elf.EM_AARCH64:
		return decodeARM64(code, pc)
	}
	return Inst{}, fmt.Errorf("insn: machine %v not supported", m)
}

func decodeX86(code []byte, pc uint64) (Inst, error) {
	if bytes.HasPrefix(code, endbr64) {
		return Inst{Len: 4, Kind: Landing}, nil
	}
	in, err := x86asm.Decode(code, 64)
	if err == nil && (in.Op == 0 || in.Len == 0) {
		// A prefix decoded alone: x86asm does not know what follows.
		err = ErrUnknown
	}
	if err != nil {
		return Inst{}, err
	}
	out := Inst{Len: in.Len}
	rel, isRel := in.Args[0].(x86asm.Rel)
	target := pc + uint64(in.Len) + uint64(int64(rel))
	switch in.Op {
	case x86asm.JMP:
		out.Kind = IndirectJump
		if isRel {
			out.Kind, out.Target = Jump, target
		}
	case x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JG, x86asm.JGE,
		x86asm.JL, x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO,
		x86asm.JP, x86asm.JS, x86asm.JCXZ, x86asm.JECXZ, x86asm.JRCXZ,
		x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE, x86asm.XBEGIN:
		if !isRel {
			return Inst{}, ErrUnknown
		}
		out.Kind, out.Target = Branch, target
	case x86asm.CALL:
		out.Kind = IndirectCall
		if isRel {
			out.Kind, out.Target = Call, target
		}
	case x86asm.LCALL:
		out.Kind = IndirectCall
	case x86asm.LJMP:
		out.Kind = IndirectJump
	case x86asm.RET, x86asm.LRET:
		out.Kind = Return
	case x86asm.INT, x86asm.INTO, x86asm.ICEBP, x86asm.UD0, x86asm.UD1, x86asm.UD2, x86asm.HLT,
		x86asm.SYSCALL, x86asm.SYSENTER, x86asm.SYSEXIT, x86asm.SYSRET,
		x86asm.IRET, x86asm.IRETD, x86asm.IRETQ, x86asm.RSM, x86asm.XABORT:
		out.Kind = Stop
	}
	x86Writes(&out, &in)
	out.pc, out.raw, out.x86 = pc, rawX86, in
	return out, nil
}

// arm64 BTI is HINT #32, #34, #36 or #38 (c, j, jc).
func isBTI(imm arm64asm.Imm_hint) bool { return imm&^6 == 32 }

func decodeARM64(code []byte, pc uint64) (Inst, error) {
	in, err := arm64asm.Decode(code)
	if err != nil {
		return Inst{}, err
	}
	out := Inst{Len: 4}
	var rel arm64asm.PCRel
	hasRel := false
	for _, a := range in.Args {
		if r, ok := a.(arm64asm.PCRel); ok {
			rel, hasRel = r, true
			break
		}
	}
	target := pc + uint64(int64(rel))
	switch in.Op {
	case arm64asm.B:
		if !hasRel {
			return Inst{}, ErrUnknown
		}
		out.Kind, out.Target = Jump, target
		if _, cond := in.Args[0].(arm64asm.Cond); cond {
			out.Kind = Branch
		}
	case arm64asm.CBZ, arm64asm.CBNZ, arm64asm.TBZ, arm64asm.TBNZ:
		if !hasRel {
			return Inst{}, ErrUnknown
		}
		out.Kind, out.Target = Branch, target
	case arm64asm.BL:
		if !hasRel {
			return Inst{}, ErrUnknown
		}
		out.Kind, out.Target = Call, target
	case arm64asm.BR:
		out.Kind = IndirectJump
	case arm64asm.BLR:
		out.Kind = IndirectCall
	case arm64asm.RET:
		out.Kind = Return
	case arm64asm.BRK, arm64asm.HLT, arm64asm.SVC, arm64asm.HVC, arm64asm.SMC, arm64asm.ERET,
		arm64asm.DCPS1, arm64asm.DCPS2, arm64asm.DCPS3, arm64asm.DRPS:
		out.Kind = Stop
	case arm64asm.HINT:
		if h, ok := in.Args[0].(arm64asm.Imm_hint); ok && isBTI(h) {
			out.Kind = Landing
		}
	}
	arm64Writes(&out, &in)
	out.pc, out.raw, out.a64 = pc, rawARM64, in
	return out, nil
}
