package trace

import (
	"encoding/binary"
	"testing"

	"github.com/btfinline/btfinline/internal/btf"
)

// typesSpec builds the BTF the formatting tests decode with.
type typesSpec struct {
	*btf.Spec
	t *testing.T
}

func (s typesSpec) add(t btf.Type) btf.TypeID {
	id, err := s.Add(t)
	if err != nil {
		s.t.Fatal(err)
	}
	return id
}

func bytesOf(vals ...any) []byte {
	var b []byte
	for _, v := range vals {
		switch x := v.(type) {
		case uint8:
			b = append(b, x)
		case uint16:
			b = binary.LittleEndian.AppendUint16(b, x)
		case uint32:
			b = binary.LittleEndian.AppendUint32(b, x)
		case uint64:
			b = binary.LittleEndian.AppendUint64(b, x)
		case string:
			b = append(b, x...)
		}
	}
	return b
}

func TestFormatValues(t *testing.T) {
	s := typesSpec{btf.NewSpec(nil), t}
	u32 := s.add(btf.NewInt(s.AddString("u32"), 4, 0, 0, 32))
	s32 := s.add(btf.NewInt(s.AddString("int"), 4, 1, 0, 32))
	s8 := s.add(btf.NewInt(s.AddString("signed char"), 1, 1|2, 0, 8))
	char := s.add(btf.NewInt(s.AddString("char"), 1, 2, 0, 8))
	boolT := s.add(btf.NewInt(s.AddString("_Bool"), 1, 4, 0, 8))
	u64 := s.add(btf.NewInt(s.AddString("u64"), 8, 0, 0, 64))
	s64 := s.add(btf.NewInt(s.AddString("long"), 8, 1, 0, 64))
	ptr := s.add(btf.NewPtr(u32))
	tdef := s.add(btf.NewTypedef(s.AddString("size_t"), u64))
	cnst := s.add(btf.NewConst(tdef))
	enum := s.add(btf.NewEnum(s.AddString("state"), 4, []btf.EnumValue{
		{NameOff: s.AddString("UP"), Value: 1}, {NameOff: s.AddString("DOWN"), Value: 2}}, false))
	senum := s.add(btf.NewEnum(s.AddString("delta"), 4, []btf.EnumValue{
		{NameOff: s.AddString("BACK"), Value: -1}}, true))
	idx := s.add(btf.NewInt(s.AddString("__ARRAY_SIZE_TYPE__"), 4, 0, 0, 32))
	name := s.add(btf.NewArray(char, idx, 8))
	arr := s.add(btf.NewArray(u32, idx, 3))
	flt := s.add(btf.NewFloat(s.AddString("double"), 8))
	wide := s.add(btf.NewStruct(s.AddString("wide"), 16, []btf.Member{
		{NameOff: s.AddString("lo"), Type: u64, Offset: 0}, {NameOff: s.AddString("hi"), Type: u64, Offset: 64}}, false))
	bits := btf.NewStruct(s.AddString("bits"), 4, []btf.Member{
		{NameOff: s.AddString("a"), Type: u32, Offset: 3 << 24}, {NameOff: s.AddString("b"), Type: s32, Offset: 5<<24 | 3}}, false)
	bits.Info |= 1 << 31 // kind flag: bitfield offsets
	bitsT := s.add(bits)
	inner := s.add(btf.NewStruct(0, 4, []btf.Member{{NameOff: s.AddString("x"), Type: u32}}, false))
	outer := s.add(btf.NewStruct(s.AddString("outer"), 16, []btf.Member{
		{NameOff: 0, Type: inner, Offset: 0}, {NameOff: s.AddString("st"), Type: enum, Offset: 32}, {NameOff: s.AddString("n"), Type: name, Offset: 64}}, false))
	for _, tc := range []struct {
		name string
		typ  btf.TypeID
		b    []byte
		hex  bool
		text string
		json string
	}{
		{"u32", u32, bytesOf(uint32(4000000000)), false, "4000000000", "4000000000"},
		{"u32 hex", u32, bytesOf(uint32(0x10)), true, "0x10", "16"},
		{"int", s32, bytesOf(uint32(0xfffffffe)), false, "-2", "-2"},
		{"int hex", s32, bytesOf(uint32(0xfffffffe)), true, "-0x2", "-2"},
		{"signed char", s8, []byte{0x80}, false, "-128", "-128"},
		{"bool", boolT, []byte{1}, false, "true", "true"},
		{"long", s64, bytesOf(uint64(1 << 63)), false, "-9223372036854775808", "-9223372036854775808"},
		{"pointer", ptr, bytesOf(uint64(0xffff888001000000)), false, "0xffff888001000000", `"0xffff888001000000"`},
		{"null", ptr, bytesOf(uint64(0)), false, "0x0", `"0x0"`},
		{"const typedef", cnst, bytesOf(uint64(12)), false, "12", "12"},
		{"enum", enum, bytesOf(uint32(2)), false, "DOWN", `"DOWN"`},
		{"enum unknown", enum, bytesOf(uint32(7)), false, "7", "7"},
		{"signed enum", senum, bytesOf(uint32(0xffffffff)), false, "BACK", `"BACK"`},
		{"char array", name, bytesOf("eth0\x00\x00\x00\x00"), false, `"eth0"`, `"eth0"`},
		{"array", arr, bytesOf(uint32(1), uint32(2), uint32(3)), false, "[1, 2, 3]", "[1,2,3]"},
		{"float", flt, bytesOf(uint64(0x3ff8000000000000)), false, "1.5", "1.5"},
		{"struct in registers", wide, bytesOf(uint64(5), uint64(7)), false, "{lo=5, hi=7}", `{"lo":5,"hi":7}`},
		{"bitfields", bitsT, bytesOf(uint32(0b11111_101)), false, "{a=5, b=-1}", `{"a":5,"b":-1}`},
		{"anonymous member, enum, string", outer, bytesOf(uint32(9), uint32(1), "lo\x00\x00\x00\x00\x00\x00"), false, `{x=9, st=UP, n="lo"}`, `{"x":9,"st":"UP","n":"lo"}`},
		{"short bytes", u64, []byte{1, 2}, false, "513", "513"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := decodeValue(s.Spec, tc.typ, tc.b)
			if got := v.Text(tc.hex); got != tc.text {
				t.Errorf("text %s, want %s", got, tc.text)
			}
			j, _ := v.MarshalJSON()
			if string(j) != tc.json {
				t.Errorf("json %s, want %s", j, tc.json)
			}
		})
	}
	if got := (Value{Kind: vUnavailable}).Text(false); got != "(unavailable)" {
		t.Errorf("unavailable: %s", got)
	}
	if j, _ := (Value{Kind: vFault}).MarshalJSON(); string(j) != "null" {
		t.Errorf("fault JSON: %s", j)
	}
}

func TestHistBuckets(t *testing.T) {
	for _, tc := range []struct {
		v      uint64
		signed bool
		b      int
		text   string
	}{
		{0, false, histZero, "[0]"},
		{1, false, 2, "[1]"},
		{2, false, 3, "[2, 4)"},
		{3, false, 3, "[2, 4)"},
		{1023, false, 11, "[512, 1K)"},
		{1024, false, 12, "[1K, 2K)"},
		{1 << 20, false, 22, "[1M, 2M)"},
		{^uint64(0), false, 65, "[8E, 16E)"},
		{^uint64(0), true, histNeg, "(..., 0)"},
	} {
		b := bucketOf(tc.v, tc.signed)
		_, _, text := bucketRange(b)
		if b != tc.b || text != tc.text {
			t.Errorf("%#x signed=%v: bucket %d %s, want %d %s", tc.v, tc.signed, b, text, tc.b, tc.text)
		}
	}
}
