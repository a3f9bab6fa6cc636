package resolve

import (
	"fmt"
	"github.com/btfinline/btfinline/site"

	"github.com/btfinline/btfinline/btf"
	"github.com/btfinline/btfinline/locsec"
)

// MismatchError reports a .BTF.inline that does not fit the base BTF it was
// loaded on: a LOCSEC entry naming a type that is not a FUNC or LOC_PROTO,
// or a FUNC/LOC_PROTO pair of different lengths. The usual cause is a
// wrong -B.
type MismatchError struct {
	LocSec string
	ID     btf.TypeID // the LOCSEC's id
	Entry  int
	Msg    string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("LOCSEC %q [%d] entry %d: %s: the .BTF.inline does not match its base BTF (wrong -B?)", e.LocSec, e.ID, e.Entry, e.Msg)
}

// Decoder turns LOCSEC entries into sites. Funcs are shared between the
// sites of one function.
type Decoder struct {
	Spec *btf.Spec
	// AddrBase is added to CONST|ADDR values (the object's base: _text of
	// the ELF or of the running kernel); with AddrOK false such values are
	// left unavailable.
	AddrBase uint64
	AddrOK   bool
	// Slide is the KASLR slide included in AddrBase, when SlideKnown. A
	// value that wraps below the base is a per-CPU offset (x86-64
	// .data..percpu is linked at 0), which KASLR does not move: the slide
	// is taken back out, and without it such a value is unavailable.
	Slide      uint64
	SlideKnown bool

	r     *locsec.Reader
	infos map[btf.TypeID][]TypeInfo
}

// NewDecoder returns a decoder over spec's chain.
func NewDecoder(spec *btf.Spec) *Decoder {
	d := &Decoder{Spec: spec, r: locsec.NewReader(spec), infos: map[btf.TypeID][]TypeInfo{}}
	d.r.Addr = d.Addr
	return d
}

// Sites decodes the entries of the LOCSECs whose func passes keep (nil
// keeps all). Addr and Caller are left for the caller to fill (see
// Target.Place); SectionOff and Section are set.
func (d *Decoder) Sites(keep func(btf.TypeID) bool) ([]site.Site, error) {
	var out []site.Site
	for _, id := range d.Spec.OfKind(btf.KindLocSec) {
		t, err := d.Spec.TypeByID(id)
		if err != nil {
			return nil, err
		}
		name, err := d.Spec.StringAt(t.NameOff)
		if err != nil {
			return nil, &MismatchError{"?", id, -1, fmt.Sprintf("name: %v", err)}
		}
		sec := locsec.SectionOf(name)
		n := min(len(t.Data)/3, t.Vlen())
		for i := 0; i < n; i++ {
			fid, pid, off := btf.TypeID(t.Data[3*i]), btf.TypeID(t.Data[3*i+1]), t.Data[3*i+2]
			if keep != nil && !keep(fid) {
				continue
			}
			fn, err := d.function(fid)
			if err != nil {
				return nil, &MismatchError{name, id, i, err.Error()}
			}
			locs, err := d.r.Locations(pid, fn)
			if err != nil {
				return nil, &MismatchError{name, id, i, err.Error()}
			}
			out = append(out, site.Site{
				Func:       fn,
				Section:    sec,
				SectionOff: uint64(off),
				Depth:      0, // not in BTF (MarkNesting reads it from DWARF)
				Params:     locs,
			})
		}
	}
	return out, nil
}

func (d *Decoder) function(id btf.TypeID) (*site.Func, error) {
	f, err := d.r.Func(id)
	if err != nil {
		return nil, err
	}
	if _, ok := d.infos[id]; !ok {
		infos := make([]TypeInfo, len(f.Params))
		for i, p := range f.Params {
			infos[i] = BTFTypeInfo(d.Spec, btf.TypeID(p.TypeID))
			infos[i].Name = p.Type
		}
		d.infos[id] = infos
	}
	return f, nil
}

// TypeInfos returns the parameter type facts of a decoded function.
func (d *Decoder) TypeInfos(f *site.Func) []TypeInfo { return d.infos[btf.TypeID(f.FuncID)] }

// Addr turns a CONST|ADDR value (relative to the object's base) into an
// address, or says why it cannot.
func (d *Decoder) Addr(v uint64) (uint64, string) {
	if !d.AddrOK {
		return 0, fmt.Sprintf("address constant base+%#x: object base address unknown", v)
	}
	a := d.AddrBase + v
	if a < d.AddrBase {
		// Below the base: a per-CPU offset, not moved by KASLR.
		if !d.SlideKnown {
			return 0, fmt.Sprintf("per-CPU address constant base%+#x: the KASLR slide is unknown without the ELF", int64(v))
		}
		a -= d.Slide
	}
	return a, ""
}

// Check decodes up to samples entries of each LOCSEC, spread evenly, and
// returns a MismatchError for the first that does not fit the chain (a
// func that is not a FUNC, a loc_proto that is not a LOC_PROTO of the
// FUNC_PROTO's length, a bad name). A .BTF.inline loaded on the wrong
// base then fails at open, before any output, instead of showing up as a
// function that is "not found".
func (d *Decoder) Check(samples int) error {
	for _, id := range d.Spec.OfKind(btf.KindLocSec) {
		t, err := d.Spec.TypeByID(id)
		if err != nil {
			return err
		}
		name, err := d.Spec.StringAt(t.NameOff)
		if err != nil || name == "" {
			return &MismatchError{"?", id, -1, fmt.Sprintf("LOCSEC name at string offset %#x", t.NameOff)}
		}
		n := min(len(t.Data)/3, t.Vlen())
		step := max(1, n/max(1, samples))
		for i := 0; i < n; i += step {
			fid, pid := btf.TypeID(t.Data[3*i]), btf.TypeID(t.Data[3*i+1])
			fn, err := d.function(fid)
			if err != nil {
				return &MismatchError{name, id, i, err.Error()}
			}
			if _, err := d.r.Locations(pid, fn); err != nil {
				return &MismatchError{name, id, i, err.Error()}
			}
		}
	}
	return nil
}
