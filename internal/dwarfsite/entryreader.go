package dwarfsite

import (
	"debug/dwarf"
	"strings"

	"github.com/btfinline/btfinline/internal/dwarfbuf"
)

// EntryReader reads the entries of an Object as a debug/dwarf Reader does
// (Seek, Next, SkipChildren, to the same entries, values and classes),
// for a reader of many entries that keeps none: the type converter of
// package dedup reads 930,000 of a vmlinux. It decodes an entry
// itself when its unit and forms allow (as the worker does: no strx or
// addrx forms, DWARF 4 or later) into one Entry it reuses, and hands the
// walk over to a debug/dwarf Reader, the last entry replayed on it, for
// any other; an Entry it returns is valid until the next call. NextType
// reads an entry into a TypeEntry instead, without an Entry or a boxed
// value. It is not safe for concurrent use; make one per goroutine.
type EntryReader struct {
	x    *Object
	lk   *lazyReader
	fast bool
	u    *unitHdr
	tab  *abbrevTable
	// tabs are the last abbreviation tables parsed, at offsets tabOff
	// (tabOK: it parsed), replaced in turn (next) and parsed into the
	// memory of the one replaced: a vmlinux's 2,600 tables would
	// otherwise allocate 200 MB for a converter.
	tabs   [maxEntryReaderTables]abbrevTable
	tabOff [maxEntryReaderTables]uint64
	tabOK  [maxEntryReaderTables]bool
	tabSet [maxEntryReaderTables]bool
	next   int
	// lent is a table its owner parsed at offset lentOff (lentOK: it
	// parsed) and keeps unchanged while the reader reads its unit: the
	// worker's unit table, which the reader of the unit's own entry would
	// otherwise parse again for one entry.
	lent    *abbrevTable
	lentOff uint64
	lentOK  bool
	c       dwarfbuf.Buf

	hasLast, skipped bool
	lastOff, seekOff dwarf.Offset
	// tag, children and sibling are those of the last entry read.
	tag      dwarf.Tag
	children bool
	sibling  dwarf.Offset
	e        dwarf.Entry
	fields   []dwarf.Field
	// keep, when set, are the attributes (below 256) an Entry holds.
	keep *[4]uint64
	// str and lineStr are .debug_str and .debug_line_str.
	str, lineStr string
}

// maxEntryReaderTables bounds the tables an EntryReader keeps; beyond it
// it starts over.
const maxEntryReaderTables = 2

// EntryReader returns a new EntryReader of x.
func (x *Object) EntryReader() *EntryReader {
	return &EntryReader{x: x, lk: &lazyReader{x: x}, c: dwarfbuf.Make(".debug_info", x.o.order, 0, nil),
		str: x.o.str, lineStr: x.o.lineStr}
}

// EntryReaderOf is EntryReader for a reader that looks at the attributes
// attrs only (each below 256): the Entries it decodes itself hold those
// (and DW_AT_sibling) alone, with the values and classes debug/dwarf
// gives them, and the others are passed over undecoded.
func (x *Object) EntryReaderOf(attrs ...dwarf.Attr) *EntryReader {
	r := x.EntryReader()
	r.keep = new([4]uint64)
	for _, at := range append(attrs, dwarf.AttrSibling) {
		if at < 256 {
			r.keep[at/64] |= 1 << (at % 64)
		}
	}
	return r
}

// Seek is dwarf.Reader.Seek.
func (r *EntryReader) Seek(off dwarf.Offset) {
	r.hasLast, r.skipped, r.seekOff, r.children, r.sibling = false, false, off, false, 0
	r.fast = false
	if u := r.x.unitOf(off); u != nil && off >= u.dieOff && r.x.ownDecoders(u) && r.table(u) {
		r.u, r.fast = u, true
		r.c.Reset(0, r.x.o.debug[".debug_info"][:u.end])
		r.c.Skip(uint64(off))
		return
	}
	r.lk.Seek(off)
}

