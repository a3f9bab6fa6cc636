package resolve

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/btfinline/btfinline/internal/kprobe"
	"github.com/btfinline/btfinline/internal/ksym"
	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/btf"
)

// Stats is the traceability table of "btfinline stats": every function
// name of a kernel image in exactly one class, then the inline sites.
// docs/inspect.md defines each class.
type Stats struct {
	Object string `json:"object"`

	Functions   int `json:"functions"`
	Fentry      int `json:"fentry"`       // BTF FUNC + out-of-line symbol with an ftrace site
	InlinedOnly int `json:"inlined_only"` // inline sites only, no out-of-line copy
	NoTrace     int `json:"notrace"`      // out of line, no ftrace site (notrace, noinstr, ...)
	NoTraceInit int `json:"notrace_init"` // of NoTrace: only in init text
	NoBTF       int `json:"no_btf"`       // ftrace site, no BTF FUNC
	ClonesOnly  int `json:"clones_only"`  // out of line only as gcc clones
	Other       int `json:"other"`        // a BTF FUNC without symbol or site

	HaveInline      bool `json:"have_inline"`
	Sites           int  `json:"sites"`
	SitesFull       int  `json:"sites_full"`    // every parameter located (or none to locate)
	SitesPartial    int  `json:"sites_partial"` // some located
	SitesNone       int  `json:"sites_none"`    // none located, >= 1 parameter
	SitesTraceable  int  `json:"sites_traceable"`
	SitesNoTrace    int  `json:"sites_notrace"`
	InlineFuncs     int  `json:"inline_funcs"`     // functions with >= 1 site
	NewlyKprobeable int  `json:"newly_kprobeable"` // not fentry-able, >= 1 traceable site
	NewlyInlined    int  `json:"newly_kprobeable_inlined_only"`

	Notes []string `json:"notes,omitempty"`
}

// ComputeStats classifies the functions of the target's ELF. The target
// must come from an ELF (vmlinux): the ftrace sites come from its
// __mcount_loc (or __patchable_function_entries) table.
func ComputeStats(t *Target, haveInline bool) (*Stats, error) {
	if t.elf == nil {
		return nil, errors.New("stats needs the kernel image or module (an ELF with its symbol table)")
	}
	st := &Stats{Object: t.Name, HaveInline: haveInline}
	// The traceability rules read the ftrace table of the same ELF.
	rules := t.Rules
	if rules == nil {
		return nil, errors.New("stats needs the traceability rules of the kernel image")
	}
	if !rules.HasFtraceTable() {
		st.Notes = append(st.Notes, "no "+kprobe.FtraceTables(t.Arch)+" table: no function counts as fentry-able")
	}
	names := funcTable{}
	names.addSymbols(t, rules)
	names.addBTF(t.Main)
	var sites []site.Site
	var marks []site.Marks
	if haveInline {
		var err error
		if sites, marks, err = names.addInline(t); err != nil {
			return nil, err
		}
	}
	delete(names, "")
	fentry := st.classify(names)
	if haveInline {
		st.countSites(sites, marks, fentry, names)
	}
	return st, nil
}

// funcInfo is what the ELF, its BTF and its inline sites say of one
// function name.
type funcInfo struct {
	btf, inl              bool
	exact, clone          bool
	traced, tracedRuntime bool
}

// funcTable is every function name of an object.
type funcTable map[string]*funcInfo

func (m funcTable) get(n string) *funcInfo {
	i := m[n]
	if i == nil {
		i = &funcInfo{}
		m[n] = i
	}
	return i
}

// addSymbols adds the symbols in executable sections: a gcc clone names
// its base function, and a symbol with an ftrace site is traced (at run
// time unless it is in init or exit text).
func (m funcTable) addSymbols(t *Target, rules *kprobe.Rules) {
	exec := map[string]bool{}
	for _, s := range t.elf.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 {
			exec[s.Name] = true
		}
	}
	for _, s := range t.Syms.Symbols() {
		if !exec[s.Section] || s.Name == "" {
			continue
		}
		base, clone := ksym.CloneBase(s.Name)
		i := m.get(base)
		if clone {
			i.clone = true
			continue
		}
		i.exact = true
		if rules.HasFtrace(s.Section, s.Addr, s.Addr+max(s.Size, 1)) {
			i.traced = true
			if !strings.HasPrefix(s.Section, ".init") && !strings.HasPrefix(s.Section, ".exit") {
				i.tracedRuntime = true
			}
		}
	}
}

// addBTF marks the functions with a BTF FUNC. The object's own FUNCs are
// functions of it; a module's base chain (vmlinux) only tells whether a
// module function's FUNC was deduplicated into it.
func (m funcTable) addBTF(main *btf.Spec) {
	for id, ty := range main.All() {
		if ty.Kind() != btf.KindFunc {
			continue
		}
		n := main.Name(ty)
		if id >= main.FirstID() {
			m.get(n).btf = true
		} else if i := m[n]; i != nil {
			i.btf = true
		}
	}
}

