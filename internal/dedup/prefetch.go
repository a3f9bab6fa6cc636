package dedup

import (
	"debug/dwarf"
	"errors"
	"slices"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/chunk"
)

// errNeedsNew: a probe Converter met a type the chain lacks.
var errNeedsNew = errors.New("needs a new type")

// prefetchChunk is how many offsets a Prefetch worker takes at a time:
// neighbours in the DWARF share their unit's types.
const prefetchChunk = 64

// Prefetch converts, in up to workers goroutines, the DWARF types at offs
// that the base chain (with dst's own types) already holds in full, and
// keeps what it found in c's cache, where TypeID finds it. What needs a
// new type is left to TypeID, which adds it in the order it is asked for.
//
// The result is that of TypeID alone: a type the chain holds converts to
// the same id whatever was converted before (candidates are taken base
// first, in id order, and a probe caches nothing that needed a new type),
// so only the work moves, not the ids. c must not be used meanwhile; the
// DWARF is read with one dwarf.Reader per goroutine.
func (c *Converter) Prefetch(offs []dwarf.Offset, workers int) {
	if c.d == nil && c.newReader == nil || workers < 2 || len(offs) == 0 {
		return
	}
	offs = slices.Clone(offs)
	slices.Sort(offs)
	offs = slices.Compact(offs)
	// What Absorb gave c already is not looked for again.
	offs = slices.DeleteFunc(offs, func(off dwarf.Offset) bool {
		_, ok := c.cache[off]
		return ok || off == 0
	})
	if len(offs) == 0 {
		return
	}
	if n := (len(offs) + prefetchChunk - 1) / prefetchChunk; workers > n {
		workers = n
	}
	probes := make([]*Probe, workers)
	var next atomic.Int64
	var g errgroup.Group
	for i := range probes {
		p := c.NewProbe()
		probes[i] = p
		g.Go(func() error {
			for {
				lo := int(next.Add(prefetchChunk)) - prefetchChunk
				if lo >= len(offs) {
					return nil
				}
				p.Convert(offs[lo:min(lo+prefetchChunk, len(offs))])
			}
		})
	}
	_ = g.Wait()
	c.Absorb(probes...)
}

// Probe converts DWARF types as Prefetch does, one call at a time, while
// its Converter is not used: a reader that has just read a unit converts
// the unit's types while its DIEs are in memory. Absorb hands what it
// found to the Converter.
type Probe struct{ c *Converter }

// NewProbe returns a Probe on c's chain and DWARF, with caches of its own.
func (c *Converter) NewProbe() *Probe { return &Probe{c.probeCopy()} }

// Convert converts the types at offs that the chain holds in full.
func (p *Probe) Convert(offs []dwarf.Offset) {
	for _, off := range offs {
		p.c.trim()
		_, _ = p.c.convert(off, 0)
	}
}

// Absorb keeps in c's cache what the probes found, where TypeID finds it;
// the probes are not used after. Two that found the same offset found the
// same id. A type mapped to void counts once, as TypeID would count it.
func (c *Converter) Absorb(probes ...*Probe) {
	voided := map[dwarf.Offset]bool{}
	for _, pr := range probes {
		p := pr.c
		for off, id := range p.cache {
			if _, ok := c.cache[off]; !ok {
				c.cache[off] = id
				if p.voided[off] {
					voided[off] = true
				}
			}
		}
	}
	c.unsupported += len(voided)
}

// probeCopy is a probe Converter on c's chain and DWARF, with caches of its
// own.
func (c *Converter) probeCopy() *Converter {
	var r Reader
	if c.newReader != nil {
		r = c.newReader()
	} else {
		r = c.d.Reader()
	}
	return &Converter{d: c.d, r: typed(r), newReader: c.newReader, dst: c.dst,
		cache: map[dwarf.Offset]btf.TypeID{}, busy: map[dwarf.Offset]bool{}, failed: map[dwarf.Offset]error{},
		dies: map[dwarf.Offset]*die{}, eqMemo: map[pair]bool{},
		first: c.first, pending: nil, layers: c.layers,
		intName: c.intName, sizeName: c.sizeName, index: c.index,
		probe: true, voided: map[dwarf.Offset]bool{},
		kids: chunk.Pool[child]{Min: kidChunkLen}, dieMem: chunk.Pool[die]{Min: dieChunkLen}}
}
