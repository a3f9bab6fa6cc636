package cmd

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestSitesDwarfCLI runs "btfinline sites --dwarf" on the x86-64 fixture
// and compares it with the golden listing the inline package checks.
func TestSitesDwarfCLI(t *testing.T) {
	const obj = "../dwarfsite/testdata/sites-x86_64"
	want, err := os.ReadFile(obj + ".golden")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"sites", "--dwarf", "--reasons", "--workers", "2", obj}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if out.String() != string(want) {
		t.Errorf("output differs from %s.golden:\n%s", obj, out.String())
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
