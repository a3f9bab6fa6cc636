package trace

import (
	"fmt"

	"github.com/btfinline/btfinline/internal/arch"
)

// ptRegs is the layout of the kernel's struct pt_regs as a kprobe
// program sees it (arch.PtRegsOffset).
type ptRegs struct{ arch arch.Arch }

func regsOf(a arch.Arch) (ptRegs, error) {
	if a != arch.X86_64 && a != arch.ARM64 {
		return ptRegs{}, fmt.Errorf("no pt_regs layout for architecture %s", a)
	}
	return ptRegs{a}, nil
}

// offset returns the byte offset of DWARF register reg in pt_regs.
func (r ptRegs) offset(reg uint32) (int, bool) { return r.arch.PtRegsOffset(reg) }

// offsets lists the offsets of DWARF registers 0, 1, ... in pt_regs
// (both layouts hold a run of registers from 0).
func (r ptRegs) offsets() []int {
	var out []int
	for reg := uint32(0); ; reg++ {
		o, ok := r.offset(reg)
		if !ok {
			return out
		}
		out = append(out, o)
	}
}
