// Package elfrel applies the RELA relocations of a relocatable ELF64 object
// (a kernel module, a .o) to the bytes of one of its sections, for the
// relocation types compilers put in debug, unwind and kernel table
// sections on x86-64 and AArch64. The DWARF reader (package dwarfsite), the
// CFI reader (package sframe) and the kernel table readers (package
// resolve) see relocated bytes through it.
//
// A relocatable object has no addresses; the caller chooses a layout
// (Options.SectionAddr), and symbol values and PC-relative results come out
// relative to it.
//
// It also reads symbol tables where they lie (Symtab), for the
// relocations and for the readers that need a few entries of a large one.
//
// It imports debug/elf, the standard library and internal/dwarfbuf (its
// error type).
package elfrel

import (
	"debug/elf"
	"fmt"

	"github.com/btfinline/btfinline/internal/dwarfbuf"
)

// Error names the relocation section and the byte offset of the entry.
type Error = dwarfbuf.Error

// Options steer Apply.
type Options struct {
	// SectionAddr returns the address section idx is laid out at; nil
	// means every section is at 0.
	SectionAddr func(idx int) uint64
	// Strict makes an unsupported relocation type an error; otherwise it is
	// counted in Result.Unsupported and its bytes are left as they are.
	Strict bool
	// Read returns a relocation section's bytes; nil uses Section.Data.
	// Callers with a bounded reader (a file they mapped) pass theirs.
	Read func(*elf.Section) ([]byte, error)
}

// Result counts what Apply did not apply.
type Result struct {
	Applied     int
	Unsupported int // relocation types this package does not know
	Undefined   int // against undefined symbols: bytes left as they are
}

// Reloc is one RELA entry of a relocatable object, resolved against the
// symbol table.
type Reloc struct {
	Off       uint64 // offset of the relocated field in the target section
	Type      uint32 // R_X86_64_* or R_AARCH64_*
	Section   int    // section index of the symbol; -1 when absolute or undefined
	Undefined bool   // against an undefined (external) symbol
	Value     uint64 // symbol value + addend: relative to Section when Section >= 0
}

// Each calls fn for every RELA entry whose relocation section's sh_info
// names target, in file order.
func Each(f *elf.File, target int, opt Options, fn func(rs *elf.Section, entry int64, r Reloc) error) error {
	if target <= 0 || target >= len(f.Sections) {
		return fmt.Errorf("section index %d out of range", target)
	}
	read := opt.Read
	if read == nil {
		read = func(s *elf.Section) ([]byte, error) { return s.Data() }
	}
	var syms *Symtab
	loaded := false
	bo := f.ByteOrder
	for _, rs := range f.Sections {
		if int(rs.Info) != target || (rs.Type != elf.SHT_RELA && rs.Type != elf.SHT_REL) {
			continue
		}
		if rs.Type == elf.SHT_REL || f.Class != elf.ELFCLASS64 {
			return &Error{Section: rs.Name, Msg: "only ELF64 RELA relocations are supported"}
		}
		if !loaded {
			var err error
			if syms, err = ReadSymtab(f, read); err != nil {
				return err
			}
			loaded = true
		}
		rd, err := read(rs)
		if err != nil {
			return fmt.Errorf("%s: %w", rs.Name, err)
		}
		if len(rd)%24 != 0 {
			return &Error{Section: rs.Name, Offset: int64(len(rd) / 24 * 24), Msg: fmt.Sprintf("size %d is not a multiple of 24", len(rd))}
		}
		for off := 0; off+24 <= len(rd); off += 24 {
			info := bo.Uint64(rd[off+8:])
			r := Reloc{Off: bo.Uint64(rd[off:]), Type: uint32(info), Section: -1, Value: bo.Uint64(rd[off+16:])}
			if si := info >> 32; si > 0 {
				if syms == nil || si >= uint64(syms.Len()) {
					return &Error{Section: rs.Name, Offset: int64(off), Msg: fmt.Sprintf("symbol index %d out of range", si)}
				}
				sym := syms.At(int(si))
				r.Value += sym.Value
				switch {
				case sym.Section == elf.SHN_UNDEF:
					r.Undefined = true
				case sym.Section == elf.SHN_ABS:
				case sym.Section < elf.SHN_LORESERVE && int(sym.Section) < len(f.Sections):
					r.Section = int(sym.Section)
				default:
					r.Undefined = true // COMMON and friends: no address here
				}
			}
			if err := fn(rs, int64(off), r); err != nil {
				return err
			}
		}
	}
	return nil
}

