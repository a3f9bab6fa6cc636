package cmd

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/dwarfsite"
	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/kprobe"
	"github.com/btfinline/btfinline/internal/testutil"
)

// TestSitesDwarfCLI runs "btfinline sites --dwarf" on the x86-64 fixture
// and compares it with the golden listings the dwarfsite package checks:
// by default the block probe points (with the kprobe rules of the
// fixture's own tables, which has none), with --probe-point entry the
// entry pcs.
func TestSitesDwarfCLI(t *testing.T) {
	const obj = "../internal/dwarfsite/testdata/sites-x86_64"
	var out, errb bytes.Buffer
	for _, tc := range []struct{ golden, flag string }{{".block.golden", "block"}, {".golden", "entry"}, {".block.golden", ""}} {
		want, err := os.ReadFile(obj + tc.golden)
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"sites", "--dwarf", "--reasons", "--workers", "2", obj}
		if tc.flag != "" {
			args = append(args, "--probe-point", tc.flag)
		}
		out.Reset()
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		if out.String() != string(want) {
			t.Errorf("--probe-point %q: output differs from %s%s:\n%s", tc.flag, obj, tc.golden, out.String())
		}
	}
	out.Reset()
	if code := run([]string{"sites", "--dwarf", "--json", "--caller", "c_decshift", obj}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), `"addr":4199447,"entry_pc":4199440,`) {
		t.Errorf("--json of a moved site has no entry_pc:\n%s", out.String())
	}
	out.Reset()
	if code := run([]string{"sites", "--dwarf", "--stats", "--func", "^lvl", obj}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "sites:                             3\n") {
		t.Errorf("--stats --func ^lvl:\n%s", out.String())
	}
	out.Reset()
	if code := run([]string{"sites", "--dwarf", "--json", "--caller", "c_pair", obj}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), `"location":"reg5, reg4","kind":"reg_pair","reg":5,"reg2":4,"reg_name":"%di","reg2_name":"%si"`) {
		t.Errorf("--json:\n%s", out.String())
	}
	if code := run([]string{"sites", "--dwarf", "../internal/dwarfsite/testdata/sites.c"}, &out, &errb); code == 0 {
		t.Error("a C source was accepted as an object")
	}
}

// TestKernelSitesStats: "btfinline sites --dwarf --stats vmlinux" of each
// kernel, with the default (block) probe points, is the figure the README
// quotes (dwarfsite's TestKernelVmlinux writes the entry-pc one), and the
// two side by side are the table of docs/encoding.md ("Probe points").
func TestKernelSitesStats(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		t.Run(k.Name, func(t *testing.T) {
			vmlinux := filepath.Join(k.Dir, "vmlinux")
			out := runCLI(t, "sites", "--dwarf", "--stats", vmlinux)
			testutil.Figures(t, k, "sites-dwarf-vmlinux.txt", out)
			f, err := elfobj.Open(vmlinux)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rules, err := kprobe.ForELF(f)
			if err != nil {
				t.Fatal(err)
			}
			x, err := dwarfsite.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			var st [2]dwarfsite.Stats
			for i, pp := range []dwarfsite.ProbePoint{dwarfsite.ProbeEntry, dwarfsite.ProbeBlock} {
				res, err := x.Sites(dwarfsite.Options{ProbePoint: pp, Text: rules, AtBest: true})
				if err != nil {
					t.Fatal(err)
				}
				st[i] = res.Stats
			}
			e, b := &st[0], &st[1]
			// Moving never loses: every site locates at least as much.
			if b.Sites != e.Sites || b.Located < e.Located || b.AllLocated < e.AllLocated || b.Moved == 0 {
				t.Errorf("block %+v\nentry %+v", b.Counts, e.Counts)
			}
			// The bound does not depend on the probe point, partitions
			// the parameters, and no probe point beats it.
			ab := &b.AtBest
			if !reflect.DeepEqual(e.AtBest, *ab) || ab.Sites != b.Sites || ab.Params != b.Params ||
				ab.Located+ab.Unrepresentable+ab.Missing != ab.Params ||
				ab.Located < b.Located || ab.AllLocated < b.AllLocated || ab.Missing > b.Missing ||
				e.AtBestAnyLocation != b.AtBestAnyLocation || b.AtBestAnyLocation < ab.AllLocated+ab.NoParams {
				t.Errorf("at best: entry %+v, block %+v\nblock %+v\nany location %d / %d", e.AtBest, *ab, b.Counts, e.AtBestAnyLocation, b.AtBestAnyLocation)
			}
			// docs/encoding.md says no probe point reaches issue 13's goal
			// of 85% of the sites fully located.
			// and that of what the block leaves unlocated most has no
			// location in its expansion, and most of the rest only
			// unrepresentable ones.
			if 100*(ab.AllLocated+ab.NoParams) >= 85*ab.Sites {
				t.Errorf("at best %d of %d sites fully located, >= 85%%: docs/encoding.md says the goal is out of reach", ab.AllLocated+ab.NoParams, ab.Sites)
			}
			if 2*ab.Missing <= b.Params-b.Located || ab.Unrepresentable <= ab.Located-b.Located {
				t.Errorf("of %d parameters the block leaves unlocated, %d have no location in their expansion, %d only unrepresentable ones, %d one elsewhere: docs/encoding.md says most have none and most of the rest only unrepresentable ones",
					b.Params-b.Located, ab.Missing, ab.Unrepresentable, ab.Located-b.Located)
			}
			testutil.Figures(t, k, "probe-points.md", probePointTable(k, e, b))
		})
	}
}

