package cframe

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"sort"

	"github.com/btfinline/btfinline/internal/sframe"
)

// Func is one function to describe, at an address of the table's address
// space (the object's own addresses; for a kernel module, the layout of
// Options.Sections).
type Func struct {
	Addr, Size uint64
	Rows       []FuncRow // ascending Start; the first row usually at 0
	// Rep is the period of a PC-mask function (SFrame's PCTYPE_MASK: the
	// PLT, whose entries repeat every Rep bytes); 0 for ordinary ones.
	Rep uint32
}

// FuncRow is the state from Start (an offset in the function) on.
type FuncRow struct {
	Start uint32
	State State
}

// Options controls Build.
type Options struct {
	ABI      sframe.ABI
	Strategy Strategy
	// Dedup shares identical chunks between functions. The command line
	// sets it with the callee-saved strategy; the size table also measures
	// whole functions deduplicated, to tell the saving of the cut from
	// the saving of sharing.
	Dedup bool
	// Sections, for a kernel module, places its executable sections in
	// the address space of Func.Addr (FlagSectionMap).
	Sections []SectionRange
	// CutAll keeps every cut the callee-saved strategy makes, as the
	// pre-proposal's heuristic does; by default a cut is kept only where
	// it pays for its inner entry.
	CutAll bool
	// InnerBits forces the number of inner key bits (tests); -1 or any
	// value outside 0..32 lets Build choose.
	InnerBits int
}

// Drop reasons: why a function of the input has no chunk.
const (
	DropOverlap = "overlaps an earlier function"
	DropNoRows  = "no rows (SFrame keeps an empty FDE; both answer no frame)"
	DropTooBig  = "larger than 2^31 bytes"
	// A PC-mask function whose period starts without a row cannot be
	// restarted at a bucket boundary (no such function is known).
	DropMaskNoRow0 = "PC-mask function without a row at offset 0"
)

// BuildStats counts what Build made.
type BuildStats struct {
	Funcs        int            // functions described
	Dropped      map[string]int // functions left out, by reason
	Rows         int            // rows after merging equal neighbours
	Pieces       int            // chunks before deduplication (inner entries naming a chunk)
	StrategyCuts int            // of which made by the strategy (beyond one per function)
	Continued    int            // of which restart a chunk at a bucket boundary
	Gaps         int            // GAP inner entries
	Chunks       int            // chunks after deduplication
	States       int
	EmptyBuckets int // outer entries with no inner entry: all GAP
	PayloadRows  int // FREs in the payload (after deduplication)
	// Bytes per area.
	HeaderBytes, OuterBytes, InnerBytes, ChunkBytes, RepBytes, PayloadBytes, StateBytes, MapBytes int
}

// Total is the section size.
func (s *BuildStats) Total() int {
	return s.HeaderBytes + s.OuterBytes + s.InnerBytes + s.ChunkBytes + s.RepBytes + s.PayloadBytes + s.StateBytes + s.MapBytes
}

// Built is a laid-out table, ready to encode at any section address.
type Built struct {
	Header Header
	Stats  BuildStats
	// Kept[i] says whether funcs[i] is described.
	Kept   []bool
	base   uint64 // the text base, in the table's address space
	outer  []uint32
	inner  []innerEnt
	chunks []*piece
	states []State
	secs   []SectionRange
}

type innerEnt struct {
	key   uint64 // trimmed offset within the bucket
	value uint32 // 0 GAP, else chunk id + 1
}

// segment is a stretch of one function that becomes one chunk.
type segment struct {
	start, end uint64 // trimmed units from the base
	rows       []prow
	rep        uint64 // trimmed; 0 if not PC-mask
	p          *piece // its chunk content
}

type prow struct {
	start uint64 // trimmed, from the chunk start
	state uint32
}

// piece is one chunk's content; equal keys are the same chunk when
// deduplicating.
type piece struct {
	rows   []prow
	rep    uint64
	key    string
	id     int // chunk id in the current layout; -1 when unassigned
	startW uint
}

