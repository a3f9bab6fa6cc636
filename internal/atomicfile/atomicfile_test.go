package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFailure: when the rename cannot happen the target is untouched and
// no temporary file is left behind.
func TestFailure(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "x")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(target, "keep"), []byte("k"), 0o644)
	if err := Write(target, []byte("new")); err == nil {
		t.Fatal("want an error replacing a directory")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "x" {
		t.Errorf("left behind: %v", ents)
	}
	if b, _ := os.ReadFile(filepath.Join(target, "keep")); string(b) != "k" {
		t.Error("target changed")
	}
	if err := Write(filepath.Join(dir, "missing", "f"), []byte("new")); err == nil {
		t.Error("want an error in a missing directory")
	}
}

// TestReplace: an existing file keeps its mode, a new one gets 0644, and a
// device is written into.
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	os.WriteFile(f, []byte("old"), 0o751)
	if err := Write(f, []byte("new")); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(f)
	if b, _ := os.ReadFile(f); string(b) != "new" || st.Mode().Perm() != 0o751 {
		t.Errorf("got %q mode %v", b, st.Mode())
	}
	n := filepath.Join(dir, "n")
	if err := Write(n, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(n); st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v", st.Mode())
	}
	if err := Write(os.DevNull, []byte("x")); err != nil {
		t.Errorf("writing into %s: %v", os.DevNull, err)
	}
}
