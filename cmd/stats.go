package cmd

import (
	"debug/elf"
	"encoding/json"

	"github.com/btfinline/btfinline/internal/resolve"
	"github.com/spf13/cobra"
)

type statsOptions struct {
	inline string
	bases  []string
	json   bool
}

func newStatsCmd() *cobra.Command {
	o := &statsOptions{}
	c := &cobra.Command{
		Use:   "stats FILE [--inline FILE.inline] [-B BASE]... [--json]",
		Short: "print the traceability table of a kernel image or module",
		Long: `Classify every function of a vmlinux or module (for a module: -B VMLINUX;
unique names of its function symbols,
gcc clone suffixes stripped, and of its BTF FUNCs, .BTF.inline included) as
exactly one of: fentry/fexit-able (a BTF FUNC and an out-of-line copy with
an ftrace site in __mcount_loc), inlined with no out-of-line copy,
notrace/noinstr (out of line without an ftrace site), no BTF (an ftrace site
but no BTF FUNC), out of line only as gcc clones, or other.

With inline sites (FILE's .BTF.inline section or --inline) it also counts
sites by how many parameters are located, which sites a kprobe can use, and
how many functions that fentry cannot reach become kprobe-able through
.BTF.inline. docs/inspect.md defines every row.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opt := resolve.Options{File: args[0], Bases: o.bases, NoInline: true}
			haveInline := false
			if o.inline != "" {
				opt = resolve.Options{File: o.inline, Bases: append(append([]string(nil), o.bases...), args[0])}
				haveInline = true
			} else if f, err := elf.Open(args[0]); err == nil {
				haveInline = f.Section(".BTF.inline") != nil
				f.Close()
			}
			t, err := resolve.Open(opt)
			if err != nil {
				return err
			}
			st, err := resolve.ComputeStats(t, haveInline)
			if err != nil {
				return err
			}
			if o.json {
				e := json.NewEncoder(c.OutOrStdout())
				e.SetIndent("", "  ")
				return e.Encode(st)
			}
			st.Write(c.OutOrStdout())
			return nil
		},
	}
	f := c.Flags()
	f.StringVarP(&o.inline, "inline", "I", "", "detached .BTF.inline of FILE")
	f.StringArrayVarP(&o.bases, "base-btf", "B", nil, "base BTF of FILE's .BTF (modules)")
	f.BoolVarP(&o.json, "json", "j", false, "JSON output")
	return c
}
