package cframe

import (
	"encoding/binary"
	"fmt"

	"github.com/btfinline/btfinline/internal/sframe"
)

// Table is a decoded, validated CFrame section. It keeps the section's
// bytes and answers lookups from them directly; decoding allocates nothing
// per entry.
type Table struct {
	Header
	b    []byte
	name string
	addr uint64 // the section's address
	bo   binary.ByteOrder
	// Bit offsets of the areas from the start of the section.
	outer, inner, chunk, rep, payload, state uint64
	secMap                                   int // byte offset
	innerW, chunkEntW, stateRecW             uint
	firstMask                                uint32
}

// Decode validates a CFrame section that sits at address addr (0 for a
// kernel module's table) and returns it ready for lookups. Every entry is
// checked once here, so lookups need no checks: a corrupt table is an
// error naming the byte offset.
func Decode(b []byte, addr uint64, name string) (*Table, error) {
	t := &Table{b: b, name: name, addr: addr}
	ferr := func(off uint64, msg string, a ...any) error {
		return &FormatError{Section: name, Offset: int64(off), Msg: fmt.Sprintf(msg, a...)}
	}
	if len(b) < HeaderSize {
		return nil, ferr(0, "truncated header: %d bytes", len(b))
	}
	switch {
	case b[0] == Magic&0xff && b[1] == Magic>>8:
		t.bo = binary.LittleEndian
	case b[0] == Magic>>8 && b[1] == Magic&0xff:
		t.bo = binary.BigEndian
	default:
		return nil, ferr(0, "bad magic %02x%02x", b[0], b[1])
	}
	h := &t.Header
	h.Version, h.Flags, h.ABI = b[2], b[3], sframe.ABI(b[4])
	if h.Version != Version {
		return nil, ferr(2, "unsupported CFrame version %d", h.Version)
	}
	if h.Flags&^FlagSectionMap != 0 {
		return nil, ferr(3, "unknown flags %#x", h.Flags)
	}
	if h.ABI < sframe.ABIAArch64BE || h.ABI > sframe.ABIS390XBE {
		return nil, ferr(4, "unknown ABI/arch %d", h.ABI)
	}
	if h.ABI.ByteOrder() != t.bo {
		return nil, ferr(0, "byte order does not match ABI %v", h.ABI)
	}
	w := b[5:16]
	h.BottomTrim, h.InnerBits, h.OuterW, h.ChunkW, h.FREOffW, h.StartWW, h.StateW, h.RegW, h.CFAOffW, h.RAOffW, h.FPOffW = w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9], w[10]
	for i, v := range w {
		if v > maxField {
			return nil, ferr(uint64(5+i), "field width %d (at most %d)", v, maxField)
		}
	}
	if h.BottomTrim > 16 {
		return nil, ferr(5, "bottom_trim %d (at most 16)", h.BottomTrim)
	}
	h.TextBase = int64(t.bo.Uint64(b[16:]))
	c := []*uint32{&h.NumBuckets, &h.NumInner, &h.NumChunks, &h.NumMask, &h.NumStates, &h.NumSections}
	for i, p := range c {
		*p = t.bo.Uint32(b[24+4*i:])
	}
	if h.NumBuckets == 0 || h.NumBuckets == ^uint32(0) {
		return nil, ferr(24, "%d buckets", h.NumBuckets)
	}
	if h.NumMask > h.NumChunks {
		return nil, ferr(36, "%d PC-mask chunks of %d", h.NumMask, h.NumChunks)
	}
	if (h.NumSections != 0) != (h.Flags&FlagSectionMap != 0) {
		return nil, ferr(44, "%d section map entries with flags %#x", h.NumSections, h.Flags)
	}
	if uint64(h.NumChunks) >= 1<<h.ChunkW {
		return nil, ferr(8, "%d-bit chunk ids cannot name %d chunks", h.ChunkW, h.NumChunks)
	}
	// Zero-width fields take no bits: bound the counts by the section's
	// bits so that validation is linear in the input.
	if uint64(h.NumBuckets)+1 > 8*uint64(len(b)) || uint64(h.NumChunks)+1 > 8*uint64(len(b)) {
		return nil, ferr(24, "%d buckets, %d chunks: more than the section has bits", h.NumBuckets, h.NumChunks)
	}
	if bitsFor(uint64(h.NumBuckets))+uint(h.InnerBits)+uint(h.BottomTrim) > 63 {
		return nil, ferr(24, "%d buckets of 2^%d << %d bytes exceed the address space", h.NumBuckets, h.InnerBits, h.BottomTrim)
	}
	t.innerW = h.innerEntryW()
	t.chunkEntW = h.chunkEntryW()
	t.stateRecW = h.stateRecW()
	t.firstMask = h.NumChunks - h.NumMask
	// Area offsets: each starts on a byte. Sizes in bits are bounded by
	// 2^32 entries of at most 64 bits, so uint64 arithmetic cannot wrap.
	end := uint64(len(b)) * 8
	pos := uint64(HeaderSize) * 8
	area := func(what string, n uint64, width uint) (uint64, error) {
		start := pos
		bits := n * uint64(width)
		if bits > end-pos {
			return 0, ferr(pos/8, "%s: %d entries of %d bits past the section end (%d bytes)", what, n, width, len(b))
		}
		pos += (bits + 7) &^ 7
		if pos > end {
			pos = end
		}
		return start, nil
	}
	var err error
	if t.outer, err = area("outer table", uint64(h.NumBuckets)+1, uint(h.OuterW)); err != nil {
		return nil, err
	}
	if t.state, err = area("state table", uint64(h.NumStates), t.stateRecW); err != nil {
		return nil, err
	}
	if t.chunk, err = area("chunk table", uint64(h.NumChunks)+1, t.chunkEntW); err != nil {
		return nil, err
	}
	if t.rep, err = area("PC-mask periods", uint64(h.NumMask), 8); err != nil {
		return nil, err
	}
	if t.inner, err = area("inner table", uint64(h.NumInner), t.innerW); err != nil {
		return nil, err
	}
	payloadBits := bitsAt(t.b, t.chunk+uint64(h.NumChunks)*uint64(t.chunkEntW), uint(h.FREOffW))
	if t.payload, err = area("FRE payload", payloadBits, 1); err != nil {
		return nil, err
	}
	t.secMap = int(pos / 8)
	if uint64(len(b)-t.secMap) != uint64(h.NumSections)*SectionMapEntrySize {
		return nil, ferr(uint64(t.secMap), "%d bytes after the state table, %d section map entries want %d", len(b)-t.secMap, h.NumSections, uint64(h.NumSections)*SectionMapEntrySize)
	}
	if err := t.validate(payloadBits); err != nil {
		return nil, err
	}
	return t, nil
}

