package cmd

import (
	"errors"
	"fmt"
	"github.com/btfinline/btfinline/site"
	"regexp"

	"github.com/btfinline/btfinline/dwarfsite"
	"github.com/spf13/cobra"
)

// dwarfStats keeps the statistics of the last DWARF read for --stats.
var dwarfStats *dwarfsite.Stats

// dwarfSites reads the sites of o.file from DWARF.
func dwarfSites(c *cobra.Command, o *sitesOptions) ([]site.Site, error) {
	if o.file == "" {
		return nil, errors.New("sites --dwarf: FILE required")
	}
	opt := dwarfsite.Options{Workers: o.workers}
	if o.funcRE != "" {
		re, err := regexp.Compile(o.funcRE)
		if err != nil {
			return nil, fmt.Errorf("--func: %w", err)
		}
		opt.Func = re.MatchString
	}
	if o.callerRE != "" {
		re, err := regexp.Compile(o.callerRE)
		if err != nil {
			return nil, fmt.Errorf("--caller: %w", err)
		}
		opt.Caller = re.MatchString
	}
	res, err := dwarfsite.ReadFile(o.file, opt)
	if err != nil {
		return nil, err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(c.ErrOrStderr(), "btfinline: warning: %s\n", w)
	}
	if n := res.Stats.Warnings - len(res.Warnings); n > 0 {
		fmt.Fprintf(c.ErrOrStderr(), "btfinline: warning: %d more\n", n)
	}
	dwarfStats = &res.Stats
	return res.Sites, nil
}

// printSites prints sites one per line, as JSON, or as --stats. The BTF
// path (sites_btf.go) prints through here too, so both outputs diff.
func printSites(c *cobra.Command, o *sitesOptions, sites []site.Site) error {
	w := c.OutOrStdout()
	switch {
	case o.stats:
		st := dwarfStats
		if !o.dwarf || st == nil {
			st = &dwarfsite.Stats{Counts: site.Count(nil)}
		}
		if !o.dwarf || st.Sites != len(sites) {
			// Sites not straight from the DWARF reader (e.g. from BTF):
			// count what they show.
			st = &dwarfsite.Stats{Counts: site.Count(sites)}
		}
		return dwarfsite.WriteStats(w, st)
	case o.json:
		return site.WriteJSON(w, sites, site.FormatOptions{})
	}
	return site.WriteSites(w, sites, site.FormatOptions{Reasons: o.reasons, Nesting: o.nesting})
}
