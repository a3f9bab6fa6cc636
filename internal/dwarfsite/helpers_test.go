package dwarfsite

import (
	"testing"

	"github.com/btfinline/btfinline/internal/elfobj"
)

const fixtureDir = "testdata"

// loadObject opens and loads the object at path, closed when the test
// ends.
func loadObject(t testing.TB, path string) *Object {
	t.Helper()
	f, err := elfobj.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	x, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	return x
}