// table makes u's abbreviation table r.tab; false if it does not parse.
func (r *EntryReader) table(u *unitHdr) bool {
	if r.lent != nil && r.lentOff == u.abbrev {
		r.tab = r.lent
		return r.lentOK
	}
	for i := range r.tabs {
		if r.tabSet[i] && r.tabOff[i] == u.abbrev {
			r.tab = &r.tabs[i]
			return r.tabOK[i]
		}
	}
	i := r.next
	r.next = (r.next + 1) % len(r.tabs)
	r.tabOff[i], r.tabSet[i] = u.abbrev, true
	r.tabOK[i] = r.tabs[i].parse(r.x.o.debug[".debug_abbrev"], u.abbrev, u) == nil
	r.tab = &r.tabs[i]
	return r.tabOK[i]
}

// lend makes r use t, parsed at off (ok: without error), for the units
// whose table is at off, until the next call; t must not change while r
// reads them.
func (r *EntryReader) lend(off uint64, t *abbrevTable, ok bool) {
	r.lent, r.lentOff, r.lentOK = t, off, ok
}

// slow hands the walk over to the debug/dwarf Reader.
func (r *EntryReader) slow() {
	r.fast = false
	if r.hasLast {
		r.lk.Seek(r.lastOff)
		r.lk.Next()
		if r.skipped {
			r.lk.SkipChildren()
		}
	} else {
		r.lk.Seek(r.seekOff)
	}
}

// Next is dwarf.Reader.Next.
func (r *EntryReader) Next() (*dwarf.Entry, error) {
	if r.fast {
		off := dwarf.Offset(r.c.Off())
		if e, ok := r.decode(); ok {
			var sib dwarf.Offset
			if e.Children {
				sib, _ = e.Val(dwarf.AttrSibling).(dwarf.Offset)
			}
			r.read(off, e.Tag, e.Children, sib)
			return e, nil
		}
		r.slow()
	}
	return r.lk.Next()
}

// read records the entry at off that the own decoder read (sibling: its
// DW_AT_sibling), for SkipChildren and slow.
func (r *EntryReader) read(off dwarf.Offset, tag dwarf.Tag, children bool, sibling dwarf.Offset) {
	r.hasLast, r.lastOff, r.skipped = true, off, false
	r.tag, r.children, r.sibling = tag, children, 0
	if children {
		r.sibling = sibling
	}
}

// head reads the abbreviation code of the entry at r.c: its abbreviation,
// nil for a null entry; false for an entry left to debug/dwarf.
func (r *EntryReader) head() (*abbrev, bool) {
	if r.c.Left() == 0 {
		return nil, false // the end of the unit: debug/dwarf goes on to the next
	}
	code := r.c.Uleb()
	if r.c.Err() != nil {
		return nil, false
	}
	if code == 0 {
		return nil, true
	}
	ab := r.tab.get(code)
	if ab == nil || ab.foreign {
		return nil, false
	}
	return ab, true
}

// decode reads the entry at r.c into r.e; false when it is left to
// debug/dwarf.
func (r *EntryReader) decode() (*dwarf.Entry, bool) {
	off := dwarf.Offset(r.c.Off())
	ab, ok := r.head()
	if !ok {
		return nil, false
	}
	r.e = dwarf.Entry{}
	if ab == nil {
		return &r.e, true // debug/dwarf's null entry: all zero
	}
	fs, ok := r.fieldsOf(ab, r.fields[:0])
	r.fields = fs[:0]
	if !ok {
		return nil, false
	}
	r.e = dwarf.Entry{Offset: off, Tag: ab.tag, Children: ab.children, Field: fs}
	return &r.e, true
}

// kept tells whether the entries r decodes hold attribute at.
func (r *EntryReader) kept(at dwarf.Attr) bool {
	k := r.keep
	return k == nil || at < 256 && k[at/64]&(1<<(at%64)) != 0
}

// fieldsOf appends the attributes of an entry with abbreviation ab (r.c
// just past its code) to fs as debug/dwarf gives them; false for one left
// to debug/dwarf.
func (r *EntryReader) fieldsOf(ab *abbrev, fs []dwarf.Field) ([]dwarf.Field, bool) {
	var v attrVal
	for i, form := range ab.forms {
		at := ab.attrs[i]
		if !r.kept(at) {
			if !r.skipValue(form) {
				return fs, false
			}
			continue
		}
		if !r.value(ab, i, &v) {
			return fs, false
		}
		fs = append(fs, dwarf.Field{Attr: at, Val: v.boxed(), Class: formClass(form, at)})
	}
	return fs, true
}

