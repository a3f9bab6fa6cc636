package cmd

// "btfinline encode" reads the inline sites of a vmlinux or module from its
// DWARF and writes them as split BTF (.BTF.inline) on the object's own .BTF:
// a detached raw file with -o, or an ELF section with --elf-section.

import (
	"debug/elf"
	"errors"
	"fmt"
	"github.com/btfinline/btfinline/site"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"time"

	"github.com/btfinline/btfinline/btf"
	"github.com/btfinline/btfinline/dedup"
	"github.com/btfinline/btfinline/dwarfsite"
	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/elfwrite"
	"github.com/btfinline/btfinline/locsec"
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
}

var encodeOpts encodeOptions

var encodeCmd = &cobra.Command{
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
  -q, --quiet      no summary on stderr
  -v, --verbose    add the time spent reading, encoding and in total

The summary on stderr counts sites, added FUNC, FUNC_PROTO, LOC_PARAM,
LOC_PROTO types, LOCSEC entries, types the base lacked, and the bytes
written per site.`,
	Args: cobra.ExactArgs(1),
	RunE: func(c *cobra.Command, args []string) error {
		return runEncode(c.ErrOrStderr(), args[0], &encodeOpts)
	},
}

func init() {
	f := encodeCmd.Flags()
	f.StringArrayVarP(&encodeOpts.bases, "base-btf", "B", nil, "base BTF (repeatable: first is the root, vmlinux)")
	f.StringVar(&encodeOpts.baseBTF, "base", "", "base BTF of FILE's .BTF (vmlinux .btf for a module)")
	f.StringVarP(&encodeOpts.out, "output", "o", "", "write detached BTF to this file")
	f.BoolVar(&encodeOpts.elfSection, "elf-section", false, "write FILE's .BTF.inline section in place")
	f.BoolVar(&encodeOpts.force, "force", false, "replace a different existing .BTF.inline")
	f.IntVar(&encodeOpts.workers, "workers", 0, "parallel workers (default: number of CPUs)")
	f.BoolVarP(&encodeOpts.verbose, "verbose", "v", false, "also print timings")
	f.BoolVarP(&encodeOpts.quiet, "quiet", "q", false, "no summary")
	addCommand(encodeCmd)
}

// EncodeResult is what Encode produced, for the command and for tests.
type EncodeResult struct {
	Data    []byte
	Stats   locsec.Stats
	Sites   []site.Site // as the DWARF reader returned them
	Base    *btf.Spec   // FILE's own .BTF (on its chain)
	Spec    *btf.Spec   // the encoded inline BTF
	Timings [4]time.Duration
	// KindBytes is the record bytes per kind in Data; the rest is
	// strings (StrBytes) and the header and layout section.
	KindBytes map[btf.Kind]int
	StrBytes  int
}

// sizeByKind splits an encoded Spec's bytes by kind, for the verbose
// summary: it shows where the bytes per site go (docs/encoding.md).
func sizeByKind(s *btf.Spec) map[btf.Kind]int {
	m := map[btf.Kind]int{}
	for _, t := range s.Types() {
		m[t.Kind()] += 12 + 4*len(t.Data)
	}
	return m
}

// EncodeFile encodes the inline sites of path on the base chain bases
// (paths, root first).
func EncodeFile(path string, bases []string, workers int) (*EncodeResult, error) {
	t0 := time.Now()
	// Structure and BTF first: cheap, and the errors users hit most.
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if !btf.IsELF(path) {
		return nil, fmt.Errorf("%s: not an ELF file (encode reads a vmlinux or a .ko with DWARF)", path)
	}
	f, err := elfobj.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := f.CheckSections(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var chain *btf.Spec
	for _, b := range bases {
		if chain, err = btf.LoadFile(b, chain); err != nil {
			return nil, err
		}
	}
	if f.Section(".BTF") == nil {
		return nil, fmt.Errorf("%s: no .BTF section: encode needs the object's BTF as base (pahole -J, CONFIG_DEBUG_INFO_BTF)", path)
	}
	if f.Type == elf.ET_REL && chain == nil {
		return nil, fmt.Errorf("%s: a module's .BTF is split on vmlinux's: give the vmlinux with -B VMLINUX or --base VMLINUX.btf", path)
	}
	own, err := btf.LoadELFSection(f.File, ".BTF", chain)
	if err != nil {
		if chain != nil {
			return nil, fmt.Errorf("%s: .BTF does not load on the given base (built against another vmlinux?): %w", path, err)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t1 := time.Now()

	dw, err := dwarfsite.Load(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	res, err := dw.Sites(dwarfsite.Options{Workers: workers})
	if err != nil {
		return nil, err
	}
	t2 := time.Now()

	dst := btf.NewSpec(own)
	conv := dedup.New(dw.Data(), dst)
	ptr := uint32(8)
	if f.Class == elf.ELFCLASS32 {
		ptr = 4
	}
	st, err := locsec.Encode(res.Sites, dst, conv, locsec.Options{AddrBase: locsec.ObjectBase(f.File), PtrSize: ptr})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if os.Getenv("BTFI_DEBUG_DEDUP") != "" {
		fmt.Fprintf(os.Stderr, "dedup: %d resolved, %d added\n", conv.Resolved(), conv.Added())
	}
	if err := checkBaseMatch(path, conv, chain != nil); err != nil {
		return nil, err
	}
	if errs := dst.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("%s: encoded BTF fails validation (%d violations), first: %w", path, len(errs), errs[0])
	}
	data, err := dst.Marshal(btf.MarshalOptions{Layout: !own.ChainHasLayout()})
	if err != nil {
		return nil, err
	}
	t3 := time.Now()
	return &EncodeResult{Data: data, Stats: st, Sites: res.Sites, Base: own, Spec: dst,
		KindBytes: sizeByKind(dst), StrBytes: dst.StringsLen(),
		Timings: [4]time.Duration{t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t3.Sub(t0)}}, nil
}

// checkBaseMatch: kernel BTF is produced by pahole from the same DWARF, so
// every prototype type has an equivalent in the base chain (none is missing
// for the Debian vmlinux and modules). One in ten missing means the base
// belongs to another build.
func checkBaseMatch(path string, conv *dedup.Converter, split bool) error {
	resolved, added := conv.Resolved(), conv.Added()
	if added > 0 && added*10 >= resolved {
		hint := "the object's .BTF was not generated from this DWARF"
		if split {
			hint = "the .BTF was built against another vmlinux, or -B names the wrong one"
		}
		return fmt.Errorf("%s: base BTF does not match the DWARF: %d of %d prototype types have no equivalent in the base chain (%s)", path, added, resolved, hint)
	}
	return nil
}

func runEncode(stderr io.Writer, path string, o *encodeOptions) error {
	if (o.out == "") == !o.elfSection {
		return errors.New("encode: give exactly one of -o OUT and --elf-section")
	}
	bases := append([]string(nil), o.bases...)
	if o.baseBTF != "" {
		bases = append([]string{o.baseBTF}, bases...)
	}
	r, err := EncodeFile(path, bases, o.workers)
	if err != nil {
		return err
	}
	// Rewriting a vmlinux holds two copies of it: give back the sites
	// and types first.
	r.Sites, r.Spec, r.Base = nil, nil, nil
	debug.FreeOSMemory()
	if o.out != "" {
		if in, err := os.Stat(path); err == nil {
			if out, err := os.Stat(o.out); err == nil && os.SameFile(in, out) {
				return fmt.Errorf("%s: -o names the input file; use --elf-section to add .BTF.inline to it", o.out)
			}
		}
		if err := writeFileAtomic(o.out, r.Data); err != nil {
			return err
		}
	} else {
		res, err := elfwrite.SetSection(path, ".BTF.inline", r.Data, elfwrite.Options{Replace: o.force})
		if errors.Is(err, elfwrite.ErrExists) {
			return fmt.Errorf("%s: has a different .BTF.inline section; use --force to replace it", path)
		}
		if err != nil {
			return err
		}
		if !o.quiet {
			switch {
			case res.Unchanged:
				fmt.Fprintf(stderr, "%s: .BTF.inline unchanged\n", path)
			case res.Replaced:
				fmt.Fprintf(stderr, "%s: .BTF.inline replaced\n", path)
			}
		}
	}
	if !o.quiet {
		printEncodeSummary(stderr, r, o.verbose)
	}
	return nil
}

func printEncodeSummary(w io.Writer, r *EncodeResult, timings bool) {
	st := r.Stats
	per := 0.0
	if st.Entries > 0 {
		per = float64(len(r.Data)) / float64(st.Entries)
	}
	fmt.Fprintf(w, "sites: %d (%d LOCSEC entries in %d LOCSEC, %d duplicates dropped)\n", st.Sites, st.Entries, st.LocSecs, st.Duplicates)
	fmt.Fprintf(w, "added: FUNC %d (%d reused from base), FUNC_PROTO %d, LOC_PARAM %d, LOC_PROTO %d, base-less types %d\n",
		st.Funcs, st.FuncsReused, st.FuncProtos, st.LocParams, st.LocProtos, st.BaseTypes)
	fmt.Fprintf(w, "parameters without location: %d (%d not encodable)\n", st.Unavailable, st.Unencodable)
	fmt.Fprintf(w, "total: %d bytes, %.2f bytes per site\n", len(r.Data), per)
	if st.Entries == 0 {
		fmt.Fprintln(w, "note: no inline sites: the output holds no LOCSEC")
	}
	if timings {
		kb := r.KindBytes
		other := len(r.Data) - r.StrBytes
		for _, n := range kb {
			other -= n
		}
		var rest []string
		for k, n := range kb {
			switch k {
			case btf.KindLocSec, btf.KindFunc, btf.KindFuncProto, btf.KindLocParam, btf.KindLocProto:
			default:
				rest = append(rest, fmt.Sprintf("%s %d", k, n))
			}
		}
		sort.Strings(rest)
		fmt.Fprintf(w, "bytes: LOCSEC %d, FUNC %d, FUNC_PROTO %d, LOC_PARAM %d, LOC_PROTO %d, strings %d, header and layout %d",
			kb[btf.KindLocSec], kb[btf.KindFunc], kb[btf.KindFuncProto], kb[btf.KindLocParam], kb[btf.KindLocProto], r.StrBytes, other)
		for _, x := range rest {
			fmt.Fprintf(w, ", %s", x)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "time: open+BTF %v, DWARF sites %v, encode %v, total %v\n",
			r.Timings[0].Round(time.Millisecond), r.Timings[1].Round(time.Millisecond),
			r.Timings[2].Round(time.Millisecond), r.Timings[3].Round(time.Millisecond))
	}
}

// writeFileAtomic writes data to path through a synced temporary file in
// the same directory, renamed over path: a failed write leaves path as it
// was.
func writeFileAtomic(path string, data []byte) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		// A device or pipe (/dev/stdout, /dev/full): write into it.
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		return f.Close()
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}
