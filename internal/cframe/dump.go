package cframe

import (
	"bufio"
	"fmt"
	"io"
)

// Dump prints the table: header, address map (every inner entry, as the
// address it starts at and its chunk or GAP), chunks with their FREs, and
// states. Addresses are absolute, or section+offset in a module's table.
func Dump(w io.Writer, t *Table) error {
	b := bufio.NewWriter(w)
	h := &t.Header
	fmt.Fprintf(b, "Contents of the CFrame section %s (experimental format, version %d):\n", t.name, h.Version)
	fmt.Fprintf(b, "  Header:\n")
	fmt.Fprintf(b, "    ABI: %v\n", h.ABI)
	if h.Flags&FlagSectionMap != 0 {
		fmt.Fprintf(b, "    Flags: SECTION_MAP\n")
	}
	fmt.Fprintf(b, "    Text base: %#x\n", t.Base())
	fmt.Fprintf(b, "    %s\n    %s\n", h.BitParameters(), h.BitPacking())
	fmt.Fprintf(b, "    Buckets: %d, inner entries: %d, chunks: %d (%d PC-mask), states: %d\n", h.NumBuckets, h.NumInner, h.NumChunks, h.NumMask, h.NumStates)
	if h.NumSections > 0 {
		fmt.Fprintf(b, "\n  Section map:\n")
		for _, s := range t.Sections() {
			fmt.Fprintf(b, "    section [%d]: at %#x, %d bytes\n", s.Index, s.Start, s.Size)
		}
	}
	fmt.Fprintf(b, "\n  Address map:\n")
	for o := uint32(0); o < h.NumBuckets; o++ {
		s, e := t.bucket(o)
		for i := s; i < e; i++ {
			ep := t.inner + i*uint64(t.innerW)
			key := bitsAt(t.b, ep, uint(h.InnerBits))
			v := bitsAt(t.b, ep+uint64(h.InnerBits), uint(h.ChunkW))
			off := (uint64(o)<<h.InnerBits | key) << h.BottomTrim
			what := "GAP"
			if v != 0 {
				what = fmt.Sprintf("chunk %d", v-1)
			}
			fmt.Fprintf(b, "    %s  %s\n", t.addrText(off), what)
		}
	}
	fmt.Fprintf(b, "\n  Chunks:\n")
	for c := uint32(0); c < h.NumChunks; c++ {
		ch := t.chunkAt(c)
		fmt.Fprintf(b, "    chunk [%d]: %d FREs", c, ch.n)
		if c >= t.firstMask {
			fmt.Fprintf(b, ", PC mask, period %d", uint64(t.period(c))<<h.BottomTrim)
		}
		b.WriteString("\n")
		fw := uint64(ch.w) + uint64(h.StateW)
		for j := uint32(0); j < ch.n; j++ {
			p := t.payload + ch.off + uint64(j)*fw
			st := bitsAt(t.b, p, ch.w) << h.BottomTrim
			id := bitsAt(t.b, p+uint64(ch.w), uint(h.StateW))
			fmt.Fprintf(b, "      +%#-6x state %d\n", st, id)
		}
	}
	fmt.Fprintf(b, "\n  States:\n")
	for i := uint32(0); i < h.NumStates; i++ {
		fmt.Fprintf(b, "    state [%d]: %v\n", i, t.stateAt(i, nil))
	}
	return b.Flush()
}

// addrText spells offset off from the text base as an address, or as a
// section and offset in a module's table.
func (t *Table) addrText(off uint64) string {
	if t.NumSections == 0 {
		return fmt.Sprintf("%016x", t.Base()+off)
	}
	for i := uint32(0); i < t.NumSections; i++ {
		s := t.sectionAt(i)
		if off >= s.Start && off < s.Start+uint64(s.Size) {
			return fmt.Sprintf("[%d]+%#-8x", s.Index, off-s.Start)
		}
	}
	return fmt.Sprintf("%#x (no section)", off)
}
