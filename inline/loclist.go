package inline

import "fmt"

// LocEntry is one bounded entry of a location list: the expression holds
// for addresses [Low, High) — with GCC location views, for the
// (address, view) pairs from (Low, LowView) up to but excluding
// (High, HighView). Default marks DW_LLE_default_location.
type LocEntry struct {
	Low, High         uint64
	LowView, HighView uint64
	HasViews          bool
	Default           bool
	Expr              []byte
	ExprOff           int64 // section offset of Expr, for error messages
}

// LocListSec is a .debug_loclists (DWARF 5) or .debug_loc (DWARF 2-4)
// section, relocated if the object is ET_REL.
type LocListSec struct {
	Name string // ".debug_loclists" or ".debug_loc"
	Data []byte
	V5   bool
}

// LocListUnit is what reading a list needs from its unit.
type LocListUnit struct {
	Format ExprFormat
	Base   uint64 // the unit's base address (DW_AT_low_pc of the CU)
	// Addrx resolves DW_LLE_*x indices through .debug_addr; nil if the
	// unit has none.
	Addrx func(idx uint64) (uint64, bool)
}

// ReadLocList decodes the location list at off. viewsOff is the offset of
// the list's GCC view pairs (DW_AT_GNU_locviews), or -1. The number of
// entries is bounded by the section size.
func ReadLocList(sec *LocListSec, off, viewsOff int64, u *LocListUnit) ([]LocEntry, error) {
	if off < 0 || off >= int64(len(sec.Data)) {
		return nil, &FormatError{sec.Name, off, "location list offset past end of section"}
	}
	c := &cursor{sec: sec.Name, base: off, data: sec.Data[off:], order: u.Format.Order}
	var vc *cursor
	if viewsOff >= 0 {
		if viewsOff >= int64(len(sec.Data)) {
			return nil, &FormatError{sec.Name, viewsOff, "location view list offset past end of section"}
		}
		vc = &cursor{sec: sec.Name, base: viewsOff, data: sec.Data[viewsOff:], order: u.Format.Order}
	}
	as := u.Format.AddrSize
	if as != 4 && as != 8 {
		return nil, &FormatError{sec.Name, off, fmt.Sprintf("unsupported address size %d", as)}
	}
	maxAddr := uint64(1)<<(8*uint(as)) - 1
	if as == 8 {
		maxAddr = ^uint64(0)
	}
	base := u.Base
	var out []LocEntry
	// A pending DW_LLE_GNU_view_pair applies to the next bounded entry.
	var pendView *[2]uint64
	addrx := func(idx uint64) uint64 {
		if u.Addrx == nil {
			c.fail("DW_LLE_*x entry without .debug_addr")
			return 0
		}
		v, ok := u.Addrx(idx)
		if !ok {
			c.fail(fmt.Sprintf("address index %d out of range", idx))
		}
		return v
	}
	for c.err == nil {
		start := c.pos()
		var e LocEntry
		if sec.V5 {
			kind := LLE(c.u8())
			switch kind {
			case LLEEndOfList:
				return out, c.err
			case LLEBaseAddressx:
				base = addrx(c.uleb())
				continue
			case LLEBaseAddress:
				base = c.sized(as)
				continue
			case LLEGNUViewPair:
				v := [2]uint64{c.uleb(), c.uleb()}
				pendView = &v
				continue
			case LLEStartxEndx:
				e.Low = addrx(c.uleb())
				e.High = addrx(c.uleb())
			case LLEStartxLength:
				e.Low = addrx(c.uleb())
				e.High = e.Low + c.uleb()
			case LLEOffsetPair:
				e.Low = base + c.uleb()
				e.High = base + c.uleb()
			case LLEDefaultLoc:
				e.Default = true
			case LLEStartEnd:
				e.Low = c.sized(as)
				e.High = c.sized(as)
			case LLEStartLength:
				e.Low = c.sized(as)
				e.High = e.Low + c.uleb()
			default:
				c.off--
				c.fail("unknown location list entry kind " + kind.String())
				return out, c.err
			}
			n := c.uleb()
			e.ExprOff = c.pos()
			e.Expr = c.bytes(n)
		} else {
			lo, hi := c.sized(as), c.sized(as)
			if c.err != nil {
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
			n := c.u16()
			e.ExprOff = c.pos()
			e.Expr = c.bytes(uint64(n))
		}
		if c.err != nil {
			break
		}
		if pendView != nil {
			e.LowView, e.HighView, e.HasViews = pendView[0], pendView[1], true
			pendView = nil
		} else if vc != nil && !e.Default {
			e.LowView, e.HighView, e.HasViews = vc.uleb(), vc.uleb(), true
			if vc.err != nil {
				return out, vc.err
			}
		}
		if c.pos() <= start {
			c.fail("location list makes no progress")
		}
		out = append(out, e)
	}
	return out, c.err
}

// holds reports whether e covers address pc at location view view.
func (e *LocEntry) holds(pc, view uint64) bool {
	if !e.HasViews {
		return e.Low <= pc && pc < e.High
	}
	afterStart := e.Low < pc || (e.Low == pc && e.LowView <= view)
	beforeEnd := pc < e.High || (pc == e.High && view < e.HighView)
	return afterStart && beforeEnd
}

// EntryAt picks the entry that holds at (pc, view): the first bounded
// entry covering it, else a DW_LLE_default_location entry; nil if none.
func EntryAt(es []LocEntry, pc, view uint64) *LocEntry {
	var def *LocEntry
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
