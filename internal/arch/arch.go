package arch

import (
	"debug/elf"
	"fmt"
	"runtime"
	"strconv"
)

// Arch is a target architecture: it names DWARF registers the way pt_regs
// (and so kprobe_events, perf and bpftrace) spell them and knows the
// argument registers of the calling convention.
type Arch int

const (
	Unknown Arch = iota
	X86_64
	ARM64
)

func (a Arch) String() string {
	switch a {
	case X86_64:
		return "x86_64"
	case ARM64:
		return "arm64"
	}
	return "unknown"
}

// FromELF maps an ELF machine to an Arch.
func FromELF(m elf.Machine) (Arch, error) {
	switch m {
	case elf.EM_X86_64:
		return X86_64, nil
	case elf.EM_AARCH64:
		return ARM64, nil
	}
	return Unknown, fmt.Errorf("unsupported ELF machine %v (x86-64 and aarch64 are supported)", m)
}

// Host is the architecture of the running kernel (as far as the Go
// runtime knows it).
func Host() Arch {
	switch runtime.GOARCH {
	case "amd64":
		return X86_64
	case "arm64":
		return ARM64
	}
	return Unknown
}

// x86-64 psABI DWARF register numbers 0-16 in pt_regs spelling.
var x86Regs = [...]string{"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip"}

// RegName returns the pt_regs name of DWARF register reg as kprobe_events
// spells it without the '%' ("bx", "x3"), or false when kprobes cannot
// fetch that register (vector and floating-point registers).
func (a Arch) RegName(reg uint32) (string, bool) {
	switch a {
	case X86_64:
		if reg < uint32(len(x86Regs)) {
			return x86Regs[reg], true
		}
	case ARM64:
		if reg <= 30 {
			return fmt.Sprintf("x%d", reg), true
		}
		if reg == 31 {
			return "sp", true
		}
	}
	return "", false
}

// Spell names DWARF register reg as a person reads it, as perf probe and
// objdump print registers: "%di" and "%xmm0" on x86-64 (AT&T syntax with
// pt_regs' names), "x1", "sp" and "v0" on arm64; "reg<n>", the DWARF
// number bpftool prints, for a register neither names.
func (a Arch) Spell(reg uint32) string {
	switch a {
	case X86_64:
		if n, ok := a.RegName(reg); ok {
			return "%" + n
		}
		// psABI Table 3.36: 17-32 are %xmm0-15, 33-40 %st0-7, 41-48 %mm0-7.
		switch {
		case reg >= 17 && reg <= 32:
			return "%xmm" + strconv.Itoa(int(reg-17))
		case reg >= 33 && reg <= 40:
			return "%st" + strconv.Itoa(int(reg-33))
		case reg >= 41 && reg <= 48:
			return "%mm" + strconv.Itoa(int(reg-41))
		}
	case ARM64:
		if n, ok := a.RegName(reg); ok {
			return n
		}
		// AADWARF64: 64-95 are the SIMD and floating-point v0-v31.
		if reg >= 64 && reg <= 95 {
			return "v" + strconv.Itoa(int(reg-64))
		}
	}
	return "reg" + strconv.FormatUint(uint64(reg), 10)
}

// BpftraceReg returns the name bpftrace's reg() builtin takes.
func (a Arch) BpftraceReg(reg uint32) (string, bool) {
	if a == ARM64 && reg <= 30 {
		// bpftrace's aarch64 table calls the general registers r0..r30.
		return fmt.Sprintf("r%d", reg), true
	}
	return a.RegName(reg)
}

// ArgRegs returns the DWARF numbers of the integer argument registers of
// the kernel calling convention, in order.
func (a Arch) ArgRegs() []uint32 {
	switch a {
	case X86_64:
		return []uint32{5, 4, 1, 2, 8, 9} // di, si, dx, cx, r8, r9
	case ARM64:
		return []uint32{0, 1, 2, 3, 4, 5, 6, 7}
	}
	return nil
}

// SPReg returns the DWARF number of the stack pointer.
func (a Arch) SPReg() uint32 {
	if a == ARM64 {
		return 31
	}
	return 7
}

// x86-64 struct pt_regs (arch/x86/include/asm/ptrace.h): r15 r14 r13 r12
// bp bx r11 r10 r9 r8 ax cx dx si di orig_ax ip cs flags sp ss. By DWARF
// number 0-16: ax dx cx bx si di bp sp r8-r15 ip.
var x86PtRegs = []int{80, 96, 88, 40, 104, 112, 32, 152, 72, 64, 56, 48, 24, 16, 8, 0, 128}

// PtRegsOffset returns the byte offset of DWARF register reg in the
// kernel's struct pt_regs as a kprobe program sees it, or false when
// pt_regs does not hold it. arm64's begins with struct user_pt_regs:
// regs[31] (x0-x30, DWARF 0-30), then sp (31).
func (a Arch) PtRegsOffset(reg uint32) (int, bool) {
	switch a {
	case X86_64:
		if int(reg) < len(x86PtRegs) {
			return x86PtRegs[reg], true
		}
	case ARM64:
		if reg < 32 {
			return int(reg) * 8, true
		}
	}
	return 0, false
}
