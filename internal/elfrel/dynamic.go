package elfrel

import (
	"debug/elf"
	"errors"
	"fmt"
)

// Dynamic relocation types whose load-time value a position-independent
// kernel image leaves to them. The arm64 kernel is linked with -pie
// --no-apply-dynamic-relocs: every absolute pointer in its data (the ftrace
// table, the kprobe blacklist, ...) is 0 in the file and lives in .rela.dyn.
const (
	rX86_64Relative   = 8
	rX86_64_64        = 1
	rX86_64GlobDat    = 6
	rAArch64Relative  = 1027
	rAArch64Abs64     = 257
	rAArch64GlobDat   = 1025
	dynamicRelocEntry = 24
)

// ApplyDynamic writes into data, the bytes of a linked image (ET_DYN) at
// address addr, the values its dynamic RELA relocations store there when
// the image is loaded where it was linked: addend for RELATIVE, symbol value
// plus addend for ABS64 and GLOB_DAT. Other images and other types are left
// as they are; the count of applied relocations is returned.
func ApplyDynamic(f *elf.File, addr uint64, data []byte) (int, error) {
	if f.Type != elf.ET_DYN {
		return 0, nil
	}
	if f.Class != elf.ELFCLASS64 {
		return 0, errors.New("dynamic relocations: only ELF64 is supported")
	}
	end := addr + uint64(len(data))
	var dynsyms []elf.Symbol
	loaded := false
	n := 0
	for _, rs := range f.Sections {
		if rs.Type != elf.SHT_RELA || rs.Flags&elf.SHF_ALLOC == 0 || rs.Info != 0 {
			continue
		}
		rd, err := rs.Data()
		if err != nil {
			return n, fmt.Errorf("%s: %w", rs.Name, err)
		}
		if len(rd)%dynamicRelocEntry != 0 {
			return n, &Error{Section: rs.Name, Offset: int64(len(rd) / dynamicRelocEntry * dynamicRelocEntry), Msg: fmt.Sprintf("size %d is not a multiple of 24", len(rd))}
		}
		bo := f.ByteOrder
		for off := 0; off+dynamicRelocEntry <= len(rd); off += dynamicRelocEntry {
			at := bo.Uint64(rd[off:])
			if at < addr || at >= end || end-at < 8 {
				continue
			}
			info := bo.Uint64(rd[off+8:])
			typ, si := uint32(info), info>>32
			v := bo.Uint64(rd[off+16:])
			switch {
			case f.Machine == elf.EM_X86_64 && typ == rX86_64Relative,
				f.Machine == elf.EM_AARCH64 && typ == rAArch64Relative:
			case f.Machine == elf.EM_X86_64 && (typ == rX86_64_64 || typ == rX86_64GlobDat),
				f.Machine == elf.EM_AARCH64 && (typ == rAArch64Abs64 || typ == rAArch64GlobDat):
				if !loaded {
					if dynsyms, err = f.DynamicSymbols(); err != nil && !errors.Is(err, elf.ErrNoSymbols) {
						return n, err
					}
					loaded = true
				}
				if si == 0 || si > uint64(len(dynsyms)) {
					return n, &Error{Section: rs.Name, Offset: int64(off), Msg: fmt.Sprintf("dynamic symbol index %d out of range", si)}
				}
				v += dynsyms[si-1].Value
			default:
				continue
			}
			bo.PutUint64(data[at-addr:], v)
			n++
		}
	}
	return n, nil
}
