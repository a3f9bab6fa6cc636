package dedup

import (
	"bytes"
	"debug/dwarf"
	"fmt"
	"testing"

	"github.com/btfinline/btfinline/internal/btf"
)

// TestPrefetch: converting every type DIE after Prefetch gives what
// converting them without it gives, id for id, error for error, in the
// counts and in the bytes: on the object's own base (nothing to add), on
// a base with some of the types (variant.o on kern.elf) and on an
// unrelated one (everything added).
func TestPrefetch(t *testing.T) {
	for _, tc := range []struct{ obj, base string }{
		{"kern.elf", "kern.elf"},
		{"kern.a64.elf", "kern.a64.elf"},
		{"variant.o", "kern.elf"},
		{"kern.elf", "other.elf"},
		{"rust.elf", "rust.elf"},
	} {
		t.Run(tc.obj+"-on-"+tc.base, func(t *testing.T) {
			run := func(prep func(c *Converter, offs []dwarf.Offset)) (string, []byte) {
				o, dst, c := convertOn(t, tc.obj, tc.base)
				offs, _ := typeDIEs(t, o.DWARF)
				prep(c, offs)
				var log bytes.Buffer
				for _, off := range offs {
					id, err := c.TypeID(off)
					fmt.Fprintf(&log, "%#x [%d] %v\n", off, id, err)
				}
				fmt.Fprintf(&log, "added %d resolved %d unsupported %d\n", c.Added(), c.Resolved(), c.Unsupported())
				if err := c.Commit(); err != nil {
					t.Fatal(err)
				}
				raw, err := dst.Marshal(btf.MarshalOptions{})
				if err != nil {
					t.Fatal(err)
				}
				return log.String(), raw
			}
			wantLog, wantRaw := run(func(c *Converter, offs []dwarf.Offset) { c.Prefetch(offs, 1) })
			check := func(what string, prep func(c *Converter, offs []dwarf.Offset)) {
				gotLog, gotRaw := run(prep)
				if gotLog != wantLog {
					t.Errorf("%s changed the conversion:\n%s\nwithout:\n%s", what, gotLog, wantLog)
				}
				if !bytes.Equal(gotRaw, wantRaw) {
					t.Errorf("%s changed the bytes", what)
				}
			}
			for _, w := range []int{2, 5} {
				check(fmt.Sprintf("Prefetch with %d workers", w), func(c *Converter, offs []dwarf.Offset) { c.Prefetch(offs, w) })
			}
			// The encoder's way: probes convert pieces in no set order
			// (the last piece first, the probes taking turns), a third
			// of the types is left to Prefetch, the rest to TypeID.
			check("probes, Absorb and Prefetch", func(c *Converter, offs []dwarf.Offset) {
				probes := []*Probe{c.NewProbe(), c.NewProbe(), c.NewProbe()}
				n := len(offs) * 2 / 3
				for i, k := (n-1)/7*7, 0; i >= 0; i, k = i-7, k+1 {
					probes[k%len(probes)].Convert(offs[i:min(i+7, n)])
				}
				c.Absorb(probes...)
				c.Prefetch(offs[:len(offs)-len(offs)/6], 2)
			})
		})
	}
}
