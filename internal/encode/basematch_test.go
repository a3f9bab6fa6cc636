package encode

import (
	"debug/dwarf"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/dedup"
	"github.com/btfinline/btfinline/internal/dwarfsite"
	"github.com/btfinline/btfinline/internal/elfobj"
)

// TestCheckBaseMatch: the check of a base that belongs to another build
// fails on another build's BTF, passes on the object's own, and rules
// the same whatever the probes converted ahead (File's probes convert
// more than the prototypes ask for, and how much depends on scheduling).
func TestCheckBaseMatch(t *testing.T) {
	for _, tc := range []struct {
		obj, base string
		fail      bool
	}{{"kern.elf", "kern.elf", false}, {"kern.elf", "other.elf", true}, {"variant.o", "kern.elf", false}} {
		t.Run(tc.obj+"-on-"+tc.base, func(t *testing.T) {
			run := func(ahead bool) error {
				f, err := elfobj.Open(fixturePath(tc.obj))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				x, err := dwarfsite.Load(f)
				if err != nil {
					t.Fatal(err)
				}
				d, err := x.Data()
				if err != nil {
					t.Fatal(err)
				}
				base, err := btf.LoadFile(fixturePath(tc.base), nil)
				if err != nil {
					t.Fatal(err)
				}
				conv := dedup.New(d, btf.NewSpec(base))
				var offs []dwarf.Offset
				r := d.Reader()
				for e, err := r.Next(); e != nil && err == nil; e, err = r.Next() {
					switch e.Tag {
					case dwarf.TagBaseType, dwarf.TagPointerType, dwarf.TagTypedef, dwarf.TagStructType:
						offs = append(offs, e.Offset)
					}
					if e.Tag != dwarf.TagCompileUnit && e.Children {
						r.SkipChildren()
					}
				}
				if len(offs) < 4 {
					t.Fatalf("%d type DIEs", len(offs))
				}
				if ahead {
					p := conv.NewProbe()
					p.Convert(offs)
					conv.Absorb(p)
				}
				// The prototypes ask for half of them.
				for _, off := range offs[:len(offs)/2] {
					if _, err := conv.TypeID(off); err != nil {
						t.Fatal(err)
					}
				}
				return checkBaseMatch(tc.obj, conv, false)
			}
			err := run(false)
			if (err != nil) != tc.fail || err != nil && !strings.Contains(err.Error(), "base BTF does not match the DWARF") {
				t.Fatalf("on %s: %v", tc.base, err)
			}
			if again := run(true); (again == nil) != (err == nil) || again != nil && again.Error() != err.Error() {
				t.Errorf("with types converted ahead: %v; without: %v", again, err)
			}
		})
	}
}
