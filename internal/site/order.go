package site

import (
	"cmp"
	"slices"
)

// The one order of sites. Every list of sites btfinline prints or encodes
// is sorted by a place (the address, or for the encoder, which must not
// depend on addresses, the section and offset) and then by Compare, which
// tells apart the sites that share a place.

// Sort orders sites by Less, stably.
func Sort(sites []Site) {
	// Sort indices, then permute once: a Site is too big to swap around.
	idx := Order(sites)
	sorted := make([]Site, len(sites))
	for i, j := range idx {
		sorted[i] = sites[j]
	}
	copy(sites, sorted)
}

// Order returns the indices of sites in the order Sort puts them, for a
// caller that keeps something parallel to the sites.
func Order(sites []Site) []int {
	idx := make([]int, len(sites))
	for i := range idx {
		idx[i] = i
	}
	// The index breaks ties, which makes the order a stable sort's; an
	// unstable sort finds the runs of a listing that is nearly in order
	// already, where a stable one merges them again.
	slices.SortFunc(idx, func(i, j int) int {
		a, b := &sites[i], &sites[j]
		if c := cmp.Compare(a.Addr, b.Addr); c != 0 {
			return c
		}
		if c := comparePlaced(a, b); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	return idx
}

// Less is the order of Sort: address, section, then Compare. Sites read
// from BTF (no depth, no call line) sort the same way as those read from
// DWARF.
func Less(a, b *Site) bool {
	if a.Addr != b.Addr {
		return a.Addr < b.Addr
	}
	return comparePlaced(a, b) < 0
}

// LessInSection orders sites by section, offset in it, then Compare: the
// order of the encoder, which sees no addresses.
func LessInSection(a, b *Site) bool {
	if c := cmp.Compare(a.Section, b.Section); c != 0 {
		return c < 0
	}
	if c := cmp.Compare(a.SectionOff, b.SectionOff); c != 0 {
		return c < 0
	}
	return Compare(a, b) < 0
}

func comparePlaced(a, b *Site) int {
	if c := cmp.Compare(a.Section, b.Section); c != 0 {
		return c
	}
	return Compare(a, b)
}

// Compare orders sites at one place: by the inlined function (name,
// declaration, prototype), then depth, call line and call file.
func Compare(a, b *Site) int {
	fa, fb := a.Func, b.Func
	switch {
	case fa == nil || fb == nil:
		if fa == fb {
			return 0
		}
		if fa == nil {
			return -1
		}
		return 1
	case fa != fb:
		if c := compareFunc(fa, fb); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(a.Depth, b.Depth); c != 0 {
		return c
	}
	if c := cmp.Compare(a.CallLine, b.CallLine); c != 0 {
		return c
	}
	return cmp.Compare(a.CallFile, b.CallFile)
}

func compareFunc(fa, fb *Func) int {
	if c := cmp.Compare(fa.Name, fb.Name); c != 0 {
		return c
	}
	if c := cmp.Compare(fa.DeclFile, fb.DeclFile); c != 0 {
		return c
	}
	if c := cmp.Compare(fa.DeclLine, fb.DeclLine); c != 0 {
		return c
	}
	if c := cmp.Compare(fa.Return, fb.Return); c != 0 {
		return c
	}
	if c := cmp.Compare(len(fa.Params), len(fb.Params)); c != 0 {
		return c
	}
	for i := range fa.Params {
		pa, pb := &fa.Params[i], &fb.Params[i]
		if c := cmp.Compare(pa.Name, pb.Name); c != 0 {
			return c
		}
		if c := cmp.Compare(pa.Type, pb.Type); c != 0 {
			return c
		}
	}
	return 0
}
