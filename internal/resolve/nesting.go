package resolve

import (
	"strings"

	"github.com/btfinline/btfinline/internal/site"
)

// NestKeys are the keys of r's inline places for a nesting join
// (dwarfsite.Nesting, without locations).
func (r *Result) NestKeys() []site.NestKey {
	var keys []site.NestKey
	for i := range r.Places {
		if p := &r.Places[i]; p.Kind == PlaceInline {
			keys = append(keys, site.NestKey{Section: p.Section, Off: p.SectionOff, Func: r.Func})
		}
	}
	return keys
}

// MarkNesting annotates the inline places of r with how deep they are
// nested in other inline expansions, from the nesting of the object's
// DWARF sites (dwarfsite.Nesting over NestKeys): .BTF.inline cannot
// carry it, a LOCSEC entry being (function, locations, offset) only. The
// places that matter are instances nested in an instance of the same
// function (gcc emits __list_del_entry inside __list_del_entry): real
// addresses of the inlined body, where a probe fires a second time for
// one outer call. The same holds for an instance inlined into an
// out-of-line copy of the function itself (Caller is FUNC, depth 1).
// Nothing is dropped; the place gets Depth and Outer, and the count of
// places inside the same function is returned.
func (r *Result) MarkNesting(m map[site.NestKey]site.Nest) int {
	nested := 0
	for i := range r.Places {
		p := &r.Places[i]
		if p.Kind != PlaceInline {
			continue
		}
		n, ok := m[site.NestKey{Section: p.Section, Off: p.SectionOff, Func: r.Func}]
		if !ok {
			continue
		}
		p.Depth, p.Outer = n.Depth, n.Outer
		if n.Outer == r.Func || n.Outer == "" && (p.Caller == r.Func || strings.HasPrefix(p.Caller, r.Func+".")) {
			nested++
		}
	}
	return nested
}

// ELFPath is the ELF the target's symbols come from (FILE or the last
// -B), whose DWARF a nesting join reads; "" when there is none.
func (t *Target) ELFPath() string { return t.elfPath }
