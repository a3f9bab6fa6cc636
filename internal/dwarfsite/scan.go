package dwarfsite

import (
	"debug/dwarf"
	"encoding/binary"

	"github.com/btfinline/btfinline/internal/dwarfbuf"
)

// The DIE scanner. debug/dwarf's Reader decodes every attribute of every
// entry into allocated values; a vmlinux has 14 million entries of which
// under a million matter here (inlined subroutines and their parameters).
// The scanner walks the tree by abbreviation code and attribute forms,
// skipping attributes without decoding them, and decodes only the
// entries that matter (entry.go).

// DWARF forms (DWARF 5 section 7.5.6, plus GNU alternates).
const (
	formAddr          = 0x01
	formBlock2        = 0x03
	formBlock4        = 0x04
	formData2         = 0x05
	formData4         = 0x06
	formData8         = 0x07
	formString        = 0x08
	formBlock         = 0x09
	formBlock1        = 0x0a
	formData1         = 0x0b
	formFlag          = 0x0c
	formSdata         = 0x0d
	formStrp          = 0x0e
	formUdata         = 0x0f
	formRefAddr       = 0x10
	formRef1          = 0x11
	formRef2          = 0x12
	formRef4          = 0x13
	formRef8          = 0x14
	formRefUdata      = 0x15
	formIndirect      = 0x16
	formSecOffset     = 0x17
	formExprloc       = 0x18
	formFlagPresent   = 0x19
	formStrx          = 0x1a
	formAddrx         = 0x1b
	formRefSup4       = 0x1c
	formStrpSup       = 0x1d
	formData16        = 0x1e
	formLineStrp      = 0x1f
	formRefSig8       = 0x20
	formImplicitConst = 0x21
	formLoclistx      = 0x22
	formRnglistx      = 0x23
	formRefSup8       = 0x24
	formStrx1         = 0x25
	formStrx2         = 0x26
	formStrx3         = 0x27
	formStrx4         = 0x28
	formAddrx1        = 0x29
	formAddrx2        = 0x2a
	formAddrx3        = 0x2b
	formAddrx4        = 0x2c
	formGNUAddrIndex  = 0x1f01
	formGNUStrIndex   = 0x1f02
	formGNURefAlt     = 0x1f20
	formGNUStrpAlt    = 0x1f21
)

type abbrev struct {
	tag      dwarf.Tag
	children bool
	fixed    int // byte size of all attributes if every form has a fixed size, else -1
	forms    []uint64
	attrs    []dwarf.Attr // attribute of each form
	// implicit holds the DW_FORM_implicit_const value of each form (0 for
	// the other forms).
	implicit []int64
	// sibling is the index in forms of DW_AT_sibling, -1 if none. The
	// scanner reads it so that a failure inside a subtree can resume at
	// the sibling instead of losing the rest of the unit.
	sibling int
	sibOff  int // byte offset of DW_AT_sibling in the attributes, when fixed >= 0
	// foreign: a form debug/dwarf cannot decode (see badform.go).
	foreign bool
	// code, and where forms, attrs and implicit sit in the table's
	// storage, while the table is parsed.
	code   uint64
	fs, fe int
}

type abbrevTable struct {
	dense  []*abbrev // by code, for the usual 1..N numbering
	sparse map[uint64]*abbrev
	// The storage of the entries, reused when the table is parsed again:
	// a vmlinux has a table per unit, 2,600 of them with 300 entries
	// each, which allocated apiece were a tenth of an encode's objects.
	all      []abbrev
	forms    []uint64
	attrs    []dwarf.Attr
	implicit []int64
}

func (t *abbrevTable) get(code uint64) *abbrev {
	if code < uint64(len(t.dense)) {
		return t.dense[code]
	}
	return t.sparse[code]
}