func (p *piece) init() {
	var b []byte
	b = binary.AppendUvarint(b, p.rep)
	mx := uint64(0)
	for _, r := range p.rows {
		b = binary.AppendUvarint(b, r.start)
		b = binary.AppendUvarint(b, uint64(r.state))
		mx = max(mx, r.start)
	}
	p.key = string(b)
	p.startW = bitsFor(mx)
	p.id = -1
}

// slice returns the content of p for its stretch [lo, hi) (trimmed), seen
// from lo: the row in effect at lo moves to 0, rows from hi on are left
// out. PC-mask content is periodic: it rotates to the phase of lo and
// keeps its whole period.
func (p *piece) slice(lo, hi uint64) []prow {
	if p.rep != 0 {
		// Build keeps PC-mask content only with a row at 0, so every
		// phase has a row in effect.
		off := lo % p.rep
		if off == 0 {
			return p.rows
		}
		j := sort.Search(len(p.rows), func(k int) bool { return p.rows[k].start > off }) - 1
		out := []prow{{0, p.rows[j].state}}
		add := func(start uint64, state uint32) {
			if out[len(out)-1].state != state {
				out = append(out, prow{start, state})
			}
		}
		for _, r := range p.rows[j+1:] {
			add(r.start-off, r.state)
		}
		for _, r := range p.rows[:j+1] {
			if r.start < off {
				add(r.start+p.rep-off, r.state)
			}
		}
		return out
	}
	j := sort.Search(len(p.rows), func(k int) bool { return p.rows[k].start > lo }) - 1
	var out []prow
	if j >= 0 {
		out = append(out, prow{0, p.rows[j].state})
	}
	for _, r := range p.rows[j+1:] {
		if r.start >= hi {
			break
		}
		out = append(out, prow{r.start - lo, r.state})
	}
	return out
}

