package dwarfsite

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
)

// WriteStats prints the --stats summary.
func WriteStats(w io.Writer, st *Stats) error {
	bw := bufio.NewWriter(w)
	pct := func(n, of int) string {
		if of == 0 {
			return ""
		}
		return fmt.Sprintf(" (%.1f%%)", 100*float64(n)/float64(of))
	}
	withParams := st.Sites - st.NoParams
	fmt.Fprintf(bw, "inlined subroutine entries:        %d\n", st.Entries)
	fmt.Fprintf(bw, "  without an address:              %d\n", st.NoAddress)
	if st.Filtered > 0 {
		fmt.Fprintf(bw, "  filtered out:                    %d\n", st.Filtered)
	}
	fmt.Fprintf(bw, "formal parameter entries:          %d\n", st.ParamEntries)
	fmt.Fprintf(bw, "sites:                             %d\n", st.Sites)
	fmt.Fprintf(bw, "functions inlined:                 %d\n", st.Functions)
	fmt.Fprintf(bw, "parameters:                        %d\n", st.Params)
	fmt.Fprintf(bw, "  located:                         %d%s\n", st.Located, pct(st.Located, st.Params))
	fmt.Fprintf(bw, "  no location at the site:         %d%s\n", st.Missing, pct(st.Missing, st.Params))
	fmt.Fprintf(bw, "  unrepresentable:                 %d%s\n", st.Unrepresentable, pct(st.Unrepresentable, st.Params))
	fmt.Fprintf(bw, "  located through a location view: %d\n", st.ViewOnly)
	fmt.Fprintf(bw, "sites with all parameters located: %d%s\n", st.AllLocated, pct(st.AllLocated, withParams))
	fmt.Fprintf(bw, "sites with some located:           %d%s\n", st.SomeLocated, pct(st.SomeLocated, withParams))
	fmt.Fprintf(bw, "sites with none located:           %d%s\n", st.NoneLocated, pct(st.NoneLocated, withParams))
	fmt.Fprintf(bw, "sites without parameters:          %d\n", st.NoParams)
	if st.NextView > 0 || st.Moved > 0 {
		// ProbeBlock (probe.go): the entry pcs read at the binding view,
		// and the probes moved past their entry pcs.
		fmt.Fprintf(bw, "sites located at the binding view: %d\n", st.NextView)
		fmt.Fprintf(bw, "sites moved past their entry pc:   %d\n", st.Moved)
	}
	if b := &st.AtBest; b.Sites > 0 {
		// Options.AtBest (bound.go): each parameter at the best address
		// of its expansion.
		fmt.Fprintf(bw, "parameters located at best:        %d%s\n", b.Located, pct(b.Located, b.Params))
		fmt.Fprintf(bw, "  only at other addresses:         %d\n", b.Located-st.Located)
		fmt.Fprintf(bw, "  no location in the expansion:    %d%s\n", b.Missing, pct(b.Missing, b.Params))
		fmt.Fprintf(bw, "  unrepresentable everywhere:      %d%s\n", b.Unrepresentable, pct(b.Unrepresentable, b.Params))
		fmt.Fprintf(bw, "sites fully located at best:       %d%s\n", b.AllLocated+b.NoParams, pct(b.AllLocated+b.NoParams, b.Sites))
		fmt.Fprintf(bw, "  with parameters, all located:    %d%s\n", b.AllLocated, pct(b.AllLocated, b.Sites-b.NoParams))
		fmt.Fprintf(bw, "  some located:                    %d%s\n", b.SomeLocated, pct(b.SomeLocated, b.Sites-b.NoParams))
		fmt.Fprintf(bw, "  none located:                    %d%s\n", b.NoneLocated, pct(b.NoneLocated, b.Sites-b.NoParams))
		fmt.Fprintf(bw, "  if all locations representable: %d%s\n", st.AtBestAnyLocation, pct(st.AtBestAnyLocation, b.Sites))
	}
	if len(st.Reasons) > 0 {
		fmt.Fprintf(bw, "unrepresentable locations by reason:\n")
		type rc struct {
			r string
			n int
		}
		var rs []rc
		for r, n := range st.Reasons {
			rs = append(rs, rc{r, n})
		}
		sort.Slice(rs, func(i, j int) bool {
			if rs[i].n != rs[j].n {
				return rs[i].n > rs[j].n
			}
			return rs[i].r < rs[j].r
		})
		for _, x := range rs {
			fmt.Fprintf(bw, "  %-40s %d\n", x.r+":", x.n)
		}
	}
	if st.Warnings > 0 {
		fmt.Fprintf(bw, "warnings (entries skipped):        %d\n", st.Warnings)
	}
	for _, l := range slices.Sorted(maps.Keys(st.ExcludedUnits)) {
		fmt.Fprintf(bw, "units left out (%s):%s%d\n", l, strings.Repeat(" ", max(1, 20-len(l))), st.ExcludedUnits[l])
	}
	if st.ExcludedSites > 0 {
		fmt.Fprintf(bw, "  their inline sites:              %d\n", st.ExcludedSites)
	}
	if st.Resumed > 0 {
		fmt.Fprintf(bw, "  undecodable entries passed over: %d (each with the rest of the subtree it ends)\n", st.Resumed)
	}
	if st.LostSites > 0 {
		fmt.Fprintf(bw, "  inline sites dropped unfinished: %d\n", st.LostSites)
	}
	return bw.Flush()
}
