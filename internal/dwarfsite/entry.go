package dwarfsite

import (
	"debug/dwarf"

	"github.com/btfinline/btfinline/internal/dwarfbuf"
)

// The attributes of the entries read per site. A vmlinux has about
// 310,000 inlined subroutine entries and 480,000 parameter entries under
// them; debug/dwarf's Reader gives each an allocated Entry, a slice of
// Fields and a boxed value per attribute, which was a third of the
// objects an encode allocated. The worker decodes the few attributes it
// uses of these entries itself, into typed values, and asks debug/dwarf
// only for an entry whose forms it does not decode the same way (see
// fastForm) or whose decoding fails here: the values are then
// debug/dwarf's own, so both paths read every entry alike.

// valKind is the dynamic type debug/dwarf gives a Field.Val.
type valKind uint8

const (
	valNone   valKind = iota // attribute absent
	valInt                   // int64: constants, section offsets
	valUint                  // uint64: addresses, loclistx, rnglistx
	valOffset                // dwarf.Offset: references
	valBytes                 // []byte: blocks, exprloc
	valString                // string
	valBool                  // bool: flags
	valOther                 // another type (debug/dwarf only)
)

// attrVal is one attribute's value as debug/dwarf would give it.
type attrVal struct {
	class dwarf.Class
	kind  valKind
	u     uint64 // valInt (as two's complement), valUint, valOffset, valBool (1)
	b     []byte
	s     string
}

func (a *attrVal) present() bool { return a.kind != valNone }

func (a *attrVal) int() (int64, bool) { return int64(a.u), a.kind == valInt }

func (a *attrVal) uint() (uint64, bool) { return a.u, a.kind == valUint }

func (a *attrVal) offset() (dwarf.Offset, bool) { return dwarf.Offset(a.u), a.kind == valOffset }

func (a *attrVal) str() (string, bool) { return a.s, a.kind == valString }

// siteAttrs are the attributes the worker reads of an inlined subroutine
// or formal parameter entry; the first of each, as Entry.Val takes it.
type siteAttrs struct {
	off                                    dwarf.Offset
	lowpc, highpc, ranges, entrypc, origin attrVal
	callLine, callFile, entryView          attrVal
	name, location, constValue, locviews   attrVal
}

// slot is where attribute at goes, nil for one the worker does not read.
func (s *siteAttrs) slot(at dwarf.Attr) *attrVal {
	switch at {
	case dwarf.AttrLowpc:
		return &s.lowpc
	case dwarf.AttrHighpc:
		return &s.highpc
	case dwarf.AttrRanges:
		return &s.ranges
	case dwarf.AttrEntrypc:
		return &s.entrypc
	case dwarf.AttrAbstractOrigin:
		return &s.origin
	case dwarf.AttrCallLine:
		return &s.callLine
	case dwarf.AttrCallFile:
		return &s.callFile
	case attrGNUEntryView:
		return &s.entryView
	case dwarf.AttrName:
		return &s.name
	case dwarf.AttrLocation:
		return &s.location
	case dwarf.AttrConstValue:
		return &s.constValue
	case attrGNULocviews:
		return &s.locviews
	}
	return nil
}

// fromEntry fills s from an entry debug/dwarf decoded.
func (s *siteAttrs) fromEntry(e *dwarf.Entry) {
	*s = siteAttrs{off: e.Offset}
	for i := range e.Field {
		f := &e.Field[i]
		v := s.slot(f.Attr)
		if v != nil && !v.present() {
			v.set(f)
		}
	}
}

// set makes v the value of f.
func (v *attrVal) set(f *dwarf.Field) {
	*v = attrVal{class: f.Class}
	switch x := f.Val.(type) {
	case int64:
		v.kind, v.u = valInt, uint64(x)
	case uint64:
		v.kind, v.u = valUint, x
	case dwarf.Offset:
		v.kind, v.u = valOffset, uint64(x)
	case []byte:
		v.kind, v.b = valBytes, x
	case string:
		v.kind, v.s = valString, x
	case bool:
		v.kind = valBool
		if x {
			v.u = 1
		}
	default:
		v.kind = valOther
	}
}

// fastForm tells the forms decodeSiteAttrs decodes as debug/dwarf does,
// for a unit of version >= 4 (older units encode pointer classes as
// constants, which debug/dwarf tells apart by attribute).
func fastForm(form uint64) bool {
	switch form {
	case formAddr, formData1, formData2, formData4, formData8, formSdata, formUdata,
		formImplicitConst, formFlag, formFlagPresent, formRef1, formRef2, formRef4,
		formRef8, formString, formStrp, formLineStrp, formSecOffset,
		formExprloc, formBlock1, formBlock2, formBlock4, formBlock, formLoclistx,
		formRnglistx:
		return true
	}
	return false
}

// siteAttrsAt reads the attributes of the entry at off (abbreviation
// ab) into s; false when an entry cannot be read (warned).
func (w *worker) siteAttrsAt(off dwarf.Offset, ab *abbrev, s *siteAttrs) bool {
	if w.decodeSiteAttrs(off, ab, s) {
		return true
	}
	e := w.entryAt(off)
	if e == nil {
		return false
	}
	s.fromEntry(e)
	return true
}

// decodeSiteAttrs is siteAttrsAt without debug/dwarf: false for an entry
// it leaves to debug/dwarf.
func (w *worker) decodeSiteAttrs(off dwarf.Offset, ab *abbrev, s *siteAttrs) bool {
	if !w.fastLook {
		return false
	}
	c := dwarfbuf.Make(".debug_info", w.o.order, 0, w.o.debug[".debug_info"][:w.u.end])
	c.Skip(uint64(off))
	c.Uleb() // the abbreviation code
	*s = siteAttrs{off: off}
	return w.decodeAttrs(&c, ab, s.slot)
}

// decodeAttrs reads the attributes of an entry of the unit being read
// (abbreviation ab, c just past its code) into the slots slot gives
// (nil: one not kept; a slot already set keeps the first value); false
// for an entry left to debug/dwarf. Only with w.fastLook.
func (w *worker) decodeAttrs(c *dwarfbuf.Buf, ab *abbrev, slot func(dwarf.Attr) *attrVal) bool {
	u := w.u
	if ab.foreign {
		return false
	}
	for i, form := range ab.forms {
		if !fastForm(form) {
			return false
		}
		v := slot(ab.attrs[i])
		if v != nil && v.present() {
			v = nil // Entry.Val takes the first
		}
		if v == nil {
			skipForm(c, form, u, 0)
			if c.Err() != nil {
				return false
			}
			continue
		}
		if form == formRnglistx {
			// Resolved to the list's offset through the unit's offset
			// table, as debug/dwarf does (a loclistx stays an index).
			off, ok := w.offsetx(".debug_rnglists", w.o.debug[".debug_rnglists"], w.rngListsBase, c.Uleb())
			if !ok {
				return false
			}
			v.class, v.kind, v.u = dwarf.ClassRngList, valUint, uint64(off)
		} else {
			if !readValue(c, u, ab, i, w.str, w.lineStr, v) {
				return false
			}
			// debug/dwarf's class, as the entries it reads carry
			// (fromEntry): the worker looks at it for DW_AT_location,
			// DW_AT_high_pc and DW_AT_ranges.
			v.class = formClass(form, ab.attrs[i])
		}
		if c.Err() != nil {
			return false
		}
	}
	return true
}
