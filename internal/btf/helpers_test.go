package btf

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

const fixtureDir = "testdata"

func readFixture(tb testing.TB, name string) []byte {
	tb.Helper()
	p := filepath.Join(fixtureDir, name)
	data, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	if filepath.Ext(name) == ".gz" {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			tb.Fatal(err)
		}
		data, err = io.ReadAll(zr)
		if err != nil {
			tb.Fatal(err)
		}
	}
	return data
}

var (
	vmlinuxOnce sync.Once
	vmlinuxRaw  []byte
	vmlinuxSpec *Spec
)

// vmlinux returns the checked-in Debian 6.1 vmlinux .BTF (raw and parsed).
func vmlinux(tb testing.TB) ([]byte, *Spec) {
	tb.Helper()
	vmlinuxOnce.Do(func() {
		vmlinuxRaw = readFixture(tb, "vmlinux.btf.gz")
		s, err := Parse(vmlinuxRaw, nil)
		if err != nil {
			tb.Fatal(err)
		}
		vmlinuxSpec = s
	})
	if vmlinuxSpec == nil {
		tb.Fatal("vmlinux BTF did not parse")
	}
	return vmlinuxRaw, vmlinuxSpec
}

// writeTemp writes data to a file in t's temp dir.
func writeTemp(tb testing.TB, name string, data []byte) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

