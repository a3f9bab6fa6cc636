package testutil

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmePackages: the README's package table lists every package of
// the module but the test helpers and the programs (e2e, examples), and no package
// imports one listed above it (the order the table claims).
func TestReadmePackages(t *testing.T) {
	root := repoRoot()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "| package | owns |\n")
	if !ok {
		t.Fatal("README has no package table")
	}
	var listed []string
	row := regexp.MustCompile("^\\| `([^`]+)` \\|")
	for _, line := range strings.Split(table, "\n")[1:] {
		m := row.FindStringSubmatch(line)
		if m == nil {
			break
		}
		listed = append(listed, m[1])
	}
	const mod = "github.com/btfinline/btfinline/"
	var pkgs []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
			return filepath.SkipDir
		}
		bp, err := build.ImportDir(p, 0)
		if err != nil || bp.Name == "main" || rel == "internal/testutil" || strings.HasPrefix(rel, "e2e") {
			return nil
		}
		if rel == "." {
			rel = "btfinline" // the public API, at the module's root
		}
		pkgs = append(pkgs, filepath.ToSlash(rel))
		at := slices.Index(listed, filepath.ToSlash(rel))
		if at < 0 {
			return nil
		}
		for _, imp := range bp.Imports {
			if i := slices.Index(listed, strings.TrimPrefix(imp, mod)); strings.HasPrefix(imp, mod) && i >= 0 && i < at {
				t.Errorf("%s imports %s, listed above it", rel, strings.TrimPrefix(imp, mod))
			}
		}
		return nil
	})
	for _, p := range pkgs {
		if !slices.Contains(listed, p) {
			t.Errorf("package %s is not in the README's table", p)
		}
	}
	for _, p := range listed {
		if !slices.Contains(pkgs, p) {
			t.Errorf("the README lists %s, which is no package", p)
		}
	}
}