// validate checks every entry, so that lookups cannot go wrong.
func (t *Table) validate(payloadBits uint64) error {
	h := &t.Header
	r := &bitReader{b: t.b, name: t.name}
	at := func(startBits, n uint64, w uint, what string) {
		r.pos, r.end, r.areaN = startBits, startBits+n*uint64(w), what
	}
	// Outer: from 0 to NumInner, never decreasing.
	at(t.outer, uint64(h.NumBuckets)+1, uint(h.OuterW), "outer table")
	prev := uint64(0)
	for o := uint64(0); o <= uint64(h.NumBuckets); o++ {
		p := r.pos
		v := r.read(uint(h.OuterW))
		if r.err != nil {
			return r.err
		}
		if v < prev || v > uint64(h.NumInner) || (o == 0 && v != 0) || (o == uint64(h.NumBuckets) && v != uint64(h.NumInner)) {
			r.pos = p
			r.fail("outer entry %d: first inner entry %d (previous %d, %d entries)", o, v, prev, h.NumInner)
			return r.err
		}
		prev = v
	}
	// Inner: keys strictly increasing within each bucket, values name a
	// chunk or GAP.
	for o := uint32(0); o < h.NumBuckets; o++ {
		s, e := t.bucket(o)
		at(t.inner+s*uint64(t.innerW), e-s, t.innerW, "inner table")
		last := int64(-1)
		for i := s; i < e; i++ {
			p := r.pos
			k := r.read(uint(h.InnerBits))
			v := r.read(uint(h.ChunkW))
			if r.err != nil {
				return r.err
			}
			if int64(k) <= last {
				r.pos = p
				r.fail("inner entry %d: key %#x not after %#x", i, k, last)
				return r.err
			}
			if v > uint64(h.NumChunks) {
				r.pos = p
				r.fail("inner entry %d: chunk %d of %d", i, v, h.NumChunks)
				return r.err
			}
			last = int64(k)
		}
	}
	// Chunks: FRE offsets ascending to the payload size, whole entries.
	at(t.chunk, uint64(h.NumChunks)+1, t.chunkEntW, "chunk table")
	var off, sw uint64
	for c := uint32(0); c <= h.NumChunks; c++ {
		p := r.pos
		o := r.read(uint(h.FREOffW))
		w := r.read(uint(h.StartWW))
		if r.err != nil {
			return r.err
		}
		if c > 0 {
			ew := sw + uint64(h.StateW)
			if o < off || (ew == 0 && o != off) || (ew != 0 && (o-off)%ew != 0) {
				r.pos = p
				r.fail("chunk %d: FREs %d..%d bits are not whole %d-bit entries", c-1, off, o, ew)
				return r.err
			}
		}
		if c == h.NumChunks && (o != payloadBits || w != 0) {
			r.pos = p
			r.fail("chunk table end: %d payload bits, start width %d", o, w)
			return r.err
		}
		if w > maxField {
			r.pos = p
			r.fail("chunk %d: %d-bit FRE starts", c, w)
			return r.err
		}
		off, sw = o, w
	}
	// Periods: non-zero.
	for i := uint32(0); i < h.NumMask; i++ {
		if t.b[t.rep/8+uint64(i)] == 0 {
			return &FormatError{Section: t.name, Offset: int64(t.rep/8 + uint64(i)), Msg: fmt.Sprintf("PC-mask chunk %d: zero period", t.firstMask+i)}
		}
	}
	// FREs: starts strictly increasing, states that exist.
	for c := uint32(0); c < h.NumChunks; c++ {
		ch := t.chunkAt(c)
		at(t.payload+ch.off, uint64(ch.n), ch.w+uint(h.StateW), "FRE payload")
		last := int64(-1)
		for j := uint32(0); j < ch.n; j++ {
			p := r.pos
			s := r.read(ch.w)
			id := r.read(uint(h.StateW))
			if r.err != nil {
				return r.err
			}
			if int64(s) <= last || id >= uint64(h.NumStates) {
				r.pos = p
				r.fail("chunk %d FRE %d: start %#x after %#x, state %d of %d", c, j, s, last, id, h.NumStates)
				return r.err
			}
			if c >= t.firstMask && s >= uint64(t.period(c)) {
				r.pos = p
				r.fail("chunk %d FRE %d: start %#x not inside the period %d", c, j, s, t.period(c))
				return r.err
			}
			last = int64(s)
		}
	}
	// States: known kinds.
	at(t.state, uint64(h.NumStates), t.stateRecW, "state table")
	for i := uint32(0); i < h.NumStates; i++ {
		p := r.pos
		r.read(4)
		for k := 0; k < 3; k++ {
			kind := r.read(3)
			r.read(1 + uint(h.RegW) + uint([]uint8{h.CFAOffW, h.RAOffW, h.FPOffW}[k]))
			if r.err != nil {
				return r.err
			}
			if kind > uint64(ValUnknown) {
				r.pos = p
				r.fail("state %d: value kind %d", i, kind)
				return r.err
			}
		}
	}
	// Section map: sections inside the covered span, in order.
	span := uint64(h.NumBuckets) << (uint(h.InnerBits) + uint(h.BottomTrim))
	var prevEnd uint64
	for i := uint32(0); i < h.NumSections; i++ {
		e := t.sectionAt(i)
		o := t.secMap + int(i)*SectionMapEntrySize
		if e.Start < prevEnd || e.Start+uint64(e.Size) > span || e.Start+uint64(e.Size) < e.Start {
			return &FormatError{Section: t.name, Offset: int64(o), Msg: fmt.Sprintf("section map entry %d: [%#x, +%#x) overlaps or leaves the span %#x", i, e.Start, e.Size, span)}
		}
		prevEnd = e.Start + uint64(e.Size)
	}
	return nil
}

