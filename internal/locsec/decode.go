package locsec

import (
	"debug/elf"
	"errors"
	"fmt"
	"strings"

	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/btf"
)

// DecodeError reports a LOCSEC that does not decode: which LOCSEC type
// (and its name, when it has one), which entry (-1 for the LOCSEC itself)
// and what is wrong with it.
type DecodeError struct {
	LocSec btf.TypeID
	Name   string
	Entry  int
	Msg    string
}

func (e *DecodeError) Error() string {
	if e.Entry < 0 {
		return fmt.Sprintf("locsec: LOCSEC [%d]: %s", e.LocSec, e.Msg)
	}
	return fmt.Sprintf("locsec: LOCSEC [%d] entry %d: %s", e.LocSec, e.Entry, e.Msg)
}

// SectionOf returns the ELF section a LOCSEC name stands for: ".text" for
// "inline.text" and for the RFC's plain "inline"; a name starting with a
// dot (the kbuild series' ".text") is the section itself.
func SectionOf(name string) string {
	switch {
	case name == "inline":
		return ".text"
	case strings.HasPrefix(name, "inline."):
		return "." + strings.TrimPrefix(name, "inline.")
	}
	return name
}

// ELFBase returns a base function for Decode that takes section addresses
// from f's section headers (sh_addr), and for "" the object base of
// CONST|ADDR values (ObjectBase).
func ELFBase(f *elf.File) func(section string) (uint64, error) {
	return func(section string) (uint64, error) {
		if section == "" {
			return ObjectBase(f), nil
		}
		s := f.Section(section)
		if s == nil {
			return 0, fmt.Errorf("no section %s", section)
		}
		return s.Addr, nil
	}
}

// Decode returns the inline sites described by every LOCSEC among spec's own
// types, in LOCSEC order and entry order. base gives the start address of an
// ELF section (ELF sh_addr, or a runtime address from kallsyms or
// /sys/module/<m>/sections); Site.Addr = base(Section) + SectionOff. It is
// also called with "" when a CONST|ADDR location needs the object base
// (see the package doc); a nil base leaves Addr at SectionOff and address
// constants relative. Caller and CallerOff are left for the caller to fill
// (they need a symbol table).
//
// BTF does not record the inlining depth: Depth is 0.
//
// Sites of one FUNC share one *site.Func: Func.FuncID, parameter names,
// C type spellings and TypeIDs, and the return type, from the FUNC_PROTO.
func Decode(spec *btf.Spec, base func(section string) (uint64, error)) ([]site.Site, error) {
	r := NewReader(spec)
	var baseErr error
	if base != nil {
		var objBase *uint64
		r.Addr = func(v uint64) (uint64, string) {
			if objBase == nil {
				b, err := base("")
				if err != nil {
					baseErr = fmt.Errorf("object base address: %v", err)
					return 0, baseErr.Error()
				}
				objBase = &b
			}
			return *objBase + v, ""
		}
	}
	sites, err := r.Sites(nil, base)
	if err == nil && baseErr != nil {
		err = baseErr
	}
	return sites, err
}

