// Package chunk owns one way of keeping many small slices: each is cut
// from a shared chunk, so that thousands of short lists (location lists,
// a DIE's children) cost one allocation per chunk instead of one each.
//
// It imports nothing.
package chunk

// Keep copies items into the chunk *c (a new one of at least min
// elements when the current one has no room left) and returns them
// there, capped so that an append to the result cannot reach the
// chunk's next slices. Empty items give nil.
func Keep[T any](c *[]T, items []T, min int) []T {
	out := Take(c, len(items), min, min)
	copy(out, items)
	return out
}

// Take returns n elements of the chunk *c, capped as Keep's, taking a
// new chunk when the current one has no room left: of Size(cap(*c),
// least, most) elements, or n if more. The elements hold what the chunk
// held (zero in a new one). n == 0 gives nil.
func Take[T any](c *[]T, n, least, most int) []T {
	if n == 0 {
		return nil
	}
	if cap(*c)-len(*c) < n {
		*c = make([]T, 0, max(Size(cap(*c), least, most), n))
	}
	l := len(*c)
	*c = (*c)[:l+n]
	return (*c)[l : l+n : l+n]
}

// Size is the size of the chunk after one of last elements: twice it,
// from least up to most, so that a small input takes a small chunk and
// a large one few chunks.
func Size(last, least, most int) int { return max(least, min(2*last, most)) }

// Pool keeps slices as Keep does, in chunks of at least Min elements that
// it writes again after Reset: for slices that all die at one moment (a
// unit's location lists, when its last site is finished), so that the
// chunks of one round serve the next instead of becoming garbage.
type Pool[T any] struct {
	Min    int
	chunks [][]T
	i      int // the chunk being filled
}

// Keep copies items into the pool and returns them there, capped; empty
// items give nil. The result is valid until Reset.
func (p *Pool[T]) Keep(items []T) []T {
	if len(items) == 0 {
		return nil
	}
	for p.i < len(p.chunks) && cap(p.chunks[p.i])-len(p.chunks[p.i]) < len(items) {
		p.i++
	}
	if p.i == len(p.chunks) {
		p.chunks = append(p.chunks, make([]T, 0, max(p.Min, len(items))))
	}
	c := &p.chunks[p.i]
	n := len(*c)
	*c = append(*c, items...)
	return (*c)[n:len(*c):len(*c)]
}

// Add keeps v in the pool and returns where: one element, as Keep keeps
// many. The result is valid until Reset.
func (p *Pool[T]) Add(v T) *T {
	one := [1]T{v}
	return &p.Keep(one[:])[0]
}

// Reset makes every chunk free again: no slice Keep returned before may be
// used after.
func (p *Pool[T]) Reset() {
	for i := range p.chunks {
		p.chunks[i] = p.chunks[i][:0]
	}
	p.i = 0
}