// bucket returns the inner entries [s, e) of bucket o.
func (t *Table) bucket(o uint32) (s, e uint64) {
	w := uint(t.OuterW)
	p := t.outer + uint64(o)*uint64(w)
	return bitsAt(t.b, p, w), bitsAt(t.b, p+uint64(w), w)
}

type chunkRef struct {
	off uint64 // bit offset in the payload
	n   uint32
	w   uint // FRE start width
}

func (t *Table) chunkAt(c uint32) chunkRef {
	p := t.chunk + uint64(c)*uint64(t.chunkEntW)
	fw := uint(t.FREOffW)
	off := bitsAt(t.b, p, fw)
	w := uint(bitsAt(t.b, p+uint64(fw), uint(t.StartWW)))
	next := bitsAt(t.b, p+uint64(t.chunkEntW), fw)
	// Payload offsets are below 2^32 bits (FREOffW <= 32): a 32-bit
	// division, cheaper than a 64-bit one.
	ew := uint32(w) + uint32(t.StateW)
	n := uint32(0)
	if ew != 0 {
		n = uint32(next-off) / ew
	}
	return chunkRef{off, n, w}
}

func (t *Table) period(c uint32) uint32 { return uint32(t.b[t.rep/8+uint64(c-t.firstMask)]) }

