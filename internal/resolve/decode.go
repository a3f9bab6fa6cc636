package resolve

import (
	"errors"
	"fmt"

	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/locsec"
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
	// Space places CONST|ADDR values (Space.Const); nil leaves them
	// unavailable.
	Space *Space

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
	sites, err := d.r.Sites(keep, nil)
	if err != nil {
		return nil, mismatch(err)
	}
	for i := range sites {
		d.typeInfos(sites[i].Func)
		sites[i].Addr = 0
	}
	return sites, nil
}

// mismatch turns a locsec.DecodeError into the MismatchError that says
// the .BTF.inline does not fit its base.
func mismatch(err error) error {
	var de *locsec.DecodeError
	if errors.As(err, &de) {
		name := de.Name
		if name == "" {
			name = "?"
		}
		return &MismatchError{name, de.LocSec, de.Entry, de.Msg}
	}
	return err
}

func (d *Decoder) function(id btf.TypeID) (*site.Func, error) {
	f, err := d.r.Func(id)
	if err != nil {
		return nil, err
	}
	d.typeInfos(f)
	return f, nil
}

// typeInfos computes, once per function, its parameters' type facts.
func (d *Decoder) typeInfos(f *site.Func) {
	id := btf.TypeID(f.FuncID)
	if _, ok := d.infos[id]; !ok {
		infos := make([]TypeInfo, len(f.Params))
		for i, p := range f.Params {
			infos[i] = BTFTypeInfo(d.Spec, btf.TypeID(p.TypeID))
			infos[i].Name = p.Type
		}
		d.infos[id] = infos
	}
}

// TypeInfos returns the parameter type facts of a decoded function.
func (d *Decoder) TypeInfos(f *site.Func) []TypeInfo { return d.infos[btf.TypeID(f.FuncID)] }

// Addr turns a CONST|ADDR value (relative to the object's base) into an
// address, or says why it cannot.
func (d *Decoder) Addr(v uint64) (uint64, string) {
	if d.Space == nil {
		return (&Space{}).Const(v) // noAddresses, the zero kind
	}
	return d.Space.Const(v)
}

// Check decodes up to samples entries of each LOCSEC, spread evenly, and
// returns a MismatchError for the first that does not fit the chain, so
// that a .BTF.inline loaded on the wrong base fails at open, before any
// output, instead of showing up as a function that is "not found".
func (d *Decoder) Check(samples int) error { return mismatch(d.r.Check(samples)) }