// Build lays out a table for funcs.
func Build(funcs []Func, opt Options) (*Built, error) {
	if opt.Strategy > StrategyCalleeSaved {
		return nil, fmt.Errorf("cframe: unknown strategy %v", opt.Strategy)
	}
	bt := &Built{secs: opt.Sections, Kept: make([]bool, len(funcs))}
	st := &bt.Stats
	st.Dropped = map[string]int{}
	order := make([]int, len(funcs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return funcs[order[a]].Addr < funcs[order[b]].Addr })
	stateID := map[State]uint32{}
	intern := func(s State) uint32 {
		id, ok := stateID[s]
		if !ok {
			id = uint32(len(bt.states))
			stateID[s] = id
			bt.states = append(bt.states, s)
		}
		return id
	}
	type kept struct {
		f    *Func
		rows []prow // untrimmed starts
	}
	var ks []kept
	sp, _, _ := opt.ABI.Regs()
	var end uint64
	first := true
	for _, i := range order {
		f := &funcs[i]
		if f.Size == 0 || len(f.Rows) == 0 {
			st.Dropped[DropNoRows]++
			continue
		}
		if f.Size > 1<<31 {
			st.Dropped[DropTooBig]++
			continue
		}
		if !first && f.Addr < end {
			st.Dropped[DropOverlap]++
			continue
		}
		var rows []prow
		for _, r := range f.Rows {
			lim := f.Size
			if f.Rep != 0 {
				lim = uint64(f.Rep)
			}
			if uint64(r.Start) >= lim {
				continue
			}
			id := intern(r.State)
			if n := len(rows); n > 0 && rows[n-1].state == id {
				continue
			}
			if n := len(rows); n > 0 && rows[n-1].start >= uint64(r.Start) {
				return nil, fmt.Errorf("cframe: function at %#x: rows not in address order", f.Addr)
			}
			rows = append(rows, prow{uint64(r.Start), id})
		}
		if len(rows) == 0 {
			st.Dropped[DropNoRows]++
			continue
		}
		if f.Rep != 0 && rows[0].start != 0 {
			st.Dropped[DropMaskNoRow0]++
			continue
		}
		ks = append(ks, kept{f, rows})
		bt.Kept[i] = true
		end = f.Addr + f.Size
		first = false
		st.Funcs++
		st.Rows += len(rows)
	}
	// A module's address space is the section map's, from 0.
	if len(ks) > 0 && len(opt.Sections) == 0 {
		bt.base = ks[0].f.Addr
	}
	for _, s := range opt.Sections {
		if len(ks) == 0 || s.Start+uint64(s.Size) < s.Start {
			return nil, fmt.Errorf("cframe: bad section map entry %+v", s)
		}
	}
	// Segments, untrimmed, relative to the base.
	var segs []segment
	allCuts := make([][]int, len(ks))
	for i, k := range ks {
		allCuts[i] = cutRows(k.rows, k.f, opt.Strategy, bt.states, sp)
	}
	if opt.Strategy == StrategyCalleeSaved && opt.Dedup && !opt.CutAll {
		rows := make([][]prow, len(ks))
		for i, k := range ks {
			rows[i] = k.rows
		}
		allCuts = cutsThatPay(rows, allCuts, len(bt.states))
	}
	for i, k := range ks {
		f := k.f
		cuts := allCuts[i]
		st.StrategyCuts += len(cuts) - 1
		for ci, c := range cuts {
			segEnd := f.Size
			if ci+1 < len(cuts) {
				segEnd = k.rows[cuts[ci+1]].start
			}
			var hi int
			if ci+1 < len(cuts) {
				hi = cuts[ci+1]
			} else {
				hi = len(k.rows)
			}
			s0 := k.rows[c].start
			if ci == 0 {
				s0 = 0
			}
			rows := make([]prow, 0, hi-c)
			for _, r := range k.rows[c:hi] {
				rows = append(rows, prow{r.start - s0, r.state})
			}
			segs = append(segs, segment{start: f.Addr - bt.base + s0, end: f.Addr - bt.base + segEnd, rows: rows, rep: uint64(f.Rep)})
		}
	}
	trim := uint(16)
	tz := func(v uint64) {
		if v != 0 {
			trim = min(trim, uint(bits.TrailingZeros64(v)))
		}
	}
	for _, s := range segs {
		tz(s.start)
		tz(s.end)
		tz(s.rep)
		for _, r := range s.rows {
			tz(r.start)
		}
	}
	for i := range segs {
		s := &segs[i]
		s.start >>= trim
		s.end >>= trim
		s.rep >>= trim
		for j := range s.rows {
			s.rows[j].start >>= trim
		}
		s.p = &piece{rows: s.rows, rep: s.rep}
		s.p.init()
	}
	bt.Header = Header{Version: Version, ABI: opt.ABI, BottomTrim: uint8(trim)}
	if len(opt.Sections) > 0 {
		bt.Header.Flags |= FlagSectionMap
	}
	spanEnd := uint64(0)
	if len(segs) > 0 {
		spanEnd = segs[len(segs)-1].end
	}
	candidates := []int{}
	if opt.InnerBits >= 0 && opt.InnerBits <= maxField {
		candidates = append(candidates, opt.InnerBits)
	} else {
		for ib := min(int(bitsFor(spanEnd)), maxField); ib >= 0; ib-- {
			candidates = append(candidates, ib)
		}
	}
	var best *layout
	for _, ib := range candidates {
		nb := max(1, (spanEnd+(1<<ib)-1)>>ib)
		if nb > math.MaxUint32-1 {
			continue
		}
		if best != nil && bytesFor((nb+1)*uint64(bitsFor(uint64(len(segs))))) >= uint64(best.total) {
			continue // the outer table alone is larger than the best
		}
		l := layOut(segs, uint(ib), spanEnd, opt.Dedup, len(bt.states))
		if best == nil || l.total < best.total {
			best = l
		}
	}
	if best == nil {
		return nil, fmt.Errorf("cframe: no layout fits (span %#x)", spanEnd)
	}
	bt.finish(best, st)
	return bt, nil
}

