package trace

import (
	"fmt"
	"math/bits"

	"github.com/btfinline/btfinline/internal/resolve"
)

// slotOf turns resolve's structured fetch into the slot of one word; a nil
// read (no location at this site) is an unavailable slot with why.
func slotOf(regs ptRegs, r *resolve.Read, why string) (Slot, error) {
	if r == nil {
		return Slot{Kind: slotNone, Why: why}, nil
	}
	var s Slot
	if r.Const {
		s = Slot{Kind: slotConst, Value: r.Value}
	} else {
		o, ok := regs.offset(r.Reg)
		if !ok {
			return Slot{Kind: slotNone, Why: fmt.Sprintf("DWARF register %d is not in pt_regs", r.Reg)}, nil
		}
		s = Slot{Kind: slotReg, Reg: o}
	}
	if r.Size < 0 || r.Size > 8 {
		return Slot{}, fmt.Errorf("load of %d bytes", r.Size)
	}
	if r.Off != 0 || r.Size > 0 {
		s.Steps = []Step{{Off: r.Off, Size: r.Size}}
	}
	return s, nil
}

// bucketOf is the histogram bucket of a value, as the program computes it.
func bucketOf(v uint64, signed bool) int {
	switch {
	case signed && int64(v) < 0:
		return histNeg
	case v == 0:
		return histZero
	}
	return 2 + bits.Len64(v) - 1
}
