package cframe

import "github.com/btfinline/btfinline/internal/memtrace"

// Trace counts the section's memory a lookup reads (LookupTraced).
type Trace = memtrace.Trace

// Base is the first address the table covers (0 for a module's table,
// whose addresses are the section map's).
func (t *Table) Base() uint64 { return t.addr + uint64(t.TextBase) }

// Lookup returns the frame state at pc. ok is false when pc is outside
// every function or in a gap between functions ("no frame").
func (t *Table) Lookup(pc uint64) (State, bool) { return t.LookupTraced(pc, nil) }

// LookupTraced is Lookup recording the memory it reads in tr.
func (t *Table) LookupTraced(pc uint64, tr *Trace) (State, bool) {
	base := t.Base()
	if pc < base {
		return State{}, false
	}
	return t.lookup(pc-base, tr)
}

// LookupSection looks up offset off of ELF section shndx in a module's
// table (FlagSectionMap).
func (t *Table) LookupSection(shndx uint32, off uint64) (State, bool) {
	for i := uint32(0); i < t.NumSections; i++ {
		s := t.sectionAt(i)
		if s.Index == shndx {
			if off >= uint64(s.Size) {
				return State{}, false
			}
			return t.lookup(s.Start+off, nil)
		}
	}
	return State{}, false
}

// lookup finds the state at offset off from the text base: the bucket of
// its high bits, the last boundary at or before it in the bucket, that
// boundary's chunk and the chunk's last FRE at or before it.
func (t *Table) lookup(off uint64, tr *Trace) (State, bool) {
	h := &t.Header
	u := off >> h.BottomTrim
	o := u >> h.InnerBits
	if o >= uint64(h.NumBuckets) {
		return State{}, false
	}
	ow := uint(h.OuterW)
	op := t.outer + o*uint64(ow)
	tr.TouchBits(op, 2*ow)
	s, e := bitsAt(t.b, op, ow), bitsAt(t.b, op+uint64(ow), ow)
	k := u & (1<<h.InnerBits - 1)
	ib, iw := uint(h.InnerBits), uint64(t.innerW)
	lo, hi := s, e
	for lo < hi {
		mid := lo + (hi-lo)/2
		p := t.inner + mid*iw
		tr.TouchBits(p, ib)
		if bitsAt(t.b, p, ib) <= k {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == s {
		return State{}, false // before the bucket's first boundary: GAP
	}
	ep := t.inner + (lo-1)*iw
	tr.TouchBits(ep, uint(iw))
	key := bitsAt(t.b, ep, ib)
	v := bitsAt(t.b, ep+uint64(ib), uint(h.ChunkW))
	if v == 0 {
		return State{}, false // GAP
	}
	c := uint32(v - 1)
	rel := k - key
	tr.TouchBits(t.chunk+uint64(c)*uint64(t.chunkEntW), 2*t.chunkEntW)
	ch := t.chunkAt(c)
	if c >= t.firstMask {
		tr.Touch(t.rep/8+uint64(c-t.firstMask), 1)
		rel %= uint64(t.period(c))
	}
	fw := uint64(ch.w) + uint64(h.StateW)
	base := t.payload + ch.off
	flo, fhi := uint32(0), ch.n
	for flo < fhi {
		mid := flo + (fhi-flo)/2
		p := base + uint64(mid)*fw
		tr.TouchBits(p, ch.w)
		if bitsAt(t.b, p, ch.w) <= rel {
			flo = mid + 1
		} else {
			fhi = mid
		}
	}
	if flo == 0 {
		return State{}, false // the chunk's first row starts later
	}
	p := base + uint64(flo-1)*fw + uint64(ch.w)
	tr.TouchBits(p, uint(h.StateW))
	id := uint32(bitsAt(t.b, p, uint(h.StateW)))
	return t.stateAt(id, tr), true
}
