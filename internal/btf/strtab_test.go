package btf

import "testing"

// TestCanonicalString: equal strings get one canonical offset, the most
// basic copy in the chain, wherever their copies are: twice in one string
// section, in the base and again in split BTF, or a suffix of another.
func TestCanonicalString(t *testing.T) {
	// A second copy of "foo" in the base, as BTF not deduplicated by
	// libbpf may have.
	base := NewSpec(nil)
	base.strings = []byte("\x00foo\x00bar\x00foo\x00xbar\x00")
	foo, bar, fooAgain, xbar := uint32(1), uint32(5), uint32(9), uint32(13)
	split := NewSpec(base)
	split.strings = []byte("bar\x00baz\x00")
	barSplit := split.StrStart()
	baz := barSplit + 4
	for _, c := range []struct {
		name string
		off  uint32
		want uint32
	}{
		{"empty", 0, 0},
		{"first copy", foo, foo},
		{"second copy in the base", fooAgain, foo},
		{"copy in split BTF", barSplit, bar},
		{"own string of split BTF", baz, baz},
		{"suffix", xbar + 1, bar},
		{"suffix of nothing else", xbar + 2, xbar + 2},
		{"past the end", baz + 100, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := split.CanonicalString(c.off); got != c.want {
				t.Errorf("CanonicalString(%#x) = %#x, want %#x", c.off, got, c.want)
			}
		})
	}
	// AddString reuses the canonical copy.
	if got := split.AddString("foo"); got != foo {
		t.Errorf("AddString(foo) = %#x, want %#x", got, foo)
	}
	if got := split.AddString("baz"); got != baz {
		t.Errorf("AddString(baz) = %#x, want %#x", got, baz)
	}
}
