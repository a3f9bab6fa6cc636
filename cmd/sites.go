package cmd

import (
	"errors"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/dwarfsite"
	"github.com/btfinline/btfinline/internal/site"
	"github.com/spf13/cobra"
)

// sitesOptions holds the flags of "btfinline sites"; the DWARF path
// (sites_dwarf.go) and the BTF path (sites_btf.go) read the same options so
// that their outputs can be diffed.
type sitesOptions struct {
	dwarf     bool
	file      string
	bases     []string
	funcRE    string
	callerRE  string
	module    string
	running   bool
	traceable bool
	json      bool
	stats     bool
	workers   int
	reasons   bool
	nesting   bool
	// probePoint: with --dwarf, which address of an expansion a site
	// gets (dwarfsite.ParseProbePoint).
	probePoint    string
	probePointSet bool
	sysRoot       string // hidden --sys-root: a fake / for tests
	inline        string
	lookup        lookupFlags
}

func newSitesCmd() *cobra.Command {
	o := &sitesOptions{}
	c := &cobra.Command{
		Use:   "sites [FILE | --running] [-B BASE]... [--func RE] [--caller RE]",
		Short: "list inline sites with their parameter locations",
		Long: `List every inline site: address, caller+offset, ELF section, and the inlined
function with each parameter's type, name and location at the site.

With --dwarf the sites are read from FILE's DWARF; otherwise from its
.BTF.inline (an ELF section or a detached file, with -B for the base chain),
or with --running from /sys/kernel/btf/*.inline and /proc/kallsyms.

--traceable drops the sites a kprobe cannot be placed at (docs/inspect.md),
with --dwarf by the rules of FILE's own tables.

--nesting marks a site that lies inside another inline expansion with
"[nested in an inlined OUTER (depth N)]" (JSON: depth, outer), e.g. an
instance of __list_del_entry inside one of __list_del_entry, where a probe
fires twice for one outer call. .BTF.inline does not record nesting, so
without --dwarf it reads the DWARF of FILE (or of the last -B).

--probe-point (with --dwarf) chooses each site's address: "block" (the
default) the address of the expansion's first basic block that locates
the most parameters, "entry" the entry pc, as perf probe and pahole give
it (docs/encoding.md, "Probe points"). A site that moved past its entry
pc names it: "[entry pc 0x...]" (JSON: entry_pc).

` + lookupHelp,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.file = args[0]
			}
			o.probePointSet = c.Flags().Changed("probe-point")
			if err := o.check(); err != nil {
				return err
			}
			var (
				sites []site.Site
				st    *dwarfsite.Stats
				a     arch.Arch
				err   error
			)
			if o.dwarf {
				sites, st, a, err = dwarfSites(c, o)
			} else if !o.stats {
				// The BTF path prints its own lines: they carry the
				// traceability mark (sites_btf.go).
				return runBTFSites(c, o)
			} else {
				sites, err = btfSites(c, o)
			}
			if err != nil {
				return err
			}
			return printSites(c, o, sites, st, a)
		},
	}
	f := c.Flags()
	f.BoolVar(&o.dwarf, "dwarf", false, "read sites from DWARF instead of BTF")
	f.StringArrayVarP(&o.bases, "base-btf", "B", nil, "base BTF (repeatable: first is the root, vmlinux)")
	f.StringVar(&o.funcRE, "func", "", "only sites of inlined functions matching this regexp")
	f.StringVar(&o.callerRE, "caller", "", "only sites inside callers matching this regexp")
	f.StringVar(&o.module, "module", "", "with --running: only this module (vmlinux for the kernel)")
	f.BoolVar(&o.running, "running", false, "read the running kernel's BTF and addresses")
	f.BoolVar(&o.traceable, "traceable", false, "drop sites a kprobe cannot be placed at")
	f.BoolVarP(&o.json, "json", "j", false, "JSON output")
	f.BoolVar(&o.stats, "stats", false, "print statistics instead of sites")
	f.BoolVar(&o.reasons, "reasons", false, "with --dwarf: say why an unavailable location cannot be expressed")
	f.BoolVar(&o.nesting, "nesting", false, "mark sites nested in other inline expansions (reads DWARF)")
	f.StringVar(&o.probePoint, "probe-point", defaultProbePoint, "with --dwarf: block (the address locating the most parameters) or entry (the entry pc)")
	f.IntVar(&o.workers, "workers", 0, "parallel workers (default: number of CPUs)")
	f.StringVar(&o.sysRoot, "sys-root", "", "root of /proc and /sys for --running (testing)")
	f.StringVar(&o.inline, "inline", "", "with --running: the object's .BTF.inline from this file")
	o.lookup.add(f)
	_ = f.MarkHidden("sys-root")
	return c
}

// check refuses flags that mean nothing in the chosen mode, rather than
// ignoring them.
func (o *sitesOptions) check() error {
	switch {
	case o.dwarf && o.running:
		return errors.New("--dwarf reads FILE, --running the running kernel: give one")
	case o.dwarf && len(o.bases) > 0:
		return errors.New("-B is the base of a .BTF.inline: --dwarf reads FILE's DWARF alone")
	case o.reasons && !o.dwarf:
		return errors.New("--reasons needs --dwarf (.BTF.inline keeps no reasons)")
	case o.module != "" && !o.running:
		return errors.New("--module needs --running")
	case o.stats && o.json:
		return errors.New("--stats prints a table: no --json")
	case o.probePointSet && !o.dwarf:
		return errors.New("--probe-point needs --dwarf (.BTF.inline holds the address encode chose)")
	}
	return nil
}
