package dedup

import (
	"debug/dwarf"
	"testing"

	"github.com/btfinline/btfinline/internal/btf"
)

// FuzzConvert: kern.elf's DWARF with .debug_info replaced by the input;
// converting every type DIE against kern.elf's BTF must not panic or hang,
// and what it adds must be well-formed enough for Commit.
func FuzzConvert(f *testing.F) {
	o, err := openObject(fixture("kern.elf"))
	if err != nil {
		f.Fatal(err)
	}
	defer o.Close()
	sec := func(n string) []byte {
		s := o.ELF.Section(n)
		if s == nil {
			return nil
		}
		b, err := s.Data()
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	abbrev, info, str := sec(".debug_abbrev"), sec(".debug_info"), sec(".debug_str")
	extra := map[string][]byte{}
	for _, n := range []string{".debug_addr", ".debug_line_str", ".debug_str_offsets"} {
		if b := sec(n); b != nil {
			extra[n] = b
		}
	}
	base, err := btf.LoadELFSection(o.ELF, ".BTF", nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(info)
	f.Fuzz(func(t *testing.T, info []byte) {
		d, err := dwarf.New(abbrev, nil, nil, info, nil, nil, nil, str)
		if err != nil {
			return
		}
		for n, b := range extra {
			if d.AddSection(n, b) != nil {
				return
			}
		}
		dst := btf.NewSpec(base)
		c := New(d, dst)
		r := d.Reader()
		for n := 0; n < 10000; n++ {
			e, err := r.Next()
			if err != nil || e == nil {
				break
			}
			switch e.Tag {
			case dwarf.TagBaseType, dwarf.TagPointerType, dwarf.TagTypedef, dwarf.TagStructType,
				dwarf.TagUnionType, dwarf.TagEnumerationType, dwarf.TagArrayType, dwarf.TagSubroutineType:
				c.TypeID(e.Offset)
			}
		}
		_ = c.Commit()
	})
}
