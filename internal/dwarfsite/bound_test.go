package dwarfsite

import (
	"bytes"
	"reflect"
	"regexp"
	"testing"

	"github.com/btfinline/btfinline/internal/site"
)

// TestAtBest checks Options.AtBest on sites of the fixtures where the
// bound and the chosen address differ, and where they agree.
func TestAtBest(t *testing.T) {
	for _, tc := range []struct {
		name, caller string
		pp           ProbePoint
		located      int         // at the chosen address
		best         site.Counts // Sites and Params are the caller's
		anyLocation  int         // Stats.AtBestAnyLocation
	}{
		// size is located only past the entry pc (x86-64: the shifted
		// argument is in a register from the next instruction on); the
		// block probe point moves there.
		{"sites-x86_64", "c_decshift", ProbeEntry, 0, site.Counts{Located: 1, AllLocated: 1}, 1},
		{"sites-x86_64", "c_decshift", ProbeBlock, 1, site.Counts{Located: 1, AllLocated: 1}, 1},
		// The second dbl's a is an entry value at its entry pc, in a
		// register later in the expansion, after the body changed it:
		// the bound counts it, no probe point does.
		{"sites-x86_64", "c_dbl", ProbeBlock, 1, site.Counts{Located: 2, AllLocated: 2}, 2},
		{"sites-x86_64", "c_dbl", ProbeEntry, 1, site.Counts{Located: 2, AllLocated: 2}, 2},
		// add3's a is memory at an absolute address at every address
		// of its expansion (arm64): the site has a location for every
		// parameter, not one LOC_PARAM carries.
		{"sites-aarch64", "c_reg", ProbeBlock, 2, site.Counts{Located: 2, Unrepresentable: 1, SomeLocated: 1}, 1},
		{"sites-aarch64", "c_reg", ProbeEntry, 2, site.Counts{Located: 2, Unrepresentable: 1, SomeLocated: 1}, 1},
	} {
		t.Run(tc.name+"/"+tc.caller+"/"+tc.pp.String(), func(t *testing.T) {
			opt := fixtureOptions(tc.pp)
			opt.AtBest = true
			opt.Caller = regexp.MustCompile("^" + tc.caller + "$").MatchString
			res := readFixture(t, tc.name, opt)
			st := &res.Stats
			want := tc.best
			want.Sites, want.Params = st.Sites, st.Params
			if st.Located != tc.located || !reflect.DeepEqual(st.AtBest, want) || st.AtBestAnyLocation != tc.anyLocation {
				t.Errorf("located %d at the probe address, want %d; at best %+v, want %+v; %d sites with a location for every parameter, want %d",
					st.Located, tc.located, st.AtBest, want, st.AtBestAnyLocation, tc.anyLocation)
			}
		})
	}
}

// TestAtBestFixtures checks the bound on whole fixtures: it is the same
// for both probe points, it partitions the parameters, it is no less than
// what either locates, and counting it changes no site.
func TestAtBestFixtures(t *testing.T) {
	for _, name := range allFixtures {
		t.Run(name, func(t *testing.T) {
			var bounds []site.Counts
			var anyLoc []int
			for _, pp := range probePoints {
				opt := fixtureOptions(pp)
				plain := readFixture(t, name, opt)
				opt.AtBest = true
				res := readFixture(t, name, opt)
				var a, b bytes.Buffer
				site.WriteJSON(&a, plain.Sites, site.FormatOptions{})
				site.WriteJSON(&b, res.Sites, site.FormatOptions{})
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Errorf("%v: the sites differ with Options.AtBest", pp)
				}
				if !reflect.DeepEqual(plain.Stats.AtBest, site.Counts{}) {
					t.Errorf("%v: counted without Options.AtBest: %+v", pp, plain.Stats.AtBest)
				}
				st, bst := &res.Stats, &res.Stats.AtBest
				if bst.Sites != st.Sites || bst.Params != st.Params || bst.NoParams != st.NoParams ||
					bst.Located+bst.Unrepresentable+bst.Missing != bst.Params ||
					bst.AllLocated+bst.SomeLocated+bst.NoneLocated+bst.NoParams != bst.Sites ||
					bst.Located < st.Located || bst.AllLocated < st.AllLocated || bst.Missing > st.Missing ||
					res.Stats.AtBestAnyLocation < bst.AllLocated+bst.NoParams || res.Stats.AtBestAnyLocation > bst.Sites {
					t.Errorf("%v: at best %+v, at the probe addresses %+v", pp, *bst, st.Counts)
				}
				bounds = append(bounds, *bst)
				anyLoc = append(anyLoc, res.Stats.AtBestAnyLocation)
			}
			if !reflect.DeepEqual(bounds[0], bounds[1]) || anyLoc[0] != anyLoc[1] {
				t.Errorf("at best %+v with %v, %+v with %v", bounds[0], probePoints[0], bounds[1], probePoints[1])
			}
		})
	}
}
