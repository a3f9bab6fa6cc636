package dwarfbuf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"
)

func TestFixed(t *testing.T) {
	data := []byte{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f}
	for _, c := range []struct {
		order binary.ByteOrder
		u16   uint16
		u32   uint32
		u64   uint64
	}{
		{binary.LittleEndian, 0x0302, 0x07060504, 0x0f0e0d0c0b0a0908},
		{binary.BigEndian, 0x0203, 0x04050607, 0x08090a0b0c0d0e0f},
		{nil, 0x0302, 0x07060504, 0x0f0e0d0c0b0a0908},
	} {
		t.Run(fmt.Sprint(c.order), func(t *testing.T) {
			b := Make(".debug_info", c.order, 0x100, data)
			if c.order != nil && b.Order() != c.order {
				t.Errorf("Order() = %v", b.Order())
			}
			if v := b.U8(); v != 1 {
				t.Errorf("U8 = %#x", v)
			}
			if v := b.U16(); v != c.u16 {
				t.Errorf("U16 = %#x, want %#x", v, c.u16)
			}
			if v := b.U32(); v != c.u32 {
				t.Errorf("U32 = %#x, want %#x", v, c.u32)
			}
			if v := b.U64(); v != c.u64 {
				t.Errorf("U64 = %#x, want %#x", v, c.u64)
			}
			if b.Err() != nil || b.Left() != 0 || b.Off() != 15 || b.Pos() != 0x10f {
				t.Errorf("err %v, left %d, off %d, pos %#x", b.Err(), b.Left(), b.Off(), b.Pos())
			}
		})
	}
}

func TestSized(t *testing.T) {
	data := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	for n, want := range map[int]uint64{1: 1, 2: 0x0201, 4: 0x04030201, 8: 0x0807060504030201} {
		b := Make("s", binary.LittleEndian, 0, data)
		if v := b.Sized(n); v != want || b.Err() != nil {
			t.Errorf("Sized(%d) = %#x, %v", n, v, b.Err())
		}
	}
	b := Make("s", binary.LittleEndian, 0x40, data)
	if v := b.Sized(3); v != 0 || b.Err() == nil || b.Failure().Msg != "unsupported integer size 3" || b.Failure().Offset != 0x40 {
		t.Errorf("Sized(3) = %#x, %v", v, b.Err())
	}
}

// leb128 holds LEB128 encodings, including the longest and redundantly
// padded forms, with their unsigned and signed readings; a reading that
// does not fit in 64 bits is marked bad.
var leb128 = []struct {
	enc        []byte
	u          uint64
	s          int64
	uBad, sBad bool
}{
	{enc: []byte{0x00}, u: 0, s: 0},
	{enc: []byte{0x02}, u: 2, s: 2},
	{enc: []byte{0x7f}, u: 127, s: -1},
	{enc: []byte{0x80, 0x01}, u: 128, s: 128},
	{enc: []byte{0x81, 0x7f}, u: 0x3f81, s: -127},
	{enc: []byte{0x80, 0x7f}, u: 0x3f80, s: -128},
	{enc: []byte{0xe5, 0x8e, 0x26}, u: 624485, s: 624485},
	{enc: []byte{0xc0, 0xbb, 0x78}, u: 0x1e1dc0, s: -123456},
	{enc: []byte{0x80, 0x80, 0x00}, u: 0, s: 0},
	{enc: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, u: math.MaxUint64, sBad: true},
	{enc: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00}, u: math.MaxInt64, s: math.MaxInt64},
	{enc: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f}, u: math.MaxInt64 >> 1, s: math.MaxInt64 >> 1},
	{enc: []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40}, u: 1 << 62, s: -1 << 62},
	{enc: []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}, uBad: true, s: math.MinInt64},
	{enc: []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, u: 0, s: 0},
	{enc: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, uBad: true, s: -1},
}