// skipValue passes over a value of form at r.c; false if it does not
// parse.
func (r *EntryReader) skipValue(form uint64) bool {
	skipForm(&r.c, form, r.u, 0)
	return r.c.Err() == nil
}

// value reads the value of the attribute i of abbreviation ab at r.c into
// v (readValue); false for a form left to debug/dwarf (rnglistx: its
// offset needs the unit's DW_AT_rnglists_base, which this reader does not
// keep) or a value that does not parse.
func (r *EntryReader) value(ab *abbrev, i int, v *attrVal) bool {
	return readValue(&r.c, r.u, ab, i, r.str, r.lineStr, v)
}

// readValue reads the value of the attribute i of abbreviation ab at c, in
// unit u, into v: its kind, the Go type debug/dwarf gives it, and the field
// of that kind (the class and the other fields are left as they were),
// the strings of strp and line_strp forms in str and lineStr; false for
// DW_FORM_rnglistx, for a form fastForm refuses, or a value that does not
// parse. The worker's entries and the EntryReader's read through it.
func readValue(c *dwarfbuf.Buf, u *unitHdr, ab *abbrev, i int, str, lineStr string, v *attrVal) bool {
	switch form := ab.forms[i]; form {
	case formAddr:
		v.kind, v.u = valUint, c.Sized(u.asize)
	case formData1:
		v.kind, v.u = valInt, uint64(c.U8())
	case formData2:
		v.kind, v.u = valInt, uint64(c.U16())
	case formData4:
		v.kind, v.u = valInt, uint64(c.U32())
	case formData8:
		v.kind, v.u = valInt, c.U64()
	case formSdata:
		x, exact := c.SlebWide()
		if !exact {
			return false
		}
		v.kind, v.u = valInt, uint64(x)
	case formUdata:
		x, exact := c.UlebWide()
		if !exact {
			return false
		}
		v.kind, v.u = valInt, x
	case formImplicitConst:
		v.kind, v.u = valInt, uint64(ab.implicit[i])
	case formFlag:
		v.kind, v.u = valBool, 0
		if c.U8() == 1 {
			v.u = 1
		}
	case formFlagPresent:
		v.kind, v.u = valBool, 1
	case formRef1, formRef2, formRef4, formRef8:
		v.kind, v.u = valOffset, uint64(dwarf.Offset(readUnitRef(c, form, u)))
	case formString:
		v.kind, v.s = valString, string(c.CString())
	case formStrp, formLineStrp:
		data := str
		if form == formLineStrp {
			data = lineStr
		}
		so := c.Sized(offSize(u))
		if c.Err() != nil || so >= uint64(len(data)) {
			return false
		}
		n := strings.IndexByte(data[so:], 0)
		if n < 0 {
			return false
		}
		v.kind, v.s = valString, data[so:so+uint64(n)]
	case formSecOffset:
		v.kind, v.u = valInt, c.Sized(offSize(u))
	case formExprloc, formBlock, formBlock1, formBlock2, formBlock4:
		v.kind, v.b = valBytes, c.Bytes(blockLen(c, form))
	case formLoclistx:
		v.kind, v.u = valUint, c.Uleb()
	default:
		return false
	}
	return c.Err() == nil
}

// boxed is v as a dwarf.Field's Val.
func (v *attrVal) boxed() any {
	switch v.kind {
	case valInt:
		return int64(v.u)
	case valUint:
		return v.u
	case valOffset:
		return dwarf.Offset(v.u)
	case valBytes:
		return v.b
	case valString:
		return v.s
	case valBool:
		return v.u == 1
	}
	return nil
}

