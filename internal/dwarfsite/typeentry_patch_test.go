package dwarfsite

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/btfinline/btfinline/internal/dwarftype"
	"github.com/btfinline/btfinline/internal/elfobj"
)

// TestTypeEntriesPatchedForms: TestTypeEntriesMatchDebugDWARF on kern.elf with its abbreviations
// changed to what the fixtures lack: DW_AT_bit_offset bitfields, a
// DW_AT_count or DW_AT_lower_bound, and the converter's attributes in
// forms of other Go types (references, flags, an address's uint64, udata
// for sdata), of the same sizes so that .debug_info still reads, and
// attributes twice.
func TestTypeEntriesPatchedForms(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(encodeFixtures, "kern.elf"))
	if err != nil {
		t.Fatal(err)
	}
	const (
		formAddr      = 0x01
		formData4     = 0x06
		formData8     = 0x07
		formData1     = 0x0b
		formFlag      = 0x0c
		formSdata     = 0x0d
		formStrp      = 0x0e
		formUdata     = 0x0f
		formRef1      = 0x11
		formRef4      = 0x13
		formSecOffset = 0x17
	)
	ints := map[dwarf.Attr]bool{}
	for _, at := range dwarftype.Attrs {
		ints[at] = at != dwarf.AttrName && at != dwarf.AttrType && at != dwarf.AttrDeclaration
	}
	for _, tc := range []struct {
		name  string
		patch func(at dwarf.Attr, form uint8) (dwarf.Attr, uint8)
		// met: each is true of an entry the patch made.
		met []func(*dwarftype.Entry) bool
	}{
		{"bit_offset,count", func(at dwarf.Attr, form uint8) (dwarf.Attr, uint8) {
			switch at {
			case dwarf.AttrDataBitOffset:
				return dwarf.AttrBitOffset, form
			case dwarf.AttrUpperBound:
				return dwarf.AttrCount, form
			}
			return at, form
		}, []func(e *dwarftype.Entry) bool{
			func(e *dwarftype.Entry) bool { return e.BitOffset.OK },
			func(e *dwarftype.Entry) bool { return e.Count.OK },
		}},
		{"lower_bound,refs", func(at dwarf.Attr, form uint8) (dwarf.Attr, uint8) {
			switch {
			case at == dwarf.AttrUpperBound:
				return dwarf.AttrLowerBound, form
			case at == dwarf.AttrName && form == formStrp:
				return at, formData4
			case at == dwarf.AttrType && form == formRef4:
				return at, formData4
			case ints[at] && form == formData1:
				return at, formRef1
			}
			return at, form
		}, []func(e *dwarftype.Entry) bool{
			func(e *dwarftype.Entry) bool { return e.LowerBound.OK },
		}},
		{"flags,addr,udata", func(at dwarf.Attr, form uint8) (dwarf.Attr, uint8) {
			switch {
			case at == dwarf.AttrType && form == formRef4:
				return at, formSecOffset
			case ints[at] && form == formData1:
				return at, formFlag
			case ints[at] && form == formData8:
				return at, formAddr
			case ints[at] && form == formSdata:
				return at, formUdata
			}
			return at, form
		}, []func(e *dwarftype.Entry) bool{
			func(e *dwarftype.Entry) bool { return e.ConstValue.OK },
		}},
		// A second DW_AT_name, a DW_AT_type and a
		// DW_AT_data_member_location before the real one: the first
		// of each counts, as with Entry.Val.
		{"duplicates", func(at dwarf.Attr, form uint8) (dwarf.Attr, uint8) {
			switch at {
			case dwarf.AttrDeclFile:
				return dwarf.AttrName, form
			case dwarf.AttrDeclLine:
				return dwarf.AttrType, form
			case dwarf.AttrDeclColumn:
				return dwarf.AttrDataMemberLoc, form
			}
			return at, form
		}, []func(e *dwarftype.Entry) bool{
			func(e *dwarftype.Entry) bool { return e.Tag == dwarf.TagMember && e.Name != "" && e.Type == 0 },
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			met := make([]int, len(tc.met))
			f, err := elfobj.New(patchAbbrevs(t, b, tc.patch))
			if err != nil {
				t.Fatal(err)
			}
			x, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			n := checkTypeEntries(t, x, func(e *dwarftype.Entry) {
				for i, f := range tc.met {
					if f(e) {
						met[i]++
					}
				}
			})
			if n == 0 || slices.Contains(met, 0) {
				t.Errorf("%d entries read by NextType's own decoder; entries met per condition %v", n, met)
			}
		})
	}
}

// patchAbbrevs returns a copy of the ELF object b whose .debug_abbrev
// has each (attribute, form) pair of one byte each replaced by what patch
// gives (also of one byte each).
func patchAbbrevs(t *testing.T, b []byte, patch func(dwarf.Attr, uint8) (dwarf.Attr, uint8)) []byte {
	t.Helper()
	ef, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	s := ef.Section(".debug_abbrev")
	if s == nil || s.Flags&elf.SHF_COMPRESSED != 0 {
		t.Fatal("no uncompressed .debug_abbrev")
	}
	out := append([]byte(nil), b...)
	sec := out[s.Offset : s.Offset+s.Size]
	i := 0
	uleb := func() uint64 {
		var v uint64
		for sh := 0; i < len(sec); sh += 7 {
			c := sec[i]
			i++
			v |= uint64(c&0x7f) << sh
			if c < 0x80 {
				break
			}
		}
		return v
	}
	changed := 0
	for i < len(sec) {
		if uleb() == 0 { // the end of a table
			continue
		}
		uleb() // tag
		i++    // children
		for i < len(sec) {
			ai := i
			at := uleb()
			fi := i
			form := uleb()
			if at == 0 && form == 0 {
				break
			}
			if form == 0x21 { // DW_FORM_implicit_const
				uleb() // its value, a signed LEB128: skipped alike
			}
			if fi-ai != 1 || i-fi != 1 || form == 0x21 {
				continue
			}
			nat, nform := patch(dwarf.Attr(at), uint8(form))
			if nat >= 0x80 || nform >= 0x80 {
				t.Fatalf("patch to %v, %#x: not one byte each", nat, nform)
			}
			if nat != dwarf.Attr(at) || nform != uint8(form) {
				sec[ai], sec[fi] = byte(nat), nform
				changed++
			}
		}
	}
	if changed == 0 {
		t.Fatal("nothing patched")
	}
	return out
}
