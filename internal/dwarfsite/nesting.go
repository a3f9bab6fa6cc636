package dwarfsite

import (
	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/site"
)

// Nesting reads the inline sites of the functions match accepts (nil:
// all) from f's DWARF and returns their nesting, keyed with
// site.LocKey when withLocs. Sites with one key keep the deepest
// nesting, preferring one nested in the same function.
//
// A .BTF.inline does not say which probe point its encoder chose
// (ProbeEntry or ProbeBlock, with text: the object's own kprobe rules),
// and an address can hold one instance at its entry pc and another moved
// there: the kind kept is the one that holds more of ours, the keys of
// the sites the caller has from the BTF.
func Nesting(f *elfobj.File, text Text, match func(string) bool, withLocs bool, ours []site.NestKey) (map[site.NestKey]site.Nest, error) {
	x, err := Load(f)
	if err != nil {
		return nil, err
	}
	var best map[site.NestKey]site.Nest
	bestScore := -1
	// Block first: the default of encode wins a tie.
	for _, pp := range []ProbePoint{ProbeBlock, ProbeEntry} {
		res, err := x.Sites(Options{Func: match, ProbePoint: pp, Text: text})
		if err != nil {
			return nil, err
		}
		m := make(map[site.NestKey]site.Nest, len(res.Sites))
		for i := range res.Sites {
			s := &res.Sites[i]
			k := site.NestKey{Section: s.Section, Off: s.SectionOff, Func: s.Func.Name}
			if withLocs {
				k.Locs = site.LocKey(s)
			}
			n, seen := m[k]
			if !seen || s.Depth > n.Depth || s.Outer == s.Func.Name && n.Outer != s.Func.Name {
				m[k] = site.Nest{Depth: s.Depth, Outer: s.Outer}
			}
		}
		score := 0
		for _, k := range ours {
			if _, ok := m[k]; ok {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = m, score
		}
	}
	return best, nil
}
