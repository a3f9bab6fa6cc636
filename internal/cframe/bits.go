package cframe

import (
	"encoding/binary"
	"fmt"
)

// Bit streams are LSB first: bit i of an area is bit i%8 of byte i/8,
// whatever the target's byte order (docs/cframe.md, "Bit packing").

// maxField is the widest bit field the format has. Fields up to 57 bits
// take one unaligned 64-bit load; 32 keeps every field well inside that.
const maxField = 32

// bitsAt returns the w-bit field (w <= 57) at bit pos of b. The caller
// has checked that the field lies inside b.
func bitsAt(b []byte, pos uint64, w uint) uint64 {
	if w == 0 {
		return 0
	}
	i := pos >> 3
	var v uint64
	if i+8 <= uint64(len(b)) {
		v = binary.LittleEndian.Uint64(b[i:])
	} else {
		// The last bytes of the section: no 8-byte window.
		for k := uint64(0); i+k < uint64(len(b)); k++ {
			v |= uint64(b[i+k]) << (8 * k)
		}
	}
	return (v >> (pos & 7)) & (1<<w - 1) // w <= 57: the field is in v
}

// signExtend reads a w-bit two's complement field.
func signExtend(v uint64, w uint) int64 {
	if w == 0 {
		return 0
	}
	return int64(v<<(64-w)) >> (64 - w)
}

// bitReader is a decoding cursor over one bit-packed area of a section,
// in the style of internal/dwarfbuf: the first error sticks, later reads
// return zero, and the caller checks err once after a group of reads.
type bitReader struct {
	b     []byte // the whole section
	pos   uint64 // next bit, from the start of the section
	end   uint64 // end of the area, in bits
	err   error
	name  string
	areaN string
}

func (r *bitReader) read(w uint) uint64 {
	if r.err != nil {
		return 0
	}
	if w > maxField {
		r.fail("%d-bit field (at most %d)", w, maxField)
		return 0
	}
	if r.end-r.pos < uint64(w) || r.pos > r.end {
		r.fail("%d-bit field past the end of the %s", w, r.areaN)
		return 0
	}
	v := bitsAt(r.b, r.pos, w)
	r.pos += uint64(w)
	return v
}

func (r *bitReader) fail(msg string, a ...any) {
	if r.err == nil {
		r.err = &FormatError{Section: r.name, Offset: int64(r.pos >> 3), Msg: fmt.Sprintf(msg, a...)}
	}
}

// bitWriter appends LSB-first bit fields.
type bitWriter struct {
	b   []byte
	n   uint64 // bits written
	acc uint64 // pending bits
	k   uint   // number of pending bits (< 8 after flush)
}

func (w *bitWriter) write(v uint64, width uint) {
	// width <= maxField and fewer than 8 bits pending: acc cannot overflow.
	v &= 1<<width - 1
	w.acc |= v << w.k
	w.k += width
	w.n += uint64(width)
	for w.k >= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.k -= 8
	}
}

// pad flushes a partial byte with zero bits: every area starts on a byte.
func (w *bitWriter) pad() {
	if w.k > 0 {
		w.b = append(w.b, byte(w.acc))
		w.n += uint64(8 - w.k)
		w.acc, w.k = 0, 0
	}
}

// bitsFor is the width of a field holding values 0..v.
func bitsFor(v uint64) uint {
	n := uint(0)
	for v > 0 {
		n++
		v >>= 1
	}
	return n
}

// sbitsFor is the width of a two's complement field holding v.
func sbitsFor(v int64) uint {
	if v == 0 {
		return 0
	}
	if v < 0 {
		return bitsFor(uint64(^v)) + 1
	}
	return bitsFor(uint64(v)) + 1
}

// bytesFor rounds a bit count up to bytes.
func bytesFor(bits uint64) uint64 { return (bits + 7) / 8 }
