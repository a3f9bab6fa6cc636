package resolve

import (
	"errors"
	"fmt"
	"strings"

	"github.com/btfinline/btfinline/dwarfsite"
	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/kprobe"
	"github.com/btfinline/btfinline/site"
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
	var keys []NestKey
	for i := range r.Places {
		if p := &r.Places[i]; p.Kind == PlaceInline {
			keys = append(keys, NestKey{p.Section, p.SectionOff, r.Func, ""})
		}
	}
	m, err := t.Nesting(func(n string) bool { return n == r.Func }, false, keys)
	if err != nil {
		return 0, err
	}
	nested := 0
	for i := range r.Places {
		p := &r.Places[i]
		if p.Kind != PlaceInline {
			continue
		}
		n, ok := m[NestKey{p.Section, p.SectionOff, r.Func, ""}]
		if !ok {
			continue
		}
		p.Depth, p.Outer = n.Depth, n.Outer
		if n.Outer == r.Func || n.Outer == "" && (p.Caller == r.Func || strings.HasPrefix(p.Caller, r.Func+".")) {
			nested++
		}
	}
	return nested, nil
}

// NestKey names an inline site: section, offset in it, inlined function
// and, when asked for, its parameter locations (LocKey): several
// instances of one function can start at one address with different
// locations and different nesting.
type NestKey struct {
	Section string
	Off     uint64
	Func    string
	Locs    string
}

// LocKey spells a site's parameter locations for NestKey.
func LocKey(s *site.Site) string {
	var b strings.Builder
	for i := range s.Params {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(site.FormatLocation(&s.Params[i], nil))
	}
	return b.String()
}

// Nest is how deep a site is nested in other inline expansions: Depth 1
// is inlined directly into its caller; Outer is the function of the
// innermost expansion around it ("" at depth 1).
type Nest struct {
	Depth int
	Outer string
}

// Nesting reads the DWARF of the target's ELF for the inline sites of the
// functions match accepts (nil: all) and returns their nesting, keyed
// with LocKey when withLocs. Sites with one key keep the deepest nesting,
// preferring one nested in the same function. .BTF.inline does not say
// which probe points encode chose (dwarfsite.ProbeEntry or ProbeBlock,
// with the ELF's own kprobe rules), and an address can hold one instance
// at its entry pc and another moved there: the kind is the one that holds
// more of ours, the keys of the target's own sites (which the caller has
// decoded already).
func (t *Target) Nesting(match func(string) bool, withLocs bool, ours []NestKey) (map[NestKey]Nest, error) {
	if t.elfPath == "" {
		return nil, errors.New("--nesting reads DWARF: give the object (an ELF with .debug_info) as FILE or as the last -B")
	}
	f, err := elfobj.Open(t.elfPath)
	if err != nil {
		return nil, fmt.Errorf("--nesting: %w", err)
	}
	defer f.Close()
	rules, err := kprobe.ForELF(f)
	if err != nil {
		return nil, fmt.Errorf("--nesting: %s: %w", t.elfPath, err)
	}
	x, err := dwarfsite.Load(f)
	if err != nil {
		return nil, fmt.Errorf("--nesting: %s: %w", t.elfPath, err)
	}
	var best map[NestKey]Nest
	bestScore := -1
	// Block first: the default of encode wins a tie.
	for _, pp := range []dwarfsite.ProbePoint{dwarfsite.ProbeBlock, dwarfsite.ProbeEntry} {
		res, err := x.Sites(dwarfsite.Options{Func: match, ProbePoint: pp, Text: rules})
		if err != nil {
			return nil, fmt.Errorf("--nesting: %s: %w", t.elfPath, err)
		}
		m := make(map[NestKey]Nest, len(res.Sites))
		for i := range res.Sites {
			s := &res.Sites[i]
			k := NestKey{s.Section, s.SectionOff, s.Func.Name, ""}
			if withLocs {
				k.Locs = LocKey(s)
			}
			n, seen := m[k]
			if !seen || s.Depth > n.Depth || s.Outer == s.Func.Name && n.Outer != s.Func.Name {
				m[k] = Nest{s.Depth, s.Outer}
			}
		}
		score := 0
		for _, k := range ours {
			if _, ok := m[k]; ok {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = m, score
		}
	}
	return best, nil
}
