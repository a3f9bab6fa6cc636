package cmd

// "btfinline encode" reads the inline sites of a vmlinux or module from its
// DWARF and writes them as split BTF (.BTF.inline) on the object's own .BTF:
// a detached raw file with -o, or an ELF section with --elf-section.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/btfinline/btfinline/internal/dwarfsite"
	"github.com/btfinline/btfinline/internal/encode"
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
	outDir     string
	filesFrom  string
	jobs       int
	probePoint string
	cpuProfile string
	memProfile string
}

func newEncodeCmd() *cobra.Command {
	o := &encodeOptions{}
	c := &cobra.Command{
		Use:   "encode FILE... [-B BASE]... [--base BASE.btf] (-o OUT | --output-dir DIR | --elf-section) [--force] [--workers N]",
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
  --output-dir DIR write FILE's detached BTF to DIR/NAME.inline (NAME: the
                   file name without .ko)
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
(their sites only: the rest is encoded), and the bytes written per site.

Batch (several FILEs, --files-from or --output-dir): the base chain is
loaded and indexed once and the files are encoded in parallel, each
output byte for byte what a run on that file alone writes; this is how a
build system encodes all modules of a kernel at once:

  btfinline encode -B vmlinux --elf-section drivers/*/*.ko
  find . -name '*.ko' | btfinline encode -B vmlinux --output-dir out --files-from -

  --files-from F   also encode the files listed in F, one per line ("-":
                   standard input)
  --jobs N         files encoded at once (default: all CPUs); --workers
                   then counts units per file (default 1)

A file that fails is reported and the others are still encoded; the exit
status is then 1. The summary is one line per file and a total.`,
		RunE: func(c *cobra.Command, args []string) (err error) {
			stop, err := startProfiles(o.cpuProfile, o.memProfile)
			if err != nil {
				return err
			}
			defer func() {
				if perr := stop(); err == nil {
					err = perr
				}
			}()
			if o.filesFrom != "" || o.outDir != "" || len(args) > 1 {
				return runEncodeBatch(c.InOrStdin(), c.ErrOrStderr(), args, o)
			}
			if len(args) != 1 {
				return errors.New("encode: give the FILE to encode")
			}
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
	f.StringVar(&o.probePoint, "probe-point", defaultProbePoint, "block (the address locating the most parameters) or entry (the entry pc)")
	f.StringVar(&o.langs, "lang-exclude", defaultLangExclude, "leave out the compilation units of these source languages (comma-separated; \"\" for none)")
	f.StringVar(&o.outDir, "output-dir", "", "write each FILE's detached BTF to DIR/NAME.inline")
	f.StringVar(&o.filesFrom, "files-from", "", "also encode the files listed in this file (\"-\": standard input)")
	f.IntVar(&o.jobs, "jobs", 0, "files encoded at once in a batch (default: number of CPUs)")
	// For docs/encoding.md, "Where the time goes": pprof profiles of one
	// run, which a benchmark cannot give of the command's own setup.
	f.StringVar(&o.cpuProfile, "cpuprofile", "", "write a pprof CPU profile to this file")
	f.StringVar(&o.memProfile, "memprofile", "", "write a pprof allocation profile to this file")
	_ = f.MarkHidden("cpuprofile")
	_ = f.MarkHidden("memprofile")
	return c
}

// The defaults of encode's flags, which the lookup chain encodes with too
// and sites --dwarf places its sites by.
const (
	defaultProbePoint  = "block"
	defaultLangExclude = "rust"
)

// options are the encode.Options of the flags.
func (o *encodeOptions) options() (encode.Options, error) {
	bases := append([]string(nil), o.bases...)
	if o.baseBTF != "" {
		bases = append([]string{o.baseBTF}, bases...)
	}
	langs, err := dwarfsite.ParseLanguages(o.langs)
	if err != nil {
		return encode.Options{}, fmt.Errorf("--lang-exclude: %w", err)
	}
	pp, err := dwarfsite.ParseProbePoint(o.probePoint)
	if err != nil {
		return encode.Options{}, fmt.Errorf("--probe-point: %w", err)
	}
	return encode.Options{Bases: bases, Workers: o.workers, ExcludeLanguages: langs, ProbePoint: pp}, nil
}

func runEncode(stderr io.Writer, path string, o *encodeOptions) error {
	out := encode.Output{Path: o.out, ELFSection: o.elfSection, Force: o.force}
	if err := out.Check(); err != nil {
		return err
	}
	eo, err := o.options()
	if err != nil {
		return err
	}
	hugeHeapFor(path)
	r, err := encode.File(path, eo)
	if err != nil {
		return err
	}
	// Rewriting a vmlinux holds two copies of it: give back the sites
	// and types first. A detached file is only the encoding written out,
	// which the forced collection would make 40 ms slower.
	r.Spec, r.Base = nil, nil
	if out.ELFSection {
		debug.FreeOSMemory()
	}
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

// runEncodeBatch encodes the files of args and --files-from on one base
// chain (encode.Batch).
func runEncodeBatch(stdin io.Reader, stderr io.Writer, args []string, o *encodeOptions) error {
	paths := append([]string(nil), args...)
	if o.filesFrom != "" {
		listed, err := readList(stdin, o.filesFrom)
		if err != nil {
			return err
		}
		paths = append(paths, listed...)
	}
	if len(paths) == 0 {
		return errors.New("encode: no files to encode")
	}
	if o.out != "" {
		return errors.New("encode: -o names one output; for several files give --output-dir DIR or --elf-section")
	}
	if (o.outDir == "") == !o.elfSection {
		return errors.New("encode: give exactly one of --output-dir DIR and --elf-section")
	}
	if o.outDir != "" {
		if fi, err := os.Stat(o.outDir); err != nil {
			return err
		} else if !fi.IsDir() {
			return fmt.Errorf("%s: not a directory", o.outDir)
		}
	}
	eo, err := o.options()
	if err != nil {
		return err
	}
	hugeHeapFor(paths...)
	jobs := make([]encode.Job, len(paths))
	for i, p := range paths {
		jobs[i] = encode.Job{Path: p, Out: encode.Output{ELFSection: o.elfSection, Force: o.force}}
		if o.outDir != "" {
			jobs[i].Out = encode.OutputIn(o.outDir, p)
		}
	}
	failed, sites, entries, size := 0, 0, 0, 0
	err = encode.Batch(jobs, encode.BatchOptions{Options: eo, Jobs: o.jobs}, func(j encode.Job, r *encode.Result, note string, err error) {
		if err != nil {
			failed++
			fmt.Fprintf(stderr, "btfinline: %v\n", err)
			return
		}
		sites += r.Stats.Sites
		entries += r.Stats.Entries
		size += len(r.Data)
		if o.quiet {
			return
		}
		if note != "" {
			fmt.Fprintln(stderr, note)
		}
		fmt.Fprintf(stderr, "%s: %d sites, %d LOCSEC entries, %d bytes\n", j.Path, r.Stats.Sites, r.Stats.Entries, len(r.Data))
		if o.verbose {
			r.WriteSummary(prefixWriter{stderr, j.Path + ": "}, true)
		}
	})
	if err != nil {
		return err
	}
	if !o.quiet {
		fmt.Fprintf(stderr, "total: %d files, %d failed, %d sites, %d LOCSEC entries, %d bytes\n", len(jobs), failed, sites, entries, size)
	}
	if failed > 0 {
		return &exitError{code: 1, msg: fmt.Sprintf("encode: %d of %d files failed", failed, len(jobs))}
	}
	return nil
}

// readList reads the paths of a --files-from list, one per line; blank
// lines are skipped.
func readList(stdin io.Reader, name string) ([]string, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	var paths []string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if p := strings.TrimSpace(sc.Text()); p != "" {
			paths = append(paths, p)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--files-from %s: %w", name, err)
	}
	return paths, nil
}

// prefixWriter starts every line with a prefix.
type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (p prefixWriter) Write(b []byte) (int, error) {
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line == "" {
			continue
		}
		if _, err := io.WriteString(p.w, p.prefix+line); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}
