package sframe

import (
	"path/filepath"
	"testing"
)

// TestTableAgrees: lookups from the encoded bytes (Table, what the lookup
// benchmarks measure) pass the unwinding check at every instruction
// boundary, and answer no frame outside the functions, on the linked
// fixtures.
func TestTableAgrees(t *testing.T) {
	for _, v := range append(append([]string(nil), x86Variants...), a64Variants...) {
		t.Run(v, func(t *testing.T) {
			checkFile(t, filepath.Join(fixtures, v+".nosf.exe"), Version3, func(_ *Input, _ *Emitted, b []byte, addr uint64) FrameFinder {
				tab, err := NewTable(b, addr)
				if err != nil {
					t.Fatal(err)
				}
				return func(l Loc) (Frame, bool) { return tab.Lookup(l.Addr, nil) }
			})
		})
	}
}
