package locsec

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/testutil"
)

// testBase builds a small base BTF: [1] int, [2] int *, [3] FUNC_PROTO
// int(int a, int *p), [4] FUNC foo, [5] LOC_PARAM reg5 size 4, [6] char,
// [7] const char, [8] const char *, [9] long, [10] LOC_PROTO(5).
func testBase(t testing.TB) *btf.Spec {
	t.Helper()
	s := btf.NewSpec(nil)
	add := func(ty btf.Type) btf.TypeID {
		id, err := s.Add(ty)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	i := add(btf.NewInt(s.AddString("int"), 4, 1, 0, 32))
	p := add(btf.NewPtr(i))
	fp := add(btf.NewFuncProto(i, []btf.Param{{NameOff: s.AddString("a"), Type: i}, {NameOff: s.AddString("p"), Type: p}}))
	add(btf.NewFunc(s.AddString("foo"), fp, 1))
	lp := add(btf.NewLocParam(4, btf.LocReg, 5))
	ch := add(btf.NewInt(s.AddString("char"), 1, 2, 0, 8))
	cc := add(btf.NewConst(ch))
	add(btf.NewPtr(cc))
	add(btf.NewInt(s.AddString("long"), 8, 1, 0, 64))
	add(btf.NewLocProto([]btf.TypeID{lp}))
	return s
}

func testSites() []site.Site {
	foo := &site.Func{Name: "foo", RetTypeID: 1, Params: []site.Param{{Name: "a", TypeID: 1}, {Name: "p", TypeID: 2}}}
	bar := &site.Func{Name: "bar", Params: []site.Param{{Name: "s", TypeID: 8}, {Name: "n", TypeID: 9}}}
	baz := &site.Func{Name: "baz", RetTypeID: 9, Params: []site.Param{{Name: "", TypeID: 1}}, Variadic: true}
	// Same name and prototype as bar from another CU: must share bar's FUNC.
	bar2 := &site.Func{Name: "bar", Params: []site.Param{{Name: "s", TypeID: 8}, {Name: "n", TypeID: 9}}}
	return []site.Site{
		{Func: foo, Section: ".text", SectionOff: 0x40, Params: []site.Location{
			{Kind: site.LocReg, Reg: 5, Size: 4}, {Kind: site.LocMem, Reg: 7, Offset: 8, Size: 8}}},
		{Func: foo, Section: ".text", SectionOff: 0x10, Params: []site.Location{
			{Kind: site.LocConst, Value: 0xffffffff, Signed: true, Size: 4}, {Kind: site.LocUnavailable}}},
		{Func: bar, Section: ".text", SectionOff: 0x10, Params: []site.Location{
			{Kind: site.LocRegOffset, Reg: site.FBReg, Offset: -16}, {Kind: site.LocConst, Value: 0x123456789, Size: 8}}},
		{Func: bar2, Section: ".init.text", SectionOff: 0x8, Params: []site.Location{
			{Kind: site.LocMem, Reg: site.FBReg, Offset: -0x20}, {Kind: site.LocAddr, Value: 0xffffffff81234567}}},
		{Func: bar2, Section: ".init.text", SectionOff: 0x8, Params: []site.Location{
			{Kind: site.LocMem, Reg: site.FBReg, Offset: -0x20}, {Kind: site.LocAddr, Value: 0xffffffff81234567}}},
		{Func: baz, Section: ".text", SectionOff: 0x100, Params: []site.Location{
			{Kind: site.LocRegPair, Reg: 1, Reg2: 2, Size: 16}, {Kind: site.LocMem, Reg: 3}}},
		{Func: baz, Section: ".text", SectionOff: 0x104, Params: []site.Location{
			{Kind: site.LocRegOffset, Reg: 4, Offset: 0x1_0000_0000}}},
		{Func: bar, Section: ".text", SectionOff: 0x200, Params: []site.Location{
			{Kind: site.LocConst, Value: 0x100, Size: 32}, {Kind: site.LocMem, Reg: 6, Offset: -0x1_0000_0000}}},
	}
}

const testAddrBase = 0xffffffff81000000

func encodeTest(t testing.TB, base *btf.Spec, sites []site.Site) (*btf.Spec, Stats, []byte) {
	t.Helper()
	dst := btf.NewSpec(base)
	st, err := Encode(sites, dst, nil, Options{AddrBase: testAddrBase})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := dst.Marshal(btf.MarshalOptions{Layout: !base.ChainHasLayout()})
	if err != nil {
		t.Fatal(err)
	}
	return dst, st, raw
}

func TestEncodeDecode(t *testing.T) {
	base := testBase(t)
	sites := testSites()
	dst, st, raw := encodeTest(t, base, sites)
	for _, err := range dst.Validate() {
		t.Error(err)
	}
	want := Stats{Sites: 8, Duplicates: 1, Entries: 7, LocSecs: 2, Funcs: 2, FuncsReused: 1,
		FuncProtos: 2, LocParams: 10, LocProtos: 7, Unavailable: 3, Unencodable: 1}
	if st != want {
		t.Errorf("stats\n got %+v\nwant %+v", st, want)
	}

	// The base's LOC_PARAM reg5/4 is reused, not added again.
	for _, ty := range dst.Types() {
		if f, v := ty.LocParam(); ty.Kind() == btf.KindLocParam && f == btf.LocReg && len(v) == 1 && v[0] == 5 && ty.SizeType == 4 {
			t.Error("LOC_PARAM reg5 size 4 added although the base has it")
		}
	}

	// Parse the bytes back on the base and decode.
	spec, err := btf.Parse(raw, base)
	if err != nil {
		t.Fatal(err)
	}
	bases := map[string]uint64{".text": 0x1000, ".init.text": 0x9000, "": testAddrBase}
	got, err := Decode(spec, func(sec string) (uint64, error) {
		b, ok := bases[sec]
		if !ok {
			return 0, fmt.Errorf("no %s", sec)
		}
		return b, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	compareSites(t, base, sites, got, bases)

	// Types and names come from the FUNC_PROTO.
	for _, s := range got {
		switch s.Func.Name {
		case "bar":
			if s.Func.Params[0].Type != "const char *" || s.Func.Params[1].Type != "long" || s.Func.Return != "void" {
				t.Errorf("bar: %+v", s.Func)
			}
		case "foo":
			if s.Func.FuncID != 4 {
				t.Errorf("foo: FUNC id %d, want the base's 4", s.Func.FuncID)
			}
		case "baz":
			if !s.Func.Variadic || s.Func.Params[0].Name != "arg1" || len(s.Params) != 2 {
				t.Errorf("baz: %+v", s.Func)
			}
		}
	}
}

// compareSites checks that every input site comes back with the same
// function, section, offset and canonical locations.
func compareSites(t *testing.T, base *btf.Spec, in, out []site.Site, bases map[string]uint64) {
	t.Helper()
	key := func(s *site.Site) string { return fmt.Sprintf("%s %s+%#x", s.Func.Name, s.Section, s.SectionOff) }
	byKey := map[string][]*site.Site{}
	for i := range out {
		s := &out[i]
		if s.Addr != bases[s.Section]+s.SectionOff {
			t.Errorf("%s: addr %#x", key(s), s.Addr)
		}
		byKey[key(s)] = append(byKey[key(s)], s)
	}
	for i := range in {
		s := &in[i]
		var want []site.Location
		for j, l := range s.Params {
			var ts uint32
			if j < len(s.Func.Params) {
				ts = base.Size(btf.TypeID(s.Func.Params[j].TypeID), 8)
			}
			c, ok := Canonical(l, ts)
			if !ok {
				c = site.Location{}
			}
			want = append(want, c)
		}
		found := false
		for _, o := range byKey[key(s)] {
			w := want
			for len(w) < len(o.Params) {
				w = append(w, site.Location{}) // missing trailing slots
			}
			if fmt.Sprint(o.Params) == fmt.Sprint(w) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: locations %v not decoded (got %d candidates)", key(s), want, len(byKey[key(s)]))
			for _, o := range byKey[key(s)] {
				t.Logf("  candidate %v", o.Params)
			}
		}
	}
}

func TestEncodeDeterministic(t *testing.T) {
	base := testBase(t)
	_, _, want := encodeTest(t, base, testSites())
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20; i++ {
		sites := testSites()
		r.Shuffle(len(sites), func(a, b int) { sites[a], sites[b] = sites[b], sites[a] })
		_, _, got := encodeTest(t, base, sites)
		if !bytes.Equal(got, want) {
			t.Fatalf("shuffle %d: different bytes", i)
		}
	}
}

// TestEncodeWideLocSec: more than 65,535 sites in one section make one
// LOCSEC with the widened vlen.
func TestEncodeWideLocSec(t *testing.T) {
	base := testBase(t)
	f := &site.Func{Name: "foo", RetTypeID: 1, Params: []site.Param{{Name: "a", TypeID: 1}, {Name: "p", TypeID: 2}}}
	sites := make([]site.Site, 70000)
	for i := range sites {
		sites[i] = site.Site{Func: f, Section: ".text", SectionOff: uint64(4 * i),
			Params: []site.Location{{Kind: site.LocReg, Reg: uint32(i % 3)}, {Kind: site.LocConst, Value: uint64(i % 5), Size: 8}}}
	}
	dst, st, raw := encodeTest(t, base, sites)
	if st.LocSecs != 1 || st.Entries != 70000 {
		t.Fatalf("stats %+v", st)
	}
	for _, err := range dst.Validate() {
		t.Error(err)
	}
	spec, err := btf.Parse(raw, base)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 70000 {
		t.Fatalf("decoded %d sites", len(got))
	}
	if perSite := float64(len(raw)) / 70000; perSite > 12.5 {
		t.Errorf("%.2f bytes per site", perSite)
	}
}

func TestSectionNames(t *testing.T) {
	for _, c := range [][2]string{{".text", "inline.text"}, {".init.text", "inline.init.text"}} {
		if got := SectionName(c[0]); got != c[1] {
			t.Errorf("SectionName(%q) = %q", c[0], got)
		}
		if got := SectionOf(c[1]); got != c[0] {
			t.Errorf("SectionOf(%q) = %q", c[1], got)
		}
	}
	if SectionOf("inline") != ".text" || SectionOf(".text") != ".text" {
		t.Error("RFC/kbuild names")
	}
}

func TestTypeName(t *testing.T) {
	s := btf.NewSpec(nil)
	add := func(ty btf.Type) btf.TypeID {
		id, err := s.Add(ty)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	i := add(btf.NewInt(s.AddString("int"), 4, 1, 0, 32))
	ch := add(btf.NewInt(s.AddString("char"), 1, 2, 0, 8))
	cc := add(btf.NewConst(ch))
	pcc := add(btf.NewPtr(cc))
	st := add(btf.NewStruct(s.AddString("tcp_sock"), 8, nil, false))
	pst := add(btf.NewPtr(st))
	cp := add(btf.NewConst(pst))
	fp := add(btf.NewFuncProto(0, []btf.Param{{Type: pst}, {Type: i}, {}}))
	pfp := add(btf.NewPtr(fp))
	arr := add(btf.NewArray(i, i, 4))
	parr := add(btf.NewPtr(arr))
	u := add(btf.NewFwd(s.AddString("u"), true))
	td := add(btf.NewTypedef(s.AddString("u32"), i))
	ppc := add(btf.NewPtr(pcc))
	cpcc := add(btf.NewConst(pcc))
	pcpcc := add(btf.NewPtr(cpcc))
	for _, c := range []struct {
		id   btf.TypeID
		want string
	}{
		{0, "void"}, {i, "int"}, {pcc, "const char *"}, {pst, "struct tcp_sock *"},
		{cp, "struct tcp_sock * const"}, {pfp, "void (*)(struct tcp_sock *, int, ...)"},
		{parr, "int (*)[4]"}, {u, "union u"}, {td, "u32"}, {ppc, "const char **"}, {pcpcc, "const char * const *"}, {arr, "int[4]"},
	} {
		if got := TypeName(s, c.id); got != c.want {
			t.Errorf("TypeName(%d) = %q, want %q", c.id, got, c.want)
		}
	}
}

// TestBpftoolLoads: bpftool (the reference) reads our split BTF on the
// base and counts the same types.
func TestBpftoolLoads(t *testing.T) {
	bpftool := testutil.RefTool(t, "bpftool")
	base := testBase(t)
	dst, _, raw := encodeTest(t, base, testSites())
	dir := t.TempDir()
	braw, err := base.Marshal(btf.MarshalOptions{Layout: true})
	if err != nil {
		t.Fatal(err)
	}
	bp, sp := filepath.Join(dir, "base.btf"), filepath.Join(dir, "inline.btf")
	if err := os.WriteFile(bp, braw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sp, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bpftool, "btf", "dump", "file", sp, "-B", bp).CombinedOutput()
	if err != nil {
		t.Fatalf("bpftool: %v\n%s", err, out)
	}
	n := len(regexp.MustCompile(`(?m)^\[\d+\] `).FindAll(out, -1))
	if n != dst.NumTypes() {
		t.Errorf("bpftool shows %d types, we wrote %d\n%s", n, dst.NumTypes(), out)
	}
	if !strings.Contains(string(out), "inline.text") {
		t.Errorf("no LOCSEC name in bpftool output:\n%s", out)
	}
}

// TestDecodeNames: LOCSECs named as the kbuild series (".text") and the RFC
// ("inline") did are read too.
func TestDecodeNames(t *testing.T) {
	base := testBase(t)
	for name, want := range map[string]string{".text": ".text", "inline": ".text", "inline.init.text": ".init.text", ".noinstr.text": ".noinstr.text"} {
		s := btf.NewSpec(base)
		if _, err := s.Add(btf.NewLocSec(s.AddString(name), []btf.LocEntry{{Func: 4, LocProto: 10, Offset: 0x20}})); err == nil {
			// foo has 2 parameters, LOC_PROTO [10] one: rejected.
			if _, err := Decode(s, nil); err == nil {
				t.Errorf("%s: vlen mismatch accepted", name)
			}
		}
		s = btf.NewSpec(base)
		lp, _ := s.Add(btf.NewLocProto([]btf.TypeID{5, 0}))
		if _, err := s.Add(btf.NewLocSec(s.AddString(name), []btf.LocEntry{{Func: 4, LocProto: lp, Offset: 0x20}})); err != nil {
			t.Fatal(err)
		}
		sites, err := Decode(s, func(sec string) (uint64, error) { return 0x1000, nil })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(sites) != 1 || sites[0].Section != want || sites[0].Addr != 0x1020 || sites[0].Func.Name != "foo" ||
			sites[0].Params[0] != (site.Location{Kind: site.LocReg, Reg: 5, Size: 4}) || sites[0].Params[1].Kind != site.LocUnavailable {
			t.Errorf("%s: %+v", name, sites)
		}
	}
}

// TestCanonicalSigned: SIGNED exactly for negative offsets and constants,
// constants cut to their size.
func TestCanonicalSigned(t *testing.T) {
	for _, c := range []struct {
		in   site.Location
		want site.Location
	}{
		{site.Location{Kind: site.LocConst, Value: 5, Signed: true, Size: 4}, site.Location{Kind: site.LocConst, Value: 5, Size: 4}},
		{site.Location{Kind: site.LocConst, Value: 0xff, Signed: true, Size: 1}, site.Location{Kind: site.LocConst, Value: ^uint64(0), Signed: true, Size: 1}},
		{site.Location{Kind: site.LocConst, Value: 0x1ff, Size: 1}, site.Location{Kind: site.LocConst, Value: 0xff, Size: 1}},
		{site.Location{Kind: site.LocMem, Reg: 6, Offset: -8, Size: 8}, site.Location{Kind: site.LocMem, Reg: 6, Offset: -8, Signed: true, Size: 8}},
		{site.Location{Kind: site.LocRegOffset, Reg: 6, Offset: 8, Signed: true}, site.Location{Kind: site.LocRegOffset, Reg: 6, Offset: 8, Size: 8}},
	} {
		got, ok := Canonical(c.in, 8)
		if !ok || got != c.want {
			t.Errorf("Canonical(%+v) = %+v, want %+v", c.in, got, c.want)
		}
		k, ok := canonKey(c.in, 8, 0)
		if !ok {
			t.Fatal(c.in)
		}
		dec, _ := locFromParam(k.size, k.flags, k.v[:k.n], nil)
		if dec != c.want {
			t.Errorf("encode+decode(%+v) = %+v, want %+v", c.in, dec, c.want)
		}
	}
}

// TestObjectBaseRelocatable: a relocatable object's address constants are
// section offsets, whatever sh_addr a section carries (arm64 modules give
// __patchable_function_entries one); a linked image's base is its lowest
// allocated address.
func TestObjectBaseRelocatable(t *testing.T) {
	raw, err := os.ReadFile("../encode/testdata/mod.ko")
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	// Give the first allocated section an address, in the header bytes.
	for i, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		hdr := binary.LittleEndian.Uint64(raw[0x28:]) + uint64(i)*64
		binary.LittleEndian.PutUint64(raw[hdr+16:], 0x170)
		break
	}
	f, err = elf.NewFile(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range f.Sections {
		found = found || s.Addr == 0x170
	}
	if !found {
		t.Fatal("patching sh_addr failed")
	}
	if b := ObjectBase(f); b != 0 {
		t.Errorf("ObjectBase of an ET_REL with a section at 0x170 = %#x, want 0", b)
	}
	if of, err := elfobj.New(raw); err != nil {
		t.Fatal(err)
	} else if b := ObjectBaseOf(of); b != 0 {
		t.Errorf("ObjectBaseOf of an ET_REL with a section at 0x170 = %#x, want 0", b)
	}
	k, err := elf.Open("../encode/testdata/kern.elf")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if b := ObjectBase(k); b == 0 {
		t.Error("ObjectBase of a linked image = 0")
	}
	// In place, the same base (its _stext).
	ko, err := elfobj.Open("../encode/testdata/kern.elf")
	if err != nil {
		t.Fatal(err)
	}
	defer ko.Close()
	if b, want := ObjectBaseOf(ko), ObjectBase(k); b != want {
		t.Errorf("ObjectBaseOf of a linked image = %#x, ObjectBase %#x", b, want)
	}
}
