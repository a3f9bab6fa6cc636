package resolve

import (
	"fmt"
	"sort"
	"strings"

	"github.com/btfinline/btfinline/btf"
	"github.com/btfinline/btfinline/inline"
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

// SectionOf maps a LOCSEC name to its ELF section: "inline.text" and
// ".text" mean .text; the RFC's bare "inline" meant .text too.
func SectionOf(locsec string) string {
	switch {
	case locsec == "inline":
		return ".text"
	case strings.HasPrefix(locsec, "inline."):
		return locsec[len("inline"):]
	}
	return locsec
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

	funcs  map[btf.TypeID]*inline.Func
	protos map[btf.TypeID][]inline.Location
	infos  map[btf.TypeID][]TypeInfo
}

// NewDecoder returns a decoder over spec's chain.
func NewDecoder(spec *btf.Spec) *Decoder {
	return &Decoder{Spec: spec, funcs: map[btf.TypeID]*inline.Func{},
		protos: map[btf.TypeID][]inline.Location{}, infos: map[btf.TypeID][]TypeInfo{}}
}

// LocSecs returns the ids of every LOCSEC in the chain, base first.
func LocSecs(spec *btf.Spec) []btf.TypeID {
	var chain []*btf.Spec
	for p := spec; p != nil; p = p.Base() {
		chain = append(chain, p)
	}
	var ids []btf.TypeID
	for i := len(chain) - 1; i >= 0; i-- {
		p := chain[i]
		for j, t := range p.Types() {
			if t.Kind() == btf.KindLocSec {
				ids = append(ids, p.FirstID()+btf.TypeID(j))
			}
		}
	}
	return ids
}

// FuncsByName returns the ids of the FUNCs named name anywhere in the
// chain.
func FuncsByName(spec *btf.Spec, name string) []btf.TypeID {
	var ids []btf.TypeID
	var chain []*btf.Spec
	for p := spec; p != nil; p = p.Base() {
		chain = append(chain, p)
	}
	// Compare the name in place in the string sections: building a Go
	// string for each of the kernel's 60,000 FUNC names costs more than
	// the search.
	nameIs := func(off uint32) bool {
		for _, p := range chain {
			if off < p.StrStart() {
				continue
			}
			raw := p.RawStrings()
			o := uint64(off - p.StrStart())
			end := o + uint64(len(name))
			return end < uint64(len(raw)) && string(raw[o:end]) == name && raw[end] == 0
		}
		return false
	}
	for _, p := range chain {
		ts := p.Types()
		for j := range ts {
			t := &ts[j]
			if t.Kind() == btf.KindFunc && nameIs(t.NameOff) {
				ids = append(ids, p.FirstID()+btf.TypeID(j))
			}
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// Sites decodes the entries of the LOCSECs whose func passes keep (nil
// keeps all). Addr and Caller are left for the caller to fill (see
// Target.Place); SectionOff and Section are set.
func (d *Decoder) Sites(keep func(btf.TypeID) bool) ([]inline.Site, error) {
	var out []inline.Site
	for _, id := range LocSecs(d.Spec) {
		t, err := d.Spec.TypeByID(id)
		if err != nil {
			return nil, err
		}
		name, err := d.Spec.StringAt(t.NameOff)
		if err != nil {
			return nil, &MismatchError{"?", id, -1, fmt.Sprintf("name: %v", err)}
		}
		sec := SectionOf(name)
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
			locs, err := d.locProto(pid, fn)
			if err != nil {
				return nil, &MismatchError{name, id, i, err.Error()}
			}
			out = append(out, inline.Site{
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

func (d *Decoder) function(id btf.TypeID) (*inline.Func, error) {
	if f, ok := d.funcs[id]; ok {
		return f, nil
	}
	t, err := d.Spec.TypeByID(id)
	if err != nil {
		return nil, fmt.Errorf("func: %v", err)
	}
	if t.Kind() != btf.KindFunc {
		return nil, fmt.Errorf("func [%d] is %s, not FUNC", id, t.Kind())
	}
	name, err := d.Spec.StringAt(t.NameOff)
	if err != nil || name == "" {
		return nil, fmt.Errorf("FUNC [%d] name: bad string offset %#x", id, t.NameOff)
	}
	pt, err := d.Spec.TypeByID(btf.TypeID(t.SizeType))
	if err != nil || pt.Kind() != btf.KindFuncProto {
		return nil, fmt.Errorf("FUNC [%d] %s: type [%d] is not a FUNC_PROTO", id, name, t.SizeType)
	}
	f := &inline.Func{Name: name, FuncID: uint32(id), RetTypeID: pt.SizeType,
		Return: locsec.TypeName(d.Spec, btf.TypeID(pt.SizeType))}
	var infos []TypeInfo
	for _, p := range pt.Params() {
		if p.Type == 0 && p.NameOff == 0 {
			f.Variadic = true
			continue
		}
		pn, err := d.Spec.StringAt(p.NameOff)
		if err != nil {
			return nil, fmt.Errorf("FUNC_PROTO [%d] of %s: parameter name: bad string offset %#x", t.SizeType, name, p.NameOff)
		}
		ti := BTFTypeInfo(d.Spec, p.Type)
		ti.Name = locsec.TypeName(d.Spec, p.Type)
		f.Params = append(f.Params, inline.Param{Name: pn, Type: ti.Name, TypeID: uint32(p.Type)})
		infos = append(infos, ti)
	}
	d.funcs[id] = f
	d.infos[id] = infos
	return f, nil
}

// TypeInfos returns the parameter type facts of a decoded function.
func (d *Decoder) TypeInfos(f *inline.Func) []TypeInfo { return d.infos[btf.TypeID(f.FuncID)] }

func (d *Decoder) locProto(id btf.TypeID, fn *inline.Func) ([]inline.Location, error) {
	want := len(fn.Params)
	if fn.Variadic {
		want++
	}
	if l, ok := d.protos[id]; ok {
		if len(l) != want {
			return nil, fmt.Errorf("LOC_PROTO [%d] has %d entries, FUNC %s has %d parameters", id, len(l), fn.Name, want)
		}
		return l, nil
	}
	t, err := d.Spec.TypeByID(id)
	if err != nil {
		return nil, fmt.Errorf("loc_proto: %v", err)
	}
	if t.Kind() != btf.KindLocProto {
		return nil, fmt.Errorf("loc_proto [%d] is %s, not LOC_PROTO", id, t.Kind())
	}
	ps := t.LocProtoParams()
	if len(ps) != want {
		return nil, fmt.Errorf("LOC_PROTO [%d] has %d entries, FUNC %s has %d parameters", id, len(ps), fn.Name, want)
	}
	locs := make([]inline.Location, len(ps))
	for i, pid := range ps {
		if pid == 0 {
			continue
		}
		pt, err := d.Spec.TypeByID(pid)
		if err != nil || pt.Kind() != btf.KindLocParam {
			return nil, fmt.Errorf("LOC_PROTO [%d] entry %d: [%d] is not a LOC_PARAM", id, i, pid)
		}
		locs[i] = d.locParam(pt)
	}
	d.protos[id] = locs
	return locs, nil
}

// locParam decodes a LOC_PARAM (spec section 3.1). Flag combinations the
// spec does not allow become unavailable locations with the reason.
func (d *Decoder) locParam(t *btf.Type) inline.Location {
	flags, v := t.LocParam()
	l := inline.Location{Size: uint8(min(t.SizeType, 255)), Signed: flags&btf.LocSigned != 0}
	bad := func() inline.Location {
		return inline.Location{Reason: fmt.Sprintf("unsupported LOC_PARAM flags %#x vlen %d", flags, len(v))}
	}
	word64 := func(v []uint32) uint64 {
		x := uint64(v[0])
		if len(v) > 1 {
			x |= uint64(v[1]) << 32
		}
		return x
	}
	switch f := flags &^ btf.LocSigned; {
	case f == btf.LocConst && len(v) >= 1 && len(v) <= 2:
		l.Kind, l.Value = inline.LocConst, word64(v)
	case f == btf.LocConst|btf.LocAddr && len(v) >= 1 && len(v) <= 2:
		a, why := d.Addr(word64(v))
		if why != "" {
			return inline.Location{Size: l.Size, Reason: why}
		}
		l.Kind, l.Value = inline.LocAddr, a
	case f == btf.LocReg && len(v) == 1:
		l.Kind, l.Reg = inline.LocReg, v[0]
	case f == btf.LocReg && len(v) == 2:
		l.Kind, l.Reg, l.Reg2 = inline.LocRegPair, v[0], v[1]
	case f == btf.LocReg|btf.LocDeref && len(v) == 1:
		l.Kind, l.Reg = inline.LocMem, v[0]
	case (f == btf.LocReg|btf.LocOffset || f == btf.LocReg|btf.LocDeref|btf.LocOffset) && (len(v) == 2 || len(v) == 3):
		l.Kind, l.Reg = inline.LocRegOffset, v[0]
		if f&btf.LocDeref != 0 {
			l.Kind = inline.LocMem
		}
		if len(v) == 2 {
			if l.Signed {
				l.Offset = int64(int32(v[1]))
			} else {
				l.Offset = int64(v[1])
			}
		} else {
			l.Offset = int64(word64(v[1:]))
		}
	default:
		return bad()
	}
	return l
}

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
	for _, id := range LocSecs(d.Spec) {
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
			if _, err := d.locProto(pid, fn); err != nil {
				return &MismatchError{name, id, i, err.Error()}
			}
		}
	}
	return nil
}