// cutRows returns the indexes of the rows that start each chunk of f.
func cutRows(rows []prow, f *Func, s Strategy, states []State, sp uint64) []int {
	if s == StrategyNone || f.Rep != 0 || len(rows) < 2 {
		return []int{0}
	}
	// Depth of the stack in each row: the CFA offset from SP; a CFA on
	// any other base (a frame pointer) counts as deepest.
	depth := func(r prow) int64 {
		fr := states[r.state].Frame
		if fr.RAUndefined {
			return -1
		}
		if fr.CFA.Kind == sframe.ValReg && fr.CFA.Reg == sp && !fr.CFA.Deref {
			return fr.CFA.Off
		}
		return math.MaxInt64
	}
	deep := int64(math.MinInt64)
	for _, r := range rows {
		deep = max(deep, depth(r))
	}
	firstDeep, lastDeep := -1, -1
	for i, r := range rows {
		if depth(r) == deep {
			if firstDeep < 0 {
				firstDeep = i
			}
			lastDeep = i
		}
	}
	cuts := []int{0}
	if firstDeep > 0 {
		cuts = append(cuts, firstDeep)
	}
	if lastDeep+1 < len(rows) {
		cuts = append(cuts, lastDeep+1)
	}
	return cuts
}

// cutsThatPay keeps, of each function's cuts, those that pay for their
// inner entry: a cut makes one more entry, and saves payload only when the
// pieces it makes are shared with other functions. Each function takes the
// subset of its cuts with the least estimated cost, counting how many
// functions could share each piece; a second round recounts with the
// choices made.
func cutsThatPay(rows [][]prow, cuts [][]int, nstates int) [][]int {
	// Estimated widths: an inner entry, a chunk entry, a state id.
	const entryBits, chunkBits = 26, 24
	stateBits := float64(bitsFor(uint64(max(nstates, 1) - 1)))
	type cand struct {
		cuts []int
		keys []string
		bits []float64 // payload + chunk entry per piece
	}
	var buf []byte
	pieceOf := func(r []prow, lo, hi int) (string, float64) {
		buf = buf[:0]
		s0 := r[lo].start
		if lo == 0 {
			s0 = 0
		}
		mx := uint64(0)
		for _, x := range r[lo:hi] {
			buf = binary.AppendUvarint(buf, x.start-s0)
			buf = binary.AppendUvarint(buf, uint64(x.state))
			mx = max(mx, x.start-s0)
		}
		return string(buf), chunkBits + float64(hi-lo)*(float64(bitsFor(mx))+stateBits)
	}
	cands := make([][]cand, len(rows))
	for i, c := range cuts {
		inner := c[1:]
		for mask := 0; mask < 1<<len(inner); mask++ {
			cc := []int{0}
			for j, x := range inner {
				if mask&(1<<j) != 0 {
					cc = append(cc, x)
				}
			}
			var cd cand
			cd.cuts = cc
			for j, lo := range cc {
				hi := len(rows[i])
				if j+1 < len(cc) {
					hi = cc[j+1]
				}
				k, b := pieceOf(rows[i], lo, hi)
				cd.keys = append(cd.keys, k)
				cd.bits = append(cd.bits, b)
			}
			cands[i] = append(cands[i], cd)
		}
	}
	count := map[string]int{}
	for _, cs := range cands {
		seen := map[string]bool{}
		for _, cd := range cs {
			for _, k := range cd.keys {
				if !seen[k] {
					seen[k] = true
					count[k]++
				}
			}
		}
	}
	choice := make([]int, len(rows))
	for round := 0; round < 2; round++ {
		for i, cs := range cands {
			best, bestCost := 0, math.Inf(1)
			for ci, cd := range cs {
				cost := 0.0
				for j, k := range cd.keys {
					n := count[k]
					if round > 0 && choice[i] != ci {
						n++ // this function would join the sharers
					}
					cost += entryBits + cd.bits[j]/float64(max(n, 1))
				}
				if cost < bestCost {
					best, bestCost = ci, cost
				}
			}
			choice[i] = best
		}
		clear(count)
		for i, cs := range cands {
			for _, k := range cs[choice[i]].keys {
				count[k]++
			}
		}
	}
	out := make([][]int, len(rows))
	for i, cs := range cands {
		out[i] = cs[choice[i]].cuts
	}
	return out
}

