package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/btfinline/btfinline/inline"
	"github.com/btfinline/btfinline/resolve"
	"github.com/spf13/cobra"
)

// sitesSysRoot is the hidden --sys-root of "sites" (a fake / for tests).
var sitesSysRoot string

func init() {
	sitesCmd.Flags().StringVar(&sitesSysRoot, "sys-root", "", "root of /proc and /sys for --running (testing)")
	_ = sitesCmd.Flags().MarkHidden("sys-root")
}

// btfSite is a site read from .BTF.inline with what the inspector adds.
type btfSite struct {
	inline.Site
	NoAddr  string // why Addr is unknown ("" = known)
	NoTrace string // why a kprobe cannot sit here ("" = it can)
}

// btfSites reads the sites of o.file (or the running kernel) from
// .BTF.inline, placed (Addr, Caller, CallerOff) and filtered by --func,
// --caller and --traceable. Owned by the inspector work.
func btfSites(c *cobra.Command, o *sitesOptions) ([]inline.Site, error) {
	bs, _, err := loadBTFSites(o)
	if err != nil {
		return nil, err
	}
	out := make([]inline.Site, len(bs))
	for i := range bs {
		out[i] = bs[i].Site
	}
	return out, nil
}

func loadBTFSites(o *sitesOptions) ([]btfSite, *resolve.Target, error) {
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
	t, err := resolve.Open(resolve.Options{File: o.file, Bases: o.bases, Running: o.running,
		Module: o.module, Sys: resolve.System{Root: sitesSysRoot}})
	if err != nil {
		return nil, nil, err
	}
	sites, noAddr, notrace, err := t.Sites()
	if err != nil {
		return nil, nil, err
	}
	var nest map[resolve.NestKey]resolve.Nest
	if o.nesting {
		var match func(string) bool
		if funcRE != nil {
			match = funcRE.MatchString
		}
		if nest, err = t.Nesting(match, true); err != nil {
			return nil, nil, err
		}
	}
	var out []btfSite
	for i := range sites {
		s := sites[i]
		if funcRE != nil && !funcRE.MatchString(s.Func.Name) {
			continue
		}
		if n, ok := nest[resolve.NestKey{Section: s.Section, Off: s.SectionOff, Func: s.Func.Name, Locs: resolve.LocKey(&s)}]; ok {
			s.Depth, s.Outer = n.Depth, n.Outer
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

// sortBTFSites orders sites like inline.SortSites.
func sortBTFSites(s []btfSite) {
	sort.SliceStable(s, func(i, j int) bool { return inline.LessSite(&s[i].Site, &s[j].Site) })
}

// runBTFSites is "sites" without --dwarf: it prints the placed sites with
// their traceability.
func runBTFSites(c *cobra.Command, o *sitesOptions) error {
	sites, t, err := loadBTFSites(o)
	if err != nil {
		return err
	}
	w := c.OutOrStdout()
	for _, n := range t.Notes {
		fmt.Fprintf(c.ErrOrStderr(), "btfinline: note: %s\n", n)
	}
	if o.json {
		return writeBTFSitesJSON(w, t, sites)
	}
	for i := range sites {
		fmt.Fprintln(w, formatBTFSite(t, &sites[i], o.nesting))
	}
	return nil
}

// formatBTFSite spells a site with the shared formatter of package inline
// (so that "sites" and "sites --dwarf" can be diffed) and appends the
// inspector's marks: why there is no address, why a kprobe cannot sit
// there.
func formatBTFSite(t *resolve.Target, s *btfSite, nesting bool) string {
	var b strings.Builder
	_ = inline.FormatSiteOpts(&b, &s.Site, inline.FormatOptions{Nesting: nesting})
	line := strings.TrimSuffix(b.String(), "\n")
	if s.NoAddr != "" || !t.HasAddresses() {
		// No address was derived: do not print one.
		if _, rest, ok := strings.Cut(line, " "); ok {
			line = "? " + rest
		}
	}
	if s.NoAddr != "" {
		line += " [" + s.NoAddr + "]"
	}
	if s.NoTrace != "" {
		line += " [notrace: " + s.NoTrace + "]"
	}
	return line
}

// writeBTFSitesJSON writes the shared JSON array of package inline with
// three fields added at the end of each object: traceable, notrace and
// no_address.
func writeBTFSitesJSON(w io.Writer, t *resolve.Target, sites []btfSite) error {
	plain := make([]inline.Site, len(sites))
	for i := range sites {
		plain[i] = sites[i].Site
	}
	var buf bytes.Buffer
	if err := inline.WriteJSON(&buf, plain, nil); err != nil {
		return err
	}
	var objs []json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &objs); err != nil {
		return err
	}
	if len(objs) != len(sites) {
		return fmt.Errorf("internal error: %d JSON sites for %d sites", len(objs), len(sites))
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("[")
	for i, o := range objs {
		if i > 0 {
			bw.WriteString(",")
		}
		o = bytes.TrimSpace(o)
		if len(o) < 2 || o[len(o)-1] != '}' {
			return fmt.Errorf("internal error: site %d is not a JSON object", i)
		}
		s := &sites[i]
		extra := struct {
			Traceable bool   `json:"traceable"`
			NoTrace   string `json:"notrace,omitempty"`
			NoAddr    string `json:"no_address,omitempty"`
		}{s.NoTrace == "" && s.NoAddr == "" && t.HasAddresses(), s.NoTrace, s.NoAddr}
		if !t.HasAddresses() && extra.NoAddr == "" {
			extra.NoAddr = "no symbols: addr is the section offset"
		}
		e, _ := json.Marshal(extra)
		bw.WriteString("\n")
		bw.Write(o[:len(o)-1])
		bw.WriteString(",")
		bw.Write(e[1:])
	}
	bw.WriteString("\n]\n")
	return bw.Flush()
}