// Sites decodes the entries of the chain's LOCSECs whose FUNC keep
// accepts (nil: all), in LOCSEC and entry order, with Section and
// SectionOff set, and Addr = base(Section) + SectionOff when base is given
// (else Addr is SectionOff). Caller and CallerOff are left for the caller
// to fill (they need a symbol table); Depth is 0 (BTF does not record it).
//
// The sites' locations are copied into one pool whose size is bounded by
// the blob's, so that many entries sharing one wide LOC_PROTO cannot make
// Sites allocate far more than its input.
func (r *Reader) Sites(keep func(btf.TypeID) bool, base func(section string) (uint64, error)) ([]site.Site, error) {
	locsecs := r.Spec.OfKind(btf.KindLocSec)
	budget, total := 0, 0
	for _, p := range r.Spec.Chain() {
		for _, t := range p.Types() {
			budget += 3 + len(t.Data)
		}
	}
	for _, id := range locsecs {
		t, _ := r.Spec.TypeByID(id)
		total += t.Vlen()
	}
	budget *= 16
	if keep != nil {
		total = 0 // unknown: grow as needed
	}
	sites := make([]site.Site, 0, min(total, budget))
	var locPool []site.Location
	err := r.entries(locsecs, 0, func(id btf.TypeID, sec string, j int, en btf.LocEntry, secBase uint64) error {
		if keep != nil && !keep(en.Func) {
			return nil
		}
		f, locs, err := r.entry(en)
		if err != nil {
			return err
		}
		if budget -= len(locs) + 1; budget < 0 {
			return errors.New("too many parameter locations for the size of the BTF")
		}
		if len(locPool) < len(locs) {
			locPool = make([]site.Location, max(len(locs), 4096))
		}
		params := locPool[:len(locs):len(locs)]
		locPool = locPool[len(locs):]
		copy(params, locs)
		sites = append(sites, site.Site{
			Func:       f,
			Addr:       secBase + uint64(en.Offset),
			Section:    sec,
			SectionOff: uint64(en.Offset),
			Params:     params,
		})
		return nil
	}, base)
	if err != nil {
		return nil, err
	}
	return sites, nil
}

// Check decodes up to samples entries of each LOCSEC, spread evenly, and
// returns a DecodeError for the first that does not fit the chain (a func
// that is not a FUNC, a loc_proto that is not a LOC_PROTO of the
// FUNC_PROTO's length, a bad name). A .BTF.inline loaded on the wrong base
// then fails at once, not as a function that is "not found".
func (r *Reader) Check(samples int) error {
	return r.entries(r.Spec.OfKind(btf.KindLocSec), samples, func(_ btf.TypeID, _ string, _ int, en btf.LocEntry, _ uint64) error {
		_, _, err := r.entry(en)
		return err
	}, nil)
}

// entries calls fn for the entries of the LOCSECs ids (every entry, or up
// to samples spread evenly), with the LOCSEC's section and, when base is
// given, the section's base address. Errors come back as DecodeErrors.
func (r *Reader) entries(ids []btf.TypeID, samples int, fn func(id btf.TypeID, sec string, j int, en btf.LocEntry, secBase uint64) error, base func(string) (uint64, error)) error {
	for _, id := range ids {
		t, err := r.Spec.TypeByID(id)
		if err != nil {
			return &DecodeError{LocSec: id, Entry: -1, Msg: err.Error()}
		}
		name, err := r.Spec.StringAt(t.NameOff)
		if err != nil || name == "" {
			return &DecodeError{LocSec: id, Entry: -1, Msg: fmt.Sprintf("LOCSEC name at string offset %#x", t.NameOff)}
		}
		sec := SectionOf(name)
		var secBase uint64
		if base != nil {
			if secBase, err = base(sec); err != nil {
				return &DecodeError{LocSec: id, Name: name, Entry: -1, Msg: fmt.Sprintf("base address of %s: %v", sec, err)}
			}
		}
		// The entries in place: resolving one function walks every entry
		// of the kernel, and a copy of them would cost more than the walk.
		n := len(t.Data) / 3
		if samples == 0 && n < t.Vlen() {
			return &DecodeError{LocSec: id, Name: name, Entry: n, Msg: "truncated"}
		}
		n = min(n, t.Vlen())
		step := 1
		if samples > 0 {
			step = max(1, n/samples)
		}
		for j := 0; j < n; j += step {
			en := btf.LocEntry{Func: btf.TypeID(t.Data[3*j]), LocProto: btf.TypeID(t.Data[3*j+1]), Offset: t.Data[3*j+2]}
			if err := fn(id, sec, j, en, secBase); err != nil {
				return &DecodeError{LocSec: id, Name: name, Entry: j, Msg: err.Error()}
			}
		}
	}
	return nil
}

