package dwarfsite

import (
	"debug/dwarf"

	"github.com/btfinline/btfinline/internal/site"
)

// The bound of Options.AtBest, Stats.AtBest, is an upper bound on what
// any choice of one probe address per site can locate: a parameter counts
// as located at best when some address of its site's own expansion (its
// ranges and entry pc, any address, whatever the basic blocks, patched
// code and instruction boundaries) has a location for it that a site can
// carry (the test of Site.Params: classify, then fitParam). Each
// parameter is judged on its own, so a site counted as all located at
// best may need different addresses for different parameters: the bound
// on sites is looser than the bound on parameters.
//
// It is a site.Counts in which every parameter falls in exactly one of
// Located, Unrepresentable (locations in the expansion, none a site can
// carry) and Missing (no location anywhere in the expansion), whatever
// the probe point; Functions and Reasons are not counted. A parameter not
// located at the chosen address is then Missing, Unrepresentable, or
// located at other addresses only (AtBest.Located - Counts.Located).

// addCounts adds b to a, every field but Functions (distinct functions
// do not add up); countAtBest leaves Reasons nil.
func addCounts(a, b *site.Counts) {
	for r, n := range b.Reasons {
		if a.Reasons == nil {
			a.Reasons = make(map[string]int)
		}
		a.Reasons[r] += n
	}
	a.Sites += b.Sites
	a.NoParams += b.NoParams
	a.AllLocated += b.AllLocated
	a.SomeLocated += b.SomeLocated
	a.NoneLocated += b.NoneLocated
	a.Params += b.Params
	a.Located += b.Located
	a.Unrepresentable += b.Unrepresentable
	a.Missing += b.Missing
}

// countAtBest adds site ps to w.stats.AtBest. entry and chosen are its
// locations at the entry pc and at the chosen address: each parameter
// ranks at best no lower than in either, so the bound holds whatever
// evaluation chose them.
func (w *worker) countAtBest(ps *pendingSite, entry, chosen []site.Location) {
	fi := ps.fi
	n := len(fi.fn.Params)
	best := make([]int, n)
	for i := 0; i < n; i++ {
		best[i] = max(rank(&entry[i]), rank(&chosen[i]))
	}
	atEntry := ps.site.Caller != "" && ps.site.CallerOff == 0
	quiet := func(string, ...any) {} // the site's first evaluation warned
	for k := range ps.params {
		pe := &ps.params[k]
		i := paramIndex(fi, pe)
		if i < 0 || best[i] == 2 {
			continue
		}
		var r int
		switch {
		case !pe.loc.present(), pe.loc.class != dwarf.ClassLocList && pe.loc.class != dwarf.ClassLocListPtr:
			// A constant or a single expression holds everywhere, so at
			// the entry pc.
			env := w.paramEnv(fi, i, atEntry)
			l, _, _ := w.paramLoc(pe, point{pc: ps.addr, view: ps.view}, &env, false)
			l = w.fitParam(fi, i, l)
			r = rank(&l)
		default:
			r = w.rankInExpansion(ps, pe, i, atEntry, quiet)
		}
		best[i] = max(best[i], r)
	}
	st := &w.stats.AtBest
	unrep0 := st.Unrepresentable
	located := 0
	for _, r := range best {
		switch r {
		case 2:
			located++
		case 1:
			st.Unrepresentable++
		default:
			st.Missing++
		}
	}
	st.AddSite(n, located)
	if located+st.Unrepresentable-unrep0 == n {
		w.stats.AtBestAnyLocation++
	}
}

// rankInExpansion is the best rank of the entries of pe's location list
// that hold at some address of ps's expansion.
func (w *worker) rankInExpansion(ps *pendingSite, pe *paramEntry, i int, atEntry bool, warnf func(string, ...any)) int {
	ll, es, ok := w.paramList(pe, warnf)
	if !ok {
		return 1 // the list's location is unrepresentable at every address
	}
	best := 0
	for k := range es {
		e := &es[k]
		lo, hi, ok := e.span()
		if !ok || !w.inExpansion(ps, lo, hi) {
			continue
		}
		// DW_OP_entry_value holds at the caller's first instruction.
		env := w.paramEnv(ps.fi, i, atEntry && (e.Default || lo <= ps.addr && ps.addr < hi))
		l, _ := w.exprLoc(e.Expr, ll.Name, e.ExprOff, &env, warnf)
		l = w.fitParam(ps.fi, i, l)
		if best = max(best, rank(&l)); best == 2 {
			break
		}
	}
	return best
}

// span is the addresses [lo, hi) at which e holds at some location view;
// false if none. A default entry spans every address.
func (e *locEntry) span() (lo, hi uint64, ok bool) {
	if e.Default {
		return 0, ^uint64(0), true
	}
	lo, hi = e.Low, e.High
	// With views, High itself holds at the views before HighView.
	if e.HasViews && e.HighView > 0 && hi != ^uint64(0) && (lo < hi || e.LowView < e.HighView) {
		hi++
	}
	return lo, hi, lo < hi
}

// inExpansion reports whether [lo, hi) meets the ranges of ps or its
// entry pc.
func (w *worker) inExpansion(ps *pendingSite, lo, hi uint64) bool {
	if lo <= ps.addr && ps.addr < hi {
		return true
	}
	for _, r := range ps.ranges {
		if lo < r[1] && r[0] < hi {
			return true
		}
	}
	return false
}
