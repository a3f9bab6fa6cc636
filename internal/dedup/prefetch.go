package dedup

import (
	"debug/dwarf"
	"errors"
	"slices"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/btfinline/btfinline/internal/btf"
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
	if offs[0] == 0 {
		offs = offs[1:]
	}
	if n := (len(offs) + prefetchChunk - 1) / prefetchChunk; workers > n {
		workers = n
	}
	probes := make([]*Converter, workers)
	var next atomic.Int64
	var g errgroup.Group
	for i := range probes {
		p := c.probeCopy()
		probes[i] = p
		g.Go(func() error {
			for {
				lo := int(next.Add(prefetchChunk)) - prefetchChunk
				if lo >= len(offs) {
					return nil
				}
				for _, off := range offs[lo:min(lo+prefetchChunk, len(offs))] {
					_, _ = p.convert(off, 0)
				}
			}
		})
	}
	_ = g.Wait()
	// The union of what the probes found; two that found the same offset
	// found the same id. A type mapped to void counts once, as TypeID
	// would count it.
	voided := map[dwarf.Offset]bool{}
	for _, p := range probes {
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
	return &Converter{d: c.d, r: r, newReader: c.newReader, dst: c.dst,
		cache: map[dwarf.Offset]btf.TypeID{}, busy: map[dwarf.Offset]bool{}, failed: map[dwarf.Offset]error{},
		dies: map[dwarf.Offset]*die{}, eqMemo: map[pair]bool{},
		first: c.first, pending: nil, layers: c.layers,
		intName: c.intName, sizeName: c.sizeName, index: c.index,
		probe: true, voided: map[dwarf.Offset]bool{}}
}