// entry reads one LOCSEC entry's function and locations.
func (r *Reader) entry(en btf.LocEntry) (*site.Func, []site.Location, error) {
	f, err := r.Func(en.Func)
	if err != nil {
		return nil, nil, err
	}
	locs, err := r.Locations(en.LocProto, f)
	if err != nil {
		return nil, nil, err
	}
	return f, locs, nil
}

// Reader turns the BTF records of inline sites into the site model: a
// FUNC into a site.Func (names, C type spellings, type ids), a
// LOC_PROTO into the parameters' site.Locations, and LOCSEC entries into
// sites (Sites). Results are cached, so the sites of one function share
// one *site.Func. Decode and package resolve both read through it.
type Reader struct {
	Spec *btf.Spec
	// Addr maps a CONST|ADDR value (relative to the object base, see the
	// package doc) to an address, or says why it cannot; nil leaves the
	// value relative.
	Addr   func(v uint64) (uint64, string)
	funcs  map[btf.TypeID]*site.Func
	protos map[btf.TypeID][]site.Location
}

// NewReader returns a Reader over spec's base chain.
func NewReader(spec *btf.Spec) *Reader {
	return &Reader{Spec: spec, funcs: map[btf.TypeID]*site.Func{}, protos: map[btf.TypeID][]site.Location{}}
}

// Func returns the inlined function of FUNC id.
func (r *Reader) Func(id btf.TypeID) (*site.Func, error) {
	if f, ok := r.funcs[id]; ok {
		return f, nil
	}
	t, err := r.Spec.TypeByID(id)
	if err != nil {
		return nil, fmt.Errorf("func: %v", err)
	}
	if t.Kind() != btf.KindFunc {
		return nil, fmt.Errorf("func [%d] is %s, not FUNC", id, t.Kind())
	}
	name, err := r.Spec.StringAt(t.NameOff)
	if err != nil || name == "" {
		return nil, fmt.Errorf("FUNC [%d] name: bad string offset %#x", id, t.NameOff)
	}
	pt, err := r.Spec.TypeByID(btf.TypeID(t.SizeType))
	if err != nil || pt.Kind() != btf.KindFuncProto {
		return nil, fmt.Errorf("FUNC [%d] %s: type [%d] is not a FUNC_PROTO", id, name, t.SizeType)
	}
	f := &site.Func{Name: name, FuncID: uint32(id), RetTypeID: pt.SizeType,
		Return: TypeName(r.Spec, btf.TypeID(pt.SizeType))}
	ps := pt.Params()
	for i, p := range ps {
		if i == len(ps)-1 && p.NameOff == 0 && p.Type == 0 {
			f.Variadic = true
			break
		}
		pn, err := r.Spec.StringAt(p.NameOff)
		if err != nil {
			return nil, fmt.Errorf("FUNC_PROTO [%d] of %s: parameter name: bad string offset %#x", t.SizeType, name, p.NameOff)
		}
		f.Params = append(f.Params, site.Param{Name: pn, Type: TypeName(r.Spec, p.Type), TypeID: uint32(p.Type)})
	}
	r.funcs[id] = f
	return f, nil
}

