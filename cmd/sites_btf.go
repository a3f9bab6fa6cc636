package cmd

import (
	"fmt"
	"regexp"
	"sort"

	"github.com/btfinline/btfinline/ksys"
	"github.com/btfinline/btfinline/site"

	"github.com/btfinline/btfinline/resolve"
	"github.com/spf13/cobra"
)

// btfSite is a site read from .BTF.inline with what the inspector adds.
type btfSite struct {
	site.Site
	NoAddr  string // why Addr is unknown ("" = known)
	NoTrace string // why a kprobe cannot sit here ("" = it can)
}

// btfSites reads the sites of o.file (or the running kernel) from
// .BTF.inline, placed (Addr, Caller, CallerOff) and filtered by --func,
// --caller and --traceable. Owned by the inspector work.
func btfSites(c *cobra.Command, o *sitesOptions) ([]site.Site, error) {
	bs, _, err := loadBTFSites(c, o)
	if err != nil {
		return nil, err
	}
	out := make([]site.Site, len(bs))
	for i := range bs {
		out[i] = bs[i].Site
	}
	return out, nil
}

func loadBTFSites(c *cobra.Command, o *sitesOptions) ([]btfSite, *resolve.Target, error) {
	var funcRE, callerRE *regexp.Regexp
	var err error
	if o.funcRE != "" {
		if funcRE, err = regexp.Compile(o.funcRE); err != nil {
			return nil, nil, fmt.Errorf("--func: %w", err)
		}
	}
	if o.callerRE != "" {
		if callerRE, err = regexp.Compile(o.callerRE); err != nil {
			return nil, nil, fmt.Errorf("--caller: %w", err)
		}
	}
	sys := ksys.System{Root: o.sysRoot}
	inline, err := runningInline(c, &o.lookup, sys, o.running && o.file == "", o.module, o.inline)
	if err != nil {
		return nil, nil, err
	}
	t, err := resolve.Open(resolve.Options{File: o.file, Bases: o.bases, Running: o.running,
		Module: o.module, Sys: sys, Inline: inline})
	if err != nil {
		return nil, nil, err
	}
	sites, noAddr, notrace, err := t.Sites()
	if err != nil {
		return nil, nil, err
	}
	var nest map[resolve.NestKey]resolve.Nest
	var keys []resolve.NestKey
	if o.nesting {
		var match func(string) bool
		if funcRE != nil {
			match = funcRE.MatchString
		}
		keys = make([]resolve.NestKey, len(sites))
		for i := range sites {
			keys[i] = resolve.NestKey{Section: sites[i].Section, Off: sites[i].SectionOff, Func: sites[i].Func.Name, Locs: resolve.LocKey(&sites[i])}
		}
		if nest, err = t.Nesting(match, true, keys); err != nil {
			return nil, nil, err
		}
	}
	var out []btfSite
	for i := range sites {
		s := sites[i]
		if funcRE != nil && !funcRE.MatchString(s.Func.Name) {
			continue
		}
		if nest != nil {
			if n, ok := nest[keys[i]]; ok {
				s.Depth, s.Outer = n.Depth, n.Outer
			}
		}
		if callerRE != nil && !callerRE.MatchString(s.Caller) {
			continue
		}
		if o.traceable && (notrace[i] != "" || noAddr[i] != "") {
			continue
		}
		out = append(out, btfSite{Site: s, NoAddr: noAddr[i], NoTrace: notrace[i]})
	}
	sortBTFSites(out)
	return out, t, nil
}

// sortBTFSites orders sites like site.Sort.
func sortBTFSites(s []btfSite) {
	sort.SliceStable(s, func(i, j int) bool { return site.Less(&s[i].Site, &s[j].Site) })
}

// runBTFSites is "sites" without --dwarf: it prints the placed sites with
// their traceability.
func runBTFSites(c *cobra.Command, o *sitesOptions) error {
	sites, t, err := loadBTFSites(c, o)
	if err != nil {
		return err
	}
	w := c.OutOrStdout()
	for _, n := range t.Notes {
		fmt.Fprintf(c.ErrOrStderr(), "btfinline: note: %s\n", n)
	}
	plain := make([]site.Site, len(sites))
	for i := range sites {
		plain[i] = sites[i].Site
	}
	fo := site.FormatOptions{Nesting: o.nesting, Marks: func(i int) site.Marks {
		return site.Marks{NoAddr: sites[i].NoAddr, NoTrace: sites[i].NoTrace}
	}}
	if !t.HasAddresses() {
		fo.NoAddresses = "no symbols: addr is the section offset"
	}
	if o.json {
		return site.WriteJSON(w, plain, fo)
	}
	return site.WriteSites(w, plain, fo)
}
