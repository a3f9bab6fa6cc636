package insn

import (
	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"
)

// What an instruction may change, for a reader that must know whether a
// value it found in a register or in memory before the instruction is
// still there after it. Only instructions whose effects are plain are
// modeled; any other sets WritesAll. Registers are DWARF register numbers
// (x86-64: rax 0, rdx 1, rcx 2, rbx 3, rsi 4, rdi 5, rbp 6, rsp 7,
// r8-r15 8-15, xmm0-15 17-32; arm64: x0-x30 0-30, sp 31), bit n of
// Writes for register n.

// Writes reports whether in may change DWARF register reg.
func (in *Inst) WritesReg(reg uint32) bool {
	return in.WritesAll || reg < 64 && in.Writes&(1<<reg) != 0
}

// x86DWARF maps x86asm registers to DWARF numbers; x86asm lists the
// general registers of each width in hardware order (ax, cx, dx, bx, sp,
// bp, si, di, r8-r15).
var x86DWARF = func() map[x86asm.Reg]uint32 {
	hw := [16]uint32{0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15}
	m := map[x86asm.Reg]uint32{}
	for i := range 16 {
		m[x86asm.AX+x86asm.Reg(i)] = hw[i]
		m[x86asm.EAX+x86asm.Reg(i)] = hw[i]
		m[x86asm.RAX+x86asm.Reg(i)] = hw[i]
		m[x86asm.X0+x86asm.Reg(i)] = 17 + uint32(i)
	}
	// The 8-bit registers: al, cl, dl, bl, ah, ch, dh, bh, spl, bpl,
	// sil, dil, r8b-r15b.
	for i, r := range []uint32{0, 2, 1, 3, 0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15} {
		m[x86asm.AL+x86asm.Reg(i)] = r
	}
	return m
}()

const (
	x86RAX = 1 << 0
	x86RDX = 1 << 1
	x86RCX = 1 << 2
	x86RBX = 1 << 3
	x86RSP = 1 << 7
	x86RBP = 1 << 6
)

// x86 instruction classes by what they write.
var (
	// flags at most
	x86None = opSet(x86asm.NOP, x86asm.CMP, x86asm.TEST, x86asm.BT, x86asm.PAUSE,
		x86asm.LFENCE, x86asm.MFENCE, x86asm.SFENCE, x86asm.PREFETCHT0, x86asm.PREFETCHT1,
		x86asm.PREFETCHT2, x86asm.PREFETCHNTA, x86asm.PREFETCHW, x86asm.CLD, x86asm.STD,
		x86asm.CLC, x86asm.STC, x86asm.CMC)
	// the first operand
	x86Dst = opSet(x86asm.MOV, x86asm.MOVZX, x86asm.MOVSX, x86asm.MOVSXD, x86asm.LEA,
		x86asm.ADD, x86asm.SUB, x86asm.ADC, x86asm.SBB, x86asm.AND, x86asm.OR, x86asm.XOR,
		x86asm.SHL, x86asm.SHR, x86asm.SAR, x86asm.ROL, x86asm.ROR, x86asm.RCL, x86asm.RCR,
		x86asm.INC, x86asm.DEC, x86asm.NEG, x86asm.NOT, x86asm.BSF, x86asm.BSR, x86asm.TZCNT,
		x86asm.LZCNT, x86asm.POPCNT, x86asm.BTS, x86asm.BTR, x86asm.BTC, x86asm.MOVBE,
		x86asm.BSWAP, x86asm.SHLD, x86asm.SHRD, x86asm.MOVQ, x86asm.MOVD,
		x86asm.CMOVA, x86asm.CMOVAE, x86asm.CMOVB, x86asm.CMOVBE, x86asm.CMOVE, x86asm.CMOVG,
		x86asm.CMOVGE, x86asm.CMOVL, x86asm.CMOVLE, x86asm.CMOVNE, x86asm.CMOVNO, x86asm.CMOVNP,
		x86asm.CMOVNS, x86asm.CMOVO, x86asm.CMOVP, x86asm.CMOVS,
		x86asm.SETA, x86asm.SETAE, x86asm.SETB, x86asm.SETBE, x86asm.SETE, x86asm.SETG,
		x86asm.SETGE, x86asm.SETL, x86asm.SETLE, x86asm.SETNE, x86asm.SETNO, x86asm.SETNP,
		x86asm.SETNS, x86asm.SETO, x86asm.SETP, x86asm.SETS)
	// both operands
	x86Both = opSet(x86asm.XCHG, x86asm.XADD)
	// fixed registers only
	x86Fixed = map[x86asm.Op]uint64{
		x86asm.MUL: x86RAX | x86RDX, x86asm.DIV: x86RAX | x86RDX, x86asm.IDIV: x86RAX | x86RDX,
		x86asm.CQO: x86RDX, x86asm.CDQ: x86RDX, x86asm.CWD: x86RDX,
		x86asm.CDQE: x86RAX, x86asm.CWDE: x86RAX, x86asm.CBW: x86RAX, x86asm.LAHF: x86RAX,
		x86asm.CPUID: x86RAX | x86RBX | x86RCX | x86RDX, x86asm.RDTSC: x86RAX | x86RDX,
		x86asm.RDTSCP: x86RAX | x86RDX | x86RCX, x86asm.XGETBV: x86RAX | x86RDX,
		x86asm.RDMSR: x86RAX | x86RDX, x86asm.RDPMC: x86RAX | x86RDX,
		x86asm.LEAVE: x86RSP | x86RBP,
	}
)

