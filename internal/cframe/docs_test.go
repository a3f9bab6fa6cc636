package cframe

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lookupRun is what one BenchmarkLookupTable run measured per binary.
type lookupRun struct {
	name   string
	metric map[string]float64
}

var benchLine = regexp.MustCompile(`^BenchmarkLookupTable/(\S+?)(-\d+)?\s+\d+\s+(.*)$`)

// parseLookupRun reads "go test -bench" output.
func parseLookupRun(text string) ([]lookupRun, error) {
	var runs []lookupRun
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		r := lookupRun{name: m[1], metric: map[string]float64{}}
		f := strings.Fields(m[3])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", sc.Text(), err)
			}
			r.metric[f[i+1]] = v
		}
		for _, k := range []string{"sframe-ns/lookup", "cframe-ns/lookup", "sframe-lines/lookup", "cframe-lines/lookup", "sframe-pages/lookup", "cframe-pages/lookup", "allocs/op"} {
			if _, ok := r.metric[k]; !ok {
				return nil, fmt.Errorf("%s: no %s", r.name, k)
			}
		}
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no BenchmarkLookupTable lines")
	}
	return runs, nil
}

// lookupClaims checks what the docs claim of a run: no lookup allocates,
// and CFrame is no slower than SFrame v3 and reads fewer lines and pages
// on every binary.
func lookupClaims(runs []lookupRun) []string {
	var bad []string
	for _, r := range runs {
		if r.metric["allocs/op"] != 0 {
			bad = append(bad, fmt.Sprintf("%s: %v allocs per op", r.name, r.metric["allocs/op"]))
		}
		for _, k := range []string{"ns", "lines", "pages"} {
			c, s := r.metric["cframe-"+k+"/lookup"], r.metric["sframe-"+k+"/lookup"]
			if c > s || (k != "ns" && c == s) {
				bad = append(bad, fmt.Sprintf("%s: CFrame %.2f %s per lookup, SFrame v3 %.2f", r.name, c, k, s))
			}
		}
	}
	return bad
}

func renderLookup(runs []lookupRun) string {
	var b strings.Builder
	b.WriteString("| binary | SFrame v3 ns/lookup | CFrame ns/lookup | SFrame v3 lines | CFrame lines | SFrame v3 pages | CFrame pages |\n|---|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range runs {
		m := r.metric
		fmt.Fprintf(&b, "| %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f |\n", r.name, m["sframe-ns/lookup"], m["cframe-ns/lookup"],
			m["sframe-lines/lookup"], m["cframe-lines/lookup"], m["sframe-pages/lookup"], m["cframe-pages/lookup"])
	}
	return block("lookup", b.String())
}

// TestCFrameLookupTable checks a fresh BenchmarkLookupTable run (the file
// $BTFI_CFRAME_BENCH, written by make cframe-table): the lines and pages
// read are the recorded run's exactly (they do not depend on the
// machine), and CFrame is no slower than SFrame v3. BTFI_UPDATE=1 records
// the run.
func TestCFrameLookupTable(t *testing.T) {
	path := os.Getenv("BTFI_CFRAME_BENCH")
	if path == "" {
		t.Skip("make cframe-table runs it")
	}
	fresh, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := parseLookupRun(string(fresh))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range lookupClaims(runs) {
		t.Error(m)
	}
	if os.Getenv("BTFI_UPDATE") != "" && !t.Failed() {
		if err := os.WriteFile(lookupGolden, fresh, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := os.ReadFile(lookupGolden)
	if err != nil {
		t.Fatal(err)
	}
	recRuns, err := parseLookupRun(string(rec))
	if err != nil {
		t.Fatal(err)
	}
	det := func(rs []lookupRun) string {
		var b strings.Builder
		for _, r := range rs {
			fmt.Fprintf(&b, "%s %.4f %.4f %.4f %.4f\n", r.name, r.metric["sframe-lines/lookup"], r.metric["cframe-lines/lookup"], r.metric["sframe-pages/lookup"], r.metric["cframe-pages/lookup"])
		}
		return b.String()
	}
	if d := cmp.Diff(det(recRuns), det(runs)); d != "" {
		t.Errorf("lines/pages read per lookup changed from the recorded run (BTFI_UPDATE=1 make cframe-table records this one):\n%s", d)
	}
}

// TestDocsTables: every table block in docs/cframe.md and the README is
// the one testdata/table.md (sizes) or testdata/lookup-run.txt (lookups)
// gives, and the recorded lookup run bears out the docs' claims.
// BTFI_UPDATE=1 copies the generated tables into the documents.
func TestDocsTables(t *testing.T) {
	sizes, err := os.ReadFile(tableGolden)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := os.ReadFile(lookupGolden)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := parseLookupRun(string(rec))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range lookupClaims(runs) {
		t.Errorf("recorded run: %s", m)
	}
	want := blocks(string(sizes) + renderLookup(runs))
	for _, doc := range []struct {
		path string
		need []string
	}{{"../../docs/cframe.md", []string{"preproposal", "sizes", "counts", "drops", "bytes", "shares", "sparse", "lookup"}}, {"../../README.md", []string{"sizes", "lookup"}}} {
		text, err := os.ReadFile(doc.path)
		if err != nil {
			t.Fatal(err)
		}
		if os.Getenv("BTFI_UPDATE") != "" {
			// Copy the generated tables into the document.
			upd := blockRE.ReplaceAllStringFunc(string(text), func(b string) string {
				if w, ok := want[blockRE.FindStringSubmatch(b)[1]]; ok {
					return w
				}
				return b
			})
			if err := os.WriteFile(doc.path, []byte(upd), 0o644); err != nil {
				t.Fatal(err)
			}
			text = []byte(upd)
		}
		got := blocks(string(text))
		for _, n := range doc.need {
			if _, ok := got[n]; !ok {
				t.Errorf("%s has no %q table", doc.path, n)
			}
		}
		for n, g := range got {
			w, ok := want[n]
			if !ok {
				t.Errorf("%s: table %q is not generated", doc.path, n)
				continue
			}
			if d := cmp.Diff(w, g); d != "" {
				t.Errorf("%s: table %q is not %s's (copy it from there):\n%s", doc.path, n, tableGolden, d)
			}
		}
	}
}

var blockRE = regexp.MustCompile(`(?s)<!-- cframe-table:(\w+) -->\n(.*?)<!-- /cframe-table:(\w+) -->\n`)

// blocks returns the generated tables in text by name.
func blocks(text string) map[string]string {
	m := map[string]string{}
	for _, b := range blockRE.FindAllStringSubmatch(text, -1) {
		m[b[1]] = b[0]
	}
	return m
}