type layout struct {
	ib       uint
	nb       uint64
	outer    []uint32
	inner    []innerEnt
	entries  []*piece // parallel to inner; nil for GAP
	chunks   []*piece
	total    int
	pieces   int
	cont     int
	gaps     int
	stats    BuildStats
	freOffW  uint
	startWW  uint
	stateW   uint
	payloadB uint64
}

// layOut places the segments in buckets of 2^ib trimmed units.
func layOut(segs []segment, ib uint, spanEnd uint64, dedup bool, nstates int) *layout {
	l := &layout{ib: ib}
	B := uint64(1) << ib
	l.nb = max(1, (spanEnd+B-1)>>ib)
	type ent struct {
		t uint64
		p *piece
	}
	ents := make([]ent, 0, len(segs)*2)
	cur := uint64(0)
	for i := range segs {
		s := &segs[i]
		if s.start > cur && cur%B != 0 {
			ents = append(ents, ent{cur, nil})
			l.gaps++
		}
		first := (s.start/B + 1) * B
		if first >= s.end {
			ents = append(ents, ent{s.start, s.p})
		} else {
			// A chunk crossing bucket boundaries becomes one piece per
			// bucket, each with the rows of its stretch only.
			for a := s.start; a < s.end; a = (a/B + 1) * B {
				b := min((a/B+1)*B, s.end)
				p := &piece{rows: s.p.slice(a-s.start, b-s.start), rep: s.rep}
				p.init()
				if a > s.start {
					l.cont++
				}
				ents = append(ents, ent{a, p})
			}
		}
		cur = s.end
	}
	if cur%B != 0 {
		ents = append(ents, ent{cur, nil})
		l.gaps++
	}
	// Chunk ids: first appearance, PC-mask chunks last.
	byKey := map[string]*piece{}
	var normal, mask []*piece
	for i := range ents {
		p := ents[i].p
		if p == nil {
			continue
		}
		l.pieces++
		if dedup {
			if q, ok := byKey[p.key]; ok {
				ents[i].p = q
				continue
			}
			byKey[p.key] = p
		} else if p.id >= 0 {
			// The same piece twice (a continuation equal to its segment)
			// is still one chunk per entry without dedup.
			q := *p
			ents[i].p = &q
			p = &q
		}
		p.id = 0
		if p.rep != 0 {
			mask = append(mask, p)
		} else {
			normal = append(normal, p)
		}
	}
	l.chunks = append(normal, mask...)
	for id, p := range l.chunks {
		p.id = id
	}
	l.outer = make([]uint32, l.nb+1)
	l.inner = make([]innerEnt, len(ents))
	l.entries = make([]*piece, len(ents))
	o := uint64(0)
	for i, e := range ents {
		for o <= e.t>>ib {
			l.outer[o] = uint32(i)
			o++
		}
		v := uint32(0)
		if e.p != nil {
			v = uint32(e.p.id) + 1
		}
		l.inner[i] = innerEnt{e.t & (B - 1), v}
		l.entries[i] = e.p
	}
	for ; o <= l.nb; o++ {
		l.outer[o] = uint32(len(ents))
	}
	for o := uint64(0); o < l.nb; o++ {
		if l.outer[o] == l.outer[o+1] {
			l.stats.EmptyBuckets++
		}
	}
	// Reset ids for the next layout of the same segments.
	defer func() {
		for _, p := range l.chunks {
			p.id = -1
		}
	}()
	l.stateW = bitsFor(uint64(max(nstates, 1) - 1))
	for _, p := range l.chunks {
		l.stats.PayloadRows += len(p.rows)
		l.startWW = max(l.startWW, bitsFor(uint64(p.startW)))
		l.payloadB += uint64(len(p.rows)) * uint64(p.startW+l.stateW)
	}
	l.freOffW = bitsFor(l.payloadB)
	outerW := bitsFor(uint64(len(ents)))
	chunkW := bitsFor(uint64(len(l.chunks)))
	s := &l.stats
	s.HeaderBytes = HeaderSize
	s.OuterBytes = int(bytesFor((l.nb + 1) * uint64(outerW)))
	s.InnerBytes = int(bytesFor(uint64(len(ents)) * uint64(ib+chunkW)))
	s.ChunkBytes = int(bytesFor(uint64(len(l.chunks)+1) * uint64(l.freOffW+l.startWW)))
	s.RepBytes = len(mask)
	s.PayloadBytes = int(bytesFor(l.payloadB))
	l.total = s.HeaderBytes + s.OuterBytes + s.InnerBytes + s.ChunkBytes + s.RepBytes + s.PayloadBytes
	// State and map bytes do not depend on the layout; finish adds them.
	return l
}

