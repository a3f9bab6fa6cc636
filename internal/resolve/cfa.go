package resolve

import (
	"cmp"
	"debug/elf"
	"errors"
	"slices"
	"sort"
	"sync"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/elfrel"

	"github.com/btfinline/btfinline/internal/sframe/cfi"
)

// elfCFA returns a CFAFunc over a linked object's .debug_frame (else
// .eh_frame), parsed by package sframe/cfi on first use; an FDE's
// instructions are run only for the pc asked for. Relocatable objects have
// relCFA. (Delve's frame parser, used here before, stops at AArch64's
// DW_CFA_AARCH64_negate_ra_state, which every pac-ret function of the arm64
// kernel has.)
func elfCFA(f *elfobj.File, a arch.Arch) CFAFunc {
	if f.Type == elf.ET_REL {
		return nil
	}
	ptr := 8
	if f.Class == elf.ELFCLASS32 {
		ptr = 4
	}
	idx, kind := callFrameSection(f.File)
	if idx < 0 {
		return nil
	}
	return fdeCFA(a, func() []*cfi.FDE {
		sec := f.Sections[idx]
		data, err := f.Data(sec)
		if err != nil {
			return nil
		}
		res, _ := cfi.Parse(&cfi.Section{Kind: kind, Data: data, Addr: sec.Addr, Order: f.ByteOrder, PtrSize: ptr})
		if res == nil {
			return nil
		}
		return res.FDEs
	})
}

// callFrameSection returns the index and kind of f's .debug_frame, else of
// its .eh_frame (in a linked object only with an address, which its
// PC-relative pointers need); -1 when f has neither.
func callFrameSection(f *elf.File) (int, cfi.Kind) {
	for _, c := range []struct {
		name string
		kind cfi.Kind
	}{{".debug_frame", cfi.DebugFrame}, {".eh_frame", cfi.EHFrame}} {
		for i, s := range f.Sections {
			if s.Name == c.name && s.Type == elf.SHT_PROGBITS && s.Size > 0 &&
				(c.kind != cfi.EHFrame || f.Type == elf.ET_REL || s.Addr != 0) {
				return i, c.kind
			}
		}
	}
	return -1, cfi.DebugFrame
}

// fdeCFA looks the CFA rule up in the FDEs load returns (called once, on
// first use): the row of the FDE covering pc, when the CFA is a named
// register plus an offset.
func fdeCFA(a arch.Arch, load func() []*cfi.FDE) CFAFunc {
	var (
		once sync.Once
		fdes []*cfi.FDE
	)
	errFound := errors.New("found")
	return func(pc uint64) (reg uint32, off int64, ok bool) {
		once.Do(func() {
			fdes = load()
			// Tables list FDEs in compilation-unit order, not by address.
			slices.SortStableFunc(fdes, func(x, y *cfi.FDE) int { return cmp.Compare(x.Begin, y.Begin) })
		})
		i := sort.Search(len(fdes), func(i int) bool { return fdes[i].End() > pc })
		if i == len(fdes) || pc < fdes[i].Begin {
			return 0, 0, false
		}
		var row cfi.Row
		err := fdes[i].Execute(func(r *cfi.Row) error {
			if pc >= r.Loc && pc < r.End {
				row = *r
				return errFound
			}
			return nil
		})
		if err != errFound || row.CFA.Expr != nil {
			return 0, 0, false
		}
		if _, named := a.RegName(uint32(row.CFA.Reg)); !named {
			return 0, 0, false
		}
		return uint32(row.CFA.Reg), row.CFA.Off, true
	}
}

// relCFA is the CFAFunc of a relocatable object (a module): its
// .debug_frame (else .eh_frame) holds FDE addresses as relocations against
// the text sections. The SHF_ALLOC sections are laid out one after another
// after the call frame section (which stays at 0, so that its
// section-relative CIE pointers keep their meaning), the relocations are
// applied against that layout, and the section is parsed and interpreted
// by package sframe/cfi. The returned key function maps a site's (section,
// offset) to the pc of that layout; nil when the object has no usable
// call frame information.
func relCFA(f *elfobj.File, a arch.Arch) (CFAFunc, func(section string, off uint64) (uint64, bool)) {
	idx, kind := callFrameSection(f.File)
	if idx < 0 || f.Class != elf.ELFCLASS64 {
		return nil, nil
	}
	base := elfrel.Layout(f.File, idx)
	byName := map[string]uint64{}
	for i, s := range f.Sections {
		if _, dup := byName[s.Name]; i != idx && s.Flags&elf.SHF_ALLOC != 0 && !dup {
			byName[s.Name] = base[i]
		}
	}
	key := func(sec string, off uint64) (uint64, bool) {
		b, ok := byName[sec]
		return b + off, ok
	}
	return fdeCFA(a, func() []*cfi.FDE {
		data, _, err := f.Relocated(idx, func(i int) uint64 { return base[i] }, true)
		if err != nil {
			return nil
		}
		res, _ := cfi.Parse(&cfi.Section{Kind: kind, Data: data, Order: f.ByteOrder, PtrSize: 8})
		if res == nil {
			return nil
		}
		return res.FDEs
	}), key
}
