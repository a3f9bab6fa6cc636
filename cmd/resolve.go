package cmd

import (
	"errors"
	"strings"

	"github.com/btfinline/btfinline/internal/ksys"

	"github.com/btfinline/btfinline/internal/resolve"
	"github.com/spf13/cobra"
)

type resolveOptions struct {
	bases   []string
	running bool
	module  string
	format  string
	args    string
	sysRoot string
	nesting bool
	inline  string
	lookup  lookupFlags
}

func newResolveCmd() *cobra.Command {
	o := &resolveOptions{}
	c := &cobra.Command{
		Use:   "resolve FUNC [FILE | --running] [-B BASE]... [--format kprobe|bpftrace|perf|json] [--args a,b]",
		Short: "print every place a kprobe for FUNC fires, with argument fetch specs",
		Long: `Resolve FUNC to every address a probe on it should use: each inline site
listed in .BTF.inline, plus the entry of each out-of-line copy in the symbol
table (FUNC itself and gcc clones FUNC.isra.N, FUNC.constprop.N, FUNC.part.N).
For each place print the absolute address, caller+offset and a fetch argument
per parameter, built from its LOC_PARAM and the FUNC_PROTO types.

  --format kprobe    lines for /sys/kernel/tracing/kprobe_events (default)
  --format bpftrace  kprobe:caller+off { printf(...) } lines
  --format perf      perf probe -a commands
  --format json      everything, machine-readable

Places a kprobe cannot use (kprobe blacklist, noinstr, entry or init text,
jump-label, static-call and BUG() sites, functions without an ftrace
location, which kprobe events refuse, arm64 instructions kprobes will
not single-step and exclusive sequences, and dead code of an overridden
__weak function, where a kprobe never fires) and parameters without a fetchable location are listed as comments with the
reason; nothing is dropped.

  --nesting          read the ELF's DWARF (FILE, or the last -B) to mark sites
                     nested in another inline expansion, e.g. an instance of
                     FUNC inside an instance of FUNC (JSON: depth, outer);
                     .BTF.inline does not record nesting

FILE is an ELF with a .BTF.inline section (modules: -B vmlinux), or a
detached .BTF.inline with its base chain in -B (the last -B, if an ELF, gives
the symbols and section addresses). With --running the BTF comes from
/sys/kernel/btf/{vmlinux,MODULE}{,.inline} and addresses from /proc/kallsyms
and /sys/module/MODULE/sections.

` + lookupHelp,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(c *cobra.Command, args []string) error {
			file := ""
			if len(args) == 2 {
				file = args[1]
			}
			if o.format == "" {
				o.format = "kprobe"
			}
			ok := false
			for _, f := range resolve.Formats {
				ok = ok || f == o.format
			}
			if !ok {
				return errors.New("--format: want one of " + strings.Join(resolve.Formats, ", "))
			}
			sys := ksys.System{Root: o.sysRoot}
			inline, err := runningInline(c, &o.lookup, sys, o.running && file == "", o.module, o.inline)
			if err != nil {
				return err
			}
			t, err := resolve.Open(resolve.Options{File: file, Bases: o.bases, Running: o.running,
				Module: o.module, Sys: sys, Inline: inline})
			if err != nil {
				return err
			}
			var sel []string
			if o.args != "" {
				sel = strings.Split(o.args, ",")
			}
			r, err := t.Resolve(args[0], sel)
			if err != nil {
				var nf *resolve.NotFoundError
				if errors.As(err, &nf) {
					return &exitError{code: 2, msg: err.Error()}
				}
				return err
			}
			if o.nesting {
				m, err := readNesting(t.ELFPath(), func(n string) bool { return n == r.Func }, false, r.NestKeys())
				if err != nil {
					return err
				}
				r.MarkNesting(m)
			}
			return r.Write(c.OutOrStdout(), o.format)
		},
	}
	f := c.Flags()
	f.StringArrayVarP(&o.bases, "base-btf", "B", nil, "base BTF (repeatable: first is the root, vmlinux)")
	f.BoolVar(&o.running, "running", false, "use the running kernel's BTF and addresses")
	f.StringVar(&o.module, "module", "", "with --running: the module (default vmlinux)")
	f.StringVar(&o.format, "format", "kprobe", "output format: kprobe, bpftrace, perf or json")
	f.StringVar(&o.args, "args", "", "comma-separated parameter names to fetch (default all)")
	f.StringVar(&o.sysRoot, "sys-root", "", "root of /proc and /sys for --running (testing)")
	f.BoolVar(&o.nesting, "nesting", false, "mark inline sites nested in other inline expansions (reads the ELF's DWARF)")
	f.StringVar(&o.inline, "inline", "", "with --running: the object's .BTF.inline from this file")
	o.lookup.add(f)
	_ = f.MarkHidden("sys-root")
	return c
}