func mustAdd(tb testing.TB, s *Spec, t Type) TypeID {
	tb.Helper()
	id, err := s.Add(t)
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

func mustMarshal(tb testing.TB, s *Spec, o MarshalOptions) []byte {
	tb.Helper()
	b, err := s.Marshal(o)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// allKinds builds a base BTF with every kind 1-19 and the variants bpftool
// prints differently (kflag, linkage, encodings, anonymous members).
func allKinds(tb testing.TB) *Spec {
	tb.Helper()
	s := NewSpec(nil)
	str := s.AddString
	add := func(t Type) TypeID { return mustAdd(tb, s, t) }
	i32 := add(NewInt(str("int"), 4, 1, 0, 32))         // 1
	u8 := add(NewInt(str("unsigned char"), 1, 0, 0, 8)) // 2
	add(NewInt(str("char"), 1, 2, 0, 8))                // 3
	add(NewInt(str("_Bool"), 1, 4, 0, 1))               // 4
	add(NewInt(str("__int128"), 16, 1, 0, 128))         // 5
	p := add(NewPtr(i32))                               // 6
	arr := add(NewArray(u8, i32, 16))                   // 7
	st := add(NewStruct(str("s"), 8, []Member{          // 8
		{str("a"), i32, 0}, {str("b"), i32, 3<<24 | 32}, {0, u8, 5<<24 | 40},
	}, false))
	add(NewStruct(str("u"), 16, []Member{{str("x"), arr, 0}, {str("y"), p, 0}}, true))   // 9
	add(NewEnum(str("e"), 4, []EnumValue{{str("A"), 0}, {str("B"), 0xffffffff}}, false)) // 10
	add(NewEnum(str("se"), 4, []EnumValue{{str("N"), -1}, {str("P"), 7}}, true))         // 11
	add(NewEnum(str("e64"), 8, []EnumValue{{str("W"), 1 << 40}}, false))                 // 12
	add(NewEnum(0, 8, []EnumValue{{str("SW"), -1 << 40}}, true))                         // 13
	add(NewFwd(str("fs"), false))                                                        // 14
	add(NewFwd(str("fu"), true))                                                         // 15
	td := add(NewTypedef(str("myint"), i32))                                             // 16
	add(NewVolatile(td))                                                                 // 17
	c := add(NewConst(td))                                                               // 18
	add(NewRestrict(p))                                                                  // 19
	fp := add(NewFuncProto(i32, []Param{{str("a"), i32}, {str("b"), c}}))                // 20
	add(NewFunc(str("f_static"), fp, 0))                                                 // 21
	fg := add(NewFunc(str("f_global"), fp, 1))                                           // 22
	add(NewFunc(str("f_extern"), fp, 2))                                                 // 23
	add(NewFuncProto(0, []Param{{str("n"), i32}, {0, 0}}))                               // 24 varargs
	v0 := add(NewVar(str("v_static"), i32, 0))                                           // 25
	v1 := add(NewVar(str("v_global"), st, 1))                                            // 26
	add(NewVar(str("v_extern"), i32, 2))                                                 // 27
	add(NewDatasec(str(".data"), 16, []VarSecinfo{{v0, 0, 4}, {v1, 8, 8}}))              // 28
	add(NewFloat(str("double"), 8))                                                      // 29
	add(NewDeclTag(str("tag1"), st, -1, false))                                          // 30
	add(NewDeclTag(str("tag2"), st, 1, false))                                           // 31
	add(NewDeclTag(str("tag3"), fg, 0, false))                                           // 32
	add(NewTypeTag(str("user"), i32))                                                    // 33
	add(NewStruct(0, 4, []Member{{0, i32, 0}}, false))                                   // 34 anon
	add(NewDeclTag(str("attr"), st, -1, true))                                           // 35 kflag
	tt := NewTypeTag(str("attr_tt"), i32)
	tt.Info |= 1 << 31
	add(tt)                                  // 36 kflag
	add(NewInt(str("odd"), 4, 0, 3, 8))      // 37 bits_offset
	add(NewInt(str("w"), 4, 3, 0, 8))        // 38 encoding UNKN
	add(NewFloat(str("long double"), 16))    // 39
	add(NewTypedef(str("empty_name_ok"), 0)) // 40 typedef of void
	return s
}

// goldenLoc builds the spec 7.3 golden BTF: [1] int; [2] FUNC_PROTO int
// (arg1..arg6 int); [3] FUNC foo; [4]-[9] LOC_PARAMs; [10] LOC_PROTO;
// [11] LOCSEC inline.text.
func goldenLoc(tb testing.TB) *Spec {
	tb.Helper()
	s := NewSpec(nil)
	add := func(t Type) TypeID { return mustAdd(tb, s, t) }
	i := add(NewInt(s.AddString("int"), 4, 1, 0, 32))
	var ps []Param
	for _, n := range []string{"arg1", "arg2", "arg3", "arg4", "arg5", "arg6"} {
		ps = append(ps, Param{s.AddString(n), i})
	}
	fp := add(NewFuncProto(i, ps))
	fn := add(NewFunc(s.AddString("foo"), fp, 0))
	neg := func(v int32) uint32 { return uint32(v) }
	var lps []TypeID
	lps = append(lps, add(NewLocParam(4, LocReg, 1)))
	lps = append(lps, add(NewLocParam(8, LocReg|LocDeref|LocOffset, 2, 0x10)))
	lps = append(lps, add(NewLocParam(8, LocReg|LocOffset|LocSigned, LocFBReg, neg(-0x10))))
	lps = append(lps, add(NewLocParam(8, LocAddr|LocConst, 0x9abcdef0, 0x12345678)))
	lps = append(lps, add(NewLocParam(8, LocConst, 0xfeedface, 0xdeadbeef)))
	lps = append(lps, add(NewLocParam(8, LocReg|LocDeref|LocOffset|LocSigned, LocFBReg, neg(-0x20))))
	lp := add(NewLocProto(lps))
	add(NewLocSec(s.AddString("inline.text"), []LocEntry{{fn, lp, 64}}))
	return s
}

// swapWords byte-swaps a LE blob's header, layout and type words into a BE
// blob with the same content.
func swapBlob(tb testing.TB, le []byte) []byte {
	tb.Helper()
	s, err := Parse(le, nil)
	if err != nil {
		tb.Fatal(err)
	}
	s.SetByteOrder(binary.BigEndian)
	return mustMarshal(tb, s, MarshalOptions{})
}

// swapIndependent byte-swaps a little-endian blob field by field without
// using this package's encoder: header u16/u32s, every 4-byte word of the
// type section, the u16 flags of layout records; strings stay.
func swapIndependent(le []byte) []byte {
	bo := binary.LittleEndian
	out := append([]byte(nil), le...)
	sw32 := func(b []byte) { binary.BigEndian.PutUint32(b, bo.Uint32(b)) }
	binary.BigEndian.PutUint16(out, bo.Uint16(le))
	hl := bo.Uint32(le[4:])
	for off := uint32(4); off+4 <= hl && off < 32; off += 4 {
		sw32(out[off:])
	}
	to, tl := bo.Uint32(le[8:]), bo.Uint32(le[12:])
	for o := hl + to; o < hl+to+tl; o += 4 {
		sw32(out[o:])
	}
	if hl >= 32 {
		lo, ll := bo.Uint32(le[24:]), bo.Uint32(le[28:])
		for o := hl + lo; o < hl+lo+ll; o += 4 {
			binary.BigEndian.PutUint16(out[o+2:], bo.Uint16(le[o+2:]))
		}
	}
	return out
}