func TestLEB128(t *testing.T) {
	for _, c := range leb128 {
		// A trailing byte shows that the reads stop at the right place.
		b := Make("l", nil, 0, append(c.enc, 0xaa))
		if v := b.Uleb(); c.uBad != (b.Err() != nil) || !c.uBad && (v != c.u || b.Off() != len(c.enc)) {
			t.Errorf("Uleb(% x) = %#x, off %d, %v; want %#x (bad %v)", c.enc, v, b.Off(), b.Err(), c.u, c.uBad)
		}
		b = Make("l", nil, 0, append(c.enc, 0xaa))
		if v := b.Sleb(); c.sBad != (b.Err() != nil) || !c.sBad && (v != c.s || b.Off() != len(c.enc)) {
			t.Errorf("Sleb(% x) = %d, off %d, %v; want %d (bad %v)", c.enc, v, b.Off(), b.Err(), c.s, c.sBad)
		}
	}
}

// TestLEB128Wide: the readers for constants keep the low 64 bits of a
// value of any width and say whether that is the whole value; SkipLeb
// steps over it. The first two are the constant gcc 16 writes for
// "const unsigned long valid_dma = 0x9000000000000000" as DW_FORM_sdata
// (llvm-dwarfdump prints -8070450532247928832), as a positive 65-bit and
// as a negative 64-bit number.
func TestLEB128Wide(t *testing.T) {
	for _, c := range []struct {
		enc            []byte
		u              uint64
		uExact, sExact bool
	}{
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x90, 0x01}, 0x9000000000000000, true, false},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x90, 0x7f}, 0x9000000000000000, false, true},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03}, math.MaxUint64, false, false},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 0, false, false},
		{[]byte{0x85, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 5, true, true},
		{[]byte{0x7f}, 0x7f, true, true},
	} {
		b := Make("l", nil, 0, append(c.enc, 0xaa))
		if v, exact := b.UlebWide(); v != c.u || exact != c.uExact || b.Off() != len(c.enc) || b.Err() != nil {
			t.Errorf("UlebWide(% x) = %#x, %v, off %d, %v; want %#x, %v", c.enc, v, exact, b.Off(), b.Err(), c.u, c.uExact)
		}
		b = Make("l", nil, 0, append(c.enc, 0xaa))
		want := int64(c.u)
		if len(c.enc) == 1 {
			want = -1 // 0x7f is -1 as a signed group
		}
		if v, exact := b.SlebWide(); v != want || exact != c.sExact || b.Off() != len(c.enc) || b.Err() != nil {
			t.Errorf("SlebWide(% x) = %d, %v, off %d, %v; want %d, %v", c.enc, v, exact, b.Off(), b.Err(), want, c.sExact)
		}
		b = Make("l", nil, 0, append(c.enc, 0xaa))
		if b.SkipLeb(); b.Off() != len(c.enc) || b.Err() != nil {
			t.Errorf("SkipLeb(% x): off %d, %v; want %d", c.enc, b.Off(), b.Err(), len(c.enc))
		}
	}
	for _, enc := range [][]byte{nil, {0x80}, {0xff, 0xff}} {
		for name, read := range map[string]func(*Buf){
			"UlebWide": func(b *Buf) { b.UlebWide() },
			"SlebWide": func(b *Buf) { b.SlebWide() },
			"SkipLeb":  (*Buf).SkipLeb,
		} {
			b := Make(".debug_x", nil, 0x10, enc)
			read(&b)
			var e *Error
			if !errors.As(b.Err(), &e) || e.Msg != "truncated LEB128" || e.Offset != 0x10+int64(len(enc)) {
				t.Errorf("%s(% x): %v; want truncated LEB128 at %#x", name, enc, b.Err(), 0x10+len(enc))
			}
		}
	}
}

