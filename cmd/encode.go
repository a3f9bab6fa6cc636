package cmd

// "btfinline encode" reads the inline sites of a vmlinux or module from its
// DWARF and writes them as split BTF (.BTF.inline) on the object's own .BTF:
// a detached raw file with -o, or an ELF section with --elf-section.

import (
	"fmt"
	"github.com/btfinline/btfinline/dwarfsite"
	"io"
	"runtime/debug"

	"github.com/btfinline/btfinline/encode"
	"github.com/spf13/cobra"
)

type encodeOptions struct {
	bases      []string
	baseBTF    string
	out        string
	elfSection bool
	force      bool
	workers    int
	verbose    bool
	quiet      bool
	langs      string
	probePoint string
}

func newEncodeCmd() *cobra.Command {
	o := &encodeOptions{}
	c := &cobra.Command{
		Use:   "encode FILE [-B BASE]... [--base BASE.btf] (-o OUT | --elf-section) [--force] [--workers N]",
		Short: "encode inline sites from DWARF as .BTF.inline",
		Long: `Read every inline site of FILE (a vmlinux or a kernel module with DWARF) and
encode the sites as BTF LOC_PARAM, LOC_PROTO and LOCSEC types, split on
FILE's own .BTF: on vmlinux's .BTF for vmlinux, and for a module on the
module's .BTF, itself split on vmlinux's .BTF (multi-split).

  -B BASE          base BTF of FILE's .BTF (a module's vmlinux: the ELF or a
                   raw BTF file); repeat for a longer chain, root first
  --base BASE.btf  the same as a single -B
  -o OUT           write a detached raw BTF file
  --elf-section    add or replace FILE's .BTF.inline section, in place and
                   atomically
  --force          replace an existing .BTF.inline that differs
  --workers N      compilation units read in parallel (default: all CPUs);
                   the output does not depend on it
  --lang-exclude L leave out the compilation units of languages L (default
                   rust, as kbuild's pahole does: a kernel's .BTF has no
                   Rust types); "" keeps every unit
  --probe-point P  block (default): each site at the address of its first
                   basic block that locates the most parameters; entry: at
                   the entry pc, as perf probe and pahole place it
                   (docs/encoding.md, "Probe points")
  -q, --quiet      no summary on stderr
  -v, --verbose    add the time spent reading, encoding and in total

The summary on stderr counts sites, added FUNC, FUNC_PROTO, LOC_PARAM,
LOC_PROTO types, LOCSEC entries, types the base lacked, the units left out,
the functions skipped because a type of theirs does not convert to BTF
(their sites only: the rest is encoded), and the bytes written per site.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runEncode(c.ErrOrStderr(), args[0], o)
		},
	}
	f := c.Flags()
	f.StringArrayVarP(&o.bases, "base-btf", "B", nil, "base BTF (repeatable: first is the root, vmlinux)")
	f.StringVar(&o.baseBTF, "base", "", "base BTF of FILE's .BTF (vmlinux .btf for a module)")
	f.StringVarP(&o.out, "output", "o", "", "write detached BTF to this file")
	f.BoolVar(&o.elfSection, "elf-section", false, "write FILE's .BTF.inline section in place")
	f.BoolVar(&o.force, "force", false, "replace a different existing .BTF.inline")
	f.IntVar(&o.workers, "workers", 0, "parallel workers (default: number of CPUs)")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "also print timings")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no summary")
	f.StringVar(&o.probePoint, "probe-point", "block", "block (the address locating the most parameters) or entry (the entry pc)")
	f.StringVar(&o.langs, "lang-exclude", "rust", "leave out the compilation units of these source languages (comma-separated; \"\" for none)")
	return c
}

func runEncode(stderr io.Writer, path string, o *encodeOptions) error {
	out := encode.Output{Path: o.out, ELFSection: o.elfSection, Force: o.force}
	if err := out.Check(); err != nil {
		return err
	}
	bases := append([]string(nil), o.bases...)
	if o.baseBTF != "" {
		bases = append([]string{o.baseBTF}, bases...)
	}
	langs, err := dwarfsite.ParseLanguages(o.langs)
	if err != nil {
		return fmt.Errorf("--lang-exclude: %w", err)
	}
	pp, err := dwarfsite.ParseProbePoint(o.probePoint)
	if err != nil {
		return fmt.Errorf("--probe-point: %w", err)
	}
	r, err := encode.File(path, encode.Options{Bases: bases, Workers: o.workers, ExcludeLanguages: langs, ProbePoint: pp})
	if err != nil {
		return err
	}
	// Rewriting a vmlinux holds two copies of it: give back the sites
	// and types first.
	r.Sites, r.Spec, r.Base = nil, nil, nil
	debug.FreeOSMemory()
	note, err := encode.Write(path, r.Data, out)
	if err != nil {
		return err
	}
	if !o.quiet {
		if note != "" {
			fmt.Fprintln(stderr, note)
		}
		r.WriteSummary(stderr, o.verbose)
	}
	return nil
}
