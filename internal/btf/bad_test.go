package btf

import (
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// TestParseBad: malformed blobs give a *FormatError (or an
// *UnknownKindError) carrying the section and byte offset, never a panic.
func TestParseBad(t *testing.T) {
	good := mustMarshal(t, validBase(t), MarshalOptions{})
	bo := binary.LittleEndian
	tl := bo.Uint32(good[12:])
	patch := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := []struct {
		name    string
		data    []byte
		section string
		offset  int64
		msg     string
	}{
		{"empty", nil, "header", 0, "shorter than"},
		{"short header", good[:23], "header", 0, "shorter than"},
		{"bad magic", patch(func(b []byte) []byte { b[0] = 0; return b }), "header", 0, "bad magic"},
		{"hdr_len small", patch(func(b []byte) []byte { bo.PutUint32(b[4:], 20); return b }), "header", 4, "hdr_len 20"},
		{"hdr_len huge", patch(func(b []byte) []byte { bo.PutUint32(b[4:], 0xffffff00); return b }), "header", 4, "beyond the end"},
		{"type_len huge", patch(func(b []byte) []byte { bo.PutUint32(b[12:], 0xfffffff0); return b }), "header", 8, "types section"},
		{"str_off huge", patch(func(b []byte) []byte { bo.PutUint32(b[16:], 0xfffffff0); return b }), "header", 16, "strings section"},
		{"truncated strings", good[:len(good)-3], "header", 16, "beyond the end"},
		{"overlap", patch(func(b []byte) []byte { bo.PutUint32(b[16:], tl-12); bo.PutUint32(b[20:], 12); return b }), "header", 16, "overlaps"},
		{"unaligned type_off", patch(func(b []byte) []byte { bo.PutUint32(b[8:], 2); bo.PutUint32(b[12:], tl-4); return b }), "header", 8, "not 4-aligned"},
		{"type_len short", patch(func(b []byte) []byte { bo.PutUint32(b[12:], tl-8); return b }), "types", 24 + int64(tl) - 16, "trailing bytes"},
		{"vlen overflow", patch(func(b []byte) []byte {
			// [2] FUNC_PROTO at offset 24+16: give it vlen 0xffffff.
			bo.PutUint32(b[24+16+4:], MakeInfo(KindFuncProto, 0xffffff, false))
			return b
		}), "types", 24 + 16, "vlen 16777215"},
		{"strings unterminated", patch(func(b []byte) []byte { b[len(b)-1] = 'x'; return b }), "strings", int64(len(good)) - 1, "NUL-terminated"},
		{"strings no leading NUL", patch(func(b []byte) []byte { b[24+tl] = 'x'; return b }), "strings", 24 + int64(tl), "start with NUL"},
		{"strings empty", patch(func(b []byte) []byte { bo.PutUint32(b[20:], 0); return b[:24+tl] }), "strings", 24 + int64(tl), "empty string section"},
		{"layout len", patch(func(b []byte) []byte {
			nb := append(append(append([]byte(nil), b[:24]...), make([]byte, 8)...), b[24:]...)
			bo.PutUint32(nb[4:], 32)
			bo.PutUint32(nb[24:], 0)
			bo.PutUint32(nb[28:], 3)
			bo.PutUint32(nb[8:], 4) // the types move past the 3 "layout" bytes... overlap first
			return nb
		}), "header", 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.data, nil)
			if err == nil {
				t.Fatal("accepted")
			}
			if c.msg == "" {
				return
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("%T %v", err, err)
			}
			if fe.Section != c.section || fe.Offset != c.offset || !strings.Contains(fe.Msg, c.msg) {
				t.Fatalf("got %v, want %s at %#x: %s", err, c.section, c.offset, c.msg)
			}
		})
	}
	// Byte order of split BTF must match its base.
	be := swapBlob(t, good)
	b, _ := Parse(good, nil)
	if _, err := Parse(be, b); err == nil || !strings.Contains(err.Error(), "byte order") {
		t.Fatal(err)
	}
}

// TestParseAllocBound: a blob claiming a huge vlen or many types does not
// make Parse allocate more than a small multiple of its size (the type
// table is sized from a counting pass, trailing words share one slice).
func TestParseAllocBound(t *testing.T) {
	s := NewSpec(nil)
	for i := 0; i < 1000; i++ {
		mustAdd(t, s, NewPtr(0))
	}
	blob := mustMarshal(t, s, MarshalOptions{})
	// Claim vlen 0xffffff on the last type: rejected before allocating.
	bad := append([]byte(nil), blob...)
	binary.LittleEndian.PutUint32(bad[24+999*12+4:], MakeInfo(KindStruct, 0xffffff, false))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := Parse(bad, nil); err == nil {
		t.Fatal("accepted")
	}
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > uint64(len(bad)) {
		t.Fatalf("rejecting a %d-byte blob allocated %d bytes", len(bad), d)
	}
	runtime.ReadMemStats(&before)
	if _, err := Parse(blob, nil); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// 40 bytes of Type per 12-byte record is the worst case.
	if d := after.TotalAlloc - before.TotalAlloc; d > 4*uint64(len(blob)) {
		t.Fatalf("parsing a %d-byte blob allocated %d bytes", len(blob), d)
	}
}
