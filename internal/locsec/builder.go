package locsec

// Builder keeps the sites Encode needs in a compact form, so that a
// reader can hand them over one compilation unit at a time and drop its
// own copies: a vmlinux's 310,000 site.Site values take ~160 MB, what
// Encode needs of them ~10 MB. What it keeps is exactly what the encoding
// depends on: per site the function, the section, the offset and the
// encodable part of each parameter's location (interned per tuple); per
// function the first place it is used, which fixes the order in which its
// prototype's types are converted. The rest of the encoding does not
// depend on the order of the sites (records are put in a canonical order
// by content), so the output does not depend on the order of Adds.

import (
	"cmp"
	"encoding/binary"
	"sync"

	"github.com/btfinline/btfinline/internal/chunk"
	"github.com/btfinline/btfinline/internal/site"
)

// Builder collects sites for Encode. Add may be called from several
// goroutines at once.
type Builder struct {
	mu    sync.Mutex
	sites [][]compactSite // in chunks: no copy as they grow
	nsite int             // sites added, nil functions included
	// nilFunc is the first place (in section order) of a site without a
	// function, an error for Encode.
	nilFunc *place

	funcs   []*funcEntry // by id
	funcIdx map[string]uint32
	secs    []string
	secIdx  map[string]uint32
	// The tuples' locations by tuple id, cut from locChunk.
	tupleLocs [][]loc
	locChunk  []loc
	tuples    map[string]uint32
}

const locChunkLen = 1 << 14

// addScratch is what Add computes of a unit before it takes the lock.
type addScratch struct {
	keys   []byte   // the tuples' keys, one after another
	keyEnd []uint32 // by site: end of its key in keys
	fkeys  map[*site.Func]string
	byPtr  map[*site.Func]uint32 // by function: its interned id
}

var scratchPool = sync.Pool{New: func() any {
	return &addScratch{fkeys: map[*site.Func]string{}, byPtr: map[*site.Func]uint32{}}
}}

type compactSite struct {
	off   uint64
	fn    uint32
	sec   uint32
	tuple uint32
}

type place struct {
	sec string
	off uint64
}

// funcEntry is one inlined function (one interning key): which of the
// Func values with that key stands for it, and where it is first used.
type funcEntry struct {
	fn        *site.Func
	unit, seq int   // of fn: the first unit and site that showed it
	first     place // the first place of a site (used)
	used      bool
	sites     int
}

// loc is the part of a site.Location the encoding reads.
type loc struct {
	kind      site.LocKind
	size      uint8
	signed    bool
	reg, reg2 uint32
	offset    int64
	value     uint64
}

func toLoc(l *site.Location) loc {
	if l.Kind == site.LocUnavailable {
		return loc{}
	}
	return loc{kind: l.Kind, size: l.Size, signed: l.Signed, reg: l.Reg, reg2: l.Reg2, offset: l.Offset, value: l.Value}
}

func (l loc) location() site.Location {
	return site.Location{Kind: l.kind, Size: l.size, Signed: l.signed, Reg: l.reg, Reg2: l.reg2, Offset: l.offset, Value: l.value}
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{funcIdx: map[string]uint32{}, secIdx: map[string]uint32{}, tuples: map[string]uint32{}}
}

// Add adds the sites of one compilation unit, unit being its index in the
// object. Sites of one function seen from several units (the same name,
// declaration and prototype) are one function, described by the Func of
// the lowest unit, and in it of the first site: what a reader that
// interns in unit order keeps (dwarfsite), whatever order Adds come in.
// The sites are not kept.
func (b *Builder) Add(unit int, sites []site.Site) { b.AddNew(unit, sites) }

