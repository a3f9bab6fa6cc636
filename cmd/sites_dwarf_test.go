package cmd

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestSitesDwarfCLI runs "btfinline sites --dwarf" on the x86-64 fixture
// and compares it with the golden listings the dwarfsite package checks:
// by default the block probe points (with the kprobe rules of the
// fixture's own tables, which has none), with --probe-point entry the
// entry pcs.
func TestSitesDwarfCLI(t *testing.T) {
	const obj = "../dwarfsite/testdata/sites-x86_64"
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
	if !strings.Contains(out.String(), `"location":"reg5, reg4","kind":"reg_pair"`) {
		t.Errorf("--json:\n%s", out.String())
	}
	if code := run([]string{"sites", "--dwarf", "../dwarfsite/testdata/sites.c"}, &out, &errb); code == 0 {
		t.Error("a C source was accepted as an object")
	}
}
