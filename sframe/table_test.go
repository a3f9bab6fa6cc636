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
	var files []string
	for _, v := range append(append([]string(nil), x86Variants...), a64Variants...) {
		files = append(files, v+".nosf.exe")
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			in := openFixture(t, filepath.Join(fixtures, f))
			em, err := in.Emit(EmitOptions{Version: Version3})
			if err != nil {
				t.Fatal(err)
			}
			addr := in.SectionAddr()
			b, err := em.Encode(addr)
			if err != nil {
				t.Fatal(err)
			}
			tab, err := NewTable(b, addr)
			if err != nil {
				t.Fatal(err)
			}
			vr := in.CheckFrames(em, func(l Loc) (Frame, bool) { return tab.Lookup(l.Addr, nil) }, CheckOptions{MaxReport: 20, Insns: true, Gaps: true})
			for _, m := range vr.Mismatches {
				if m != "" {
					t.Error(m)
				}
			}
			if vr.FDEs == 0 || vr.GapPoints == 0 || len(vr.Mismatches) > 0 {
				t.Errorf("%+v", vr)
			}
		})
	}
}
