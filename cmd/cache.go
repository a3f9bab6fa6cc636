package cmd

// "btfinline cache": the inline BTF built on this machine, by build id
// (lookup.Cache): list it, prune it, and fill it ahead of time.

import (
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/btfinline/btfinline/internal/ksys"
	"github.com/btfinline/btfinline/internal/lookup"
	"github.com/spf13/cobra"
)

func newCacheCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "cache list|prune|fetch",
		Short: "the inline BTF built on this machine, kept by build id",
		Long: `Kernels that serve no /sys/kernel/btf/*.inline get their inline BTF encoded
from DWARF once, then read from a cache folder ($XDG_CACHE_HOME/btfinline,
else ~/.cache/btfinline; --cache-dir), one subfolder per GNU build id.

` + lookupHelp,
	}
	c.AddCommand(newCacheListCmd(), newCachePruneCmd(), newCacheFetchCmd())
	return c
}

// listCache lists the cache folder of the flags.
func listCache(l *lookupFlags) (lookup.Cache, []lookup.ListEntry, error) {
	cache := lookup.Cache{Dir: l.cacheDir}
	if cache.Dir == "" {
		d, err := lookup.DefaultCacheDir()
		if err != nil {
			return cache, nil, err
		}
		cache.Dir = d
	}
	es, err := cache.List()
	return cache, es, err
}

