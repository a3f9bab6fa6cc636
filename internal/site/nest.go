package site

import "strings"

// NestKey names an inline site for joining the sites of two readings of
// one object (the DWARF's and the .BTF.inline's): section, offset in it,
// inlined function and, when asked for, its parameter locations
// (LocKey): several instances of one function can start at one address
// with different locations and different nesting.
type NestKey struct {
	Section string
	Off     uint64
	Func    string
	Locs    string
}

// LocKey spells a site's parameter locations for NestKey.
func LocKey(s *Site) string {
	var b strings.Builder
	for i := range s.Params {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(FormatLocation(&s.Params[i], nil))
	}
	return b.String()
}

// Nest is how deep a site is nested in other inline expansions: Depth 1
// is inlined directly into its caller; Outer is the function of the
// innermost expansion around it ("" at depth 1). Only the DWARF says it.
type Nest struct {
	Depth int
	Outer string
}
