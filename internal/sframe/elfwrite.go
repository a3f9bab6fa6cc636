package sframe

import (
	"debug/elf"
	"errors"
	"fmt"

	"github.com/btfinline/btfinline/internal/elfwrite"
)

// AddToELF builds the ELF image with the emitted .sframe appended (and, for
// relocatable objects, a .rela.sframe with one PC-relative relocation per
// function start against the function's section symbol, as gas writes).
// For linked files it returns a note about what a loader still needs.
func (in *Input) AddToELF(em *Emitted) ([]byte, string, error) {
	for _, s := range in.File.Sections {
		if s.Name == ".sframe" || uint32(s.Type) == SHTGNUSFrame {
			return nil, "", errors.New("the file already has a .sframe section")
		}
	}
	f := in.File
	if f.Class != elf.ELFCLASS64 {
		return nil, "", errors.New("only ELF64 files are supported")
	}
	sec := elfwrite.Section{Name: ".sframe", Type: elf.SectionType(SHTGNUSFrame), Addralign: 8}
	var note string
	if in.Rel {
		sec.Flags = elf.SHF_ALLOC
		// Fields hold 0; the relocations supply S + A - P.
		s := *em.Section
		s.FDEs = append([]FDE(nil), s.FDEs...)
		fsz := fdeSize(s.Version)
		for i := range s.FDEs {
			s.FDEs[i].Start = int64(headerSize + i*fsz)
		}
		data, err := Encode(&s, EncodeOptions{})
		if err != nil {
			return nil, "", err
		}
		sec.Data = data
		rela, symtab, err := in.sframeRelocs(em, fsz)
		if err != nil {
			return nil, "", err
		}
		rs := elfwrite.Section{Name: ".rela.sframe", Type: elf.SHT_RELA, Flags: elf.SHF_INFO_LINK, Addralign: 8, Entsize: 24, Link: uint32(symtab), InfoFrom: ".sframe", Data: rela}
		out, _, err := elfwrite.BuildSections(in.Raw, []elfwrite.Section{sec, rs})
		return out, "", err
	}
	// Linked file: place the section where a new PT_LOAD could map it, so
	// the PC-relative starts are right for that address.
	out, addr, fileOff, err := in.AddUnmapped(sec, em.Encode)
	if err != nil {
		return nil, "", err
	}
	note = fmt.Sprintf("note: .sframe added at file offset %#x with address %#x, but no segment maps it: "+
		"a loader needs a PT_LOAD covering it and a PT_GNU_SFRAME (%#x) program header pointing at it "+
		"(relink with ld --gsframe / -Wa,--gsframe to get both)", fileOff, addr, PTGNUSFrame)
	return out, note, nil
}

// AddUnmapped adds sec to a linked file where a new PT_LOAD could map it:
// at an address just past the last segment, with the page offset of its
// file offset, encoding its data for that address.
func (in *Input) AddUnmapped(sec elfwrite.Section, encode func(addr uint64) ([]byte, error)) (out []byte, addr, fileOff uint64, err error) {
	end := in.SectionAddr()
	if sec.Data, err = encode(end); err != nil {
		return nil, 0, 0, err
	}
	_, placed, err := elfwrite.BuildSections(in.Raw, []elfwrite.Section{sec})
	if err != nil {
		return nil, 0, 0, err
	}
	// The address depends on the file offset (same page offset, as a
	// PT_LOAD needs); encoding at it does not change the size, so the
	// second build places the section at the same offset.
	fileOff = placed[0].Offset
	addr = (end+0xfff)&^0xfff | fileOff&0xfff
	if sec.Data, err = encode(addr); err != nil {
		return nil, 0, 0, err
	}
	sec.Addr = addr
	out, placed, err = elfwrite.BuildSections(in.Raw, []elfwrite.Section{sec})
	if err != nil {
		return nil, 0, 0, err
	}
	if placed[0].Offset != fileOff {
		return nil, 0, 0, fmt.Errorf("%s moved from %#x to %#x between layouts", sec.Name, fileOff, placed[0].Offset)
	}
	return out, addr, fileOff, nil
}

func (in *Input) sframeRelocs(em *Emitted, fsz int) ([]byte, int, error) {
	f := in.File
	symtab := -1
	for i, s := range f.Sections {
		if s.Type == elf.SHT_SYMTAB {
			symtab = i
		}
	}
	if symtab < 0 {
		return nil, 0, errors.New("relocatable file without a symbol table")
	}
	syms, err := f.Symbols()
	if err != nil {
		return nil, 0, err
	}
	secSym := map[int]int{}
	for i, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_SECTION {
			if _, ok := secSym[int(s.Section)]; !ok {
				secSym[int(s.Section)] = i + 1
			}
		}
	}
	var typ uint32
	switch in.ABI {
	case ABIAMD64LE:
		typ = uint32(elf.R_X86_64_PC64)
		if em.Section.Version == Version2 {
			typ = uint32(elf.R_X86_64_PC32)
		}
	default:
		typ = uint32(elf.R_AARCH64_PREL64)
		if em.Section.Version == Version2 {
			typ = uint32(elf.R_AARCH64_PREL32)
		}
	}
	bo := f.ByteOrder
	out := make([]byte, 0, 24*len(em.FuncSection))
	for i, si := range em.FuncSection {
		sym, ok := secSym[si]
		if !ok {
			return nil, 0, fmt.Errorf("no section symbol for %s", f.Sections[si].Name)
		}
		var r [24]byte
		bo.PutUint64(r[0:], uint64(headerSize+i*fsz))
		bo.PutUint64(r[8:], uint64(sym)<<32|uint64(typ))
		bo.PutUint64(r[16:], em.FuncOffset[i])
		out = append(out, r[:]...)
	}
	return out, symtab, nil
}

// SectionAddr is the end of the highest loadable segment: the first
// address a new segment carrying .sframe could use (0 for relocatable
// files).
func (in *Input) SectionAddr() uint64 {
	var end uint64
	for _, p := range in.File.Progs {
		if p.Type == elf.PT_LOAD {
			end = max(end, p.Vaddr+p.Memsz)
		}
	}
	return end
}
