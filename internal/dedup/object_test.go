package dedup

import (
	"debug/dwarf"
	"debug/elf"

	"github.com/btfinline/btfinline/internal/dwarfsite"
	"github.com/btfinline/btfinline/internal/elfobj"
)

// testObject is an ELF file with its DWARF, as the encode pipeline hands
// them to a Converter.
type testObject struct {
	ELF   *elf.File
	DWARF *dwarf.Data
	f     *elfobj.File
}

func (o *testObject) Close() error { return o.f.Close() }

func openObject(path string) (*testObject, error) {
	f, err := elfobj.Open(path)
	if err != nil {
		return nil, err
	}
	x, err := dwarfsite.Load(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	d, err := x.Data()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &testObject{ELF: f.File, DWARF: d, f: f}, nil
}
