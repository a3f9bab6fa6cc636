package trace

import (
	"fmt"

	"github.com/btfinline/btfinline/arch"
)

// ptRegs is the layout of the kernel's struct pt_regs as a kprobe
// program sees it: the byte offset of each DWARF register.
type ptRegs struct {
	offsets []int // by DWARF register number; -1: not in pt_regs
}

// x86-64 struct pt_regs (arch/x86/include/asm/ptrace.h): r15 r14 r13 r12
// bp bx r11 r10 r9 r8 ax cx dx si di orig_ax ip cs flags sp ss.
var x86PtRegs = ptRegs{
	// DWARF 0-16: ax dx cx bx si di bp sp r8-r15 ip.
	offsets: []int{80, 96, 88, 40, 104, 112, 32, 152, 72, 64, 56, 48, 24, 16, 8, 0, 128},
}

// arm64 struct pt_regs begins with struct user_pt_regs: regs[31], sp,
// pc, pstate. DWARF 0-30 are x0-x30, 31 is sp.
var arm64PtRegs = func() ptRegs {
	var r ptRegs
	for i := 0; i < 32; i++ {
		r.offsets = append(r.offsets, i*8)
	}
	return r
}()

func regsOf(a arch.Arch) (ptRegs, error) {
	switch a {
	case arch.X86_64:
		return x86PtRegs, nil
	case arch.ARM64:
		return arm64PtRegs, nil
	}
	return ptRegs{}, fmt.Errorf("no pt_regs layout for architecture %s", a)
}

// offset returns the byte offset of DWARF register reg in pt_regs.
func (r ptRegs) offset(reg uint32) (int, bool) {
	if int(reg) >= len(r.offsets) || r.offsets[reg] < 0 {
		return 0, false
	}
	return r.offsets[reg], true
}