// Read returns the RELA entries that apply to section target.
func Read(f *elf.File, target int, opt Options) ([]Reloc, error) {
	var out []Reloc
	err := Each(f, target, opt, func(_ *elf.Section, _ int64, r Reloc) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// Apply relocates data, the contents of section target of f, in place,
// with every SHT_RELA section whose sh_info names target.
func Apply(f *elf.File, target int, data []byte, opt Options) (Result, error) {
	var res Result
	addr := func(i int) uint64 {
		if opt.SectionAddr == nil {
			return 0
		}
		return opt.SectionAddr(i)
	}
	base := uint64(0)
	if target > 0 && target < len(f.Sections) {
		base = addr(target)
	}
	err := Each(f, target, opt, func(rs *elf.Section, entry int64, r Reloc) error {
		if r.Undefined {
			res.Undefined++
			return nil
		}
		sa := r.Value
		if r.Section >= 0 {
			sa += addr(r.Section)
		}
		size, pcrel, ok := Kind(f.Machine, r.Type)
		if !ok {
			if opt.Strict {
				return &Error{Section: rs.Name, Offset: entry, Msg: "unsupported relocation " + typeName(f.Machine, r.Type)}
			}
			res.Unsupported++
			return nil
		}
		if size == 0 {
			return nil
		}
		v := sa
		if pcrel {
			v -= base + r.Off
		}
		if r.Off > uint64(len(data)) || uint64(size) > uint64(len(data))-r.Off {
			return &Error{Section: rs.Name, Offset: entry, Msg: fmt.Sprintf("relocation at %#x past the end of the target section", r.Off)}
		}
		if size == 8 {
			f.ByteOrder.PutUint64(data[r.Off:], v)
		} else {
			f.ByteOrder.PutUint32(data[r.Off:], uint32(v))
		}
		res.Applied++
		return nil
	})
	return res, err
}

// Kind says how a relocation type stores its result: the field size, and
// whether it is PC-relative. ok is false for types this package does not
// apply; R_*_NONE is ok with size 0.
func Kind(m elf.Machine, typ uint32) (size int, pcrel, ok bool) {
	switch m {
	case elf.EM_X86_64:
		switch elf.R_X86_64(typ) {
		case elf.R_X86_64_NONE:
			return 0, false, true
		case elf.R_X86_64_64, elf.R_X86_64_DTPOFF64:
			return 8, false, true
		case elf.R_X86_64_32, elf.R_X86_64_32S, elf.R_X86_64_DTPOFF32:
			return 4, false, true
		case elf.R_X86_64_PC32, elf.R_X86_64_PLT32:
			return 4, true, true
		case elf.R_X86_64_PC64:
			return 8, true, true
		}
	case elf.EM_AARCH64:
		switch elf.R_AARCH64(typ) {
		case elf.R_AARCH64_NONE:
			return 0, false, true
		case elf.R_AARCH64_ABS64:
			return 8, false, true
		case elf.R_AARCH64_ABS32:
			return 4, false, true
		case elf.R_AARCH64_PREL64:
			return 8, true, true
		case elf.R_AARCH64_PREL32:
			return 4, true, true
		}
	}
	return 0, false, false
}

func typeName(m elf.Machine, typ uint32) string {
	switch m {
	case elf.EM_X86_64:
		return elf.R_X86_64(typ).String()
	case elf.EM_AARCH64:
		return elf.R_AARCH64(typ).String()
	}
	return fmt.Sprintf("type %d for %v", typ, m)
}

// Layout gives every allocated section of a relocatable object its own
// address range, for Options.SectionAddr, and returns the addresses by
// section index. Section first (a call frame section, or -1) stays at 0 so
// that offsets within it equal addresses (CIE pointers come out right);
// the others follow it, each aligned to at least 16 bytes.
func Layout(f *elf.File, first int) []uint64 {
	base := make([]uint64, len(f.Sections))
	next := uint64(0)
	if first >= 0 && first < len(f.Sections) {
		next = f.Sections[first].Size
	}
	for i, s := range f.Sections {
		if i == first || s.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		al := max(s.Addralign, 16)
		next = (next + al - 1) &^ (al - 1)
		base[i] = next
		next += s.Size
	}
	return base
}
