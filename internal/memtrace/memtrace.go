// Package memtrace counts the memory a table lookup reads: the distinct
// 64-byte cache lines and 4 KiB pages of a section, for comparing lookup
// costs of the frame table formats (package cframe's benchmarks, against
// sframe.Table). Offsets are from the start of the section, which is
// assumed to begin on a page.
//
// It imports the standard library only.
package memtrace

// Line and Page are the granules counted.
const (
	Line = 64
	Page = 4096
)

// Trace collects the granules one lookup touches. A nil *Trace records
// nothing, so lookups take one and pay a nil check when not measuring.
type Trace struct {
	lines, pages []uint64
}

// Touch records a read of n bytes at offset off.
func (t *Trace) Touch(off, n uint64) {
	if t == nil || n == 0 {
		return
	}
	last := off + n - 1
	for l := off / Line; l <= last/Line; l++ {
		t.lines = addOnce(t.lines, l)
	}
	for p := off / Page; p <= last/Page; p++ {
		t.pages = addOnce(t.pages, p)
	}
}

// TouchBits records a read of w bits at bit offset pos.
func (t *Trace) TouchBits(pos uint64, w uint) {
	if t == nil || w == 0 {
		return
	}
	t.Touch(pos/8, (pos+uint64(w)-1)/8-pos/8+1)
}

func addOnce(s []uint64, v uint64) []uint64 {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// Lines and Pages are the distinct granules touched since Reset.
func (t *Trace) Lines() int { return len(t.lines) }
func (t *Trace) Pages() int { return len(t.pages) }

// Reset starts a new lookup.
func (t *Trace) Reset() { t.lines, t.pages = t.lines[:0], t.pages[:0] }
