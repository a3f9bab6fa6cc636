package locsec

import (
	"testing"

	"github.com/btfinline/btfinline/internal/btf"
)

// FuzzDecode: any blob that parses as split BTF on a small base decodes
// without panicking, and every site it yields refers to a FUNC.
func FuzzDecode(f *testing.F) {
	base := testBase(f)
	_, _, raw := encodeTest(f, base, testSites())
	f.Add(raw)
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := btf.Parse(data, base)
		if err != nil {
			return
		}
		sites, err := Decode(spec, func(string) (uint64, error) { return 0x1000, nil })
		if err != nil {
			return
		}
		for _, s := range sites {
			if s.Func == nil || s.Func.FuncID == 0 {
				t.Fatalf("site without function: %+v", s)
			}
			for _, p := range s.Func.Params {
				_ = p.Type
			}
		}
	})
}
