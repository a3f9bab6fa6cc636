// Package encode owns the encode pipeline: a vmlinux or module's DWARF
// inline sites (package dwarfsite) with their prototypes' types converted
// against the object's own .BTF (package dedup) and written as LOC_PARAM,
// LOC_PROTO and LOCSEC records (package locsec) into a validated split BTF
// blob, .BTF.inline; and writing that blob, as a detached file or as an
// ELF section, atomically.
//
// It imports btf, site, dwarfsite, dedup, locsec, kprobe (the patch
// tables a moved probe must respect) and the internal ELF packages; only
// the command line imports it.
package encode

import (
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/btfinline/btfinline/internal/atomicfile"
	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/btfindex"
	"github.com/btfinline/btfinline/internal/dedup"
	"github.com/btfinline/btfinline/internal/dwarfsite"
	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/elfwrite"
	"github.com/btfinline/btfinline/internal/kprobe"
	"github.com/btfinline/btfinline/internal/locsec"
	"github.com/btfinline/btfinline/internal/site"
	"golang.org/x/sync/errgroup"
)

// The DWARF reader's EntryReader reads types for the converter without
// boxing (dedup falls back to Next for a Reader that is not one).
var _ dedup.TypeReader = (*dwarfsite.EntryReader)(nil)

// Result is what File produced.
type Result struct {
	Data  []byte
	Stats locsec.Stats
	DWARF dwarfsite.Stats // what the DWARF reader saw (units left out among it; no Counts)
	Base  *btf.Spec       // FILE's own .BTF (on its chain)
	Spec  *btf.Spec       // the encoded inline BTF
	// Timings are the open, the DWARF read (the base chain and the
	// object's .BTF are loaded and indexed alongside, and most
	// prototypes' types converted), the encode and the total.
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

// Defaults are the options of "btfinline encode" without flags, which
// the lookup chain encodes with too: Rust units left out, as kbuild runs
// pahole, and probes at the block probe point.
func Defaults() Options {
	return Options{ExcludeLanguages: []string{"rust"}, ProbePoint: dwarfsite.ProbeBlock}
}

// Options steer File.
type Options struct {
	// Bases is the base chain of the object's .BTF, root first: for a
	// module the vmlinux (an ELF or a raw BTF file).
	Bases []string
	// Base is the same chain loaded and indexed once (LoadBase), for
	// encoding many objects on it; it replaces Bases.
	Base *Base
	// Workers is how many compilation units are read in parallel (0: one
	// per CPU); the output does not depend on it.
	Workers int
	// ExcludeLanguages leaves out the compilation units of these source
	// languages (dwarfsite.LangName names). A kernel's .BTF has no Rust
	// types (kbuild runs pahole with --lang_exclude=rust), so the command
	// line leaves Rust out by default.
	ExcludeLanguages []string
	// ProbePoint chooses each site's address: the entry pc (the zero
	// value) or dwarfsite.ProbeBlock, which the command line defaults to,
	// with the kprobe rules of the object's own tables as its Text.
	ProbePoint dwarfsite.ProbePoint
}

// Base is a base chain (a vmlinux for modules) loaded once, with the
// index the type converter and the LOCSEC encoder look records up in,
// shared by every File on it: a batch of modules pays for vmlinux once.
// It is safe for concurrent use.
type Base struct {
	Paths []string
	spec  *btf.Spec // the last of the chain
	index *btfindex.Index
}

// LoadBase loads the base chain at paths, root first, and indexes it.
func LoadBase(paths []string) (*Base, error) {
	b := &Base{Paths: paths}
	for _, p := range paths {
		var err error
		if b.spec, err = btf.LoadFile(p, b.spec); err != nil {
			return nil, err
		}
	}
	if b.spec != nil {
		b.index = btfindex.Chain(b.spec)
	}
	return b, nil
}

// Spec returns the last BTF of the chain (nil for an empty chain).
func (b *Base) Spec() *btf.Spec { return b.spec }

// File encodes the inline sites of the vmlinux or module at path as split
// BTF on the object's own .BTF: it reads the sites from the DWARF, finds
// or adds the types of their prototypes, and returns the validated blob.
// The file is opened and mapped once.
func File(path string, o Options) (*Result, error) {
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
	stop := f.ReleaseEvery(dwarfsite.ReleaseInterval)
	defer stop()
	// The base chain, the object's own .BTF and the indexes of both are
	// loaded and built while the DWARF is read: for a small module they
	// are most of the work (a vmlinux's 95,000 types parsed and indexed).
	// Their errors, the ones users hit most, still come first.
	base := o.Base
	var early error
	if f.Section(".BTF") == nil {
		early = fmt.Errorf("%s: no .BTF section: encode needs the object's BTF as base (pahole -J, CONFIG_DEBUG_INFO_BTF)", path)
	} else if f.Type == elf.ET_REL && (base == nil && len(o.Bases) == 0 || base != nil && base.spec == nil) {
		early = fmt.Errorf("%s: a module's .BTF is split on vmlinux's: give the vmlinux with -B VMLINUX or --base VMLINUX.btf", path)
	}
	var own *btf.Spec
	var index *btfindex.Index
	loaded := make(chan struct{}) // closed when own and index are set
	var loading errgroup.Group
	loading.Go(func() (err error) {
		if base == nil {
			b := &Base{Paths: o.Bases}
			for _, p := range o.Bases {
				if b.spec, err = btf.LoadFile(p, b.spec); err != nil {
					return err
				}
			}
			base = b
		}
		if early != nil {
			return nil
		}
		chain := base.spec
		if own, err = btf.LoadObjectSection(f, ".BTF", chain); err != nil {
			if chain != nil {
				return fmt.Errorf("%s: .BTF does not load on the given base (built against another vmlinux?): %w", path, err)
			}
			return fmt.Errorf("%s: %w", path, err)
		}
		if o.Base == nil && chain != nil {
			base.index = btfindex.Chain(chain)
		}
		index = btfindex.New(own, base.index)
		close(loaded)
		return nil
	})
	if early != nil {
		if err := loading.Wait(); err != nil {
			return nil, err
		}
		return nil, early
	}
	t1 := time.Now()

	// The probe-point rules (symbols, patched regions) are read
	// alongside too: only the block probe point needs them, and the site
	// reader needs them first.
	var rules *kprobe.Rules
	var ruling errgroup.Group
	ruling.Go(func() (err error) {
		if o.ProbePoint == dwarfsite.ProbeBlock {
			rules, err = kprobe.ForELF(f)
		}
		return err
	})
	// The sites go to the encoder unit by unit, kept in its compact form
	// only.
	sites := locsec.NewBuilder()
	dw, err := dwarfsite.Load(f)
	if rerr := ruling.Wait(); err == nil {
		err = rerr
	}
	var res *dwarfsite.Result
	// The converter of the prototypes' types, on the object's .BTF.
	var dst *btf.Spec
	var conv *dedup.Converter
	newConverter := func() *dedup.Converter {
		dst = btf.NewSpec(own)
		// The converter reads 930,000 DIEs of a vmlinux: with the DWARF
		// reader's own decoder, no Entry, Field slice or boxed value is
		// allocated each, and no debug/dwarf view is made unless an entry
		// needs it.
		conv = dedup.NewOn(nil, dst, index)
		conv.SetReaders(func() dedup.Reader { return dw.EntryReaderOf(dedup.Attrs...) })
		return conv
	}
	types := &unitTypes{loaded: loaded, newConverter: newConverter, workers: workers(o.Workers)}
	if err != nil {
		err = fmt.Errorf("%s: %w", path, err)
	} else {
		sink := sites.Add
		if types.workers > 1 {
			sink = func(unit int, s []site.Site) { types.convert(sites.AddNew(unit, s)) }
		}
		sopt := dwarfsite.Options{Workers: o.Workers, ExcludeLanguages: o.ExcludeLanguages, Sink: sink, ProbePoint: o.ProbePoint}
		if rules != nil {
			sopt.Text = rules
		}
		res, err = dw.Sites(sopt)
	}
	if lerr := loading.Wait(); lerr != nil {
		return nil, lerr
	}
	if err != nil {
		return nil, err
	}
	chain := base.spec
	t2 := time.Now()

	if conv == nil {
		newConverter()
	}
	conv.Absorb(types.probes...)
	ptr := uint32(8)
	if f.Class == elf.ELFCLASS32 {
		ptr = 4
	}
	st, err := sites.Encode(dst, conv, locsec.Options{AddrBase: locsec.ObjectBaseOf(f), PtrSize: ptr, Base: index, Workers: workers(o.Workers)})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkBaseMatch(path, conv, chain != nil); err != nil {
		return nil, err
	}
	// Both only read dst: the blob is made while it is validated.
	var errs []error
	var validating sync.WaitGroup
	validating.Go(func() { errs = dst.Validate() })
	data, err := dst.Marshal(btf.MarshalOptions{Layout: !own.ChainHasLayout()})
	validating.Wait()
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: encoded BTF fails validation (%d violations), first: %w", path, len(errs), errs[0])
	}
	if err != nil {
		return nil, err
	}
	t3 := time.Now()
	return &Result{Data: data, Stats: st, DWARF: res.Stats, Base: own, Spec: dst,
		KindBytes: sizeByKind(dst), StrBytes: dst.StringsLen(),
		Timings: [4]time.Duration{t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t3.Sub(t0)}}, nil
}