func (bt *Built) finish(l *layout, st *BuildStats) {
	h := &bt.Header
	h.InnerBits = uint8(l.ib)
	h.NumBuckets = uint32(l.nb)
	h.NumInner = uint32(len(l.inner))
	h.NumChunks = uint32(len(l.chunks))
	for _, p := range l.chunks {
		if p.rep != 0 {
			h.NumMask++
		}
	}
	h.NumStates = uint32(len(bt.states))
	h.NumSections = uint32(len(bt.secs))
	h.OuterW = uint8(bitsFor(uint64(len(l.inner))))
	h.ChunkW = uint8(bitsFor(uint64(len(l.chunks))))
	h.FREOffW = uint8(l.freOffW)
	h.StartWW = uint8(l.startWW)
	h.StateW = uint8(l.stateW)
	var reg uint64
	var cfa, ra, fp uint
	for _, s := range bt.states {
		for i, v := range []sframe.Value{s.Frame.CFA, s.Frame.RA, s.Frame.FP} {
			reg = max(reg, v.Reg)
			w := sbitsFor(v.Off)
			switch i {
			case 0:
				cfa = max(cfa, w)
			case 1:
				ra = max(ra, w)
			default:
				fp = max(fp, w)
			}
		}
	}
	h.RegW, h.CFAOffW, h.RAOffW, h.FPOffW = uint8(bitsFor(reg)), uint8(cfa), uint8(ra), uint8(fp)
	bt.outer, bt.inner = l.outer, l.inner
	bt.chunks = make([]*piece, len(l.chunks))
	for i, p := range l.chunks {
		q := *p
		q.id = i
		bt.chunks[i] = &q
	}
	ls := l.stats
	st.HeaderBytes, st.OuterBytes, st.InnerBytes, st.ChunkBytes, st.RepBytes, st.PayloadBytes = ls.HeaderBytes, ls.OuterBytes, ls.InnerBytes, ls.ChunkBytes, ls.RepBytes, ls.PayloadBytes
	st.StateBytes = int(bytesFor(uint64(len(bt.states)) * uint64(h.stateRecW())))
	st.MapBytes = len(bt.secs) * SectionMapEntrySize
	st.Pieces, st.Continued, st.Gaps, st.Chunks, st.States = l.pieces, l.cont, l.gaps, len(l.chunks), len(bt.states)
	st.EmptyBuckets, st.PayloadRows = ls.EmptyBuckets, ls.PayloadRows
}