// addInline adds the inline BTF's functions and marks those with sites;
// it returns the sites and their marks (no address counts as a reason a
// site takes no kprobe).
func (m funcTable) addInline(t *Target) ([]site.Site, []site.Marks, error) {
	ts := t.Spec.Types()
	for j := range ts {
		if ts[j].Kind() == btf.KindFunc {
			m.get(t.Spec.Name(&ts[j]))
		}
	}
	sites, marks, err := t.Sites()
	if err != nil {
		return nil, nil, err
	}
	for i := range sites {
		m.get(sites[i].Func.Name).inl = true
	}
	return sites, marks, nil
}

// classify puts every function in exactly one class and returns the
// fentry-able ones.
func (st *Stats) classify(names funcTable) map[string]bool {
	fentry := map[string]bool{}
	for n, i := range names {
		st.Functions++
		switch {
		case i.exact && i.tracedRuntime && i.btf:
			st.Fentry++
			fentry[n] = true
		case i.exact && !i.traced:
			st.NoTrace++
		case i.exact && !i.tracedRuntime:
			st.NoTrace++
			st.NoTraceInit++
		case i.exact:
			st.NoBTF++
		case i.clone:
			st.ClonesOnly++
		case i.inl:
			st.InlinedOnly++
		default:
			st.Other++
		}
	}
	return fentry
}

// countSites counts the inline sites by how many parameters are located
// and whether they take a kprobe, and the functions they make newly
// kprobe-able.
func (st *Stats) countSites(sites []site.Site, marks []site.Marks, fentry map[string]bool, names funcTable) {
	funcs := map[string]bool{}
	newly := map[string]bool{}
	for i := range sites {
		s := &sites[i]
		st.Sites++
		located := 0
		for _, l := range s.Params {
			if l.Kind != site.LocUnavailable {
				located++
			}
		}
		switch {
		case located == len(s.Params):
			st.SitesFull++
		case located == 0:
			st.SitesNone++
		default:
			st.SitesPartial++
		}
		funcs[s.Func.Name] = true
		if marks[i].NoAddr != "" || marks[i].NoTrace != "" {
			st.SitesNoTrace++
			continue
		}
		st.SitesTraceable++
		if !fentry[s.Func.Name] {
			newly[s.Func.Name] = true
		}
	}
	st.InlineFuncs = len(funcs)
	st.NewlyKprobeable = len(newly)
	for n := range newly {
		if i := names[n]; i != nil && !i.exact && !i.clone {
			st.NewlyInlined++
		}
	}
}

func pct(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}

// Write prints the table.
func (s *Stats) Write(w io.Writer) {
	row := func(label string, n, of int) {
		fmt.Fprintf(w, "  %-58s %9d  %6s\n", label, n, pct(n, of))
	}
	fmt.Fprintf(w, "functions of %s (unique names; see docs/inspect.md)\n", s.Object)
	row("fentry/fexit-able (BTF FUNC + ftrace site)", s.Fentry, s.Functions)
	row("inlined, no out-of-line copy", s.InlinedOnly, s.Functions)
	row("notrace/noinstr (out of line, no ftrace site)", s.NoTrace, s.Functions)
	row("  of which init/exit text only (ftrace site freed)", s.NoTraceInit, s.Functions)
	row("no BTF (ftrace site, no BTF FUNC)", s.NoBTF, s.Functions)
	row("out of line only as gcc clones (.isra/.constprop/.part)", s.ClonesOnly, s.Functions)
	row("other (BTF FUNC without symbol or inline site)", s.Other, s.Functions)
	row("total", s.Functions, s.Functions)
	if !s.HaveInline {
		fmt.Fprintln(w, "no .BTF.inline: inline-site rows omitted (give --inline FILE or encode one)")
	} else {
		fmt.Fprintln(w, "inline sites (.BTF.inline)")
		row("sites", s.Sites, s.Sites)
		row("  all parameters located", s.SitesFull, s.Sites)
		row("  some parameters located", s.SitesPartial, s.Sites)
		row("  no parameter located", s.SitesNone, s.Sites)
		row("  kprobe-able (not in a refused region)", s.SitesTraceable, s.Sites)
		row("  not kprobe-able (a rule of docs/inspect.md refuses it)", s.SitesNoTrace, s.Sites)
		row("functions with inline sites", s.InlineFuncs, s.Functions)
		row("  not fentry-able, kprobe-able through .BTF.inline", s.NewlyKprobeable, s.Functions)
		row("    of which inlined only (no out-of-line copy)", s.NewlyInlined, s.Functions)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