func TestLEB128Errors(t *testing.T) {
	for _, c := range []struct {
		name   string
		signed bool
		enc    []byte
		off    int64
		msg    string
	}{
		{"empty", false, nil, 0x10, "truncated LEB128"},
		{"unterminated", false, []byte{0x80, 0x80}, 0x12, "truncated LEB128"},
		{"unterminated signed", true, []byte{0xff}, 0x11, "truncated LEB128"},
		{"65 bits", false, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03}, 0x19, "LEB128 overflows 64 bits"},
		{"71 bits", false, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 0x1a, "LEB128 overflows 64 bits"},
		{"signed 65 bits", true, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 0x19, "LEB128 overflows 64 bits"},
		{"signed 65 bits negative", true, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7e}, 0x19, "LEB128 overflows 64 bits"},
		{"signed sign flips", true, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0xff, 0x00}, 0x1a, "LEB128 overflows 64 bits"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := Make(".debug_x", nil, 0x10, c.enc)
			var v any
			if c.signed {
				v = b.Sleb()
			} else {
				v = b.Uleb()
			}
			var e *Error
			if !errors.As(b.Err(), &e) || e.Offset != c.off || e.Msg != c.msg || e.Section != ".debug_x" {
				t.Fatalf("got %v, %v; want error at %#x: %s", v, b.Err(), c.off, c.msg)
			}
			if fmt.Sprint(v) != "0" || b.Left() != 0 {
				t.Errorf("after the error: value %v, %d bytes left", v, b.Left())
			}
		})
	}
}

func TestSticky(t *testing.T) {
	b := Make(".eh_frame", binary.LittleEndian, 0x20, []byte{1, 2, 3, 4, 5, 6})
	b.U16()
	if v := b.U64(); v != 0 {
		t.Errorf("short U64 = %#x", v)
	}
	want := ".eh_frame+0x22: truncated: need 8 bytes, have 4"
	if err := b.Err(); err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
	// Everything after the first error reads zero and keeps that error.
	if b.U8() != 0 || b.U16() != 0 || b.U32() != 0 || b.Uleb() != 0 || b.Sleb() != 0 || b.Bytes(1) != nil || b.CString() != nil {
		t.Error("read after an error returned data")
	}
	b.Skip(1)
	b.Fail("later")
	b.Failf("later %d", 2)
	b.FailAt(0, "later")
	b.SetFailure(&Error{Msg: "later"})
	if err := b.Err(); err.Error() != want {
		t.Errorf("error replaced: %v", err)
	}
	if b.Left() != 0 || b.Pos() != 0x26 {
		t.Errorf("left %d, pos %#x after the error", b.Left(), b.Pos())
	}
	if e1, e2 := b.Failure(), b.Failure(); e1 != e2 {
		t.Error("Failure made a new error on the second call")
	}
}

func TestBytes(t *testing.T) {
	data := []byte("abc\x00def\x00gh")
	b := Make("str", nil, 0, data)
	if s := b.CString(); string(s) != "abc" || cap(s) != 3 {
		t.Errorf("CString = %q (cap %d)", s, cap(s))
	}
	if p := b.Bytes(2); string(p) != "de" || cap(p) != 2 {
		t.Errorf("Bytes(2) = %q (cap %d)", p, cap(p))
	}
	b.Skip(2)
	if p := b.Bytes(0); p == nil || len(p) != 0 {
		t.Errorf("Bytes(0) = %v", p)
	}
	if s := b.CString(); s != nil || b.Failure() == nil || b.Failure().Offset != 10 {
		t.Errorf("unterminated CString = %q, %v", s, b.Err())
	}

	for _, n := range []uint64{3, 1 << 40, math.MaxUint64} {
		b = Make("blk", nil, 0x1000, []byte{1, 2})
		if p := b.Bytes(n); p != nil {
			t.Errorf("Bytes(%d) = %v", n, p)
		}
		want := fmt.Sprintf("blk+0x1000: truncated: need %d bytes, have 2", n)
		if err := b.Err(); err == nil || err.Error() != want {
			t.Errorf("Bytes(%d): %v, want %s", n, err, want)
		}
		b = Make("blk", nil, 0x1000, []byte{1, 2})
		b.U8()
		if b.Skip(n); b.Failure() == nil || b.Failure().Offset != 0x1001 {
			t.Errorf("Skip(%d): %v", n, b.Err())
		}
	}
}

