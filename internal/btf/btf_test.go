package btf

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtures lists the raw blobs checked in under btf/testdata.
func fixtures(t *testing.T) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(fixtureDir, "*.btf"))
	if err != nil || len(m) < 4 {
		t.Fatalf("fixtures: %v %v", m, err)
	}
	return m
}

func TestRoundTripFixtures(t *testing.T) {
	for _, p := range fixtures(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			data := readFixture(t, filepath.Base(p))
			s, err := Parse(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.NumTypes() < 50 {
				t.Fatalf("only %d types", s.NumTypes())
			}
			if out := mustMarshal(t, s, MarshalOptions{}); !bytes.Equal(out, data) {
				t.Fatalf("round trip differs (%d vs %d bytes)", len(out), len(data))
			}
			if errs := s.Validate(); len(errs) != 0 {
				t.Fatalf("validation: %v", errs)
			}
			// Big-endian: the same content, swapped, round-trips to the
			// same big-endian bytes and decodes to the same types.
			be := swapBlob(t, data)
			if !bytes.Equal(be, swapIndependent(data)) {
				t.Fatal("big-endian encoding differs from a field-by-field byte swap")
			}
			bs, err := Parse(be, nil)
			if err != nil {
				t.Fatal(err)
			}
			if bs.ByteOrder() != binary.BigEndian {
				t.Fatal("byte order not detected")
			}
			if out := mustMarshal(t, bs, MarshalOptions{}); !bytes.Equal(out, be) {
				t.Fatal("big-endian round trip differs")
			}
			var a, b strings.Builder
			s.Dump(&a, DumpOptions{})
			bs.Dump(&b, DumpOptions{})
			if a.String() != b.String() {
				t.Fatal("big-endian blob dumps differently")
			}
		})
	}
}