// unitTypes converts, as each unit is read, the types of the functions
// that the unit brings first, on the goroutine that read it: the unit's
// type DIEs were just read, and the workers do it beside the DWARF read
// instead of after it. It starts once the object's BTF is loaded; what it
// misses (units read before, a lower unit's copy of a function met later)
// the encoder's Prefetch converts after, and the ids are the same
// whichever converts them (dedup.Converter.Prefetch).
type unitTypes struct {
	loaded       <-chan struct{}
	newConverter func() *dedup.Converter
	workers      int

	once   sync.Once
	probes []*dedup.Probe
	free   chan *dedup.Probe
}

func (u *unitTypes) convert(fs []*site.Func) {
	if len(fs) == 0 {
		return
	}
	select {
	case <-u.loaded:
	default:
		return
	}
	u.once.Do(func() {
		conv := u.newConverter()
		u.free = make(chan *dedup.Probe, u.workers)
		for range u.workers {
			p := conv.NewProbe()
			u.probes = append(u.probes, p)
			u.free <- p
		}
	})
	var offs []dwarf.Offset
	for _, f := range fs {
		offs = locsec.AppendTypeOffs(offs, f)
	}
	p := <-u.free
	p.Convert(offs)
	u.free <- p
}

// checkBaseMatch: kernel BTF is produced by pahole from the same DWARF, so
// every prototype type has an equivalent in the base chain (none is missing
// for the Debian vmlinux and modules). One in ten missing means the base
// belongs to another build.
func checkBaseMatch(path string, conv *dedup.Converter, split bool) error {
	resolved, added := conv.Asked()
	if added > 0 && added*10 >= resolved {
		hint := "the object's .BTF was not generated from this DWARF"
		if split {
			hint = "the .BTF was built against another vmlinux, or -B names the wrong one"
		}
		return fmt.Errorf("%s: base BTF does not match the DWARF: %d of %d prototype types have no equivalent in the base chain (%s)", path, added, resolved, hint)
	}
	return nil
}