// parseAbbrevs reads the abbreviation table at off for a unit with the
// given address and offset sizes.
func parseAbbrevs(data []byte, off uint64, u *unitHdr) (*abbrevTable, error) {
	if off >= uint64(len(data)) {
		return nil, abbrevOffError(off)
	}
	t := &abbrevTable{}
	return t, t.parse(data, off, u)
}

func abbrevOffError(off uint64) error {
	return &FormatError{Section: ".debug_abbrev", Offset: int64(off), Msg: "abbreviation table offset past end of section"}
}

// parse is parseAbbrevs into t, replacing what t held.
func (t *abbrevTable) parse(data []byte, off uint64, u *unitHdr) error {
	t.dense, t.sparse = t.dense[:0], nil
	t.all, t.forms, t.attrs, t.implicit = t.all[:0], t.forms[:0], t.attrs[:0], t.implicit[:0]
	if off >= uint64(len(data)) {
		return abbrevOffError(off)
	}
	c := dwarfbuf.Make(".debug_abbrev", nil, int64(off), data[off:])
	for c.Err() == nil {
		code := c.Uleb()
		if code == 0 {
			break
		}
		a := abbrev{code: code, tag: dwarf.Tag(c.Uleb()), children: c.U8() != 0, sibling: -1, fs: len(t.forms)}
		for c.Err() == nil {
			at, form := c.Uleb(), c.Uleb()
			if at == 0 && form == 0 {
				break
			}
			var ic int64
			if form == formImplicitConst {
				ic, _ = c.SlebWide()
			}
			if !goKnowsForm(form) {
				a.foreign = true
			}
			if dwarf.Attr(at) == dwarf.AttrSibling && isUnitRef(form) && a.sibling < 0 {
				a.sibling = len(t.forms) - a.fs
			}
			t.forms = append(t.forms, form)
			t.attrs = append(t.attrs, dwarf.Attr(at))
			t.implicit = append(t.implicit, ic)
		}
		a.fe = len(t.forms)
		t.all = append(t.all, a)
	}
	// The storage is complete: point the entries into it.
	for i := range t.all {
		a := &t.all[i]
		a.forms = t.forms[a.fs:a.fe:a.fe]
		a.attrs = t.attrs[a.fs:a.fe:a.fe]
		a.implicit = t.implicit[a.fs:a.fe:a.fe]
		a.fixed = 0
		for i, f := range a.forms {
			n := fixedFormSize(f, u)
			if n < 0 {
				a.fixed = -1
				break
			}
			if i == a.sibling {
				a.sibOff = a.fixed
			}
			a.fixed += n
		}
		code := a.code
		switch {
		case code < 1<<16 && code == uint64(len(t.dense)):
			t.dense = append(t.dense, a)
		case code < uint64(len(t.dense)):
			if t.dense[code] == nil {
				t.dense[code] = a
			}
		case code < 1<<16 && code < 2*uint64(len(t.dense))+64:
			for uint64(len(t.dense)) < code {
				t.dense = append(t.dense, nil)
			}
			t.dense = append(t.dense, a)
		default:
			if t.sparse == nil {
				t.sparse = make(map[uint64]*abbrev)
			}
			t.sparse[code] = a
		}
		if len(t.dense) == 0 {
			t.dense = append(t.dense, nil)
		}
	}
	return c.Err()
}

func offSize(u *unitHdr) int {
	if u.is64 {
		return 8
	}
	return 4
}

// fixedFormSize is the encoded size of form, or -1 if it varies.
func fixedFormSize(form uint64, u *unitHdr) int {
	switch form {
	case formAddr:
		return u.asize
	case formData1, formRef1, formFlag, formStrx1, formAddrx1:
		return 1
	case formData2, formRef2, formStrx2, formAddrx2:
		return 2
	case formStrx3, formAddrx3:
		return 3
	case formData4, formRef4, formRefSup4, formStrx4, formAddrx4:
		return 4
	case formData8, formRef8, formRefSig8, formRefSup8:
		return 8
	case formData16:
		return 16
	case formStrp, formLineStrp, formSecOffset, formGNURefAlt, formGNUStrpAlt, formStrpSup:
		return offSize(u)
	case formRefAddr:
		if u.version <= 2 {
			return u.asize
		}
		return offSize(u)
	case formFlagPresent, formImplicitConst:
		return 0
	}
	return -1
}