// Encode writes the table for a section at sectionAddr (0 for modules).
func (bt *Built) Encode(sectionAddr uint64) ([]byte, error) {
	h := bt.Header
	if h.Flags&FlagSectionMap != 0 {
		if sectionAddr != 0 {
			return nil, fmt.Errorf("cframe: a module's table has no section address")
		}
	}
	h.TextBase = int64(bt.base - sectionAddr)
	bo := h.ABI.ByteOrder()
	out := make([]byte, HeaderSize, bt.Stats.Total())
	bo.PutUint16(out[0:], Magic)
	out[2] = h.Version
	out[3] = h.Flags
	out[4] = uint8(h.ABI)
	copy(out[5:16], []byte{h.BottomTrim, h.InnerBits, h.OuterW, h.ChunkW, h.FREOffW, h.StartWW, h.StateW, h.RegW, h.CFAOffW, h.RAOffW, h.FPOffW})
	bo.PutUint64(out[16:], uint64(h.TextBase))
	for i, v := range []uint32{h.NumBuckets, h.NumInner, h.NumChunks, h.NumMask, h.NumStates, h.NumSections} {
		bo.PutUint32(out[24+4*i:], v)
	}
	// Areas in lookup order of locality: the small ones every lookup
	// reads (outer, states, chunks) share the first pages.
	w := &bitWriter{b: out}
	for _, o := range bt.outer {
		w.write(uint64(o), uint(h.OuterW))
	}
	w.pad()
	for _, s := range bt.states {
		if err := writeState(w, &h, s); err != nil {
			return nil, err
		}
	}
	w.pad()
	off := uint64(0)
	for _, p := range bt.chunks {
		w.write(off, uint(h.FREOffW))
		w.write(uint64(p.startW), uint(h.StartWW))
		off += uint64(len(p.rows)) * uint64(p.startW+uint(h.StateW))
	}
	w.write(off, uint(h.FREOffW))
	w.write(0, uint(h.StartWW))
	w.pad()
	for _, p := range bt.chunks {
		if p.rep != 0 {
			if p.rep > 255 {
				return nil, fmt.Errorf("cframe: PC-mask period %d too large", p.rep)
			}
			w.write(p.rep, 8)
		}
	}
	for _, e := range bt.inner {
		w.write(e.key, uint(h.InnerBits))
		w.write(uint64(e.value), uint(h.ChunkW))
	}
	w.pad()
	for _, p := range bt.chunks {
		for _, r := range p.rows {
			w.write(r.start, p.startW)
			w.write(uint64(r.state), uint(h.StateW))
		}
	}
	w.pad()
	out = w.b
	for _, s := range bt.secs {
		var e [SectionMapEntrySize]byte
		bo.PutUint32(e[0:], s.Index)
		bo.PutUint32(e[4:], s.Size)
		bo.PutUint64(e[8:], s.Start-bt.base)
		out = append(out, e[:]...)
	}
	if len(out) != bt.Stats.Total() {
		return nil, fmt.Errorf("cframe: internal error: wrote %d bytes, planned %d", len(out), bt.Stats.Total())
	}
	return out, nil
}

func writeState(w *bitWriter, h *Header, s State) error {
	fl := uint64(0)
	for i, b := range []bool{s.Frame.RAUndefined, s.Frame.Mangled, s.KeyB, s.Signal} {
		if b {
			fl |= 1 << i
		}
	}
	w.write(fl, 4)
	for i, v := range []sframe.Value{s.Frame.CFA, s.Frame.RA, s.Frame.FP} {
		k, ok := fromSFrameKind(v.Kind)
		if !ok {
			return fmt.Errorf("cframe: value kind %v has no encoding", v.Kind)
		}
		w.write(uint64(k), 3)
		d := uint64(0)
		if v.Deref {
			d = 1
		}
		w.write(d, 1)
		w.write(v.Reg, uint(h.RegW))
		ow := []uint8{h.CFAOffW, h.RAOffW, h.FPOffW}[i]
		w.write(uint64(v.Off), uint(ow))
	}
	return nil
}

// BitParameters names the address split the way the review quotes the
// POC's output.
func (h *Header) BitParameters() string {
	return fmt.Sprintf("Bit parameters: bottom_trim=%d, outer_bits=%d, inner_bits=%d", h.BottomTrim, h.OuterBits(), h.InnerBits)
}

// BitPacking names the field widths.
func (h *Header) BitPacking() string {
	return fmt.Sprintf("Bit-packing: chunk_idx=%d, outer_start=%d, fre_offset=%d, fre_start_width=%d, state_idx=%d, reg=%d, cfa_off=%d, ra_off=%d, fp_off=%d",
		h.ChunkW, h.OuterW, h.FREOffW, h.StartWW, h.StateW, h.RegW, h.CFAOffW, h.RAOffW, h.FPOffW)
}
