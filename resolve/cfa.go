package resolve

import (
	"cmp"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/btfinline/btfinline/internal/elfrel"
	"slices"
	"sort"
	"sync"

	"github.com/btfinline/btfinline/sframe/cfi"
	"github.com/go-delve/delve/pkg/dwarf/frame"
)

// fdeRef locates one FDE of a .debug_frame section.
type fdeRef struct {
	begin, end uint64
	off, n     int // FDE bytes [off, off+n)
	cie, cieN  int // its CIE's bytes
}

// indexDebugFrame lists the FDEs of a .debug_frame (ELF64, 32-bit DWARF
// lengths) without decoding their instructions, sorted by address.
func indexDebugFrame(d []byte, bo binary.ByteOrder) []fdeRef {
	out := make([]fdeRef, 0, len(d)/64)
	for off := 0; off+8 <= len(d); {
		l := int(bo.Uint32(d[off:]))
		if l == 0xffffffff || l < 4 || off+4+l > len(d) {
			return nil // 64-bit DWARF or garbage: the caller falls back
		}
		if id := bo.Uint32(d[off+4:]); id != 0xffffffff && l >= 4+16 {
			cie := int(id)
			if cie+8 > len(d) || bo.Uint32(d[cie+4:]) != 0xffffffff {
				return nil
			}
			cl := 4 + int(bo.Uint32(d[cie:]))
			if cie+cl > len(d) {
				return nil
			}
			begin := bo.Uint64(d[off+8:])
			rng := bo.Uint64(d[off+16:])
			out = append(out, fdeRef{begin, begin + rng, off, 4 + l, cie, cl})
		}
		off += 4 + l
	}
	slices.SortFunc(out, func(a, b fdeRef) int { return cmp.Compare(a.begin, b.begin) })
	return out
}

// elfCFA returns a CFAFunc over f's .debug_frame (else .eh_frame). It
// indexes the FDEs on first use and decodes only the FDE covering the pc
// asked for: most resolutions meet few DW_OP_fbreg locations and should
// not pay for the kernel's 40,000 FDEs. Relocatable objects are not
// supported (their FDE addresses need relocation): nil.
func elfCFA(f *elf.File, a Arch) CFAFunc {
	if f.Type == elf.ET_REL {
		return nil
	}
	var (
		once  sync.Once
		data  []byte
		index []fdeRef
		all   frame.FrameDescriptionEntries // fallback: whole-table parse
	)
	load := func() {
		defer func() {
			// The unwind-table parser is third-party code: a malformed
			// table must cost us the fbreg locations, not the process.
			if recover() != nil {
				index, all = nil, nil
			}
		}()
		if s := f.Section(".debug_frame"); s != nil {
			var err error
			if data, err = s.Data(); err == nil {
				if index = indexDebugFrame(data, f.ByteOrder); index == nil {
					all, _ = frame.Parse(data, f.ByteOrder, 0, 8, 0)
				}
			}
		} else if s := f.Section(".eh_frame"); s != nil && s.Addr != 0 {
			if d, err := s.Data(); err == nil {
				all, _ = frame.Parse(d, f.ByteOrder, 0, 8, s.Addr)
			}
		}
		// FDEForPC binary-searches; tables list FDEs in compilation-unit
		// order, not address order.
		sort.SliceStable(all, func(i, j int) bool { return all[i].Begin() < all[j].Begin() })
	}
	fdeFor := func(pc uint64) *frame.FrameDescriptionEntry {
		if index == nil {
			fde, err := all.FDEForPC(pc)
			if err != nil {
				return nil
			}
			return fde
		}
		i := sort.Search(len(index), func(i int) bool { return index[i].end > pc })
		if i == len(index) || pc < index[i].begin {
			return nil
		}
		r := index[i]
		// A two-entry table: the CIE at 0 and the FDE pointing at it.
		mini := make([]byte, 0, r.cieN+r.n)
		mini = append(mini, data[r.cie:r.cie+r.cieN]...)
		fde := append([]byte(nil), data[r.off:r.off+r.n]...)
		f.ByteOrder.PutUint32(fde[4:], 0)
		mini = append(mini, fde...)
		fdes, err := frame.Parse(mini, f.ByteOrder, 0, 8, 0)
		if err != nil || len(fdes) != 1 {
			return nil
		}
		return fdes[0]
	}
	return func(pc uint64) (reg uint32, off int64, ok bool) {
		once.Do(load)
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		fde := fdeFor(pc)
		if fde == nil || !fde.Cover(pc) {
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

// relCFA is the CFAFunc of a relocatable object (a module): its
// .debug_frame (else .eh_frame) holds FDE addresses as relocations against
// the text sections. The SHF_ALLOC sections are laid out one after another
// after the call frame section (which stays at 0, so that its
// section-relative CIE pointers keep their meaning), the relocations are
// applied against that layout, and the section is parsed and interpreted
// by package sframe/cfi. The returned key function maps a site's (section,
// offset) to the pc of that layout; nil when the object has no usable
// call frame information.
func relCFA(f *elf.File, a Arch) (CFAFunc, func(section string, off uint64) (uint64, bool)) {
	idx, kind := -1, cfi.DebugFrame
	for _, c := range []struct {
		name string
		kind cfi.Kind
	}{{".debug_frame", cfi.DebugFrame}, {".eh_frame", cfi.EHFrame}} {
		for i, s := range f.Sections {
			if s.Name == c.name && s.Type == elf.SHT_PROGBITS && s.Size > 0 {
				idx, kind = i, c.kind
			}
		}
		if idx >= 0 {
			break
		}
	}
	if idx < 0 || f.Class != elf.ELFCLASS64 {
		return nil, nil
	}
	base := elfrel.Layout(f, idx)
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
	var (
		once sync.Once
		fdes []*cfi.FDE
	)
	load := func() {
		data, err := relocated(f, idx, base)
		if err != nil {
			return
		}
		res, _ := cfi.Parse(&cfi.Section{Kind: kind, Data: data, Order: f.ByteOrder, PtrSize: 8})
		if res == nil {
			return
		}
		fdes = append(fdes, res.FDEs...)
		slices.SortStableFunc(fdes, func(x, y *cfi.FDE) int { return cmp.Compare(x.Begin, y.Begin) })
	}
	errFound := errors.New("found")
	return func(pc uint64) (reg uint32, off int64, ok bool) {
		once.Do(load)
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
	}, key
}

// relocated returns a copy of section idx of f with its RELA relocations
// applied, section i being at address base[i].
func relocated(f *elf.File, idx int, base []uint64) ([]byte, error) {
	data, err := f.Sections[idx].Data()
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), data...)
	_, err = elfrel.Apply(f, idx, out, elfrel.Options{
		SectionAddr: func(i int) uint64 { return base[i] },
		Strict:      true,
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