// AddNew is Add, and returns the functions that this call added first:
// those whose prototypes' types Encode converts, unless a lower unit's
// copy of one comes later.
func (b *Builder) AddNew(unit int, sites []site.Site) (first []*site.Func) {
	// The keys are spelled before the lock is taken: several readers
	// call Add at once, and only the interning must be one at a time.
	sc := scratchPool.Get().(*addScratch)
	defer scratchPool.Put(sc)
	sc.keys, sc.keyEnd = sc.keys[:0], sc.keyEnd[:0]
	clear(sc.fkeys)
	clear(sc.byPtr)
	for i := range sites {
		s := &sites[i]
		if s.Func != nil {
			if _, ok := sc.fkeys[s.Func]; !ok {
				sc.fkeys[s.Func] = s.Func.Key()
			}
		}
		sc.keys = appendTupleKey(sc.keys, s.Params)
		sc.keyEnd = append(sc.keyEnd, uint32(len(sc.keys)))
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	byPtr := sc.byPtr
	for i := range sites {
		s := &sites[i]
		b.nsite++
		if s.Func == nil {
			p := place{s.Section, s.SectionOff}
			if b.nilFunc == nil || lessPlace(p, *b.nilFunc) {
				b.nilFunc = &p
			}
			continue
		}
		fn, ok := byPtr[s.Func]
		if !ok {
			var isNew bool
			fn, isNew = b.intern(s.Func, sc.fkeys[s.Func], unit, i)
			byPtr[s.Func] = fn
			if isNew {
				first = append(first, s.Func)
			}
		}
		e := b.funcs[fn]
		if p := (place{s.Section, s.SectionOff}); !e.used || lessPlace(p, e.first) {
			e.first, e.used = p, true
		}
		e.sites++
		sec, ok := b.secIdx[s.Section]
		if !ok {
			sec = uint32(len(b.secs))
			b.secs = append(b.secs, s.Section)
			b.secIdx[s.Section] = sec
		}
		if n := len(b.sites); n == 0 || len(b.sites[n-1]) == cap(b.sites[n-1]) {
			// A module's sites fill a chunk or two, a vmlinux's many.
			last := 0
			if n > 0 {
				last = cap(b.sites[n-1])
			}
			b.sites = append(b.sites, make([]compactSite, 0, chunk.Size(last, 256, siteChunk)))
		}
		start := uint32(0)
		if i > 0 {
			start = sc.keyEnd[i-1]
		}
		last := &b.sites[len(b.sites)-1]
		*last = append(*last, compactSite{off: s.SectionOff, fn: fn, sec: sec, tuple: b.tuple(s.Params, sc.keys[start:sc.keyEnd[i]])})
	}
	return first
}

func lessPlace(a, b place) bool {
	if c := cmp.Compare(a.sec, b.sec); c != 0 {
		return c < 0
	}
	return a.off < b.off
}

// intern returns the id of the function f stands for (k is f.Key()), and
// whether it is new.
func (b *Builder) intern(f *site.Func, k string, unit, seq int) (uint32, bool) {
	id, ok := b.funcIdx[k]
	if !ok {
		id = uint32(len(b.funcs))
		b.funcIdx[k] = id
		b.funcs = append(b.funcs, &funcEntry{fn: f, unit: unit, seq: seq})
		return id, true
	}
	if e := b.funcs[id]; unit < e.unit || unit == e.unit && seq < e.seq {
		e.fn, e.unit, e.seq = f, unit, seq
	}
	return id, false
}

// appendTupleKey appends the key of the encodable part of a site's
// parameter locations, which tuple interns them by.
func appendTupleKey(b []byte, params []site.Location) []byte {
	for i := range params {
		l := toLoc(&params[i])
		sg := byte(0)
		if l.signed {
			sg = 1
		}
		// Varints: each field ends itself, so the key is as distinct as
		// fixed widths would make it, and a register location takes 7
		// bytes instead of 27 to hash and compare.
		b = append(b, byte(l.kind), l.size, sg)
		b = binary.AppendUvarint(b, uint64(l.reg))
		b = binary.AppendUvarint(b, uint64(l.reg2))
		b = binary.AppendVarint(b, l.offset)
		b = binary.AppendUvarint(b, l.value)
	}
	return b
}

// tuple interns the encodable part of a site's parameter locations, whose
// key is key.
func (b *Builder) tuple(params []site.Location, key []byte) uint32 {
	if id, ok := b.tuples[string(key)]; ok {
		return id
	}
	id := uint32(len(b.tupleLocs))
	b.tuples[string(key)] = id
	ls := chunk.Take(&b.locChunk, len(params), 256, locChunkLen)
	for i := range params {
		ls[i] = toLoc(&params[i])
	}
	b.tupleLocs = append(b.tupleLocs, ls)
	return id
}

const siteChunk = 1 << 14

// count is the number of sites with a function.
func (b *Builder) count() int {
	n := 0
	for _, c := range b.sites {
		n += len(c)
	}
	return n
}

// span returns the sites lo to hi-1 (in the order added), as pieces of
// the chunks that hold them.
func (b *Builder) span(lo, hi int) [][]compactSite {
	var out [][]compactSite
	for _, c := range b.sites {
		if lo < len(c) && hi > 0 {
			out = append(out, c[max(lo, 0):min(hi, len(c))])
		}
		lo -= len(c)
		hi -= len(c)
	}
	return out
}