func opSet(ops ...x86asm.Op) map[x86asm.Op]bool {
	m := make(map[x86asm.Op]bool, len(ops))
	for _, o := range ops {
		m[o] = true
	}
	return m
}

// x86Writes fills in.Writes, WritesAll and WritesMem.
func x86Writes(in *Inst, x *x86asm.Inst) {
	dst := func(a x86asm.Arg) {
		switch a := a.(type) {
		case x86asm.Reg:
			if n, ok := x86DWARF[a]; ok {
				in.Writes |= 1 << n
			} else {
				in.WritesAll = true
			}
		case x86asm.Mem:
			in.WritesMem = true
		default:
			in.WritesAll = true
		}
	}
	switch {
	case in.Kind != Next && in.Kind != Landing:
		// Control leaves or may leave: what it writes is not looked at
		// past it; a call may change anything.
		in.WritesAll, in.WritesMem = true, true
	case x86None[x.Op]:
	case x86Dst[x.Op]:
		if x.Op == x86asm.LEA {
			// No memory access: the address is the value.
			if r, ok := x.Args[0].(x86asm.Reg); ok {
				dst(r)
				break
			}
		}
		dst(x.Args[0])
	case x86Both[x.Op]:
		dst(x.Args[0])
		dst(x.Args[1])
	case x.Op == x86asm.IMUL:
		if x.Args[1] == nil {
			in.Writes |= x86RAX | x86RDX
		} else {
			dst(x.Args[0])
		}
	case x.Op == x86asm.CMPXCHG:
		dst(x.Args[0])
		in.Writes |= x86RAX
	case x.Op == x86asm.PUSH:
		in.Writes |= x86RSP
		in.WritesMem = true
	case x.Op == x86asm.POP:
		in.Writes |= x86RSP
		dst(x.Args[0])
	default:
		if w, ok := x86Fixed[x.Op]; ok {
			in.Writes |= w
		} else {
			in.WritesAll, in.WritesMem = true, true
		}
	}
}

