package dwarfbuf

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"testing"
)

// refLEB decodes a LEB128 number at the start of p with arbitrary
// precision: n is its length (0 if unterminated), u and s its unsigned and
// signed values and uok, sok whether they fit in 64 bits; low and slow
// are the low 64 bits of the unsigned and the signed value.
func refLEB(p []byte) (n int, u uint64, s int64, uok, sok bool, low, slow uint64) {
	v := new(big.Int)
	mask := new(big.Int).SetUint64(^uint64(0))
	for i, c := range p {
		v.Or(v, new(big.Int).Lsh(big.NewInt(int64(c&0x7f)), uint(7*i)))
		if c&0x80 != 0 {
			continue
		}
		n = i + 1
		if v.IsUint64() {
			u, uok = v.Uint64(), true
		}
		low = new(big.Int).And(v, mask).Uint64()
		if c&0x40 != 0 {
			v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(7*n)))
		}
		if v.IsInt64() {
			s, sok = v.Int64(), true
		}
		slow = new(big.Int).And(v, mask).Uint64() // two's complement
		return
	}
	return 0, 0, 0, false, false, 0, 0
}

// refUint decodes an n-byte integer with encoding/binary.
func refUint(order binary.ByteOrder, p []byte, n int) uint64 {
	switch n {
	case 1:
		return uint64(p[0])
	case 2:
		return uint64(order.Uint16(p))
	case 4:
		return uint64(order.Uint32(p))
	}
	return order.Uint64(p)
}

// FuzzBuf runs the operations coded in ops over data and checks each read
// against encoding/binary, math/big and plain slicing: values, the bytes
// consumed, the position and the sticky error.
func FuzzBuf(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6}, []byte{1, 0x80, 1, 0xff, 0xff, 0x7f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte{5, 4, 6, 7, 0x88, 2}, []byte{'a', 'b', 0, 0x81, 0x01, 0xc0, 0xbb, 0x78})
	f.Fuzz(func(t *testing.T, ops, data []byte) {
		const base = 0x1000
		order := binary.ByteOrder(binary.LittleEndian)
		if len(ops) > 0 && ops[0]&0x80 != 0 {
			order = binary.BigEndian
		}
		b := Make("fuzz", order, base, data)
		var firstErr *Error
		for i := 0; i < len(ops); i++ {
			op := ops[i]
			arg := uint64(0)
			if i+1 < len(ops) {
				arg = uint64(ops[i+1])
			}
			if op&0x40 != 0 {
				arg <<= 56 // sizes far beyond the input
			}
			was := b.Off()
			failed := b.Err() != nil
			rest := data[was:]
			// consumed reports a read that succeeded (want n bytes) or
			// failed, and checks the cursor moved accordingly.
			consumed := func(n int, ok bool) bool {
				t.Helper()
				if failed || !ok {
					if b.Err() == nil || b.Left() != 0 {
						t.Fatalf("op %d at %d: no error (left %d)", op, was, b.Left())
					}
					return false
				}
				if b.Err() != nil {
					t.Fatalf("op %d at %d: %v", op, was, b.Err())
				}
				if b.Off() != was+n {
					t.Fatalf("op %d at %d: moved to %d, want %d", op, was, b.Off(), was+n)
				}
				return true
			}
			switch op & 0x0f {
			case 0, 1, 2, 3:
				n := 1 << (op & 0x0f)
				var v uint64
				switch n {
				case 1:
					v = uint64(b.U8())
				case 2:
					v = uint64(b.U16())
				case 4:
					v = uint64(b.U32())
				case 8:
					v = b.U64()
				}
				if consumed(n, n <= len(rest)) && v != refUint(order, rest, n) {
					t.Fatalf("%d-byte read = %#x", n, v)
				}
			case 4:
				n, u, _, uok, _, _, _ := refLEB(rest)
				v := b.Uleb()
				if consumed(n, n > 0 && uok) && v != u {
					t.Fatalf("Uleb = %#x, want %#x", v, u)
				}
			case 5:
				n, _, s, _, sok, _, _ := refLEB(rest)
				v := b.Sleb()
				if consumed(n, n > 0 && sok) && v != s {
					t.Fatalf("Sleb = %d, want %d", v, s)
				}
			case 12:
				n, _, _, uok, _, low, _ := refLEB(rest)
				v, exact := b.UlebWide()
				if consumed(n, n > 0) && (v != low || exact != uok) {
					t.Fatalf("UlebWide = %#x, %v; want %#x, %v", v, exact, low, uok)
				}
			case 13:
				n, _, _, _, sok, _, slow := refLEB(rest)
				v, exact := b.SlebWide()
				if consumed(n, n > 0) && (uint64(v) != slow || exact != sok) {
					t.Fatalf("SlebWide = %#x, %v; want %#x, %v", v, exact, slow, sok)
				}
			case 14:
				n, _, _, _, _, _, _ := refLEB(rest)
				b.SkipLeb()
				consumed(n, n > 0)
			case 6:
				i++
				p := b.Bytes(arg)
				if consumed(int(arg), arg <= uint64(len(rest))) && (!bytes.Equal(p, rest[:arg]) || cap(p) != int(arg)) {
					t.Fatalf("Bytes(%d) = %x", arg, p)
				}
			case 7:
				i++
				b.Skip(arg)
				consumed(int(arg), arg <= uint64(len(rest)))
			case 8:
				n := bytes.IndexByte(rest, 0)
				p := b.CString()
				if consumed(n+1, n >= 0) && !bytes.Equal(p, rest[:n]) {
					t.Fatalf("CString = %q", p)
				}
			case 9:
				i++
				sz := int(arg % 10)
				v := b.Sized(sz)
				ok := (sz == 1 || sz == 2 || sz == 4 || sz == 8) && sz <= len(rest)
				if consumed(sz, ok) && v != refUint(order, rest, sz) {
					t.Fatalf("Sized(%d) = %#x", sz, v)
				}
			case 10:
				i++
				s := b.Sub(arg)
				if consumed(int(arg), arg <= uint64(len(rest))) {
					if s.Pos() != base+int64(was) || s.Left() != int(arg) || s.Err() != nil {
						t.Fatalf("Sub(%d) at %#x with %d left: %v", arg, s.Pos(), s.Left(), s.Err())
					}
					s.U32()
					if s.Err() != nil {
						b.SetFailure(s.Failure())
						if b.Left() != 0 || b.Failure() != s.Failure() || b.Failure().Offset != base+int64(was) {
							t.Fatalf("sub failure not passed on: %v", b.Err())
						}
					}
				} else if s.Err() == nil || s.Left() != 0 {
					t.Fatalf("Sub(%d) of a failed cursor: %v, %d left", arg, s.Err(), s.Left())
				}
			case 11:
				b.Fail("fuzz")
				consumed(0, false)
			}
			if b.Pos() != base+int64(b.Off()) || b.Off() < was || b.Off() > len(data) {
				t.Fatalf("op %d: off %d -> %d, pos %#x", op, was, b.Off(), b.Pos())
			}
			if e := b.Failure(); e != nil {
				if firstErr == nil {
					firstErr = e
				}
				if e != firstErr {
					t.Fatalf("error %v replaced by %v", firstErr, e)
				}
				if e.Section != "fuzz" || e.Offset < base || e.Offset > base+int64(len(data)) {
					t.Fatalf("error %v outside the window", e)
				}
			}
		}
	})
}
