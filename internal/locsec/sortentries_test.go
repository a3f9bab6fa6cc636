package locsec

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/btfinline/btfinline/internal/btf"
)

// TestSortEntries holds the radix sort to slices.SortFunc with cmpEntry,
// on entries whose fields vary in each digit, in one digit only, or not
// at all, below and above the size where the radix sort starts.
func TestSortEntries(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func() btf.LocEntry{
		"all": func() btf.LocEntry {
			return btf.LocEntry{Func: btf.TypeID(r.Uint32()), LocProto: btf.TypeID(r.Uint32()), Offset: r.Uint32()}
		},
		"small": func() btf.LocEntry {
			return btf.LocEntry{Func: btf.TypeID(r.IntN(40)), LocProto: btf.TypeID(r.IntN(3)), Offset: uint32(r.IntN(1 << 20))}
		},
		"offset-high": func() btf.LocEntry { return btf.LocEntry{Func: 7, LocProto: 9, Offset: uint32(r.IntN(8)) << 16} },
		"same":        func() btf.LocEntry { return btf.LocEntry{Func: 1, LocProto: 2, Offset: 3} },
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 2, 1000, 1 << 16, 100000} {
			es := make([]btf.LocEntry, n)
			for i := range es {
				es[i] = gen()
			}
			want := slices.Clone(es)
			slices.SortFunc(want, cmpEntry)
			sortEntries(es)
			if !slices.Equal(es, want) {
				t.Errorf("%s, %d entries: order differs from cmpEntry's", name, n)
			}
		}
	}
}
