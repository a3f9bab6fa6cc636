package dwarfsite

import (
	"debug/dwarf"

	"github.com/btfinline/btfinline/internal/dwarfbuf"
)

// The lookup reader: the entries an inlined subroutine refers to (its
// abstract origin, the parameters and types of that) are read by funcAt
// and typeAt, 610,000 of them in a vmlinux. lookReader reads them as
// debug/dwarf's Reader would (Seek, Next, SkipChildren), with the
// worker's own decoder while the entries are those of the unit being
// read, and hands over to debug/dwarf (w.lk) for the rest of a walk the
// moment an entry does not decode here: it replays the last entry on
// w.lk, so that w.lk stands where the walk stood, and goes on there.

// lookEntry is an entry as funcAt and typeAt read it.
type lookEntry struct {
	off                        dwarf.Offset
	tag                        dwarf.Tag
	children                   bool
	name, declFile, declLine   attrVal
	typ, origin, specification attrVal
	byteSize, encoding         attrVal
	count, upperBound          attrVal
	sibling                    attrVal
}

func (e *lookEntry) slot(at dwarf.Attr) *attrVal {
	switch at {
	case dwarf.AttrName:
		return &e.name
	case dwarf.AttrDeclFile:
		return &e.declFile
	case dwarf.AttrDeclLine:
		return &e.declLine
	case dwarf.AttrType:
		return &e.typ
	case dwarf.AttrAbstractOrigin:
		return &e.origin
	case dwarf.AttrSpecification:
		return &e.specification
	case dwarf.AttrByteSize:
		return &e.byteSize
	case dwarf.AttrEncoding:
		return &e.encoding
	case dwarf.AttrCount:
		return &e.count
	case dwarf.AttrUpperBound:
		return &e.upperBound
	case dwarf.AttrSibling:
		return &e.sibling
	}
	return nil
}

// fromEntry fills e from an entry debug/dwarf decoded.
func (e *lookEntry) fromEntry(d *dwarf.Entry) {
	*e = lookEntry{off: d.Offset, tag: d.Tag, children: d.Children}
	for i := range d.Field {
		f := &d.Field[i]
		if v := e.slot(f.Attr); v != nil && !v.present() {
			v.set(f)
		}
	}
}

type lookReader struct {
	w    *worker
	fast bool
	c    dwarfbuf.Buf // at the next entry, when fast
	// The last entry Next gave since Seek (hasLast), for a hand-over;
	// before one, the offset of the Seek.
	hasLast  bool
	lastOff  dwarf.Offset
	seekOff  dwarf.Offset
	skipped  bool         // its children were skipped since
	children bool         // of the last entry
	sibling  dwarf.Offset // its DW_AT_sibling, 0 if none
	e        lookEntry
	skipE    lookEntry
}

// Seek is Reader.Seek.
func (r *lookReader) Seek(off dwarf.Offset) {
	w := r.w
	u := w.u
	r.hasLast, r.seekOff, r.children, r.sibling, r.skipped = false, off, false, 0, false
	r.fast = w.fastLook && off >= u.dieOff && off < u.end
	if !r.fast {
		w.lk.Seek(off)
		return
	}
	r.c.Reset(0, w.o.debug[".debug_info"][:u.end])
	r.c.Skip(uint64(off))
}

// slow hands the walk over to w.lk.
func (r *lookReader) slow() {
	r.fast = false
	w := r.w
	if r.hasLast {
		w.lk.Seek(r.lastOff)
		w.next(w.lk)
		if r.skipped {
			w.lk.SkipChildren()
		}
	} else {
		w.lk.Seek(r.seekOff)
	}
}

// Next is Reader.Next (through worker.next); the entry is valid until
// the next call.
func (r *lookReader) Next() (*lookEntry, error) {
	if r.fast {
		off := dwarf.Offset(r.c.Off())
		if ok := r.decode(&r.e); ok {
			r.hasLast, r.lastOff, r.skipped = true, off, false
			r.children, r.sibling = r.e.children, 0
			if r.e.children {
				r.sibling, _ = r.e.sibling.offset()
			}
			return &r.e, nil
		}
		r.slow()
	}
	d, err := r.w.next(r.w.lk)
	if err != nil || d == nil {
		return nil, err
	}
	r.e.fromEntry(d)
	return &r.e, nil
}

// decode reads the entry at r.c into e; false (r.c then undefined) when
// it is left to debug/dwarf.
func (r *lookReader) decode(e *lookEntry) bool {
	off := dwarf.Offset(r.c.Off())
	if r.c.Left() == 0 {
		return false // the end of the unit: debug/dwarf goes on to the next
	}
	code := r.c.Uleb()
	if r.c.Err() != nil {
		return false
	}
	*e = lookEntry{off: off}
	if code == 0 {
		return true
	}
	ab := r.w.tab.get(code)
	if ab == nil {
		return false
	}
	e.tag, e.children = ab.tag, ab.children
	return r.w.decodeAttrs(&r.c, ab, e.slot)
}

// SkipChildren is Reader.SkipChildren.
func (r *lookReader) SkipChildren() {
	if !r.fast {
		r.w.lk.SkipChildren()
		return
	}
	if !r.children {
		return
	}
	// Reader.SkipChildren goes to the next unit from a unit's entry.
	if r.e.tag == dwarf.TagCompileUnit || r.e.tag == dwarf.TagPartialUnit || !r.skip(r.children, r.sibling) {
		r.slow()
		r.w.lk.SkipChildren()
		return
	}
	// A hand-over now replays the skip too; and like Reader.SkipChildren
	// (a Seek to the sibling, or a walk ending on the null entry) this
	// leaves no entry whose children a second call would skip.
	r.skipped, r.children, r.sibling = true, false, 0
}

// skip passes over the children of an entry (with the sibling it named)
// the way Reader.SkipChildren does: to the sibling when it lies ahead,
// else entry by entry; false if an entry there is left to debug/dwarf.
func (r *lookReader) skip(children bool, sibling dwarf.Offset) bool {
	if !children {
		return true
	}
	u := r.w.u
	if sibling >= dwarf.Offset(r.c.Off()) {
		if sibling < u.dieOff || sibling >= u.end {
			return false
		}
		r.c.Reset(0, r.w.o.debug[".debug_info"][:u.end])
		r.c.Skip(uint64(sibling))
		return true
	}
	// One entry for every depth: each is done with before the next read.
	e := &r.skipE
	for {
		if !r.decode(e) {
			return false
		}
		if e.tag == 0 {
			return true
		}
		sib := dwarf.Offset(0)
		if e.children {
			sib, _ = e.sibling.offset()
		}
		if !r.skip(e.children, sib) {
			return false
		}
	}
}
