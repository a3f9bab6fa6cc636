package cmd

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/kprobe"
	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/dwarfsite"
	"github.com/spf13/cobra"
)

// dwarfSites reads the sites of o.file from DWARF, with the reader's
// statistics.
func dwarfSites(c *cobra.Command, o *sitesOptions) ([]site.Site, *dwarfsite.Stats, arch.Arch, error) {
	if o.file == "" {
		return nil, nil, arch.Unknown, errors.New("sites --dwarf: FILE required")
	}
	// --stats also gives the bound of any probe address (a second pass
	// over the location lists, for the counts only).
	opt := dwarfsite.Options{Workers: o.workers, AtBest: o.stats}
	if o.funcRE != "" {
		re, err := regexp.Compile(o.funcRE)
		if err != nil {
			return nil, nil, arch.Unknown, fmt.Errorf("--func: %w", err)
		}
		opt.Func = re.MatchString
	}
	if o.callerRE != "" {
		re, err := regexp.Compile(o.callerRE)
		if err != nil {
			return nil, nil, arch.Unknown, fmt.Errorf("--caller: %w", err)
		}
		opt.Caller = re.MatchString
	}
	pp, err := dwarfsite.ParseProbePoint(o.probePoint)
	if err != nil {
		return nil, nil, arch.Unknown, fmt.Errorf("--probe-point: %w", err)
	}
	opt.ProbePoint = pp
	f, err := elfobj.Open(o.file)
	if err != nil {
		return nil, nil, arch.Unknown, err
	}
	defer f.Close()
	// Give back the pages of the mapped file as encode does: a vmlinux's
	// DWARF would otherwise stay resident (300 MB).
	stop := f.ReleaseEvery(dwarfsite.ReleaseInterval)
	defer stop()
	// The kprobe rules of FILE's own tables: where a probe may move to
	// (ProbeBlock) and, for --traceable, which sites a kprobe takes.
	var rules *kprobe.Rules
	if pp == dwarfsite.ProbeBlock || o.traceable {
		if rules, err = kprobe.ForELF(f); err != nil {
			return nil, nil, arch.Unknown, fmt.Errorf("%s: %w", o.file, err)
		}
		opt.Text = rules
	}
	hugeHeapFor(o.file)
	x, err := dwarfsite.Load(f)
	if err != nil {
		return nil, nil, arch.Unknown, fmt.Errorf("%s: %w", o.file, err)
	}
	// --stats counts the sites as the reader gives them, unit by unit,
	// and keeps none: a vmlinux's would be most of the memory.
	var counter *dwarfsite.Counter
	if o.stats {
		var keep func(*site.Site) bool
		if o.traceable {
			keep = func(s *site.Site) bool { return traceableDWARFSite(rules, s) }
		}
		counter = dwarfsite.NewCounter(keep)
		opt.Sink = counter.Add
	}
	res, err := x.Sites(opt)
	if err != nil {
		return nil, nil, arch.Unknown, err
	}
	if counter != nil {
		res.Stats.Counts = counter.Counts()
	}
	if o.traceable && counter == nil {
		res.Sites = traceableDWARFSites(rules, res.Sites)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(c.ErrOrStderr(), "btfinline: warning: %s\n", w)
	}
	if n := res.Stats.Warnings - len(res.Warnings); n > 0 {
		fmt.Fprintf(c.ErrOrStderr(), "btfinline: warning: %d more\n", n)
	}
	a, _ := arch.FromELF(f.Machine) // another machine spells reg<n>
	return res.Sites, &res.Stats, a, nil
}

// printSites prints sites one per line, as JSON, or as --stats. The BTF
// path (sites_btf.go) prints through here too, so both outputs diff.
func printSites(c *cobra.Command, o *sitesOptions, sites []site.Site, st *dwarfsite.Stats, a arch.Arch) error {
	w := c.OutOrStdout()
	switch {
	case o.stats:
		if !o.dwarf || st == nil {
			// Sites not from the DWARF reader (from BTF): count what
			// they show.
			st = &dwarfsite.Stats{Counts: site.Count(sites)}
		}
		return dwarfsite.WriteStats(w, st)
	case o.json:
		return site.WriteJSON(w, sites, site.FormatOptions{RegName: a.Spell})
	}
	return site.WriteSites(w, sites, site.FormatOptions{Reasons: o.reasons, Nesting: o.nesting, RegName: a.Spell})
}

// traceableDWARFSites keeps the sites that the kprobe rules of the ELF
// accept (the rules sites --traceable applies from BTF, from the same
// ELF's tables).
func traceableDWARFSites(rules *kprobe.Rules, sites []site.Site) []site.Site {
	out := sites[:0]
	for i := range sites {
		if traceableDWARFSite(rules, &sites[i]) {
			out = append(out, sites[i])
		}
	}
	return out
}

// traceableDWARFSite tells whether the rules accept a kprobe at s.
func traceableDWARFSite(rules *kprobe.Rules, s *site.Site) bool {
	return rules.CheckSite(s.Section, s.SectionOff, s.Addr, s.Caller).OK()
}