// Locations returns the parameter locations of LOC_PROTO id, which must
// have one entry per parameter of fn (and its varargs slot). The slice is
// shared by every site of that LOC_PROTO: copy it before changing it.
func (r *Reader) Locations(id btf.TypeID, fn *site.Func) ([]site.Location, error) {
	want := len(fn.Params)
	if fn.Variadic {
		want++
	}
	locs, ok := r.protos[id]
	if !ok {
		t, err := r.Spec.TypeByID(id)
		if err != nil {
			return nil, fmt.Errorf("loc_proto: %v", err)
		}
		if t.Kind() != btf.KindLocProto {
			return nil, fmt.Errorf("loc_proto [%d] is %s, not LOC_PROTO", id, t.Kind())
		}
		ids := t.LocProtoParams()
		locs = make([]site.Location, len(ids))
		for i, pid := range ids {
			if pid == 0 {
				continue
			}
			pt, err := r.Spec.TypeByID(pid)
			if err != nil || pt.Kind() != btf.KindLocParam {
				return nil, fmt.Errorf("LOC_PROTO [%d] entry %d: [%d] is not a LOC_PARAM", id, i, pid)
			}
			flags, vals := pt.LocParam()
			locs[i], _ = locFromParam(pt.SizeType, flags, vals, r.Addr)
		}
		r.protos[id] = locs
	}
	if len(locs) != want {
		return nil, fmt.Errorf("LOC_PROTO [%d] has %d entries, FUNC %s has %d parameters", id, len(locs), fn.Name, want)
	}
	return locs, nil
}

// locFromParam turns a LOC_PARAM's contents into a Location; ok is false
// for a combination of flags and value words the format does not define
// (the Location is then LocUnavailable with a Reason).
func locFromParam(size uint32, flags btf.LocFlags, v []uint32, addr func(uint64) (uint64, string)) (site.Location, bool) {
	loc := site.Location{Size: uint8(min(size, 255))}
	signed := flags&btf.LocSigned != 0
	bad := func() (site.Location, bool) {
		return site.Location{Kind: site.LocUnavailable, Size: loc.Size,
			Reason: fmt.Sprintf("LOC_PARAM flags %#x with %d value words", uint32(flags), len(v))}, false
	}
	offset := func(w []uint32) int64 {
		if len(w) == 1 {
			if signed {
				return int64(int32(w[0]))
			}
			return int64(w[0])
		}
		return int64(uint64(w[0]) | uint64(w[1])<<32)
	}
	switch flags &^ btf.LocSigned {
	case btf.LocReg:
		if signed {
			return bad()
		}
		switch len(v) {
		case 1:
			loc.Kind, loc.Reg = site.LocReg, v[0]
		case 2:
			loc.Kind, loc.Reg, loc.Reg2 = site.LocRegPair, v[0], v[1]
		default:
			return bad()
		}
	case btf.LocReg | btf.LocDeref:
		if signed || len(v) != 1 {
			return bad()
		}
		loc.Kind, loc.Reg = site.LocMem, frameBase(v[0])
	case btf.LocReg | btf.LocOffset, btf.LocReg | btf.LocDeref | btf.LocOffset:
		if len(v) != 2 && len(v) != 3 {
			return bad()
		}
		loc.Kind = site.LocRegOffset
		if flags&btf.LocDeref != 0 {
			loc.Kind = site.LocMem
		}
		loc.Reg, loc.Offset = frameBase(v[0]), offset(v[1:])
		loc.Signed = loc.Offset < 0
	case btf.LocConst, btf.LocConst | btf.LocAddr:
		if len(v) != 1 && len(v) != 2 {
			return bad()
		}
		val := uint64(v[0])
		if len(v) == 2 {
			val |= uint64(v[1]) << 32
		} else if signed {
			val = uint64(int64(int32(v[0])))
		}
		loc.Kind, loc.Value = site.LocConst, val
		loc.Signed = signed && int64(val) < 0
		if flags&btf.LocAddr != 0 {
			loc.Kind = site.LocAddr
			if addr != nil {
				a, why := addr(loc.Value)
				if why != "" {
					return site.Location{Kind: site.LocUnavailable, Size: loc.Size, Reason: why}, true
				}
				loc.Value = a
			}
		}
	default:
		return bad()
	}
	return loc, true
}

// frameBase maps LOC_PARAM's frame-base register number to the site
// model's.
func frameBase(reg uint32) uint32 {
	if reg == btf.LocFBReg {
		return site.FBReg
	}
	return reg
}
