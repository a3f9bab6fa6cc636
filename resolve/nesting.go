package resolve

import (
	"errors"
	"fmt"
	"strings"

	"github.com/btfinline/btfinline/inline"
)

// MarkNesting annotates the inline places of r with how deep they are
// nested in other inline expansions, read from the DWARF of the target's
// ELF (the object given as FILE or as the last -B). .BTF.inline cannot
// carry it: a LOCSEC entry is (function, locations, offset) only. The
// places that matter are instances nested in an instance of the same
// function (gcc emits __list_del_entry inside __list_del_entry): real
// addresses of the inlined body, where a probe fires a second time for
// one outer call. The same holds for an instance inlined into an
// out-of-line copy of the function itself (Caller is FUNC, depth 1).
// Nothing is dropped; the place gets Depth and Outer, and the count of
// places inside the same function is returned.
func (t *Target) MarkNesting(r *Result) (int, error) {
	if t.elfPath == "" {
		return 0, errors.New("--nesting reads DWARF: give the object (an ELF with .debug_info) as FILE or as the last -B")
	}
	res, err := inline.ReadFile(t.elfPath, inline.Options{Func: func(n string) bool { return n == r.Func }})
	if err != nil {
		return 0, fmt.Errorf("--nesting: %s: %w", t.elfPath, err)
	}
	type key struct {
		sec string
		off uint64
	}
	type nest struct {
		depth int
		outer string
	}
	m := make(map[key]nest, len(res.Sites))
	for _, s := range res.Sites {
		k := key{s.Section, s.SectionOff}
		n, seen := m[k]
		// Duplicate entries at one address: keep the deepest, and prefer
		// the one nested in the same function.
		if !seen || s.Depth > n.depth || s.Outer == r.Func && n.outer != r.Func {
			m[k] = nest{s.Depth, s.Outer}
		}
	}
	nested := 0
	for i := range r.Places {
		p := &r.Places[i]
		if p.Kind != "inline" {
			continue
		}
		n, ok := m[key{p.Section, p.SectionOff}]
		if !ok {
			continue
		}
		p.Depth, p.Outer = n.depth, n.outer
		if n.outer == r.Func || n.outer == "" && (p.Caller == r.Func || strings.HasPrefix(p.Caller, r.Func+".")) {
			nested++
		}
	}
	return nested, nil
}