func TestFailAt(t *testing.T) {
	b := Make(".debug_loclists", nil, 0x100, []byte{0x42, 0})
	op := b.U8()
	b.FailAt(b.Pos()-1, fmt.Sprintf("unknown opcode %#x", op))
	want := ".debug_loclists+0x100: unknown opcode 0x42"
	if err := b.Err(); err == nil || err.Error() != want {
		t.Errorf("%v, want %s", err, want)
	}
	if b.Left() != 0 {
		t.Errorf("%d bytes left after FailAt", b.Left())
	}
	// Error text for an offset of 0 has the 0x prefix too.
	if s := (&Error{Section: "x", Msg: "m"}).Error(); s != "x+0x0: m" {
		t.Errorf("Error() = %q", s)
	}
}

func TestSub(t *testing.T) {
	b := Make(".eh_frame", binary.BigEndian, 0x10, []byte{9, 0, 1, 0, 2, 7})
	b.U8()
	s := b.Sub(4)
	if b.Pos() != 0x15 || s.Pos() != 0x11 || s.Left() != 4 || s.Order() != binary.BigEndian || s.Name() != ".eh_frame" {
		t.Fatalf("parent at %#x, sub at %#x with %d left", b.Pos(), s.Pos(), s.Left())
	}
	if v := s.U16(); v != 1 {
		t.Errorf("sub U16 = %d", v)
	}
	s.U32()
	if b.Err() != nil {
		t.Errorf("sub failure reached the parent: %v", b.Err())
	}
	b.SetFailure(s.Failure())
	want := ".eh_frame+0x13: truncated: need 4 bytes, have 2"
	if err := b.Err(); err == nil || err.Error() != want {
		t.Errorf("parent: %v, want %s", err, want)
	}

	b = Make("x", nil, 0, []byte{1, 2})
	s = b.Sub(3)
	if b.Err() == nil || s.Err() == nil || s.Left() != 0 {
		t.Errorf("oversized Sub: parent %v, sub %v", b.Err(), s.Err())
	}
}

func TestReset(t *testing.T) {
	b := Make(".debug_frame", binary.BigEndian, 0, []byte{1})
	b.U32()
	b.Reset(0x40, []byte{0, 2, 0xff})
	if b.Err() != nil || b.Pos() != 0x40 || b.Left() != 3 {
		t.Fatalf("after Reset: %v, pos %#x, %d left", b.Err(), b.Pos(), b.Left())
	}
	if v := b.U16(); v != 2 || b.Name() != ".debug_frame" || b.Order() != binary.BigEndian {
		t.Errorf("U16 = %d (name %q, order %v)", v, b.Name(), b.Order())
	}
	b.U16()
	if e := b.Failure(); e == nil || e.Offset != 0x42 || e.Msg != "truncated: need 2 bytes, have 1" {
		t.Errorf("error %v", e)
	}
}

// TestNoAlloc: the reads that run per byte of debug info allocate nothing.
func TestNoAlloc(t *testing.T) {
	data := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0x81, 0x01, 0x7f, 'a', 0}
	allocs := testing.AllocsPerRun(100, func() {
		b := Make("x", binary.LittleEndian, 0, data)
		b.U8()
		b.U16()
		b.U32()
		b.U64()
		b.Uleb()
		b.Sleb()
		b.CString()
		b.Bytes(0)
		b.Skip(0)
		if b.Err() != nil {
			t.Fatal(b.Err())
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run", allocs)
	}
}

func BenchmarkUleb(b *testing.B) {
	data := make([]byte, 0, 4096)
	for i := 0; len(data) < cap(data)-3; i++ {
		data = binary.AppendUvarint(data, uint64(i%300))
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		c := Make("x", nil, 0, data)
		for c.Left() > 0 {
			c.Uleb()
		}
	}
}
