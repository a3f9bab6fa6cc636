package kprobe

import (
	"encoding/binary"
	"fmt"
)

// The arm64 kprobe instruction rules of Linux 6.1
// (arch/arm64/kernel/probes/decode-insn.c: arm_kprobe_decode_insn), which
// refuse with a silent EINVAL: instructions kprobes neither single-steps
// nor simulates, and any address inside an exclusive (atomic) sequence.
// The e2e judge found them (463 arm64 sites refused that the location
// rules let through); Rules applies them from the ELF's text, and the e2e
// guest uses the same function to name the rule behind a refusal it sees.
// The ELF's text is the text before alternatives patching, which on arm64
// turns nops into branches and back but leaves the exclusive-class loads
// and stores of an atomic sequence where they are.

// ARM64AtomicWindow is MAX_ATOMIC_CONTEXT_SIZE: how many instructions
// before the probe arm_kprobe_decode_insn scans for an open exclusive
// sequence (128 bytes).
const ARM64AtomicWindow = 32

// Instruction classes by mask and value, as aarch64_insn_is_*
// (arch/arm64/include/asm/insn.h).
func a64LoadEx(w uint32) bool    { return w&0x3F400000 == 0x08400000 } // ldxr, ldaxr, ldar, cas*a ...
func a64StoreEx(w uint32) bool   { return w&0x3F400000 == 0x08000000 } // stxr, stlxr, stlr, cas ...
func a64Exclusive(w uint32) bool { return w&0x3F800000 == 0x08000000 }
func a64Exception(w uint32) bool { return w&0xFF000000 == 0xD4000000 } // brk, svc, hvc, smc
func a64MSRImm(w uint32) bool    { return w&0xFFF8F01F == 0xD500401F }
func a64MSRReg(w uint32) bool    { return w&0xFFF00000 == 0xD5100000 }
func a64MRS(w uint32) bool       { return w&0xFFF00000 == 0xD5300000 }
func a64Hint(w uint32) bool      { return w&0xFFFFF01F == 0xD503201F }

// a64SteppableHints are the HINT immediates (CRm:op2) kprobes single-step:
// NOP, XPACLRI, PACIA1716, PACIB1716, PACIAZ, PACIASP, PACIBZ, PACIBSP and
// the BTI forms. AUTIASP, YIELD, WFE and the rest are refused.
var a64SteppableHints = map[uint32]bool{0x00: true, 0x07: true, 0x08: true, 0x0A: true,
	0x18: true, 0x19: true, 0x1A: true, 0x1B: true, 0x20: true, 0x22: true, 0x24: true, 0x26: true}

// a64SysregDAIF is DAIF's op0:op1:CRn:CRm:op2 (3:3:4:2:1) as MRS encodes it.
const a64SysregDAIF = 0xDA11

// ARM64Refusal says which instruction rule refuses a kprobe at the last
// word of text (text holds the instructions before it, oldest first, up
// to ARM64AtomicWindow of them); off is the probe's offset in its
// function, which bounds the backward scan as the kernel's kallsyms
// lookup does. "" when no rule applies.
func ARM64Refusal(text []byte, off uint64) string {
	n := len(text) / 4
	if n == 0 {
		return ""
	}
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(text[4*i:]) }
	w := word(n - 1)
	switch {
	case a64Exception(w):
		return "arm64: exception-generating instruction (BRK/SVC/HVC/SMC) is not single-stepped"
	case a64MSRImm(w), a64MSRReg(w):
		return "arm64: MSR is not single-stepped"
	case a64MRS(w) && (w>>5)&0xFFFF == a64SysregDAIF:
		return "arm64: MRS of DAIF is not single-stepped"
	case a64Hint(w) && !a64SteppableHints[(w>>5)&0x7F]:
		return fmt.Sprintf("arm64: HINT #%d (not a NOP, PAC* or BTI) is not single-stepped", (w>>5)&0x7F)
	case a64Exclusive(w):
		return "arm64: exclusive load/store is not single-stepped"
	}
	back := min(uint64(ARM64AtomicWindow), off/4, uint64(n-1))
	for i := 1; i <= int(back); i++ {
		p := word(n - 1 - i)
		if a64StoreEx(p) {
			break
		}
		if a64LoadEx(p) {
			return "arm64: inside an exclusive sequence: an exclusive-class load (LDXR, LDAR, CAS*A) within 32 instructions before, no exclusive-class store between (is_probed_address_atomic)"
		}
	}
	return ""
}
