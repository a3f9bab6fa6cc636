package resolve

import (
	"debug/elf"
	"fmt"
)

// relocRef is where one RELA relocation of a relocatable object points:
// symbol value plus addend, in the symbol's section. For the PC-relative
// types the kernel's tables use (R_X86_64_PC32, R_AARCH64_PREL32), the
// linked field holds S+A-P, so the entry's target is S+A; for absolute
// types it is S+A too.
type relocRef struct {
	Off     uint64 // offset of the relocated field in its section
	Type    uint32
	Section int    // section index of the symbol; -1 when undefined or absolute
	Value   uint64 // symbol value + addend
}

// RelocError is a malformed relocation section.
type RelocError struct {
	Section string
	Offset  int64
	Msg     string
}

func (e *RelocError) Error() string {
	return fmt.Sprintf("%s at offset %#x: %s", e.Section, e.Offset, e.Msg)
}

// readRelocs returns the RELA relocations that apply to section index
// target of f, in file order. syms is f.Symbols() (without the null
// symbol, as debug/elf returns it).
func readRelocs(f *elf.File, syms []elf.Symbol, target int) ([]relocRef, error) {
	var out []relocRef
	for _, rs := range f.Sections {
		if (rs.Type != elf.SHT_RELA && rs.Type != elf.SHT_REL) || int(rs.Info) != target {
			continue
		}
		if rs.Type != elf.SHT_RELA || f.Class != elf.ELFCLASS64 {
			return nil, &RelocError{rs.Name, 0, "only ELF64 RELA relocations are read"}
		}
		data, err := rs.Data()
		if err != nil {
			return nil, &RelocError{rs.Name, 0, err.Error()}
		}
		if len(data)%24 != 0 {
			return nil, &RelocError{rs.Name, int64(len(data) / 24 * 24), "truncated relocation"}
		}
		for off := 0; off+24 <= len(data); off += 24 {
			info := f.ByteOrder.Uint64(data[off+8:])
			r := relocRef{Off: f.ByteOrder.Uint64(data[off:]), Type: uint32(info), Section: -1}
			addend := f.ByteOrder.Uint64(data[off+16:])
			si := int(info >> 32)
			if si == 0 {
				r.Value = addend
				out = append(out, r)
				continue
			}
			if si > len(syms) {
				return nil, &RelocError{rs.Name, int64(off), fmt.Sprintf("symbol index %d out of range", si)}
			}
			s := syms[si-1] // debug/elf drops the null symbol
			r.Value = s.Value + addend
			if s.Section != elf.SHN_UNDEF && s.Section < elf.SHN_LORESERVE && int(s.Section) < len(f.Sections) {
				r.Section = int(s.Section)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// addressReloc reports whether a relocation type stores its target's
// address (absolute or PC-relative, 32 or 64 bits): the types of the
// kernel's relative tables and of .debug_frame.
func addressReloc(m elf.Machine, typ uint32) bool {
	n, _ := relocSize(m, typ)
	return n > 0
}
