package elfrel

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"strings"
)

// Sym is a symbol table entry as the file holds it, its name an offset
// in the table's string table.
type Sym struct {
	Name        uint32
	Info        byte
	Section     elf.SectionIndex
	Value, Size uint64
}

// Symtab is an object's symbol table read where it lies: an entry is
// decoded when asked for and a name made only for the entries that need
// one, where debug/elf's Symbols copies the table and names every entry.
type Symtab struct {
	data, strtab []byte
	size         int // of an entry: 24 (ELF64) or 16 (ELF32)
	order        binary.ByteOrder
	// str is strtab copied into a string by the first Name, which cuts
	// the names from it: a vmlinux names 150,000 functions.
	str string
}

// ReadSymtab returns f's SHT_SYMTAB, its bytes and those of its string
// table from read; nil without error when f has none.
func ReadSymtab(f *elf.File, read func(*elf.Section) ([]byte, error)) (*Symtab, error) {
	st := f.SectionByType(elf.SHT_SYMTAB)
	if st == nil {
		return nil, nil
	}
	if int(st.Link) >= len(f.Sections) {
		return nil, fmt.Errorf("%s: bad string table link %d", st.Name, st.Link)
	}
	t := &Symtab{size: 24, order: f.ByteOrder}
	if f.Class == elf.ELFCLASS32 {
		t.size = 16
	}
	var err error
	if t.data, err = read(st); err != nil {
		return nil, fmt.Errorf("%s: %w", st.Name, err)
	}
	if len(t.data)%t.size != 0 {
		return nil, fmt.Errorf("%s: length is not a multiple of the symbol size", st.Name)
	}
	if t.strtab, err = read(f.Sections[st.Link]); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Sections[st.Link].Name, err)
	}
	return t, nil
}

// Len is the number of entries, the null symbol at index 0 included.
func (t *Symtab) Len() int { return len(t.data) / t.size }

// At decodes entry i (0 <= i < Len).
func (t *Symtab) At(i int) Sym {
	e, bo := t.data[i*t.size:(i+1)*t.size], t.order
	if t.size == 24 {
		return Sym{Name: bo.Uint32(e), Info: e[4], Section: elf.SectionIndex(bo.Uint16(e[6:])), Value: bo.Uint64(e[8:]), Size: bo.Uint64(e[16:])}
	}
	return Sym{Name: bo.Uint32(e), Value: uint64(bo.Uint32(e[4:])), Size: uint64(bo.Uint32(e[8:])), Info: e[12], Section: elf.SectionIndex(bo.Uint16(e[14:]))}
}

// Name is the name of a symbol, as debug/elf gives it: "" when the
// offset is past the string table or no NUL ends the name. Unlike the
// other methods, it is not safe for concurrent use.
func (t *Symtab) Name(s Sym) string {
	if int64(s.Name) >= int64(len(t.strtab)) {
		return ""
	}
	if t.str == "" {
		t.str = string(t.strtab)
	}
	i := strings.IndexByte(t.str[s.Name:], 0)
	if i < 0 {
		return ""
	}
	return t.str[s.Name : int(s.Name)+i]
}
