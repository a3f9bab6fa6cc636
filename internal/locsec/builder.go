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
	"iter"
	"sync"

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
	locs    []loc    // the tuples' locations, one after another
	tupleAt []uint32 // tuple id -> start in locs; one more at the end
	tuples  map[string]uint32
	keyBuf  []byte
}

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
	return &Builder{funcIdx: map[string]uint32{}, secIdx: map[string]uint32{}, tuples: map[string]uint32{}, tupleAt: []uint32{0}}
}

// Add adds the sites of one compilation unit, unit being its index in the
// object. Sites of one function seen from several units (the same name,
// declaration and prototype) are one function, described by the Func of
// the lowest unit, and in it of the first site: what a reader that
// interns in unit order keeps (dwarfsite), whatever order Adds come in.
// The sites are not kept.
func (b *Builder) Add(unit int, sites []site.Site) {
	b.mu.Lock()
	defer b.mu.Unlock()
	byPtr := map[*site.Func]uint32{}
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
			fn = b.intern(s.Func, unit, i)
			byPtr[s.Func] = fn
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
			b.sites = append(b.sites, make([]compactSite, 0, siteChunk))
		}
		last := &b.sites[len(b.sites)-1]
		*last = append(*last, compactSite{off: s.SectionOff, fn: fn, sec: sec, tuple: b.tuple(s.Params)})
	}
}

func lessPlace(a, b place) bool {
	if c := cmp.Compare(a.sec, b.sec); c != 0 {
		return c < 0
	}
	return a.off < b.off
}

func (b *Builder) intern(f *site.Func, unit, seq int) uint32 {
	k := f.Key()
	id, ok := b.funcIdx[k]
	if !ok {
		id = uint32(len(b.funcs))
		b.funcIdx[k] = id
		b.funcs = append(b.funcs, &funcEntry{fn: f, unit: unit, seq: seq})
		return id
	}
	if e := b.funcs[id]; unit < e.unit || unit == e.unit && seq < e.seq {
		e.fn, e.unit, e.seq = f, unit, seq
	}
	return id
}

// tuple interns the encodable part of a site's parameter locations.
func (b *Builder) tuple(params []site.Location) uint32 {
	b.keyBuf = b.keyBuf[:0]
	for i := range params {
		l := toLoc(&params[i])
		sg := byte(0)
		if l.signed {
			sg = 1
		}
		b.keyBuf = append(b.keyBuf, byte(l.kind), l.size, sg)
		b.keyBuf = binary.LittleEndian.AppendUint32(b.keyBuf, l.reg)
		b.keyBuf = binary.LittleEndian.AppendUint32(b.keyBuf, l.reg2)
		b.keyBuf = binary.LittleEndian.AppendUint64(b.keyBuf, uint64(l.offset))
		b.keyBuf = binary.LittleEndian.AppendUint64(b.keyBuf, l.value)
	}
	if id, ok := b.tuples[string(b.keyBuf)]; ok {
		return id
	}
	id := uint32(len(b.tupleAt) - 1)
	b.tuples[string(b.keyBuf)] = id
	for i := range params {
		b.locs = append(b.locs, toLoc(&params[i]))
	}
	b.tupleAt = append(b.tupleAt, uint32(len(b.locs)))
	return id
}

const siteChunk = 1 << 14

// all yields the sites added.
func (b *Builder) all() iter.Seq[*compactSite] {
	return func(yield func(*compactSite) bool) {
		for _, c := range b.sites {
			for i := range c {
				if !yield(&c[i]) {
					return
				}
			}
		}
	}
}

// count is the number of sites with a function.
func (b *Builder) count() int {
	n := 0
	for _, c := range b.sites {
		n += len(c)
	}
	return n
}

func (b *Builder) tupleLocs(id uint32) []loc { return b.locs[b.tupleAt[id]:b.tupleAt[id+1]] }
