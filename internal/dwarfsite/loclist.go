package dwarfsite

import (
	"fmt"

	"github.com/btfinline/btfinline/internal/dwarfbuf"
)

// locEntry is one bounded entry of a location list: the expression holds
// for addresses [Low, High) — with GCC location views, for the
// (address, view) pairs from (Low, LowView) up to but excluding
// (High, HighView). Default marks DW_LLE_default_location.
type locEntry struct {
	Low, High         uint64
	LowView, HighView uint64
	HasViews          bool
	Default           bool
	Expr              []byte
	ExprOff           int64 // section offset of Expr, for error messages
}

// locListSec is a .debug_loclists (DWARF 5) or .debug_loc (DWARF 2-4)
// section, relocated if the object is ET_REL.
type locListSec struct {
	Name string // ".debug_loclists" or ".debug_loc"
	Data []byte
	V5   bool
}

// locListUnit is what reading a list needs from its unit.
type locListUnit struct {
	Format exprFormat
	Base   uint64 // the unit's base address (DW_AT_low_pc of the CU)
	// Addrx resolves DW_LLE_*x indices through .debug_addr; nil if the
	// unit has none.
	Addrx func(idx uint64) (uint64, bool)
}

// readLocList decodes the location list at off. viewsOff is the offset of
// the list's GCC view pairs (DW_AT_GNU_locviews), or -1. The number of
// entries is bounded by the section size.
func readLocList(sec *locListSec, off, viewsOff int64, u *locListUnit) ([]locEntry, error) {
	return readLocListTo(nil, sec, off, viewsOff, u)
}

// readLocListTo is readLocList appending to out, whose memory a caller
// reuses from list to list.
func readLocListTo(out []locEntry, sec *locListSec, off, viewsOff int64, u *locListUnit) ([]locEntry, error) {
	if off < 0 || off >= int64(len(sec.Data)) {
		return nil, &FormatError{Section: sec.Name, Offset: off, Msg: "location list offset past end of section"}
	}
	c := dwarfbuf.Make(sec.Name, u.Format.Order, off, sec.Data[off:])
	var vc *dwarfbuf.Buf
	if viewsOff >= 0 {
		if viewsOff >= int64(len(sec.Data)) {
			return nil, &FormatError{Section: sec.Name, Offset: viewsOff, Msg: "location view list offset past end of section"}
		}
		vb := dwarfbuf.Make(sec.Name, u.Format.Order, viewsOff, sec.Data[viewsOff:])
		vc = &vb
	}
	as := u.Format.AddrSize
	if as != 4 && as != 8 {
		return nil, &FormatError{Section: sec.Name, Offset: off, Msg: fmt.Sprintf("unsupported address size %d", as)}
	}
	maxAddr := uint64(1)<<(8*uint(as)) - 1
	if as == 8 {
		maxAddr = ^uint64(0)
	}
	base := u.Base
	// A pending DW_LLE_GNU_view_pair applies to the next bounded entry.
	var pendView [2]uint64
	hasPendView := false
	addrx := func(idx uint64) uint64 {
		if u.Addrx == nil {
			c.Fail("DW_LLE_*x entry without .debug_addr")
			return 0
		}
		v, ok := u.Addrx(idx)
		if !ok {
			c.Failf("address index %d out of range", idx)
		}
		return v
	}
	for c.Err() == nil {
		start := c.Pos()
		var e locEntry
		if sec.V5 {
			kind := lleKind(c.U8())
			switch kind {
			case lleEndOfList:
				return out, c.Err() // a failed read is 0 too
			case lleBaseAddressx:
				base = addrx(c.Uleb())
				continue
			case lleBaseAddress:
				base = c.Sized(as)
				continue
			case lleGNUViewPair:
				pendView, hasPendView = [2]uint64{c.Uleb(), c.Uleb()}, true
				continue
			case lleStartxEndx:
				e.Low = addrx(c.Uleb())
				e.High = addrx(c.Uleb())
			case lleStartxLength:
				e.Low = addrx(c.Uleb())
				e.High = e.Low + c.Uleb()
			case lleOffsetPair:
				e.Low = base + c.Uleb()
				e.High = base + c.Uleb()
			case lleDefaultLoc:
				e.Default = true
			case lleStartEnd:
				e.Low = c.Sized(as)
				e.High = c.Sized(as)
			case lleStartLength:
				e.Low = c.Sized(as)
				e.High = e.Low + c.Uleb()
			default:
				c.FailAt(c.Pos()-1, "unknown location list entry kind "+kind.String())
				return out, c.Err()
			}
			n := c.Uleb()
			e.ExprOff = c.Pos()
			e.Expr = c.Bytes(n)
		} else {
			lo, hi := c.Sized(as), c.Sized(as)
			if c.Err() != nil {
				break
			}
			if lo == 0 && hi == 0 {
				return out, nil
			}
			if lo == maxAddr {
				base = hi
				continue
			}
			e.Low, e.High = base+lo, base+hi
			n := c.U16()
			e.ExprOff = c.Pos()
			e.Expr = c.Bytes(uint64(n))
		}
		if c.Err() != nil {
			break
		}
		if hasPendView {
			e.LowView, e.HighView, e.HasViews = pendView[0], pendView[1], true
			hasPendView = false
		} else if vc != nil && !e.Default {
			e.LowView, e.HighView, e.HasViews = vc.Uleb(), vc.Uleb(), true
			if err := vc.Err(); err != nil {
				return out, err
			}
		}
		if c.Pos() <= start {
			c.Fail("location list makes no progress")
		}
		out = append(out, e)
	}
	return out, c.Err()
}

// holds reports whether e covers address pc at location view view.
func (e *locEntry) holds(pc, view uint64) bool {
	if !e.HasViews {
		return e.Low <= pc && pc < e.High
	}
	afterStart := e.Low < pc || (e.Low == pc && e.LowView <= view)
	beforeEnd := pc < e.High || (pc == e.High && view < e.HighView)
	return afterStart && beforeEnd
}

// entryAtPC picks the entry that holds at (pc, view): the first bounded
// entry covering it, else a DW_LLE_default_location entry; nil if none.
func entryAtPC(es []locEntry, pc, view uint64) *locEntry {
	var def *locEntry
	for i := range es {
		e := &es[i]
		if e.Default {
			if def == nil {
				def = e
			}
			continue
		}
		if e.holds(pc, view) {
			return e
		}
	}
	return def
}
