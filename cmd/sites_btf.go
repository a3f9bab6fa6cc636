package cmd

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/ksys"
	"github.com/btfinline/btfinline/internal/lookup"
	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/resolve"
	"github.com/spf13/cobra"
)

// btfSites reads the sites of o.file (or the running kernel) from
// .BTF.inline, placed (Addr, Caller, CallerOff) and filtered by --func,
// --caller and --traceable. Owned by the inspector work.
func btfSites(c *cobra.Command, o *sitesOptions) ([]site.Site, error) {
	set, err := loadBTFSites(c, o)
	if err != nil {
		return nil, err
	}
	return set.sites, nil
}

// siteSet is what loadBTFSites read: the sites with what the inspector
// says of each (marks[i] is sites[i]'s), the targets' notes, and whether
// the sites have addresses. Sites and marks are parallel slices, filtered
// and sorted in place: vmlinux has 300,000 sites and more, and a copy of
// them costs 80 MB.
type siteSet struct {
	sites       []site.Site
	marks       []site.Marks
	notes       []string
	noAddresses bool
	arch        arch.Arch // spells the registers
}

// sort puts the sites, with their marks, in site.Sort's order: the
// indices are sorted and the two slices permuted in place, one cycle at a
// time, since swapping sites while sorting costs half of the listing's
// CPU on vmlinux.
func (s *siteSet) sort() {
	idx := site.Order(s.sites)
	for i := range idx {
		if idx[i] < 0 {
			continue
		}
		// Position j takes the element at idx[j], around the cycle from i.
		ts, tm := s.sites[i], s.marks[i]
		j := i
		for {
			k := idx[j]
			idx[j] = -1
			if k == i {
				s.sites[j], s.marks[j] = ts, tm
				break
			}
			s.sites[j], s.marks[j] = s.sites[k], s.marks[k]
			j = k
		}
	}
}

// runningObject is one object of the running kernel to list: a module
// name ("" for vmlinux) and its inline BTF file ("" for the kernel's).
type runningObject struct{ module, inline string }

func loadBTFSites(c *cobra.Command, o *sitesOptions) (*siteSet, error) {
	var funcRE, callerRE *regexp.Regexp
	var err error
	if o.funcRE != "" {
		if funcRE, err = regexp.Compile(o.funcRE); err != nil {
			return nil, fmt.Errorf("--func: %w", err)
		}
	}
	if o.callerRE != "" {
		if callerRE, err = regexp.Compile(o.callerRE); err != nil {
			return nil, fmt.Errorf("--caller: %w", err)
		}
	}
	sys := ksys.System{Root: o.sysRoot}
	objs := []runningObject{{module: o.module, inline: o.inline}}
	var kern *resolve.Kernel
	if o.running && o.file == "" {
		if o.module == "" && o.inline == "" {
			// Every loaded module too: each is read on one shared copy
			// of kallsyms, vmlinux's BTF and the kprobe rules.
			if objs, err = allRunning(c, &o.lookup, sys); err != nil {
				return nil, err
			}
			if kern, err = resolve.OpenKernel(sys); err != nil {
				return nil, err
			}
		} else if objs[0].inline, err = runningInline(c, &o.lookup, sys, true, o.module, o.inline); err != nil {
			return nil, err
		}
	}
	set := &siteSet{}
	seen := map[string]bool{}
	for _, ob := range objs {
		t, err := resolve.Open(resolve.Options{File: o.file, Bases: o.bases, Running: o.running,
			Module: ob.module, Sys: sys, Inline: ob.inline, Kernel: kern})
		if err != nil {
			return nil, err
		}
		ts, err := targetSites(t, o, funcRE, callerRE)
		if err != nil {
			return nil, err
		}
		if o.running && ob.module != "" && ob.module != "vmlinux" {
			for i := range ts.marks {
				ts.marks[i].Module = ob.module
			}
		}
		if set.sites == nil {
			set.sites, set.marks = ts.sites, ts.marks
		} else {
			set.sites, set.marks = append(set.sites, ts.sites...), append(set.marks, ts.marks...)
		}
		for _, n := range t.Notes {
			if !seen[n] {
				seen[n] = true
				set.notes = append(set.notes, n)
			}
		}
		set.noAddresses = !t.HasAddresses()
		set.arch = t.Arch
	}
	return set, nil
}

