// Package dwarfbuf is the byte cursor shared by the decoders of
// DWARF-encoded data: .debug_info, .debug_abbrev, .debug_loclists and
// DWARF expressions (package dwarfsite) and .eh_frame/.debug_frame (package
// sframe/cfi).
//
// A Buf reads fixed-size integers in either byte order, LEB128 numbers,
// blocks and strings from a window of one section. The first error
// sticks: it moves the cursor to the end of the window, so every later
// read returns a zero value and the caller checks Err once after a group
// of reads. Errors are *Error values naming the section and the byte
// offset in it. Reads never allocate: blocks alias the input. The design
// follows the unexported buf of Go's debug/dwarf.
//
// It imports the standard library only.
package dwarfbuf

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Error reports malformed data: the section, the byte offset within it at
// which decoding failed, and what was wrong.
type Error struct {
	Section string
	Offset  int64
	Msg     string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s+%#x: %s", e.Section, e.Offset, e.Msg)
}

// Buf is a decoding cursor over a window of a section. Make sets one up;
// the zero value is an empty little-endian cursor.
//
// The fixed-size reads run once per byte or two of a vmlinux's debug info,
// so they must inline, and a call to a formatting error path would make
// them too big for that. They therefore only note where a read came up
// short (bad, need); Failure turns the note into an *Error when asked.
type Buf struct {
	name string
	base int64 // section offset of data[0]
	data []byte
	off  int // next byte; len(data) once failed
	big  bool
	bad  int    // 0, or 1 + the window offset at which decoding failed
	need uint64 // size of the short read that failed, if err is nil
	err  *Error
}

// probe tells big-endian orders from little-endian ones for any
// ByteOrder, not only the two of encoding/binary. A variable, so that
// passing it to an interface method allocates nothing.
var probe = [2]byte{0, 1}

// Make returns a cursor over data, which sits at section offset base of
// the section called name. A nil order means little endian.
func Make(name string, order binary.ByteOrder, base int64, data []byte) Buf {
	return Buf{name: name, base: base, data: data, big: order != nil && order.Uint16(probe[:]) == 1}
}

// Reset moves b to a new window of the same section, at section offset
// base, and clears the error. A decoder that walks many entries keeps one
// Buf and resets it rather than making one per entry.
func (b *Buf) Reset(base int64, data []byte) {
	// Field by field rather than a new Buf: the name and the byte order
	// stay, and the fewer stores showed in profiles of cfi.Parse.
	b.base, b.data, b.off = base, data, 0
	if b.bad != 0 {
		b.bad, b.need, b.err = 0, 0, nil
	}
}

// Name is the section name used in errors.
func (b *Buf) Name() string { return b.name }

