// Package elfrel applies the RELA relocations of a relocatable ELF64 object
// (a kernel module, a .o) to the bytes of one of its sections, for the
// relocation types compilers put in debug, unwind and kernel table
// sections on x86-64 and AArch64. The DWARF reader (package inline), the
// CFI reader (package sframe) and the kernel table readers (package
// resolve) see relocated bytes through it.
//
// A relocatable object has no addresses; the caller chooses a layout
// (Options.SectionAddr), and symbol values and PC-relative results come out
// relative to it.
package elfrel

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
)

// Error names the relocation section and the byte offset of the entry.
type Error struct {
	Section string
	Offset  int64
	Msg     string
}

func (e *Error) Error() string { return fmt.Sprintf("%s+%#x: %s", e.Section, e.Offset, e.Msg) }

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

// Apply relocates data, the contents of section target of f, in place,
// with every SHT_RELA section whose sh_info names target.
func Apply(f *elf.File, target int, data []byte, opt Options) (Result, error) {
	var res Result
	if target <= 0 || target >= len(f.Sections) {
		return res, fmt.Errorf("section index %d out of range", target)
	}
	var syms []elf.Symbol
	loaded := false
	addr := func(i int) uint64 {
		if opt.SectionAddr == nil {
			return 0
		}
		return opt.SectionAddr(i)
	}
	read := opt.Read
	if read == nil {
		read = func(s *elf.Section) ([]byte, error) { return s.Data() }
	}
	for _, rs := range f.Sections {
		if int(rs.Info) != target || (rs.Type != elf.SHT_RELA && rs.Type != elf.SHT_REL) {
			continue
		}
		if rs.Type == elf.SHT_REL || f.Class != elf.ELFCLASS64 {
			return res, &Error{Section: rs.Name, Msg: "only ELF64 RELA relocations are supported"}
		}
		if !loaded {
			var err error
			if syms, err = f.Symbols(); err != nil && !errors.Is(err, elf.ErrNoSymbols) {
				return res, err
			}
			loaded = true
		}
		rd, err := read(rs)
		if err != nil {
			return res, fmt.Errorf("%s: %w", rs.Name, err)
		}
		if len(rd)%24 != 0 {
			return res, &Error{Section: rs.Name, Msg: fmt.Sprintf("size %d is not a multiple of 24", len(rd))}
		}
		if err := apply(f, rs.Name, addr(target), data, rd, syms, addr, opt.Strict, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

func apply(f *elf.File, name string, base uint64, dst, rels []byte, syms []elf.Symbol, addr func(int) uint64, strict bool, res *Result) error {
	bo := f.ByteOrder
	for off := 0; off+24 <= len(rels); off += 24 {
		where := bo.Uint64(rels[off:])
		info := bo.Uint64(rels[off+8:])
		addend := bo.Uint64(rels[off+16:])
		si, typ := info>>32, uint32(info)
		var S uint64
		if si > 0 {
			if si > uint64(len(syms)) {
				return &Error{Section: name, Offset: int64(off), Msg: fmt.Sprintf("symbol index %d out of range", si)}
			}
			sym := syms[si-1]
			switch {
			case sym.Section == elf.SHN_UNDEF:
				res.Undefined++
				continue
			case sym.Section == elf.SHN_ABS:
				S = sym.Value
			case sym.Section < elf.SHN_LORESERVE && int(sym.Section) < len(f.Sections):
				S = addr(int(sym.Section)) + sym.Value
			default:
				res.Undefined++
				continue
			}
		}
		size, v, ok := compute(f.Machine, typ, S+addend, base+where)
		if !ok {
			if strict {
				return &Error{Section: name, Offset: int64(off), Msg: "unsupported relocation " + typeName(f.Machine, typ)}
			}
			res.Unsupported++
			continue
		}
		if size == 0 {
			continue
		}
		if where > uint64(len(dst)) || uint64(size) > uint64(len(dst))-where {
			return &Error{Section: name, Offset: int64(off), Msg: fmt.Sprintf("relocation at %#x past the end of the target section", where)}
		}
		put(bo, dst[where:], size, v)
		res.Applied++
	}
	return nil
}

// compute returns the size and value of one relocation, given S+A and P.
func compute(m elf.Machine, typ uint32, sa, p uint64) (size int, v uint64, ok bool) {
	switch m {
	case elf.EM_X86_64:
		switch elf.R_X86_64(typ) {
		case elf.R_X86_64_NONE:
			return 0, 0, true
		case elf.R_X86_64_64, elf.R_X86_64_DTPOFF64:
			return 8, sa, true
		case elf.R_X86_64_32, elf.R_X86_64_32S, elf.R_X86_64_DTPOFF32:
			return 4, sa, true
		case elf.R_X86_64_PC32, elf.R_X86_64_PLT32:
			return 4, sa - p, true
		case elf.R_X86_64_PC64:
			return 8, sa - p, true
		}
	case elf.EM_AARCH64:
		switch elf.R_AARCH64(typ) {
		case elf.R_AARCH64_NONE:
			return 0, 0, true
		case elf.R_AARCH64_ABS64:
			return 8, sa, true
		case elf.R_AARCH64_ABS32:
			return 4, sa, true
		case elf.R_AARCH64_PREL64:
			return 8, sa - p, true
		case elf.R_AARCH64_PREL32:
			return 4, sa - p, true
		}
	}
	return 0, 0, false
}

func put(bo binary.ByteOrder, b []byte, size int, v uint64) {
	if size == 8 {
		bo.PutUint64(b, v)
	} else {
		bo.PutUint32(b, uint32(v))
	}
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