func newCacheListCmd() *cobra.Command {
	var l lookupFlags
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "list the cached inline BTF: build id, object, kernel release, size, age",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cache, es, err := listCache(&l)
			if err != nil {
				return err
			}
			w := c.OutOrStdout()
			if asJSON {
				type row struct {
					lookup.Entry
					Path  string `json:"path"`
					Stale string `json:"stale,omitempty"`
				}
				rows := []row{}
				for _, e := range es {
					rows = append(rows, row{e.Entry, e.Path, e.Stale})
				}
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
			fmt.Fprintln(tw, "BUILD ID\tOBJECT\tRELEASE\tSIZE\tAGE\tSITES")
			for _, e := range es {
				line := fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%d", e.BuildID, e.Object, dash(e.Release), size(e.Size), age(e.Created), e.Sites)
				if e.Stale != "" {
					line += "\t(unusable: " + e.Stale + ")"
				}
				fmt.Fprintln(tw, line)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(c.ErrOrStderr(), "btfinline: %d entries in %s\n", len(es), cache.Dir)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&l.cacheDir, "cache-dir", "", "the cache folder")
	f.BoolVarP(&asJSON, "json", "j", false, "JSON output")
	return c
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1fM", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fK", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d", n)
}

func age(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := time.Since(t)
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	case d >= time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d >= time.Minute:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%ds", int(d.Seconds()))
}

func newCachePruneCmd() *cobra.Command {
	var l lookupFlags
	var all bool
	var older time.Duration
	var sysRoot string
	c := &cobra.Command{
		Use:   "prune [--all | --older-than DURATION]",
		Short: "remove cached inline BTF of kernels other than the running one, and unusable entries",
		Long: `Remove the entries of other kernel releases than the running one, and the
entries that would not be used (corrupt, truncated, foreign). --older-than
also removes the running kernel's entries made longer ago than DURATION;
--all removes every entry. Other files in the folder are left alone.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cache, es, err := listCache(&l)
			if err != nil {
				return err
			}
			rel := lookup.KernelRelease(ksys.System{Root: sysRoot})
			removed := 0
			var freed int64
			for _, e := range es {
				why := ""
				switch {
				case all:
					why = "--all"
				case e.Stale != "":
					why = "unusable: " + e.Stale
				case e.Release != rel:
					why = "kernel " + dash(e.Release) + " is not the running " + dash(rel)
				case older > 0 && time.Since(e.Created) > older:
					why = "older than " + older.String()
				}
				if why == "" {
					continue
				}
				if err := cache.Remove(e.BuildID); err != nil {
					return err
				}
				removed++
				freed += e.Size
				if !l.quiet {
					fmt.Fprintf(c.OutOrStdout(), "removed %s %s (%s)\n", e.BuildID, e.Object, why)
				}
			}
			fmt.Fprintf(c.ErrOrStderr(), "btfinline: %d of %d entries removed, %s freed\n", removed, len(es), size(freed))
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&l.cacheDir, "cache-dir", "", "the cache folder")
	f.BoolVar(&all, "all", false, "remove every entry")
	f.DurationVar(&older, "older-than", 0, "also remove entries made longer ago than DURATION")
	f.BoolVarP(&l.quiet, "quiet", "q", false, "do not list what is removed")
	f.StringVar(&sysRoot, "sys-root", "", "root of /proc and /sys (testing)")
	_ = f.MarkHidden("sys-root")
	return c
}

func newCacheFetchCmd() *cobra.Command {
	var l lookupFlags
	var running bool
	var release, sysRoot string
	var modules, ids []string
	c := &cobra.Command{
		Use:   "fetch (--running | --release R [--module M]... | --build-id HEX...)",
		Short: "fill the cache ahead of time, e.g. in an image build",
		Long: `Encode and cache the inline BTF of a kernel before a command needs it:

  --running        vmlinux and every loaded module of the running kernel
  --release R      vmlinux and the modules of release R from its installed
                   debug package (--module M: only these modules)
  --build-id HEX   the objects with these GNU build ids, from
                   /usr/lib/debug/.build-id or debuginfod; modules need
                   their vmlinux among them (repeatable)

The DWARF comes from the local debug files first, then from debuginfod
(DEBUGINFOD_URLS; --no-fetch: never). Each object is checked by its build
id and by the .BTF its inline BTF is split on.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			n := 0
			for _, b := range []bool{running, release != "", len(ids) > 0} {
				if b {
					n++
				}
			}
			if n != 1 {
				return errors.New("give one of --running, --release R and --build-id HEX")
			}
			if len(modules) > 0 && release == "" {
				return errors.New("--module is for --release")
			}
			sys := ksys.System{Root: sysRoot}
			o, err := l.options(c.ErrOrStderr(), sys)
			if err != nil {
				return err
			}
			// What is not cached yet is encoded here, a vmlinux most of all.
			hugeHeap(mostHeap)
			var found []lookup.Found
			if running {
				objs, err := lookup.RunningObjects(sys)
				if err != nil {
					return err
				}
				if !l.quiet {
					fmt.Fprintf(c.ErrOrStderr(), "btfinline: the running kernel: vmlinux and %d modules with BTF\n", len(objs)-1)
				}
				found, err = lookup.Find(c.Context(), objs, o)
				if err != nil {
					return err
				}
			} else {
				found, err = lookup.Prepare(c.Context(), lookup.Request{BuildIDs: ids, Release: release, Modules: modules}, o)
				if err != nil {
					return err
				}
			}
			counts := map[lookup.From]int{}
			for _, f := range found {
				counts[f.From]++
				fmt.Fprintf(c.OutOrStdout(), "%s\t%s\t%s\t%s\n", f.Object, dash(f.BuildID), f.From, f.Path)
			}
			if !l.quiet {
				fmt.Fprintf(c.ErrOrStderr(), "btfinline: %d objects: %d encoded, %d already cached, %d served by the kernel\n",
					len(found), counts[lookup.FromEncoded], counts[lookup.FromCache], counts[lookup.FromKernel])
			}
			return nil
		},
	}
	f := c.Flags()
	l.add(f)
	f.BoolVar(&running, "running", false, "the running kernel and its loaded modules")
	f.StringVar(&release, "release", "", "the kernel release R of an installed debug package")
	f.StringArrayVar(&modules, "module", nil, "with --release: only this module (repeatable)")
	f.StringArrayVar(&ids, "build-id", nil, "an object's GNU build id (repeatable)")
	f.StringVar(&sysRoot, "sys-root", "", "root of /proc and /sys (testing)")
	_ = f.MarkHidden("sys-root")
	return c
}