// Output says where Write puts the encoded BTF: a detached raw file (Path),
// or the object's own .BTF.inline section (ELFSection, replacing a
// different one only with Force).
type Output struct {
	Path       string
	ELFSection bool
	Force      bool
}

// Check reports an Output that names no place or two.
func (o Output) Check() error {
	if (o.Path == "") == !o.ELFSection {
		return errors.New("encode: give exactly one of -o OUT and --elf-section")
	}
	return nil
}

// Write writes r.Data for the object at path as o says, atomically: on
// error nothing is changed. The note says what happened to an existing
// section ("" when there was none).
func Write(path string, data []byte, o Output) (note string, err error) {
	if err := o.Check(); err != nil {
		return "", err
	}
	if o.Path != "" {
		if in, err := os.Stat(path); err == nil {
			if out, err := os.Stat(o.Path); err == nil && os.SameFile(in, out) {
				return "", fmt.Errorf("%s: -o names the input file; use --elf-section to add .BTF.inline to it", o.Path)
			}
		}
		return "", atomicfile.Write(o.Path, data)
	}
	res, err := elfwrite.SetSection(path, ".BTF.inline", data, elfwrite.Options{Replace: o.Force})
	if errors.Is(err, elfwrite.ErrExists) {
		return "", fmt.Errorf("%s: has a different .BTF.inline section; use --force to replace it", path)
	}
	if err != nil {
		return "", err
	}
	switch {
	case res.Unchanged:
		return path + ": .BTF.inline unchanged", nil
	case res.Replaced:
		return path + ": .BTF.inline replaced", nil
	}
	return "", nil
}

