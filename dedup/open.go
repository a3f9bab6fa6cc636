package dedup

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Object is an ELF file opened for its DWARF types.
type Object struct {
	ELF   *elf.File
	DWARF *dwarf.Data
	mm    []byte
	fh    *os.File
}

// Close releases the file and its mapping.
func (o *Object) Close() error {
	if o.mm != nil {
		syscall.Munmap(o.mm)
		o.mm = nil
	}
	if o.fh != nil {
		o.fh.Close()
		o.fh = nil
	}
	return nil
}

// ErrNoDWARF: the object has no .debug_info (built without debug
// information, or stripped), which is where inline sites are read from.
var ErrNoDWARF = errors.New("no DWARF (.debug_info), which the inline sites are read from: build with debug information and do not strip it (for a kernel, CONFIG_DEBUG_INFO_DWARF5 or _DWARF4)")

// Open opens the ELF file at path for type conversion. Linked objects are
// mapped and only the sections type DIEs need (.debug_info, .debug_abbrev
// and the string and address tables) are handed to debug/dwarf, in place;
// relocatable objects (modules) go through debug/elf, which applies the
// relocations of their debug sections.
func Open(path string) (*Object, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	o := &Object{fh: fh}
	st, err := fh.Stat()
	if err != nil {
		o.Close()
		return nil, err
	}
	size := st.Size()
	if size > 0 && size == int64(int(size)) {
		if m, err := syscall.Mmap(int(fh.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE); err == nil {
			o.mm = m
		}
	}
	if o.mm != nil {
		o.ELF, err = elf.NewFile(bytes.NewReader(o.mm))
	} else {
		o.ELF, err = elf.NewFile(fh)
	}
	if err != nil {
		o.Close()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%s: truncated ELF file (%d bytes): headers end past the end of the file", path, size)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, s := range o.ELF.Sections {
		if s.Type == elf.SHT_NOBITS || s.Type == elf.SHT_NULL {
			continue
		}
		if s.Offset > uint64(size) || s.FileSize > uint64(size)-s.Offset {
			o.Close()
			return nil, fmt.Errorf("%s: truncated ELF file (%d bytes): section %s data [%#x, %#x) past the end", path, size, s.Name, s.Offset, s.Offset+s.FileSize)
		}
	}
	if s := o.ELF.Section(".debug_info"); s == nil || s.Type == elf.SHT_NOBITS {
		o.Close()
		return nil, fmt.Errorf("%s: %w", path, ErrNoDWARF)
	}
	if o.ELF.Type == elf.ET_REL || o.mm == nil {
		o.DWARF, err = o.ELF.DWARF()
	} else {
		o.DWARF, err = o.mapped()
	}
	if err != nil {
		o.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return o, nil
}

func (o *Object) mapped() (*dwarf.Data, error) {
	sec := func(name string) ([]byte, error) {
		s := o.ELF.Section(name)
		if s == nil || s.Type == elf.SHT_NOBITS {
			return nil, nil
		}
		if s.Flags&elf.SHF_COMPRESSED != 0 {
			return s.Data()
		}
		if s.Offset > uint64(len(o.mm)) || s.Size > uint64(len(o.mm))-s.Offset {
			return nil, fmt.Errorf("section %s: data [%#x, +%#x) past end of file", name, s.Offset, s.Size)
		}
		return o.mm[s.Offset : s.Offset+s.Size : s.Offset+s.Size], nil
	}
	var b [4][]byte
	for i, n := range []string{".debug_abbrev", ".debug_info", ".debug_str", ".debug_line"} {
		var err error
		if b[i], err = sec(n); err != nil {
			return nil, err
		}
	}
	if b[1] == nil {
		return nil, fmt.Errorf("no .debug_info section (not built with -g?)")
	}
	d, err := dwarf.New(b[0], nil, nil, b[1], nil, nil, nil, b[2])
	if err != nil {
		return nil, err
	}
	for _, n := range []string{".debug_addr", ".debug_line_str", ".debug_str_offsets", ".debug_rnglists"} {
		data, err := sec(n)
		if err != nil {
			return nil, err
		}
		if data != nil {
			if err := d.AddSection(n, data); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}
