package resolve

import (
	"errors"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/google/go-cmp/cmp"
)

// handBTF builds a base BTF with one inlinable function
// "void set(struct sock *sk, u32 val, long t)" and a split BTF with LOC
// types and a LOCSEC of three sites.
func handBTF(t testing.TB) (base, split *btf.Spec) {
	t.Helper()
	base = btf.NewSpec(nil)
	add := func(s *btf.Spec, ty btf.Type) btf.TypeID {
		id, err := s.Add(ty)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	u32 := add(base, btf.NewInt(base.AddString("u32"), 4, 0, 0, 32))         // 1
	long := add(base, btf.NewInt(base.AddString("long"), 8, 1, 0, 64))       // 2
	sock := add(base, btf.NewStruct(base.AddString("sock"), 16, nil, false)) // 3
	psock := add(base, btf.NewPtr(sock))                                     // 4
	proto := add(base, btf.NewFuncProto(0, []btf.Param{{NameOff: base.AddString("sk"), Type: psock},
		{NameOff: base.AddString("val"), Type: u32}, {NameOff: base.AddString("t"), Type: long}})) // 5
	add(base, btf.NewFunc(base.AddString("set"), proto, 0)) // 6
	split = btf.NewSpec(base)
	reg5 := add(split, btf.NewLocParam(8, btf.LocReg, 5))
	c10 := add(split, btf.NewLocParam(4, btf.LocConst, 10))
	mem := add(split, btf.NewLocParam(8, btf.LocReg|btf.LocDeref|btf.LocOffset|btf.LocSigned, 7, uint32(0xfffffff0)))
	pair := add(split, btf.NewLocParam(8, btf.LocReg, 3, 12))
	neg := add(split, btf.NewLocParam(8, btf.LocConst|btf.LocSigned, 0xfffffffb, 0xffffffff))
	lp1 := add(split, btf.NewLocProto([]btf.TypeID{reg5, c10, mem}))
	lp2 := add(split, btf.NewLocProto([]btf.TypeID{reg5, 0, neg}))
	lp3 := add(split, btf.NewLocProto([]btf.TypeID{pair, c10, 0}))
	add(split, btf.NewLocSec(split.AddString("inline.text"), []btf.LocEntry{
		{Func: 6, LocProto: lp1, Offset: 0x40}, {Func: 6, LocProto: lp2, Offset: 0x10}, {Func: 6, LocProto: lp3, Offset: 0x80}}))
	return base, split
}

func TestDecodeHandBTF(t *testing.T) {
	_, split := handBTF(t)
	d := NewDecoder(split)
	sites, err := d.Sites(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sites) != 3 {
		t.Fatalf("%d sites", len(sites))
	}
	want := [][]site.Location{
		{{Kind: site.LocReg, Reg: 5, Size: 8}, {Kind: site.LocConst, Value: 10, Size: 4}, {Kind: site.LocMem, Reg: 7, Offset: -16, Size: 8, Signed: true}},
		{{Kind: site.LocReg, Reg: 5, Size: 8}, {}, {Kind: site.LocConst, Value: 0xfffffffffffffffb, Size: 8, Signed: true}},
		{{Kind: site.LocRegPair, Reg: 3, Reg2: 12, Size: 8}, {Kind: site.LocConst, Value: 10, Size: 4}, {}},
	}
	for i, s := range sites {
		if s.Func.Name != "set" || s.Section != ".text" {
			t.Errorf("site %d: %s in %s", i, s.Func.Name, s.Section)
		}
		if diff := cmp.Diff(want[i], s.Params); diff != "" {
			t.Errorf("site %d (-want +got):\n%s", i, diff)
		}
	}
	if got := []uint64{sites[0].SectionOff, sites[1].SectionOff, sites[2].SectionOff}; !cmp.Equal(got, []uint64{0x40, 0x10, 0x80}) {
		t.Errorf("offsets %v", got)
	}
	// Filtering by function id decodes nothing else.
	if s, _ := d.Sites(func(id btf.TypeID) bool { return id != 6 }); len(s) != 0 {
		t.Errorf("filter kept %d sites", len(s))
	}
	fetch := FetchArgs(arch.X86_64, []string{"sk", "val", "t"}, d.TypeInfos(sites[0].Func), sites[0].Params, 0, nil)
	var args []string
	for _, f := range fetch {
		args = append(args, f.Name+"="+f.Arg)
	}
	if got, w := strings.Join(args, " "), `sk=%di:x64 val=\0xa:u32 t=-16(%sp):s64`; got != w {
		t.Errorf("fetch args %q, want %q", got, w)
	}
}

// TestDecodeWrongBase: the split blob loaded on a base whose ids mean other
// kinds is refused with a MismatchError naming the LOCSEC entry.
func TestDecodeWrongBase(t *testing.T) {
	_, split := handBTF(t)
	raw, err := split.Marshal(btf.MarshalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wrong := btf.NewSpec(nil)
	for i := 0; i < 6; i++ { // six INTs: id 6 is not a FUNC
		if _, err := wrong.Add(btf.NewInt(wrong.AddString("int"), 4, 1, 0, 32)); err != nil {
			t.Fatal(err)
		}
	}
	// Pad the strings to the base's length exactly, so that the split's
	// string offsets (its LOCSEC name) keep their meaning.
	base, _ := handBTF(t)
	if n := base.StringsLen() - wrong.StringsLen() - 1; n > 0 {
		wrong.AddString(strings.Repeat("x", n))
	}
	if wrong.StringsLen() != base.StringsLen() {
		t.Fatalf("padded strings to %d bytes, the base has %d", wrong.StringsLen(), base.StringsLen())
	}
	s, err := btf.Parse(raw, wrong)
	if err != nil {
		t.Skipf("btf.Parse already refuses the split blob: %v", err)
	}
	_, err = NewDecoder(s).Sites(nil)
	var me *MismatchError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "is INT, not FUNC") || !strings.Contains(err.Error(), "wrong -B") {
		t.Fatalf("err = %v", err)
	}
}

// FuzzDecodeSites: any split blob on the hand-built base decodes to sites
// or an error, and the sites format, without panics.
func FuzzDecodeSites(f *testing.F) {
	base, split := handBTF(f)
	raw, err := split.Marshal(btf.MarshalOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := btf.Parse(data, base)
		if err != nil {
			return
		}
		d := NewDecoder(s)
		sites, err := d.Sites(nil)
		if err != nil {
			return
		}
		for _, site := range sites {
			names := make([]string, len(site.Func.Params))
			for i, p := range site.Func.Params {
				names[i] = p.Name
			}
			FetchArgs(arch.X86_64, names, d.TypeInfos(site.Func), site.Params, 0, nil)
		}
	})
}