func (t *Table) sectionAt(i uint32) SectionRange {
	o := t.secMap + int(i)*SectionMapEntrySize
	return SectionRange{Index: t.bo.Uint32(t.b[o:]), Size: t.bo.Uint32(t.b[o+4:]), Start: t.bo.Uint64(t.b[o+8:])}
}

// Sections returns the section map of a module's table.
func (t *Table) Sections() []SectionRange {
	out := make([]SectionRange, t.NumSections)
	for i := range out {
		out[i] = t.sectionAt(uint32(i))
	}
	return out
}

// stateAt decodes state record i.
func (t *Table) stateAt(i uint32, tr *Trace) State {
	p := t.state + uint64(i)*uint64(t.stateRecW)
	tr.TouchBits(p, t.stateRecW)
	var s State
	var fl uint64
	if t.stateRecW <= 57 {
		// One load for the whole record (nearly always).
		raw := bitsAt(t.b, p, t.stateRecW)
		fl = raw & 15
		raw >>= 4
		s.Frame.CFA, raw = t.value(raw, t.CFAOffW)
		s.Frame.RA, raw = t.value(raw, t.RAOffW)
		s.Frame.FP, _ = t.value(raw, t.FPOffW)
	} else {
		fl = bitsAt(t.b, p, 4)
		p += 4
		vw := uint64(t.valueW(t.CFAOffW))
		s.Frame.CFA, _ = t.value(bitsAt(t.b, p, uint(vw)), t.CFAOffW)
		p += vw
		vw = uint64(t.valueW(t.RAOffW))
		s.Frame.RA, _ = t.value(bitsAt(t.b, p, uint(vw)), t.RAOffW)
		p += vw
		s.Frame.FP, _ = t.value(bitsAt(t.b, p, t.valueW(t.FPOffW)), t.FPOffW)
	}
	s.Frame.RAUndefined, s.Frame.Mangled, s.KeyB, s.Signal = fl&1 != 0, fl&2 != 0, fl&4 != 0, fl&8 != 0
	return s
}

// value decodes the value record in the low bits of raw (kind, deref,
// register, offset of ow bits) and returns raw past it.
func (t *Table) value(raw uint64, ow uint8) (sframe.Value, uint64) {
	rw := uint(t.RegW)
	v := sframe.Value{Kind: toSFrameKind[raw&7], Deref: raw&8 != 0}
	raw >>= 4
	v.Reg = raw & (1<<rw - 1)
	raw >>= rw
	v.Off = signExtend(raw&(1<<ow-1), uint(ow))
	return v, raw >> ow
}
