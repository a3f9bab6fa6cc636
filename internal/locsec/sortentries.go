package locsec

import (
	"slices"

	"github.com/btfinline/btfinline/internal/btf"
)

// sortEntries sorts es as slices.SortFunc(es, cmpEntry) does, by a
// least-significant-digit radix sort on 16-bit digits of LocProto, Offset
// and Func: a vmlinux's 300,000 entries in a few passes over memory
// instead of millions of comparisons. Digits equal in every entry are
// passed over. The order is the same: the three fields are the whole key.
// Fewer entries than a digit has values are sorted by comparison: a pass
// costs the digit's 65,536 counters as well as the entries.
func sortEntries(es []btf.LocEntry) {
	if len(es) < 1<<16 {
		slices.SortFunc(es, cmpEntry)
		return
	}
	tmp := make([]btf.LocEntry, len(es))
	src, dst := es, tmp
	digits := [...]func(*btf.LocEntry) uint32{
		func(e *btf.LocEntry) uint32 { return uint32(e.LocProto) & 0xffff },
		func(e *btf.LocEntry) uint32 { return uint32(e.LocProto) >> 16 },
		func(e *btf.LocEntry) uint32 { return e.Offset & 0xffff },
		func(e *btf.LocEntry) uint32 { return e.Offset >> 16 },
		func(e *btf.LocEntry) uint32 { return uint32(e.Func) & 0xffff },
		func(e *btf.LocEntry) uint32 { return uint32(e.Func) >> 16 },
	}
	var count [1 << 16]int
	for _, digit := range digits {
		clear(count[:])
		for i := range src {
			count[digit(&src[i])]++
		}
		if count[digit(&src[0])] == len(src) {
			continue // one value of this digit: the order stands
		}
		sum := 0
		for d, n := range count {
			count[d] = sum
			sum += n
		}
		for i := range src {
			d := digit(&src[i])
			dst[count[d]] = src[i]
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &es[0] {
		copy(es, src)
	}
}