func TestRoundTripELF(t *testing.T) {
	s, err := LoadFile(filepath.Join(fixtureDir, "kinds.x86_64.withbtf.o"), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := ExtractELFSection(filepath.Join(fixtureDir, "kinds.x86_64.withbtf.o"), ".BTF")
	if err != nil {
		t.Fatal(err)
	}
	if out := mustMarshal(t, s, MarshalOptions{}); !bytes.Equal(out, raw) {
		t.Fatal("ELF .BTF round trip differs")
	}
	if _, err := LoadFile(filepath.Join(fixtureDir, "kinds.x86_64.o"), nil); err == nil || !strings.Contains(err.Error(), "no .BTF section") {
		t.Fatalf("object without .BTF: %v", err)
	}
}

func TestRoundTripVmlinux(t *testing.T) {
	raw, s := vmlinux(t)
	if s.NumTypes() != 95057 {
		t.Fatalf("%d types", s.NumTypes())
	}
	if out := mustMarshal(t, s, MarshalOptions{}); !bytes.Equal(out, raw) {
		t.Fatal("vmlinux round trip differs")
	}
	if errs := s.Validate(); len(errs) != 0 {
		t.Fatalf("%d violations, first %v", len(errs), errs[0])
	}
	mod := readFixture(t, "tcp_bbr.btf.gz")
	m, err := Parse(mod, s)
	if err != nil {
		t.Fatal(err)
	}
	if m.FirstID() != 95058 || m.StrStart() != uint32(s.StringsLen()) {
		t.Fatalf("split numbering: first id %d, str start %#x", m.FirstID(), m.StrStart())
	}
	if out := mustMarshal(t, m, MarshalOptions{}); !bytes.Equal(out, mod) {
		t.Fatal("module round trip differs")
	}
	if errs := m.Validate(); len(errs) != 0 {
		t.Fatalf("module: %v", errs)
	}
	// A module type refers to vmlinux types and strings.
	ty, err := m.TypeByID(m.FirstID())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.TypeByID(TypeID(ty.SizeType)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.TypeByID(m.NextID()); err == nil {
		t.Fatal("id past the end resolved")
	}
	if _, err := m.TypeByID(0); err == nil {
		t.Fatal("void resolved")
	}
}

// TestMultiSplit builds vmlinux -> module -> module.inline and checks that
// ids and string offsets continue, and that strings of any ancestor are
// reused.
func TestMultiSplit(t *testing.T) {
	_, vm := vmlinux(t)
	mod, err := Parse(readFixture(t, "tcp_bbr.btf.gz"), vm)
	if err != nil {
		t.Fatal(err)
	}
	in := NewSpec(mod)
	if in.FirstID() != mod.NextID() || in.StrStart() != mod.StrStart()+uint32(mod.StringsLen()) {
		t.Fatalf("inline starts at id %d str %#x", in.FirstID(), in.StrStart())
	}
	// "task_struct" is a vmlinux string, "bbr" a tcp_bbr one.
	vmOff, ok := vm.FindString("task_struct")
	if !ok {
		t.Fatal("task_struct not in vmlinux")
	}
	if got := in.AddString("task_struct"); got != vmOff {
		t.Fatalf("AddString(task_struct) = %#x, want vmlinux %#x", got, vmOff)
	}
	modOff, ok := mod.lookupString("bbr_mode")
	if !ok {
		t.Fatal("bbr_mode not in tcp_bbr strings")
	}
	if got := in.AddString("bbr_mode"); got != modOff {
		t.Fatalf("AddString(bbr_mode) = %#x, want module %#x", got, modOff)
	}
	if in.StringsLen() != 0 {
		t.Fatal("reused strings were appended")
	}
	newOff := in.AddString("inline.text")
	if newOff != in.StrStart() || in.AddString("inline.text") != newOff {
		t.Fatalf("own string at %#x", newOff)
	}
	// A FUNC of vmlinux with a LOC_PROTO of matching vlen.
	fn, proto := findFunc(t, vm, "tcp_slow_start")
	var locs []TypeID
	for range proto.Params() {
		locs = append(locs, mustAdd(t, in, NewLocParam(8, LocReg, 5)))
	}
	lp := mustAdd(t, in, NewLocProto(locs))
	ls := mustAdd(t, in, NewLocSec(newOff, []LocEntry{{fn, lp, 0x40}}))
	if errs := in.Validate(); len(errs) != 0 {
		t.Fatal(errs)
	}
	if ls != in.FirstID()+TypeID(len(locs))+1 {
		t.Fatalf("locsec id %d", ls)
	}
	// Marshal without layout (the chain has none here: vmlinux 6.1) and
	// with our own, and read both back on the chain.
	for _, lay := range []bool{false, true} {
		b := mustMarshal(t, in, MarshalOptions{Layout: lay})
		h := binary.LittleEndian.Uint32(b[4:])
		if lay && h != 32 || !lay && h != 24 {
			t.Fatalf("layout %v: hdr_len %d", lay, h)
		}
		back, err := Parse(b, mod)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mustMarshal(t, back, MarshalOptions{}), b) {
			t.Fatal("inline round trip differs")
		}
		if got := back.SiteText(LocEntry{fn, lp, 0}); !strings.HasPrefix(got, "tcp_slow_start(tp [reg5]") {
			t.Fatalf("site text %q", got)
		}
	}
}

func findFunc(t *testing.T, s *Spec, name string) (TypeID, *Type) {
	t.Helper()
	for i := range s.types {
		ty := &s.types[i]
		if ty.Kind() == KindFunc && s.Name(ty) == name {
			p, err := s.TypeByID(TypeID(ty.SizeType))
			if err != nil {
				t.Fatal(err)
			}
			return s.firstID + TypeID(i), p
		}
	}
	t.Fatalf("no FUNC %s", name)
	return 0, nil
}

// TestUnknownKindLayout: kinds this reader does not know are skipped with
// the layout of the blob itself or of any ancestor; without any layout the
// error names the kind and the type id.
func TestUnknownKindLayout(t *testing.T) {
	base := NewSpec(nil)
	i := mustAdd(t, base, NewInt(base.AddString("int"), 4, 1, 0, 32))
	// Kind 30: 4-byte fixed part + 8 bytes per element, only in our
	// own layout table.
	lay := BuiltinLayout()
	for len(lay) <= 30 {
		lay = append(lay, LayoutRecord{})
	}
	lay[30] = LayoutRecord{InfoSz: 4, ElemSz: 8}
	base.layout = lay
	unk := Type{Info: MakeInfo(30, 2, false), SizeType: uint32(i), Data: []uint32{7, 1, 2, 3, 4}}
	mustAdd(t, base, unk)
	baseBlob := mustMarshal(t, base, MarshalOptions{})
	if binary.LittleEndian.Uint32(baseBlob[4:]) != 32 || binary.LittleEndian.Uint32(baseBlob[28:]) != uint32(4*len(lay)) {
		t.Fatal("layout header not written")
	}
	b, err := Parse(baseBlob, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustMarshal(t, b, MarshalOptions{}), baseBlob) {
		t.Fatal("unknown kind round trip differs")
	}
	// Two levels below: mid has no layout, leaf has a kind-30 type.
	mid := NewSpec(b)
	mustAdd(t, mid, NewPtr(i))
	midBlob := mustMarshal(t, mid, MarshalOptions{})
	m, err := Parse(midBlob, b)
	if err != nil {
		t.Fatal(err)
	}
	leaf := NewSpec(m)
	mustAdd(t, leaf, unk)
	leafBlob := mustMarshal(t, leaf, MarshalOptions{})
	l, err := Parse(leafBlob, m)
	if err != nil {
		t.Fatalf("layout two levels up not used: %v", err)
	}
	// Split BTF whose chain has a layout gets none of its own.
	if lb := mustMarshal(t, leaf, MarshalOptions{Layout: true}); !bytes.Equal(lb, leafBlob) {
		t.Fatal("layout written below a base that has one")
	}
	if l.NumTypes() != 1 || l.FirstID() != 4 {
		t.Fatalf("leaf: %d types from %d", l.NumTypes(), l.FirstID())
	}
	// Without a layout anywhere: a clear error.
	plain := NewSpec(nil)
	mustAdd(t, plain, NewInt(plain.AddString("int"), 4, 1, 0, 32))
	pb := mustMarshal(t, plain, MarshalOptions{})
	p, _ := Parse(pb, nil)
	m2, _ := Parse(midBlob, p)
	_, err = Parse(leafBlob, m2)
	var uk *UnknownKindError
	if !errors.As(err, &uk) || uk.ID != m2.NextID() || uk.Kind != 30 || !errors.Is(err, ErrUnknownKind) {
		t.Fatalf("want unknown kind error for [%d] kind 30, got %v", m2.NextID(), err)
	}
	if !strings.Contains(err.Error(), "[3]") || !strings.Contains(err.Error(), "kind 30") {
		t.Fatalf("error does not name id and kind: %v", err)
	}
	// And an unknown kind outside the layout table.
	big := Type{Info: MakeInfo(100, 0, false)}
	if _, err := leaf.Add(big); err == nil {
		t.Fatal("kind 100 accepted")
	}
}

// TestByteExample checks the little-endian encodings of spec 3.4.
func TestByteExample(t *testing.T) {
	s := NewSpec(nil)
	n := s.AddString("inline.text")
	var recs [][]byte
	for _, ty := range []Type{
		NewLocParam(4, LocReg, 5),
		NewLocProto([]TypeID{7}),
		NewLocSec(n, []LocEntry{{3, 8, 0x40}}),
	} {
		mustAdd(t, s, ty)
		b := make([]byte, 12+4*len(ty.Data))
		binary.LittleEndian.PutUint32(b, ty.NameOff)
		binary.LittleEndian.PutUint32(b[4:], ty.Info)
		binary.LittleEndian.PutUint32(b[8:], ty.SizeType)
		encodeWords(binary.LittleEndian, b[12:], ty.Data)
		recs = append(recs, b)
	}
	want := []string{
		"00000000" + "01000014" + "04000000" + "08000000" + "05000000",
		"00000000" + "01000015" + "00000000" + "07000000",
		hex.EncodeToString(binary.LittleEndian.AppendUint32(nil, n)) + "01000016" + "00000000" + "03000000" + "08000000" + "40000000",
	}
	for i, r := range recs {
		if got := hex.EncodeToString(r); got != want[i] {
			t.Errorf("record %d: %s, want %s", i, got, want[i])
		}
	}
	// The same bytes come out of Marshal, after the header.
	blob := mustMarshal(t, s, MarshalOptions{})
	if got := hex.EncodeToString(blob[24 : 24+len(recs[0])+len(recs[1])+len(recs[2])]); got != strings.Join(want, "") {
		t.Fatalf("marshalled types %s", got)
	}
	ps, err := Parse(blob, nil)
	if err != nil {
		t.Fatal(err)
	}
	ty, _ := ps.TypeByID(1)
	if fl, v := ty.LocParam(); fl != LocReg || len(v) != 1 || v[0] != 5 || ty.SizeType != 4 {
		t.Fatalf("LocParam %#x %v", fl, v)
	}
	ty, _ = ps.TypeByID(3)
	if e := ty.LocSecEntries(); len(e) != 1 || e[0] != (LocEntry{3, 8, 0x40}) {
		t.Fatalf("LocSecEntries %v", e)
	}
}

// TestGoldenDump reproduces the bpftool_btf_dump selftest output of spec
// 7.3 exactly.
func TestGoldenDump(t *testing.T) {
	s := goldenLoc(t)
	var b strings.Builder
	if err := s.Dump(&b, DumpOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `[4] LOC_PARAM '(anon)' size=4 flags=0x8 vlen=1 values='reg1'
[5] LOC_PARAM '(anon)' size=8 flags=0x38 vlen=2 values='*(reg2 + 0x10)'
[6] LOC_PARAM '(anon)' size=8 flags=0x29 vlen=2 values='fbreg - 0x10'
[7] LOC_PARAM '(anon)' size=8 flags=0x6 vlen=2 values='address 0x123456789abcdef0'
[8] LOC_PARAM '(anon)' size=8 flags=0x2 vlen=2 values='const 0xdeadbeeffeedface'
[9] LOC_PARAM '(anon)' size=8 flags=0x39 vlen=2 values='*(fbreg - 0x20)'
[10] LOC_PROTO '(anon)' vlen=6
	type_id=4 value='reg1'
	type_id=5 value='*(reg2 + 0x10)'
	type_id=6 value='fbreg - 0x10'
	type_id=7 value='address 0x123456789abcdef0'
	type_id=8 value='const 0xdeadbeeffeedface'
	type_id=9 value='*(fbreg - 0x20)'
[11] LOCSEC 'inline.text' vlen=1
	func='foo(arg1 [reg1], arg2 [*(reg2 + 0x10)], arg3 [fbreg - 0x10], arg4 [address 0x123456789abcdef0], arg5 [const 0xdeadbeeffeedface], arg6 [*(fbreg - 0x20)])' func_type_id=3 loc_proto_type_id=10 offset=64
`
	got := b.String()
	i := strings.Index(got, "[4] ")
	if i < 0 || got[i:] != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if errs := s.Validate(); len(errs) != 0 {
		t.Fatal(errs)
	}
}

func TestLocText(t *testing.T) {
	for _, c := range []struct {
		size  uint32
		flags LocFlags
		v     []uint32
		want  string
	}{
		{8, LocReg, []uint32{1, 2}, "reg1, reg2"},
		{8, LocReg | LocDeref, []uint32{7}, "*(reg7)"},
		{4, LocConst | LocSigned, []uint32{0xffffffff}, "const -0x1"},
		{2, LocConst | LocSigned, []uint32{0xfffe}, "const -0x2"},
		{4, LocConst, []uint32{0x2}, "const 0x2"},
		{8, LocReg | LocOffset, []uint32{6, 0x10, 0x1}, "reg6 + 0x100000010"},
		{8, LocReg | LocOffset | LocSigned, []uint32{6, 0xfffffff0, 0xffffffff}, "reg6 - 0x10"},
		{8, LocReg | LocOffset, []uint32{6, 0xfffffff0}, "reg6 + 0xfffffff0"},
		{8, LocConst | LocAddr | LocSigned, []uint32{0xfffffff0, 0xffffffff}, "address -0x10"},
		{8, LocDeref, []uint32{1}, "raw=[0x00000001]"},
		{8, LocConst, []uint32{1}, "raw=[0x00000001]"},
		{4, 0x40, []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9}, "raw=[0x00000001, 0x00000002, 0x00000003, 0x00000004, 0x00000005, 0x00000006, 0x00000007, 0x00000008]"},
	} {
		if got := FormatLoc(c.size, c.flags, c.v); got != c.want {
			t.Errorf("FormatLoc(%d, %#x, %x) = %q, want %q", c.size, c.flags, c.v, got, c.want)
		}
	}
}

// TestViewsMalformed: typed views must not panic on records whose Data does
// not match the vlen (constructed by hand).
func TestViewsMalformed(t *testing.T) {
	for k := Kind(1); k < NumKinds; k++ {
		for _, d := range [][]uint32{nil, {1}, {1, 2, 3, 4, 5}} {
			ty := Type{Info: MakeInfo(k, 1000, true), Data: d}
			ty.Members()
			ty.Params()
			ty.EnumValues()
			ty.Secinfos()
			ty.IntEncoding()
			ty.Array()
			ty.LocParam()
			ty.LocProtoParams()
			ty.LocSecEntries()
		}
	}
}

func TestAddChecksSize(t *testing.T) {
	s := NewSpec(nil)
	if _, err := s.Add(Type{Info: MakeInfo(KindStruct, 2, false), Data: []uint32{1, 2, 3}}); err == nil {
		t.Fatal("struct with vlen 2 and one member accepted")
	}
	if _, err := s.Add(Type{Info: MakeInfo(KindUnknown, 0, false)}); err == nil {
		t.Fatal("kind 0 accepted")
	}
}

// TestMember: Member(i) is Members()[i], and NumMembers their count,
// also for a record whose data is shorter than its vlen says.
func TestMember(t *testing.T) {
	ms := []Member{{1, 2, 0}, {3, 4, 32}, {5, 6, 1<<24 | 64}}
	short := Type{Info: MakeInfo(KindStruct, 3, false), Data: []uint32{1, 2, 0, 3, 4}}
	for _, ty := range []Type{NewStruct(7, 16, ms, false), NewStruct(7, 8, ms[:1], true), NewStruct(7, 0, nil, false), short} {
		want := ty.Members()
		if ty.NumMembers() != len(want) {
			t.Errorf("%v: NumMembers %d, want %d", ty.Kind(), ty.NumMembers(), len(want))
		}
		for i, m := range want {
			if got := ty.Member(i); got != m {
				t.Errorf("%v: Member(%d) = %+v, want %+v", ty.Kind(), i, got, m)
			}
		}
	}
}

// TestMarshalOrder: new BTF is written header | types | layout | strings.
func TestMarshalOrder(t *testing.T) {
	s := allKinds(t)
	for _, lay := range []bool{false, true} {
		b := mustMarshal(t, s, MarshalOptions{Layout: lay})
		bo := binary.LittleEndian
		hl, to, tl, so, sl := bo.Uint32(b[4:]), bo.Uint32(b[8:]), bo.Uint32(b[12:]), bo.Uint32(b[16:]), bo.Uint32(b[20:])
		if to != 0 || int(hl+so+sl) != len(b) {
			t.Fatalf("layout=%v: bad header %d %d %d %d %d", lay, hl, to, tl, so, sl)
		}
		if !lay {
			if hl != 24 || so != tl {
				t.Fatalf("hdr_len %d str_off %d", hl, so)
			}
			continue
		}
		lo, ll := bo.Uint32(b[24:]), bo.Uint32(b[28:])
		if hl != 32 || lo != tl || ll != 4*NumKinds || so != tl+ll {
			t.Fatalf("layout header %d %d %d %d", hl, lo, ll, so)
		}
		ps, err := Parse(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !ps.HasLayout() || !ps.ChainHasLayout() || ps.HeaderLen() != 32 {
			t.Fatal("layout not read back")
		}
		// Adding a type to a parsed spec keeps hdr_len 32 and the order.
		mustAdd(t, ps, NewPtr(1))
		b2 := mustMarshal(t, ps, MarshalOptions{})
		if bo.Uint32(b2[4:]) != 32 || bo.Uint32(b2[24:]) != tl+12 {
			t.Fatal("re-marshal after Add lost the order")
		}
		if _, err := Parse(b2, nil); err != nil {
			t.Fatal(err)
		}
	}
	// A 32-byte header without layout is kept as read.
	b := mustMarshal(t, s, MarshalOptions{})
	h32 := append(append(append([]byte(nil), b[:24]...), make([]byte, 8)...), b[24:]...)
	binary.LittleEndian.PutUint32(h32[4:], 32)
	ps, err := Parse(h32, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ps.HasLayout() || !bytes.Equal(mustMarshal(t, ps, MarshalOptions{}), h32) {
		t.Fatal("32-byte header without layout not reproduced")
	}
	mustAdd(t, ps, NewPtr(1))
	if b := mustMarshal(t, ps, MarshalOptions{}); binary.LittleEndian.Uint32(b[4:]) != 32 {
		t.Fatal("parsed 32-byte header shrank")
	}
}

func TestLoadRawFile(t *testing.T) {
	p := filepath.Join(fixtureDir, "kinds.aarch64.btf")
	s, err := LoadFile(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if !bytes.Equal(mustMarshal(t, s, MarshalOptions{}), data) {
		t.Fatal("differs")
	}
	if _, err := LoadFile(filepath.Join(fixtureDir, "kinds.c"), nil); err == nil {
		t.Fatal("C source parsed as BTF")
	}
}