// formClass is debug/dwarf's class of an attribute at of a form that
// fieldsOf or the worker's decodeAttrs reads, in a unit of version 4 or
// later.
func formClass(form uint64, at dwarf.Attr) dwarf.Class {
	switch form {
	case formAddr:
		return dwarf.ClassAddress
	case formBlock, formBlock1, formBlock2, formBlock4:
		if attrIsExprloc(at) {
			return dwarf.ClassExprLoc
		}
		return dwarf.ClassBlock
	case formData1, formData2, formData4, formData8, formSdata, formUdata, formImplicitConst:
		return dwarf.ClassConstant
	case formFlag, formFlagPresent:
		return dwarf.ClassFlag
	case formRef1, formRef2, formRef4, formRef8:
		return dwarf.ClassReference
	case formString, formStrp, formLineStrp:
		return dwarf.ClassString
	case formSecOffset:
		return attrPtrClass(at)
	case formExprloc:
		return dwarf.ClassExprLoc
	case formLoclistx:
		return dwarf.ClassLocList
	case formRnglistx:
		return dwarf.ClassRngList
	}
	return dwarf.ClassUnknown
}

// attrIsExprloc: the attributes whose block forms debug/dwarf classes as
// expressions.
func attrIsExprloc(at dwarf.Attr) bool {
	switch at {
	case dwarf.AttrLocation, dwarf.AttrByteSize, dwarf.AttrBitOffset, dwarf.AttrBitSize,
		dwarf.AttrStringLength, dwarf.AttrLowerBound, dwarf.AttrReturnAddr, dwarf.AttrStrideSize,
		dwarf.AttrUpperBound, dwarf.AttrCount, dwarf.AttrDataMemberLoc, dwarf.AttrFrameBase,
		dwarf.AttrSegment, dwarf.AttrStaticLink, dwarf.AttrUseLocation, dwarf.AttrVtableElemLoc,
		dwarf.AttrAllocated, dwarf.AttrAssociated, dwarf.AttrDataLocation, dwarf.AttrStride:
		return true
	}
	return false
}

// attrPtrClass is debug/dwarf's class of a DW_FORM_sec_offset attribute.
func attrPtrClass(at dwarf.Attr) dwarf.Class {
	switch at {
	case dwarf.AttrLocation, dwarf.AttrStringLength, dwarf.AttrReturnAddr, dwarf.AttrDataMemberLoc,
		dwarf.AttrFrameBase, dwarf.AttrSegment, dwarf.AttrStaticLink, dwarf.AttrUseLocation,
		dwarf.AttrVtableElemLoc, dwarf.AttrLoclistsBase:
		return dwarf.ClassLocListPtr
	case dwarf.AttrStmtList:
		return dwarf.ClassLinePtr
	case dwarf.AttrStartScope, dwarf.AttrRanges:
		return dwarf.ClassRangeListPtr
	case dwarf.AttrMacroInfo:
		return dwarf.ClassMacPtr
	case dwarf.AttrStrOffsetsBase:
		return dwarf.ClassStrOffsetsPtr
	case dwarf.AttrAddrBase:
		return dwarf.ClassAddrPtr
	case dwarf.AttrRnglistsBase:
		return dwarf.ClassRngListsPtr
	}
	return dwarf.ClassUnknown
}

// SkipChildren is dwarf.Reader.SkipChildren.
func (r *EntryReader) SkipChildren() {
	if !r.fast {
		r.lk.SkipChildren()
		return
	}
	if !r.children {
		return
	}
	// dwarf.Reader goes to the next unit from a unit's entry.
	if r.tag == dwarf.TagCompileUnit || r.tag == dwarf.TagPartialUnit || !r.skip(r.sibling) {
		r.slow()
		r.lk.SkipChildren()
		return
	}
	r.skipped, r.children, r.sibling = true, false, 0
}

// skip passes over the children of an entry that has them (with the
// sibling it named) as dwarf.Reader.SkipChildren does: to the sibling
// when it lies ahead, else entry by entry; false if an entry there is
// left to debug/dwarf.
func (r *EntryReader) skip(sibling dwarf.Offset) bool {
	u := r.u
	if sibling >= dwarf.Offset(r.c.Off()) {
		if sibling < u.dieOff || sibling >= u.end {
			return false
		}
		r.c.Reset(0, r.x.o.debug[".debug_info"][:u.end])
		r.c.Skip(uint64(sibling))
		return true
	}
	for {
		e, ok := r.decode()
		if !ok {
			return false
		}
		if e.Tag == 0 {
			return true
		}
		if e.Children {
			sib, _ := e.Val(dwarf.AttrSibling).(dwarf.Offset)
			if !r.skip(sib) {
				return false
			}
		}
	}
}