// arm64 instruction classes by what they write.
var (
	a64None = a64Set(arm64asm.NOP, arm64asm.CMP, arm64asm.CMN, arm64asm.TST, arm64asm.DMB,
		arm64asm.DSB, arm64asm.ISB, arm64asm.PRFM, arm64asm.PRFUM, arm64asm.CLREX)
	// the first operand
	a64Dst = a64Set(arm64asm.MOV, arm64asm.MOVZ, arm64asm.MOVN, arm64asm.MOVK, arm64asm.ADD,
		arm64asm.ADDS, arm64asm.SUB, arm64asm.SUBS, arm64asm.ADC, arm64asm.ADCS, arm64asm.SBC,
		arm64asm.SBCS, arm64asm.NEG, arm64asm.NEGS, arm64asm.NGC, arm64asm.AND, arm64asm.ANDS,
		arm64asm.ORR, arm64asm.ORN, arm64asm.EOR, arm64asm.EON, arm64asm.BIC, arm64asm.BICS,
		arm64asm.MVN, arm64asm.LSL, arm64asm.LSLV, arm64asm.LSR, arm64asm.LSRV, arm64asm.ASR,
		arm64asm.ASRV, arm64asm.ROR, arm64asm.RORV, arm64asm.UBFM, arm64asm.SBFM, arm64asm.BFM,
		arm64asm.UBFX, arm64asm.UBFIZ, arm64asm.SBFX, arm64asm.SBFIZ, arm64asm.BFI,
		arm64asm.BFXIL, arm64asm.SXTB, arm64asm.SXTH, arm64asm.SXTW, arm64asm.UXTB,
		arm64asm.UXTH, arm64asm.EXTR, arm64asm.MUL, arm64asm.MADD, arm64asm.MSUB,
		arm64asm.MNEG, arm64asm.SMULL, arm64asm.UMULL, arm64asm.SMULH, arm64asm.UMULH,
		arm64asm.SMADDL, arm64asm.UMADDL, arm64asm.SMSUBL, arm64asm.UMSUBL, arm64asm.SDIV,
		arm64asm.UDIV, arm64asm.CSEL, arm64asm.CSINC, arm64asm.CSINV, arm64asm.CSNEG,
		arm64asm.CSET, arm64asm.CSETM, arm64asm.CINC, arm64asm.CINV, arm64asm.CNEG,
		arm64asm.CLZ, arm64asm.CLS, arm64asm.RBIT, arm64asm.REV, arm64asm.REV16,
		arm64asm.REV32, arm64asm.ADR, arm64asm.ADRP, arm64asm.MRS,
		arm64asm.LDR, arm64asm.LDRB, arm64asm.LDRH, arm64asm.LDRSB, arm64asm.LDRSH,
		arm64asm.LDRSW, arm64asm.LDUR, arm64asm.LDURB, arm64asm.LDURH, arm64asm.LDURSB,
		arm64asm.LDURSH, arm64asm.LDURSW, arm64asm.LDAR, arm64asm.LDARB, arm64asm.LDARH)
	// the first two operands (pair loads)
	a64Dst2 = a64Set(arm64asm.LDP, arm64asm.LDPSW, arm64asm.LDNP)
	// memory
	a64Store = a64Set(arm64asm.STR, arm64asm.STRB, arm64asm.STRH, arm64asm.STUR, arm64asm.STURB,
		arm64asm.STURH, arm64asm.STP, arm64asm.STNP, arm64asm.STLR, arm64asm.STLRB, arm64asm.STLRH)
)

func a64Set(ops ...arm64asm.Op) map[arm64asm.Op]bool {
	m := make(map[arm64asm.Op]bool, len(ops))
	for _, o := range ops {
		m[o] = true
	}
	return m
}

// a64Steppable are the HINT immediates that change no register: NOP and
// the BTI forms. PAC hints change x30 or x17.
var a64Quiet = map[arm64asm.Imm_hint]bool{0: true, 32: true, 34: true, 36: true, 38: true}

// arm64Writes fills in.Writes, WritesAll and WritesMem.
func arm64Writes(in *Inst, x *arm64asm.Inst) {
	dst := func(a arm64asm.Arg) {
		switch a := a.(type) {
		case arm64asm.Reg:
			switch {
			case a >= arm64asm.W0 && a <= arm64asm.W30:
				in.Writes |= 1 << uint(a-arm64asm.W0)
			case a >= arm64asm.X0 && a <= arm64asm.X30:
				in.Writes |= 1 << uint(a-arm64asm.X0)
			case a == arm64asm.WZR || a == arm64asm.XZR:
			default:
				in.WritesAll = true // a vector register
			}
		case arm64asm.RegSP:
			switch r := arm64asm.Reg(a); {
			case r >= arm64asm.W0 && r <= arm64asm.W30:
				in.Writes |= 1 << uint(r-arm64asm.W0)
			case r >= arm64asm.X0 && r <= arm64asm.X30:
				in.Writes |= 1 << uint(r-arm64asm.X0)
			default:
				in.Writes |= 1 << 31 // sp
			}
		default:
			in.WritesAll = true
		}
	}
	// Pre- and post-index addressing writes the base register back.
	writeback := func() {
		for _, a := range x.Args {
			if m, ok := a.(arm64asm.MemImmediate); ok && m.Mode != arm64asm.AddrOffset {
				dst(m.Base)
			}
		}
	}
	switch {
	case in.Kind != Next && in.Kind != Landing:
		in.WritesAll, in.WritesMem = true, true
	case a64None[x.Op]:
	case x.Op == arm64asm.HINT:
		if h, ok := x.Args[0].(arm64asm.Imm_hint); !ok || !a64Quiet[h] {
			in.Writes |= 1<<17 | 1<<30
		}
	case a64Dst[x.Op]:
		dst(x.Args[0])
		writeback()
	case a64Dst2[x.Op]:
		dst(x.Args[0])
		dst(x.Args[1])
		writeback()
	case a64Store[x.Op]:
		in.WritesMem = true
		writeback()
	default:
		in.WritesAll, in.WritesMem = true, true
	}
}
