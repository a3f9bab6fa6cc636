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
	if len(items) == 0 {
		return nil
	}
	if cap(*c)-len(*c) < len(items) {
		*c = make([]T, 0, max(min, len(items)))
	}
	n := len(*c)
	*c = append(*c, items...)
	return (*c)[n:len(*c):len(*c)]
}