// WriteSummary writes what was encoded, for a person: sites, records
// added, bytes per site; with timings the bytes by kind and the time of
// each step.
func (r *Result) WriteSummary(w io.Writer, timings bool) {
	st := r.Stats
	per := 0.0
	if st.Entries > 0 {
		per = float64(len(r.Data)) / float64(st.Entries)
	}
	fmt.Fprintf(w, "sites: %d (%d LOCSEC entries in %d LOCSEC, %d duplicates dropped)\n", st.Sites, st.Entries, st.LocSecs, st.Duplicates)
	fmt.Fprintf(w, "added: FUNC %d (%d reused from base), FUNC_PROTO %d, LOC_PARAM %d, LOC_PROTO %d, base-less types %d\n",
		st.Funcs, st.FuncsReused, st.FuncProtos, st.LocParams, st.LocProtos, st.BaseTypes)
	fmt.Fprintf(w, "parameters without location: %d (%d not encodable)\n", st.Unavailable, st.Unencodable)
	for _, l := range slices.Sorted(maps.Keys(r.DWARF.ExcludedUnits)) {
		fmt.Fprintf(w, "left out: %d %s compilation unit(s) (--lang-exclude)\n", r.DWARF.ExcludedUnits[l], l)
	}
	if r.DWARF.ExcludedSites > 0 {
		fmt.Fprintf(w, "left out: %d inline sites in them\n", r.DWARF.ExcludedSites)
	}
	if st.SkippedFuncs > 0 {
		fmt.Fprintf(w, "skipped: %d functions (%d sites) that BTF cannot carry, e.g. %s\n", st.SkippedFuncs, st.SkippedSites, st.Skipped)
	}
	fmt.Fprintf(w, "total: %d bytes, %.2f bytes per site\n", len(r.Data), per)
	if st.Entries == 0 {
		fmt.Fprintln(w, "note: no inline sites: the output holds no LOCSEC")
	}
	if timings {
		r.WriteBytes(w)
		fmt.Fprintf(w, "time: open %v, DWARF sites (BTF loaded and types converted alongside) %v, encode %v, total %v\n",
			r.Timings[0].Round(time.Millisecond), r.Timings[1].Round(time.Millisecond),
			r.Timings[2].Round(time.Millisecond), r.Timings[3].Round(time.Millisecond))
	}
}

// WriteBytes writes where the bytes go: records by kind, strings, header
// and layout section (docs/encoding.md, "Size").
func (r *Result) WriteBytes(w io.Writer) {
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
}

// workers is a count of goroutines (Options.Workers, BatchOptions.Jobs)
// with 0 resolved to one per CPU.
func workers(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}
