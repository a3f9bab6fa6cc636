package dedup

import (
	"bytes"
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
			run := func(workers int) (string, []byte) {
				o, dst, c := convertOn(t, tc.obj, tc.base)
				offs, _ := typeDIEs(t, o.DWARF)
				c.Prefetch(offs, workers)
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
			wantLog, wantRaw := run(1)
			for _, w := range []int{2, 5} {
				gotLog, gotRaw := run(w)
				if gotLog != wantLog {
					t.Errorf("Prefetch with %d workers changed the conversion:\n%s\nwithout:\n%s", w, gotLog, wantLog)
				}
				if !bytes.Equal(gotRaw, wantRaw) {
					t.Errorf("Prefetch with %d workers changed the bytes", w)
				}
			}
		})
	}
}
