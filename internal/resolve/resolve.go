package resolve

import (
	"fmt"
	"sort"
	"strings"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/kprobe"
	"github.com/btfinline/btfinline/internal/ksym"
	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/btf"
)

// Place is one address where a kprobe for the function fires: an inline
// site or the entry of an out-of-line copy.
type Place struct {
	Kind PlaceKind `json:"kind"`

	Symbol     string         `json:"symbol,omitempty"` // entry: the copy's symbol (foo, foo.isra.0)
	Event      string         `json:"event"`            // unique event name
	Addr       uint64         `json:"addr"`
	HasAddr    bool           `json:"has_addr"`
	Section    string         `json:"section"`
	SectionOff uint64         `json:"section_offset"`
	Caller     string         `json:"caller,omitempty"`
	CallerOff  uint64         `json:"caller_offset"`
	Target     string         `json:"target,omitempty"` // probe point text: caller+0xoff, _stext+0xoff, MOD:sym+0xoff
	Refusal    kprobe.Refusal `json:"notrace,omitzero"`
	Note       string         `json:"note,omitempty"`
	// Depth and Outer (only with MarkNesting, from DWARF): 1 = inlined
	// directly into Caller; Outer is the inline expansion this one sits in.
	Depth   int     `json:"depth,omitempty"`
	Outer   string  `json:"outer,omitempty"`
	Fetches []Fetch `json:"args"`
}

// PlaceKind says what a place is: an inline site or the entry of an
// out-of-line copy. JSON spells it "inline" or "entry".
type PlaceKind uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=PlaceKind -linecomment -output=placekind_string.go

const (
	PlaceInline PlaceKind = iota // inline
	PlaceEntry                   // entry
)

const numPlaceKinds = int(PlaceEntry) + 1

// MarshalText spells the kind in JSON.
func (k PlaceKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind MarshalText wrote.
func (k *PlaceKind) UnmarshalText(b []byte) error {
	for i := range numPlaceKinds {
		if PlaceKind(i).String() == string(b) {
			*k = PlaceKind(i)
			return nil
		}
	}
	return fmt.Errorf("resolve: unknown place kind %q", b)
}

// Result is everything "btfinline resolve" knows about one function.
type Result struct {
	Func    string      `json:"func"`
	Object  string      `json:"object"`
	Arch    string      `json:"arch"`
	FuncIDs []uint32    `json:"btf_func_ids"`
	Params  []ParamJSON `json:"params"`
	// Types are the parameters' type facts, by parameter (none for a
	// function known only by its symbols).
	Types  []TypeInfo `json:"-"`
	Places []Place    `json:"places"`
	Notes  []string   `json:"notes,omitempty"`
}

// ParamJSON is a parameter in JSON output.
type ParamJSON struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// NotFoundError is returned for a function with neither a FUNC in the BTF
// nor a symbol; Suggestions holds near names.
type NotFoundError struct {
	Name        string
	Suggestions []string
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("function %q not found in the BTF or the symbol table", e.Name)
	if len(e.Suggestions) > 0 {
		msg += "; did you mean: " + strings.Join(e.Suggestions, ", ")
	}
	return msg
}

// Resolve finds every place a kprobe for function name fires. args, when
// not empty, selects which parameters to fetch.
func (t *Target) Resolve(name string, args []string) (*Result, error) {
	d := t.Decoder()
	ids := t.Spec.FuncsByName(name)
	keep := map[btf.TypeID]bool{}
	for _, id := range ids {
		keep[id] = true
	}
	var sites []site.Site
	var err error
	if len(ids) > 0 {
		sites, err = d.Sites(func(id btf.TypeID) bool { return keep[id] })
		if err != nil {
			return nil, err
		}
	}
	var copies []ksym.Symbol
	if t.Syms != nil {
		copies = t.Syms.Clones(name)
	}
	if len(ids) == 0 && len(copies) == 0 {
		return nil, &NotFoundError{name, t.suggest(name)}
	}
	r := &Result{Func: name, Object: t.Name, Arch: t.Arch.String(), Notes: append([]string(nil), t.Notes...)}
	for _, id := range ids {
		r.FuncIDs = append(r.FuncIDs, uint32(id))
	}
	// Parameter names and types: from the FUNC (all FUNCs of one name
	// normally share a prototype; the first is used for the entry).
	var params []site.Param
	var infos []TypeInfo
	if len(ids) > 0 {
		fn, err := d.function(ids[0])
		if err != nil {
			return nil, &MismatchError{"", 0, 0, err.Error()}
		}
		params, infos = fn.Params, d.TypeInfos(fn)
	}
	for _, p := range params {
		r.Params = append(r.Params, ParamJSON{p.Name, p.Type})
	}
	r.Types = infos
	sel, err := selectArgs(params, args)
	if err != nil {
		return nil, err
	}
	bad := t.Place(sites)
	// Sort sites, keeping their placement notes with them.
	idx := make([]int, len(sites))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return site.Less(&sites[idx[a]], &sites[idx[b]]) })
	base := eventBase(name)
	seen := map[string]int{}
	unique := func(ev string) string {
		seen[ev]++
		if n := seen[ev]; n > 1 {
			return eventName(base, strings.TrimPrefix(ev, base)+fmt.Sprintf("_%d", n))
		}
		return ev
	}
	for _, c := range copies {
		p := Place{Kind: PlaceEntry, Symbol: c.Name, Section: c.Section, Caller: c.Name, HasAddr: true}
		addr, off, err := t.Space.Symbol(c.Section, c.Addr)
		p.Addr, p.SectionOff = addr, off
		p.Event = eventName(base, "_"+sanitize(strings.TrimPrefix(c.Name, name+"."))+"_entry")
		if c.Name == name {
			p.Event = eventName(base, "_entry")
		}
		p.Event = unique(p.Event)
		p.Refusal = t.Rules.CheckSite(c.Section, off, t.Space.LinkTime(addr), c.Name)
		if err != nil {
			p.HasAddr, p.Note = false, "no address: "+err.Error()
		}
		p.Target = t.target(c.Name, 0, p.Addr)
		if c.Name != name {
			p.Note = "gcc clone: its parameters may differ from the FUNC_PROTO (IPA-SRA, constant propagation, partial inlining)"
			for _, i := range sel {
				p.Fetches = append(p.Fetches, Fetch{Name: sanitize(params[i].Name), Param: params[i].Name, Type: params[i].Type,
					Unavailable: "clone " + c.Name + " may not take this parameter in its ABI register"})
			}
		} else {
			p.Fetches = entryFetches(t.Arch, t.Spec, params, infos, sel)
		}
		r.Places = append(r.Places, p)
	}
	for n, i := range idx {
		s := &sites[i]
		p := Place{Kind: PlaceInline, Section: s.Section, SectionOff: s.SectionOff, Caller: s.Caller, CallerOff: s.CallerOff}
		p.Event = eventName(base, fmt.Sprintf("_%d", n+1))
		if why, isBad := bad[i]; isBad {
			p.Note = why
		} else if t.HasAddresses() {
			p.Addr, p.HasAddr = s.Addr, true
			p.Refusal = t.Traceable(s)
			p.Target = t.target(s.Caller, s.CallerOff, s.Addr)
		}
		if p.Caller == "" && p.HasAddr {
			p.Note = "address is in no function symbol"
		}
		names := make([]string, len(sel))
		types := make([]TypeInfo, len(sel))
		locs := make([]site.Location, len(sel))
		for k, j := range sel {
			names[k] = params[j].Name
			if j < len(infos) {
				types[k] = infos[j]
			}
			if j < len(s.Params) {
				locs[k] = s.Params[j]
			}
		}
		p.Fetches = FetchArgs(t.Arch, names, types, locs, t.cfaPC(s), t.CFA)
		r.Places = append(r.Places, p)
	}
	return r, nil
}

