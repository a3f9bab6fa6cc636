package resolve

import (
	"debug/elf"
	"fmt"
	"sort"
	"sync"

	"github.com/go-delve/delve/pkg/dwarf/frame"
)

// elfCFA returns a CFAFunc over f's .debug_frame (else .eh_frame), parsed
// on first use: most resolutions never meet a DW_OP_fbreg location and
// should not pay for reading the unwind tables. Relocatable objects are
// not supported (their FDE addresses need relocation): nil.
func elfCFA(f *elf.File, a Arch) CFAFunc {
	if f.Type == elf.ET_REL {
		return nil
	}
	var (
		once sync.Once
		fdes frame.FrameDescriptionEntries
	)
	sorted := func(f frame.FrameDescriptionEntries) frame.FrameDescriptionEntries {
		// FDEForPC binary-searches; .debug_frame lists FDEs in
		// compilation-unit order, not address order.
		sort.SliceStable(f, func(i, j int) bool { return f[i].Begin() < f[j].Begin() })
		return f
	}
	load := func() {
		defer func() {
			// The unwind-table parser is third-party code: a malformed
			// table must cost us the fbreg locations, not the process.
			if recover() != nil {
				fdes = nil
			}
		}()
		if s := f.Section(".debug_frame"); s != nil {
			if data, err := s.Data(); err == nil {
				fdes, _ = frame.Parse(data, f.ByteOrder, 0, 8, 0)
				fdes = sorted(fdes)
			}
			return
		}
		if s := f.Section(".eh_frame"); s != nil && s.Addr != 0 {
			if data, err := s.Data(); err == nil {
				fdes, _ = frame.Parse(data, f.ByteOrder, 0, 8, s.Addr)
				fdes = sorted(fdes)
			}
		}
	}
	return func(pc uint64) (reg uint32, off int64, ok bool) {
		once.Do(load)
		if fdes == nil {
			return 0, 0, false
		}
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		fde, err := fdes.FDEForPC(pc)
		if err != nil {
			return 0, 0, false
		}
		fc, err := fde.EstablishFrame(pc)
		if err != nil || fc.CFA.Rule != frame.RuleCFA {
			return 0, 0, false
		}
		if _, named := a.RegName(uint32(fc.CFA.Reg)); !named {
			return 0, 0, false
		}
		return uint32(fc.CFA.Reg), fc.CFA.Offset, true
	}
}

// DescribeCFA spells a CFA rule for messages.
func DescribeCFA(a Arch, reg uint32, off int64) string {
	n, _ := a.RegName(reg)
	return fmt.Sprintf("%%%s%+d", n, off)
}