// Order is the byte order of multi-byte reads.
func (b *Buf) Order() binary.ByteOrder {
	if b.big {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// Off is the offset of the next byte within the window.
func (b *Buf) Off() int { return b.off }

// Pos is the section offset of the next byte.
func (b *Buf) Pos() int64 { return b.base + int64(b.off) }

// Left is the number of unread bytes; 0 once failed.
func (b *Buf) Left() int { return len(b.data) - b.off }

// Err is the first error, or nil.
func (b *Buf) Err() error {
	if b.bad == 0 {
		return nil
	}
	return b.Failure()
}

// Failure is the first error as an *Error, or nil.
func (b *Buf) Failure() *Error {
	if b.bad != 0 && b.err == nil {
		at := b.bad - 1
		b.err = &Error{Section: b.name, Offset: b.base + int64(at),
			Msg: fmt.Sprintf("truncated: need %d bytes, have %d", b.need, len(b.data)-at)}
	}
	return b.err
}

// Fail records an error at the current position, unless one is recorded
// already, and moves to the end.
func (b *Buf) Fail(msg string) { b.FailAt(b.Pos(), msg) }

// Failf is Fail with a format.
func (b *Buf) Failf(format string, a ...any) {
	if b.bad == 0 {
		b.Fail(fmt.Sprintf(format, a...))
	}
}

// FailAt is Fail for an error at section offset pos, for an item read
// already (an opcode that turns out to be unknown).
func (b *Buf) FailAt(pos int64, msg string) {
	if b.bad == 0 {
		b.SetFailure(&Error{Section: b.name, Offset: pos, Msg: msg})
	}
	b.off = len(b.data)
}

// SetFailure records err, unless it is nil or an error is recorded
// already, and moves to the end. It passes the error of a cursor made by
// Sub on to its parent.
func (b *Buf) SetFailure(err *Error) {
	if err == nil {
		return
	}
	if b.bad == 0 {
		b.bad, b.err = b.off+1, err
	}
	b.off = len(b.data)
}

// short notes a read of n bytes that are not there.
func (b *Buf) short(n uint64) {
	if b.bad == 0 {
		b.bad, b.need = b.off+1, n
	}
	b.off = len(b.data)
}

// U8 reads one byte.
func (b *Buf) U8() uint8 {
	if b.off < len(b.data) {
		v := b.data[b.off]
		b.off++
		return v
	}
	b.short(1)
	return 0
}

// U16 reads a 2-byte unsigned integer.
func (b *Buf) U16() uint16 {
	if len(b.data)-b.off < 2 {
		b.short(2)
		return 0
	}
	p := b.data[b.off : b.off+2]
	b.off += 2
	if b.big {
		return binary.BigEndian.Uint16(p)
	}
	return binary.LittleEndian.Uint16(p)
}

// U32 reads a 4-byte unsigned integer.
func (b *Buf) U32() uint32 {
	if len(b.data)-b.off < 4 {
		b.short(4)
		return 0
	}
	p := b.data[b.off : b.off+4]
	b.off += 4
	if b.big {
		return binary.BigEndian.Uint32(p)
	}
	return binary.LittleEndian.Uint32(p)
}

// U64 reads an 8-byte unsigned integer.
func (b *Buf) U64() uint64 {
	if len(b.data)-b.off < 8 {
		b.short(8)
		return 0
	}
	p := b.data[b.off : b.off+8]
	b.off += 8
	if b.big {
		return binary.BigEndian.Uint64(p)
	}
	return binary.LittleEndian.Uint64(p)
}

// Sized reads an n-byte unsigned integer, n = 1, 2, 4 or 8: an address or
// a section offset whose size a header gives.
func (b *Buf) Sized(n int) uint64 {
	switch n {
	case 1:
		return uint64(b.U8())
	case 2:
		return uint64(b.U16())
	case 4:
		return uint64(b.U32())
	case 8:
		return b.U64()
	}
	b.Failf("unsupported integer size %d", n)
	return 0
}

// Bytes reads an n-byte block. The result aliases the input.
func (b *Buf) Bytes(n uint64) []byte {
	if n > uint64(len(b.data)-b.off) {
		b.short(n)
		return nil
	}
	end := b.off + int(n)
	p := b.data[b.off:end:end]
	b.off = end
	return p
}

// Skip moves past n bytes.
func (b *Buf) Skip(n uint64) {
	if n > uint64(len(b.data)-b.off) {
		b.short(n)
		return
	}
	b.off += int(n)
}

// CString reads a NUL-terminated string and returns it without the NUL.
// The result aliases the input.
func (b *Buf) CString() []byte {
	rest := b.data[b.off:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		b.off = len(b.data)
		b.Fail("truncated: string without terminating NUL")
		return nil
	}
	b.off += i + 1
	return rest[:i:i]
}

// Sub reads an n-byte block and returns a cursor over it with the same
// section, byte order and offsets. If the block is not there, b and the
// result fail. A failure of the result does not reach b; pass it on with
// b.SetFailure(sub.Failure()) where it should.
func (b *Buf) Sub(n uint64) Buf {
	pos := b.Pos()
	s := Buf{name: b.name, base: pos, data: b.Bytes(n), big: b.big}
	s.SetFailure(b.Failure())
	return s
}

// Uleb reads an unsigned LEB128 number. A value that does not fit in 64
// bits is an error; redundant zero groups are not.
func (b *Buf) Uleb() uint64 {
	// Most numbers in DWARF (abbreviation codes, forms, registers,
	// lengths) take one byte.
	if b.off < len(b.data) {
		if c := b.data[b.off]; c < 0x80 {
			b.off++
			return uint64(c)
		}
	}
	return b.ulebSlow()
}

func (b *Buf) ulebSlow() uint64 {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if b.off >= len(b.data) {
			b.Fail("truncated LEB128")
			return 0
		}
		c := b.data[b.off]
		b.off++
		p := uint64(c & 0x7f)
		if p<<shift>>shift != p { // bits shifted out (all of them from shift 64 on)
			b.FailAt(b.Pos()-1, "LEB128 overflows 64 bits")
			return 0
		}
		v |= p << shift
		if c < 0x80 {
			return v
		}
	}
}

// SkipLeb moves past a LEB128 number of any width without decoding it: a
// reader that skips attributes must not fail on a constant it does not
// need (gcc writes DW_FORM_sdata constants of 65 bits and more).
func (b *Buf) SkipLeb() {
	for b.off < len(b.data) {
		c := b.data[b.off]
		b.off++
		if c < 0x80 {
			return
		}
	}
	b.Fail("truncated LEB128")
}

// UlebWide reads an unsigned LEB128 number of any width. It returns the
// low 64 bits and whether they are the whole value; only truncation is an
// error. Constants are read this way: the consumer knows the width of the
// type and decides whether the low 64 bits are enough.
func (b *Buf) UlebWide() (v uint64, exact bool) {
	exact = true
	for shift := uint(0); ; shift += 7 {
		if b.off >= len(b.data) {
			b.Fail("truncated LEB128")
			return 0, true
		}
		c := b.data[b.off]
		b.off++
		p := uint64(c & 0x7f)
		if shift < 64 {
			v |= p << shift
			if p<<shift>>shift != p {
				exact = false
			}
		} else if p != 0 {
			exact = false
		}
		if c < 0x80 {
			return v, exact
		}
	}
}

// SlebWide reads a signed LEB128 number of any width. It returns the low
// 64 bits of the two's-complement value and whether they are the whole
// value (an int64 holds it); only truncation is an error.
func (b *Buf) SlebWide() (v int64, exact bool) {
	exact = true
	for shift := uint(0); ; shift += 7 {
		if b.off >= len(b.data) {
			b.Fail("truncated LEB128")
			return 0, true
		}
		c := b.data[b.off]
		b.off++
		g := int64(c<<1) << 56 >> 57 // the group, sign-extended
		if shift >= 63 && g != 0 && g != -1 || shift > 63 && g != v>>63 {
			exact = false
		}
		if c < 0x80 {
			if shift < 64 {
				v |= g << shift
			}
			return v, exact
		}
		if shift < 64 {
			v |= (g & 0x7f) << shift
		}
	}
}

// Sleb reads a signed LEB128 number. A value that does not fit in 64 bits
// is an error; redundant sign groups are not.
func (b *Buf) Sleb() int64 {
	if b.off < len(b.data) {
		if c := b.data[b.off]; c < 0x80 {
			b.off++
			return int64(c<<1) << 56 >> 57 // sign-extend the 7-bit group
		}
	}
	return b.slebSlow()
}

func (b *Buf) slebSlow() int64 {
	var v int64
	for shift := uint(0); ; shift += 7 {
		if b.off >= len(b.data) {
			b.Fail("truncated LEB128")
			return 0
		}
		c := b.data[b.off]
		b.off++
		// The group sign-extended to 64 bits: from bit 63 on, every bit
		// of every group must repeat the sign.
		g := int64(c<<1) << 56 >> 57
		if shift >= 63 && g != 0 && g != -1 || shift > 63 && g != v>>63 {
			b.FailAt(b.Pos()-1, "LEB128 overflows 64 bits")
			return 0
		}
		if c < 0x80 {
			if shift < 64 {
				v |= g << shift // sign-extends from the group's top bit
			}
			return v
		}
		if shift < 64 {
			v |= (g & 0x7f) << shift
		}
	}
}