// target names the probe point: caller+0xoff when the caller's name is
// unique (kprobe_events resolves a name to its first symbol), else
// _stext+0xoff for vmlinux; "" when no spelling is safe.
func (t *Target) target(caller string, off, addr uint64) string {
	prefix := ""
	if t.Space.Module() {
		prefix = t.Name + ":"
	}
	if caller != "" && t.Syms != nil && t.Syms.Unique(caller) {
		if off == 0 {
			return prefix + caller
		}
		return fmt.Sprintf("%s%s+%#x", prefix, caller, off)
	}
	if off, ok := t.Space.FromStext(addr); ok {
		return fmt.Sprintf("_stext+%#x", off)
	}
	return ""
}

func selectArgs(params []site.Param, args []string) ([]int, error) {
	var sel []int
	if len(args) == 0 {
		for i := range params {
			sel = append(sel, i)
		}
		return sel, nil
	}
	for _, a := range args {
		found := false
		for i, p := range params {
			if p.Name == a {
				sel, found = append(sel, i), true
				break
			}
		}
		if !found {
			var names []string
			for _, p := range params {
				names = append(names, p.Name)
			}
			return nil, fmt.Errorf("--args: no parameter %q (parameters: %s)", a, strings.Join(names, ", "))
		}
	}
	return sel, nil
}

// entryFetches fetches parameters at a function's first instruction from
// the calling convention's argument registers and stack slots
// (entryLocations, abi.go).
func entryFetches(a arch.Arch, spec *btf.Spec, params []site.Param, infos []TypeInfo, sel []int) []Fetch {
	locs := entryLocations(a, spec, params, infos)
	names := make([]string, len(sel))
	types := make([]TypeInfo, len(sel))
	ls := make([]site.Location, len(sel))
	for k, j := range sel {
		names[k] = params[j].Name
		if j < len(infos) {
			types[k] = infos[j]
		}
		ls[k] = locs[j]
	}
	return FetchArgs(a, names, types, ls, 0, nil)
}

// maxEventName is MAX_EVENT_NAME_LEN (64) minus the NUL.
const maxEventName = 63

func eventBase(fn string) string {
	b := sanitize(fn)
	if b == "" {
		b = "func"
	}
	return b
}

func eventName(base, suffix string) string {
	if len(base)+len(suffix) > maxEventName {
		base = base[:maxEventName-len(suffix)]
	}
	return base + suffix
}

// suggest returns up to 5 names near name: FUNC names of the BTF and
// symbol names, by substring match and edit distance.
func (t *Target) suggest(name string) []string {
	cands := map[string]bool{}
	for _, ty := range t.Spec.All() {
		if ty.Kind() == btf.KindFunc {
			cands[t.Spec.Name(ty)] = true
		}
	}
	if t.Syms != nil {
		for _, n := range t.Syms.Names() {
			cands[n] = true
		}
	}
	type scored struct {
		n string
		d int
	}
	var out []scored
	lname := strings.ToLower(name)
	for c := range cands {
		if c == "" {
			continue
		}
		if strings.Contains(strings.ToLower(c), lname) && len(name) >= 3 {
			out = append(out, scored{c, len(c) - len(name)})
			continue
		}
		if abs(len(c)-len(name)) > 3 {
			continue
		}
		if d := editDistance(lname, strings.ToLower(c)); d <= max(2, len(name)/4) {
			out = append(out, scored{c, d})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].d != out[j].d {
			return out[i].d < out[j].d
		}
		return out[i].n < out[j].n
	})
	var s []string
	for i := 0; i < len(out) && i < 5; i++ {
		s = append(s, out[i].n)
	}
	return s
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