// skipAttrs moves c past the attributes of an entry with abbreviation a
// and returns the section offset of its DW_AT_sibling (0 if it has none,
// or if the attributes could not be read as far as it).
func skipAttrs(c *dwarfbuf.Buf, a *abbrev, u *unitHdr) (sibling uint64) {
	if a.fixed >= 0 {
		if a.sibling < 0 {
			c.Skip(uint64(a.fixed))
			return 0
		}
		f := a.forms[a.sibling]
		c.Skip(uint64(a.sibOff))
		sibling = readUnitRef(c, f, u)
		c.Skip(uint64(a.fixed - a.sibOff - fixedFormSize(f, u)))
		return sibling
	}
	for i, f := range a.forms {
		if i == a.sibling {
			sibling = readUnitRef(c, f, u)
			continue
		}
		skipForm(c, f, u, 0)
		if c.Err() != nil {
			return sibling
		}
	}
	return sibling
}

// isUnitRef tells the forms of a reference within the unit.
func isUnitRef(form uint64) bool {
	switch form {
	case formRef1, formRef2, formRef4, formRef8, formRefUdata:
		return true
	}
	return false
}

// readUnitRef reads a unit-relative reference as a section offset.
func readUnitRef(c *dwarfbuf.Buf, form uint64, u *unitHdr) uint64 {
	var v uint64
	switch form {
	case formRef1:
		v = uint64(c.U8())
	case formRef2:
		v = uint64(c.U16())
	case formRef4:
		v = uint64(c.U32())
	case formRef8:
		v = c.U64()
	default:
		v = c.Uleb()
	}
	return uint64(u.off) + v
}

func skipForm(c *dwarfbuf.Buf, form uint64, u *unitHdr, depth int) {
	if n := fixedFormSize(form, u); n >= 0 {
		c.Skip(uint64(n))
		return
	}
	switch form {
	case formSdata, formUdata, formRefUdata, formStrx, formAddrx, formLoclistx,
		formRnglistx, formGNUAddrIndex, formGNUStrIndex:
		// Skipped, not decoded: a constant of any width is no error here.
		c.SkipLeb()
	case formString:
		c.CString()
	case formBlock1, formBlock2, formBlock4, formBlock, formExprloc:
		c.Skip(blockLen(c, form))
	case formIndirect:
		if depth > 2 {
			c.Fail("nested DW_FORM_indirect")
			return
		}
		skipForm(c, c.Uleb(), u, depth+1)
	default:
		c.Failf("unknown attribute form 0x%x", form)
	}
}

// countInlined counts the DW_TAG_inlined_subroutine entries of unit u
// without decoding any: the sites of a unit left out.
func countInlined(info []byte, u *unitHdr, tab *abbrevTable, order binary.ByteOrder) int {
	c := dwarfbuf.Make(".debug_info", order, 0, info[:u.end])
	c.Skip(uint64(u.dieOff))
	n := 0
	for c.Left() > 0 && c.Err() == nil {
		code := c.Uleb()
		if code == 0 {
			continue
		}
		ab := tab.get(code)
		if ab == nil {
			break
		}
		skipAttrs(&c, ab, u)
		if ab.tag == dwarf.TagInlinedSubroutine {
			n++
		}
	}
	return n
}

// blockLen reads the length that starts a block-class attribute of form
// (DW_FORM_block1/2/4 and the ULEB128 of block and exprloc).
func blockLen(c *dwarfbuf.Buf, form uint64) uint64 {
	switch form {
	case formBlock1:
		return uint64(c.U8())
	case formBlock2:
		return uint64(c.U16())
	case formBlock4:
		return uint64(c.U32())
	}
	return c.Uleb()
}