// allRunning is vmlinux and every loaded module with BTF, with the inline
// BTF of each from the lookup chain. A module whose inline BTF is nowhere
// costs that module only: it is named on stderr, and its sites are not
// listed; vmlinux is needed.
func allRunning(c *cobra.Command, l *lookupFlags, sys ksys.System) ([]runningObject, error) {
	names, err := lookup.RunningObjects(sys)
	if err != nil {
		return nil, err
	}
	found, missing, err := l.findAll(c.Context(), c.ErrOrStderr(), sys, names)
	if err != nil {
		return nil, err
	}
	var out []runningObject
	for _, f := range found {
		m := f.Object
		if m == "vmlinux" {
			m = ""
		}
		out = append(out, runningObject{module: m, inline: f.Path})
	}
	if len(out) == 0 || out[0].module != "" {
		for _, nf := range missing {
			if nf.Object == "vmlinux" {
				return nil, nf
			}
		}
		return nil, errors.New("no inline BTF for vmlinux")
	}
	if len(missing) > 0 && !l.quiet {
		w := c.ErrOrStderr()
		fmt.Fprintf(w, "btfinline: note: sites of %d of %d modules not listed: no inline BTF for them:\n", len(missing), len(names)-1)
		for _, nf := range missing {
			fmt.Fprintf(w, "  %s (build id %s)\n", nf.Object, nf.BuildID)
		}
		fmt.Fprintf(w, "  the first looked at: %s\n", strings.ReplaceAll(missing[0].Error(), "\n", "\n  "))
	}
	return out, nil
}

// targetSites are t's sites, placed, marked, filtered by the flags and
// sorted like site.Sort.
func targetSites(t *resolve.Target, o *sitesOptions, funcRE, callerRE *regexp.Regexp) (*siteSet, error) {
	sites, all, err := t.Sites()
	if err != nil {
		return nil, err
	}
	var nest map[site.NestKey]site.Nest
	var keys []site.NestKey
	if o.nesting {
		var match func(string) bool
		if funcRE != nil {
			match = funcRE.MatchString
		}
		keys = make([]site.NestKey, len(sites))
		for i := range sites {
			keys[i] = site.NestKey{Section: sites[i].Section, Off: sites[i].SectionOff, Func: sites[i].Func.Name, Locs: site.LocKey(&sites[i])}
		}
		if nest, err = readNesting(t.ELFPath(), match, true, keys); err != nil {
			return nil, err
		}
	}
	marks := make([]site.Marks, 0, len(sites))
	kept := sites[:0]
	for i := range sites {
		s := &sites[i]
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
		if o.traceable && (all[i].NoTrace != "" || all[i].NoAddr != "") {
			continue
		}
		kept = append(kept, *s)
		marks = append(marks, all[i])
	}
	set := &siteSet{sites: kept, marks: marks}
	set.sort()
	return set, nil
}

// runBTFSites is "sites" without --dwarf: it prints the placed sites with
// their traceability.
func runBTFSites(c *cobra.Command, o *sitesOptions) error {
	set, err := loadBTFSites(c, o)
	if err != nil {
		return err
	}
	w := c.OutOrStdout()
	for _, n := range set.notes {
		if o.lookup.quiet {
			break
		}
		fmt.Fprintf(c.ErrOrStderr(), "btfinline: note: %s\n", n)
	}
	fo := site.FormatOptions{Nesting: o.nesting, Marks: func(i int) site.Marks { return set.marks[i] }, RegName: set.arch.Spell}
	if set.noAddresses {
		fo.NoAddresses = "no symbols: addr is the section offset"
	}
	if o.json {
		return site.WriteJSON(w, set.sites, fo)
	}
	return site.WriteSites(w, set.sites, fo)
}
