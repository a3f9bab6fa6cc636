package cmd

import (
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
	var out []btfSite
	for i := range sites {
		s := sites[i]
		if funcRE != nil && !funcRE.MatchString(s.Func.Name) {
			continue
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

// sortBTFSites orders sites like inline.SortSites: address, section,
// section offset, function name.
func sortBTFSites(s []btfSite) {
	sort.SliceStable(s, func(i, j int) bool {
		a, b := &s[i], &s[j]
		if a.Addr != b.Addr {
			return a.Addr < b.Addr
		}
		if a.Section != b.Section {
			return a.Section < b.Section
		}
		if a.SectionOff != b.SectionOff {
			return a.SectionOff < b.SectionOff
		}
		return a.Func.Name < b.Func.Name
	})
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
		fmt.Fprintln(w, formatBTFSite(t, &sites[i]))
	}
	return nil
}

// formatBTFSite is the one place that spells a site as text; it is to be
// replaced by the shared formatter of package inline when that exists, with
// the traceability mark appended.
func formatBTFSite(t *resolve.Target, s *btfSite) string {
	var b strings.Builder
	if s.NoAddr == "" && t.HasAddresses() {
		fmt.Fprintf(&b, "%#016x ", s.Addr)
		if s.Caller != "" {
			fmt.Fprintf(&b, "%s+%#x ", s.Caller, s.CallerOff)
		} else {
			b.WriteString("? ")
		}
	}
	fmt.Fprintf(&b, "%s+%#x %s(", s.Section, s.SectionOff, s.Func.Name)
	for i, p := range s.Func.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		var l inline.Location
		if i < len(s.Params) {
			l = s.Params[i]
		}
		fmt.Fprintf(&b, "%s %s=%s", p.Type, p.Name, resolve.DescribeLocation(l))
	}
	if s.Func.Variadic {
		if len(s.Func.Params) > 0 {
			b.WriteString(", ")
		}
		b.WriteString("...")
	}
	b.WriteString(")")
	if s.NoAddr != "" {
		fmt.Fprintf(&b, " [%s]", s.NoAddr)
	}
	if s.NoTrace != "" {
		fmt.Fprintf(&b, " [notrace: %s]", s.NoTrace)
	}
	return b.String()
}

type jsonSiteParam struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Location string `json:"location"`
}

type jsonSite struct {
	Addr       *uint64         `json:"addr,omitempty"`
	Caller     string          `json:"caller,omitempty"`
	CallerOff  uint64          `json:"caller_offset,omitempty"`
	Section    string          `json:"section"`
	SectionOff uint64          `json:"section_offset"`
	Func       string          `json:"func"`
	FuncID     uint32          `json:"btf_func_id"`
	Params     []jsonSiteParam `json:"params"`
	Traceable  bool            `json:"traceable"`
	NoTrace    string          `json:"notrace,omitempty"`
	NoAddr     string          `json:"no_address,omitempty"`
}

func writeBTFSitesJSON(w io.Writer, t *resolve.Target, sites []btfSite) error {
	out := struct {
		Object string     `json:"object"`
		Arch   string     `json:"arch"`
		Notes  []string   `json:"notes,omitempty"`
		Sites  []jsonSite `json:"sites"`
	}{Object: t.Name, Arch: t.Arch.String(), Notes: t.Notes, Sites: []jsonSite{}}
	for i := range sites {
		s := &sites[i]
		j := jsonSite{Caller: s.Caller, CallerOff: s.CallerOff, Section: s.Section, SectionOff: s.SectionOff,
			Func: s.Func.Name, FuncID: s.Func.FuncID, NoTrace: s.NoTrace, NoAddr: s.NoAddr,
			Traceable: s.NoTrace == "" && s.NoAddr == "" && t.HasAddresses()}
		if s.NoAddr == "" && t.HasAddresses() {
			a := s.Addr
			j.Addr = &a
		}
		for k, p := range s.Func.Params {
			var l inline.Location
			if k < len(s.Params) {
				l = s.Params[k]
			}
			j.Params = append(j.Params, jsonSiteParam{p.Name, p.Type, resolve.DescribeLocation(l)})
		}
		out.Sites = append(out.Sites, j)
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(out)
}
