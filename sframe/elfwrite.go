package sframe

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// NewSection is a section to append to an ELF file.
type NewSection struct {
	Name    string
	Type    uint32
	Flags   uint64
	Addr    uint64
	Align   uint64
	EntSize uint64
	Link    uint32
	Info    uint32 // for a relocation section: index of another new section, see InfoNew
	InfoNew int    // if >= 0, Info is set to the final index of NewSections[InfoNew]
	Data    []byte
}

// AppendSections returns a copy of the ELF64 image raw with the sections
// appended: their data and a new section header table go at the end of the
// file, the section name table is rewritten there too, and e_shoff/e_shnum
// are updated. Every byte of the original file other than those ELF header
// fields stays as it was (the old header table and names become unused).
func AppendSections(raw []byte, secs []NewSection) ([]byte, []uint64, error) {
	if len(raw) < 64 || string(raw[:4]) != "\x7fELF" {
		return nil, nil, errors.New("not an ELF file")
	}
	if raw[4] != 2 {
		return nil, nil, errors.New("only ELF64 files are supported")
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if raw[5] == 2 {
		bo = binary.BigEndian
	}
	shoff := bo.Uint64(raw[0x28:])
	shentsize := uint64(bo.Uint16(raw[0x3a:]))
	shnum := uint64(bo.Uint16(raw[0x3c:]))
	shstrndx := uint64(bo.Uint16(raw[0x3e:]))
	if shentsize != 64 {
		return nil, nil, fmt.Errorf("section header size %d, want 64", shentsize)
	}
	if shoff == 0 || shoff > uint64(len(raw)) {
		return nil, nil, errors.New("no section header table")
	}
	if shnum == 0 && shoff+64 <= uint64(len(raw)) {
		shnum = bo.Uint64(raw[shoff+32:]) // extended numbering: sh_size of section 0
	}
	if shstrndx == uint64(elf.SHN_XINDEX) && shoff+64 <= uint64(len(raw)) {
		shstrndx = uint64(bo.Uint32(raw[shoff+40:]))
	}
	if shnum > (uint64(len(raw))-shoff)/64 || shstrndx >= shnum {
		return nil, nil, errors.New("section header table runs past the end of the file")
	}
	total := shnum + uint64(len(secs))
	if total >= uint64(elf.SHN_LORESERVE) {
		return nil, nil, fmt.Errorf("too many sections (%d) for this writer", total)
	}
	hdrs := make([]byte, shnum*64, total*64)
	copy(hdrs, raw[shoff:shoff+shnum*64])
	strh := hdrs[shstrndx*64:]
	stroff := bo.Uint64(strh[24:])
	strsize := bo.Uint64(strh[32:])
	if stroff+strsize > uint64(len(raw)) || stroff+strsize < stroff {
		return nil, nil, errors.New("section name table past the end of the file")
	}
	out := make([]byte, len(raw), len(raw)+int(strsize)+4096)
	copy(out, raw)
	align := func(a uint64) {
		if a < 1 {
			a = 1
		}
		for uint64(len(out))%a != 0 {
			out = append(out, 0)
		}
	}
	names := append([]byte(nil), raw[stroff:stroff+strsize]...)
	nameOff := make([]uint32, len(secs))
	for i, s := range secs {
		nameOff[i] = uint32(len(names))
		names = append(names, s.Name...)
		names = append(names, 0)
	}
	newStrOff := uint64(len(out))
	out = append(out, names...)
	bo.PutUint64(strh[24:], newStrOff)
	bo.PutUint64(strh[32:], uint64(len(names)))
	idx := make([]int, len(secs))
	offs := make([]uint64, len(secs))
	for i := range secs {
		idx[i] = int(shnum) + i
	}
	for i, s := range secs {
		align(s.Align)
		off := uint64(len(out))
		offs[i] = off
		out = append(out, s.Data...)
		var h [64]byte
		bo.PutUint32(h[0:], nameOff[i])
		bo.PutUint32(h[4:], s.Type)
		bo.PutUint64(h[8:], s.Flags)
		bo.PutUint64(h[16:], s.Addr)
		bo.PutUint64(h[24:], off)
		bo.PutUint64(h[32:], uint64(len(s.Data)))
		bo.PutUint32(h[40:], s.Link)
		info := s.Info
		if s.InfoNew >= 0 && s.InfoNew < len(secs) {
			info = uint32(idx[s.InfoNew])
		}
		bo.PutUint32(h[44:], info)
		bo.PutUint64(h[48:], max(s.Align, 1))
		bo.PutUint64(h[56:], s.EntSize)
		hdrs = append(hdrs, h[:]...)
	}
	align(8)
	newShoff := uint64(len(out))
	out = append(out, hdrs...)
	bo.PutUint64(out[0x28:], newShoff)
	if bo.Uint16(raw[0x3c:]) == 0 {
		bo.PutUint64(out[newShoff+32:], total)
	} else {
		bo.PutUint16(out[0x3c:], uint16(total))
	}
	return out, offs, nil
}

// WriteFileAtomic replaces path with data: a temporary file in the same
// directory, fsync, rename. On error the original file is untouched.
func WriteFileAtomic(path string, data []byte) (err error) {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

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
	sec := NewSection{Name: ".sframe", Type: SHTGNUSFrame, Align: 8, InfoNew: -1}
	var note string
	if in.Rel {
		sec.Flags = uint64(elf.SHF_ALLOC)
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
		rs := NewSection{Name: ".rela.sframe", Type: uint32(elf.SHT_RELA), Flags: uint64(elf.SHF_INFO_LINK), Align: 8, EntSize: 24, Link: uint32(symtab), InfoNew: 0, Data: rela}
		out, _, err := AppendSections(in.Raw, []NewSection{sec, rs})
		return out, "", err
	}
	// Linked file: place the section where a new PT_LOAD could map it, so
	// the PC-relative starts are right for that address.
	end := in.SectionAddr()
	data, err := em.Encode(end)
	if err != nil {
		return nil, "", err
	}
	sec.Data = data
	out, offs, err := AppendSections(in.Raw, []NewSection{sec})
	if err != nil {
		return nil, "", err
	}
	fileOff := offs[0]
	addr := (end+0xfff)&^0xfff | fileOff&0xfff
	if data, err = em.Encode(addr); err != nil {
		return nil, "", err
	}
	copy(out[fileOff:], data)
	bo := f.ByteOrder
	shoff := bo.Uint64(out[0x28:])
	bo.PutUint64(out[shoff+uint64(len(f.Sections))*64+16:], addr)
	note = fmt.Sprintf("note: .sframe added at file offset %#x with address %#x, but no segment maps it: "+
		"a loader needs a PT_LOAD covering it and a PT_GNU_SFRAME (%#x) program header pointing at it "+
		"(relink with ld --gsframe / -Wa,--gsframe to get both)", fileOff, addr, PTGNUSFrame)
	return out, note, err
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
