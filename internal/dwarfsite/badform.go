package dwarfsite

import (
	"debug/dwarf"

	"github.com/btfinline/btfinline/internal/dwarfbuf"
)

// Attribute forms debug/dwarf cannot decode.
//
// debug/dwarf refuses a whole file whose .debug_abbrev names a form it does
// not know (one a newer DWARF or a vendor defines, or GNU's split-DWARF
// index forms), although only the entries with such an abbreviation are
// affected. goAbbrevs hands it a copy of the section in which each such
// form is spelled DW_FORM_flag_present, padded to the same length so that
// no table moves; the abbreviations that had one are then "foreign": the
// scanner sizes them with its own table of forms (or, for a form it does
// not know either, passes over the entry to its sibling) and never asks
// debug/dwarf to decode one (guard), since debug/dwarf would read it with
// the wrong form.

// goKnowsForm tells the forms debug/dwarf decodes.
func goKnowsForm(form uint64) bool {
	return form >= formAddr && form <= formAddrx4 && form != 0x02 || form == formGNURefAlt || form == formGNUStrpAlt
}

// goAbbrevs returns the .debug_abbrev section for debug/dwarf: data itself
// when every form is one debug/dwarf knows, else a patched copy. A section
// it cannot walk is returned as is (debug/dwarf will report it).
func goAbbrevs(data []byte) (out []byte, foreign bool) {
	c := dwarfbuf.Make(".debug_abbrev", nil, 0, data)
	for c.Left() > 0 {
		if c.Uleb() == 0 { // end of a table
			continue
		}
		c.Uleb() // tag
		c.U8()   // children
		for c.Err() == nil {
			at := c.Uleb()
			fstart := c.Off()
			form := c.Uleb()
			if at == 0 && form == 0 {
				break
			}
			if form == formImplicitConst {
				c.SkipLeb()
			}
			if c.Err() != nil || goKnowsForm(form) {
				continue
			}
			if out == nil {
				out = append([]byte(nil), data...)
			}
			// DW_FORM_flag_present in as many LEB128 bytes as the form
			// had: redundant zero groups are allowed.
			end := c.Off()
			for i := fstart; i < end; i++ {
				out[i] = 0x80
			}
			out[fstart] |= formFlagPresent
			out[end-1] &= 0x7f
		}
		if c.Err() != nil {
			return data, false
		}
	}
	if out == nil {
		return data, false
	}
	return out, true
}

// next is Reader.Next for every entry the worker decodes with debug/dwarf:
// in an object with foreign abbreviations it refuses an entry that has one
// (debug/dwarf read it with the wrong forms, and the reader's position
// after it is lost).
func (w *worker) next(r *lazyReader) (*dwarf.Entry, error) {
	e, err := r.Next()
	if err != nil || e == nil || e.Tag == 0 || !w.o.foreign {
		return e, err
	}
	if a := w.abbrevAt(e.Offset); a == nil || a.foreign {
		return nil, &FormatError{Section: ".debug_info", Offset: int64(e.Offset), Msg: "entry has an attribute form debug/dwarf cannot decode"}
	}
	return e, nil
}

// abbrevAt is the abbreviation of the entry at off, nil if there is none.
func (w *worker) abbrevAt(off dwarf.Offset) *abbrev {
	u := w.unitOf(off)
	if u == nil {
		return nil
	}
	tab, ok := w.abbrevs[u.abbrev]
	if !ok {
		tab, _ = parseAbbrevs(w.o.debug[".debug_abbrev"], u.abbrev, u)
		w.abbrevs[u.abbrev] = tab
	}
	if tab == nil {
		return nil
	}
	c := dwarfbuf.Make(".debug_info", nil, int64(off), w.o.debug[".debug_info"][off:u.end])
	return tab.get(c.Uleb())
}