// probePointTable is a Markdown table of what the entry pcs and the block
// probe points locate on kernel k, and the bound on any probe point (the
// same in e and b).
func probePointTable(k testutil.Kernel, e, b *dwarfsite.Stats) string {
	n := func(v int) string {
		s := strconv.Itoa(v)
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		return s
	}
	pct := func(v, of int) string { return fmt.Sprintf("%s (%.1f%%)", n(v), 100*float64(v)/float64(max(of, 1))) }
	var w strings.Builder
	row := func(what, a, b, c string) { fmt.Fprintf(&w, "| %s | %s | %s | %s |\n", what, a, b, c) }
	ab := &b.AtBest
	fmt.Fprintf(&w, "| %s vmlinux | entry pc (`--probe-point entry`) | block (default) | at best (any address of the expansion, per parameter) |\n|---|--:|--:|--:|\n", k.Name)
	row("inline sites", n(e.Sites), n(b.Sites), n(ab.Sites))
	row("fully located: every parameter, or none to locate", pct(e.AllLocated+e.NoParams, e.Sites), pct(b.AllLocated+b.NoParams, b.Sites), pct(ab.AllLocated+ab.NoParams, ab.Sites))
	row("fully located, were every location in the expansion representable", "", "", pct(b.AtBestAnyLocation, ab.Sites))
	row("sites with parameters, all located", pct(e.AllLocated, e.Sites-e.NoParams), pct(b.AllLocated, b.Sites-b.NoParams), pct(ab.AllLocated, ab.Sites-ab.NoParams))
	row("some located", pct(e.SomeLocated, e.Sites-e.NoParams), pct(b.SomeLocated, b.Sites-b.NoParams), pct(ab.SomeLocated, ab.Sites-ab.NoParams))
	row("none located", pct(e.NoneLocated, e.Sites-e.NoParams), pct(b.NoneLocated, b.Sites-b.NoParams), pct(ab.NoneLocated, ab.Sites-ab.NoParams))
	row("parameters located", pct(e.Located, e.Params), pct(b.Located, b.Params), pct(ab.Located, ab.Params))
	row("not located", n(e.Params-e.Located), n(b.Params-b.Located), n(ab.Params-ab.Located))
	row("not located: no location anywhere in the expansion", n(ab.Missing), n(ab.Missing), n(ab.Missing))
	row("not located: located only at other addresses of the expansion", n(ab.Located-e.Located), n(ab.Located-b.Located), "0")
	row("not located: unrepresentable at every address of the expansion", n(ab.Unrepresentable), n(ab.Unrepresentable), n(ab.Unrepresentable))
	row("no location at the probe address", n(e.Missing), n(b.Missing), "")
	row("unrepresentable at the probe address", n(e.Unrepresentable), n(b.Unrepresentable), "")
	row("sites located at the binding view", n(e.NextView), n(b.NextView), "")
	row("sites moved past their entry pc", n(e.Moved), n(b.Moved), "")
	reasons := map[string]bool{}
	for r := range e.Reasons {
		reasons[r] = true
	}
	for r := range b.Reasons {
		reasons[r] = true
	}
	rs := slices.Collect(maps.Keys(reasons))
	sort.Slice(rs, func(i, j int) bool {
		if e.Reasons[rs[i]] != e.Reasons[rs[j]] {
			return e.Reasons[rs[i]] > e.Reasons[rs[j]]
		}
		return rs[i] < rs[j]
	})
	for _, r := range rs {
		row("unrepresentable: "+r, n(e.Reasons[r]), n(b.Reasons[r]), "")
	}
	fmt.Fprintf(&w, "\n%s: at best %.1f%% of the sites are fully located (block: %.1f%%). Of the %s parameters the block probe points leave unlocated, %s have no location anywhere in their expansion and %s only unrepresentable ones; %s are located at other addresses of it. Were every location representable, at best %.1f%% would be fully located.\n",
		k.Name, 100*float64(ab.AllLocated+ab.NoParams)/float64(max(ab.Sites, 1)), 100*float64(b.AllLocated+b.NoParams)/float64(max(b.Sites, 1)),
		n(b.Params-b.Located), n(ab.Missing), n(ab.Unrepresentable), n(ab.Located-b.Located),
		100*float64(b.AtBestAnyLocation)/float64(max(ab.Sites, 1)))
	return w.String()
}
