package dwarfsite

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/dwarfbuf"
	"github.com/btfinline/btfinline/internal/elfobj"
	"golang.org/x/sync/errgroup"
)

// DWARF attributes gcc uses for location views (not in debug/dwarf).
const (
	attrGNULocviews  dwarf.Attr = 0x2137
	attrGNUEntryView dwarf.Attr = 0x2138
)

// maxWarnings bounds the warnings kept verbatim; all are counted.
const maxWarnings = 20

// ReleaseInterval is how often a reader of a whole object gives back the
// pages of the mapped file it read (elfobj.File.ReleaseEvery): a
// vmlinux's DWARF would otherwise stay resident (~200 MB), and what is
// still needed faults in again from the page cache.
const ReleaseInterval = 100 * time.Millisecond

// Options control ReadFile.
type Options struct {
	// Workers is the number of compilation units read in parallel;
	// <= 0 means GOMAXPROCS. The result does not depend on it.
	Workers int
	// Func and Caller, when set, keep only the sites whose inlined
	// function / containing function they accept.
	Func   func(name string) bool
	Caller func(name string) bool
	// ExcludeLanguages leaves out the compilation units of these
	// languages (LangName names): their inline sites are counted in
	// Stats.ExcludedSites, not read.
	ExcludeLanguages []string
	// Sink, when set, is given the sites of each compilation unit as
	// soon as the unit is read (unit: its index in the object), instead
	// of the Result holding them all: a consumer that keeps less than a
	// site.Site (the encoder) then never holds a vmlinux's 310,000 of
	// them. It is called from the reading goroutines, several at once,
	// in no set order; its sites are not interned across units, not
	// sorted and not counted (Result.Sites is nil, Stats.Counts zero),
	// and valid only during the call.
	Sink func(unit int, sites []site.Site)
	// ProbePoint chooses each site's address (probe.go); ProbeBlock needs
	// Text, which says what the object's bytes do not.
	ProbePoint ProbePoint
	Text       Text
	// AtBest also counts, in Stats.AtBest, what the best address of each
	// expansion could locate (bound.go): it reads every location list
	// again, so costs time, and changes no site.
	AtBest bool

	// noLaterFilter makes mayLocateLater pass every parameter it could
	// not rule out without looking (tests: the filter changes nothing).
	noLaterFilter bool
}

// Result is what ReadFile found.
type Result struct {
	Machine  elf.Machine
	Rel      bool // the object is ET_REL (a module)
	Sites    []site.Site
	Stats    Stats
	Warnings []string // the first few warnings; Stats.Warnings counts all
}

// Stats summarises a read. Params counts the parameters of the inlined
// functions over all sites (Site.Params without a varargs slot);
// ParamEntries counts the DW_TAG_formal_parameter entries directly under
// DW_TAG_inlined_subroutine entries, as llvm-dwarfdump shows them (gcc
// sometimes emits two entries for one parameter, and omits entries for
// parameters without a location, so the two counts differ).
type Stats struct {
	// Counts are what the sites show; the rest is what the reader saw.
	site.Counts
	Entries      int // DW_TAG_inlined_subroutine entries
	NoAddress    int // entries without any address (not a site)
	Filtered     int // sites dropped by Options.Func / Options.Caller
	ParamEntries int
	Warnings     int // entries or units skipped, relocations ignored
	// Resumed counts entries whose attributes could not be decoded and
	// after which the unit was read on from a DW_AT_sibling (of the entry,
	// or of the innermost enclosing entry that has one); LostSites counts
	// the inline sites whose entries were cut short by such a skip (sites
	// inside the skipped bytes cannot be told apart, so are not counted).
	Resumed   int
	LostSites int
	// ViewOnly counts parameters whose location came from an empty
	// address range that holds only at certain location views (gcc's
	// DW_AT_GNU_locviews): found only by matching the site's entry view.
	ViewOnly int
	// ExcludedUnits counts the units left out by language (LangName);
	// ExcludedSites the inlined subroutine entries in them.
	ExcludedUnits map[string]int
	ExcludedSites int
	// Moved counts the sites whose probe address ProbeBlock moved past
	// the entry pc (Site.Moved); NextView the sites whose entry pc
	// ProbeBlock located more parameters at through the binding view
	// (moveProbe).
	Moved    int
	NextView int
	// AtBest is the bound of Options.AtBest (bound.go; zero without it);
	// AtBestAnyLocation counts the sites each of whose parameters has a
	// location somewhere in the expansion, representable or not: the
	// bound were LOC_PARAM able to carry every DWARF location.
	AtBest            site.Counts
	AtBestAnyLocation int
}

type unitHdr struct {
	off     dwarf.Offset // unit header
	dieOff  dwarf.Offset // first DIE
	end     dwarf.Offset
	version int
	is64    bool
	asize   int
	utype   uint8
	abbrev  uint64 // .debug_abbrev offset
}

// parseUnits walks the unit headers of .debug_info.
func parseUnits(info []byte, order binary.ByteOrder) ([]unitHdr, error) {
	var us []unitHdr
	off := 0
	for off < len(info) {
		// Window offsets are section offsets.
		c := dwarfbuf.Make(".debug_info", order, 0, info)
		c.Skip(uint64(off))
		u := unitHdr{off: dwarf.Offset(off)}
		n := uint64(c.U32())
		if n == 0xffffffff {
			u.is64 = true
			n = c.U64()
		} else if n >= 0xfffffff0 {
			return us, &FormatError{Section: ".debug_info", Offset: int64(off), Msg: fmt.Sprintf("reserved unit length 0x%x", n)}
		}
		hdrEnd := c.Off()
		if c.Err() != nil || n > uint64(c.Left()) {
			return us, &FormatError{Section: ".debug_info", Offset: int64(off), Msg: "unit length past end of section"}
		}
		u.end = dwarf.Offset(hdrEnd + int(n))
		u.version = int(c.U16())
		switch {
		case u.version >= 5:
			u.utype = c.U8()
			u.asize = int(c.U8())
			if u.is64 {
				u.abbrev = c.U64()
			} else {
				u.abbrev = uint64(c.U32())
			}
			switch u.utype {
			case 0x02, 0x06: // type, split_type: signature + type offset
				c.U64()
				if u.is64 {
					c.U64()
				} else {
					c.U32()
				}
			case 0x04, 0x05: // skeleton, split_compile: dwo id
				c.U64()
			}
		case u.version >= 2:
			u.utype = 0x01
			if u.is64 {
				u.abbrev = c.U64()
			} else {
				u.abbrev = uint64(c.U32())
			}
			u.asize = int(c.U8())
		default:
			return us, &FormatError{Section: ".debug_info", Offset: int64(off), Msg: fmt.Sprintf("unsupported DWARF version %d", u.version)}
		}
		if c.Err() != nil || c.Off() > int(u.end) {
			return us, &FormatError{Section: ".debug_info", Offset: int64(off), Msg: "truncated unit header"}
		}
		u.dieOff = dwarf.Offset(c.Off())
		us = append(us, u)
		off = int(u.end)
	}
	return us, nil
}

// Object is the DWARF of an opened ELF file, loaded for reading its inline
// sites: the debug sections (relocated for ET_REL), the unit headers and a
// debug/dwarf view of them, made when first needed, which other readers of
// the same DWARF (the type converter of package dedup) share instead of
// loading it again.
type Object struct {
	o     *object
	units []unitHdr
	// The debug/dwarf view is made the first time a reader needs it:
	// the own decoders read every entry of a gcc-built kernel, and
	// dwarf.New parses every unit's abbreviation table, the largest
	// allocation of a vmlinux encode, before the first unit is read.
	dOnce sync.Once
	d     *dwarf.Data
	dErr  error
}

// ErrNoDWARF: the object has no .debug_info (built without debug
// information, or stripped), which is where inline sites are read from.
var ErrNoDWARF = errors.New("no DWARF (.debug_info), which the inline sites are read from: build with debug information and do not strip it (for a kernel, CONFIG_DEBUG_INFO_DWARF5 or _DWARF4)")

// Load reads the DWARF of f. f must stay open while the Object is used.
func Load(f *elfobj.File) (*Object, error) {
	o, syms, err := newObject(f)
	if err != nil {
		return nil, err
	}
	x, err := o.parse()
	// The symbols' error first: they were read first before they had a
	// goroutine of their own.
	if serr := syms(); serr != nil {
		return nil, serr
	}
	return x, err
}

// parse reads the unit headers and makes the debug/dwarf view of o's
// sections.
func (o *object) parse() (*Object, error) {
	info := o.debug[".debug_info"]
	if len(info) == 0 {
		return nil, ErrNoDWARF
	}
	units, err := parseUnits(info, o.order)
	if err != nil {
		return nil, err
	}
	// The walk touched a page at every unit header, and the kernel maps
	// the pages around each fault too: most of a vmlinux's .debug_info,
	// which need not stay resident until the reader's first release.
	if o.ef != nil {
		o.ef.Release()
	}
	o.goAbbrev, o.foreign = goAbbrevs(o.debug[".debug_abbrev"])
	return &Object{o: o, units: units}, nil
}

// Data is the debug/dwarf view of the object's DWARF, made on the first
// call (safe for concurrent use).
func (x *Object) Data() (*dwarf.Data, error) {
	x.dOnce.Do(func() {
		o := x.o
		d, err := dwarf.New(o.goAbbrev, nil, nil, o.debug[".debug_info"], o.debug[".debug_line"], nil, o.debug[".debug_ranges"], o.debug[".debug_str"])
		if err != nil {
			x.dErr = err
			return
		}
		for _, n := range []string{".debug_addr", ".debug_line_str", ".debug_str_offsets", ".debug_rnglists"} {
			if b := o.debug[n]; b != nil {
				if err := d.AddSection(n, b); err != nil {
					x.dErr = err
					return
				}
			}
		}
		// debug/dwarf fills in a unit's DWARF 5 base offsets the first
		// time a reader enters it; do that here, once, before its
		// readers run in parallel.
		pr := d.Reader()
		for _, u := range x.units {
			pr.Seek(u.dieOff)
		}
		x.d = d
	})
	return x.d, x.dErr
}

// unitOf returns the unit holding off, nil if none does.
func (x *Object) unitOf(off dwarf.Offset) *unitHdr {
	us := x.units
	i := sort.Search(len(us), func(i int) bool { return us[i].end > off })
	if i < len(us) && us[i].off <= off {
		return &us[i]
	}
	return nil
}

// ownDecoders says whether the own decoders read u's entries, or leave
// them to debug/dwarf: DWARF 4 or later with 4- or 8-byte addresses, in an
// object with no form debug/dwarf lacks (worker.unit says why).
func (x *Object) ownDecoders(u *unitHdr) bool {
	return !x.o.foreign && u.version >= 4 && (u.asize == 4 || u.asize == 8)
}

// lazyReader is a dwarf.Reader of x made on first use: most objects are
// read by the own decoders alone, and the debug/dwarf view costs a parse
// of every abbreviation table. When the view cannot be made, Next returns
// why and the other calls do nothing.
type lazyReader struct {
	x   *Object
	r   *dwarf.Reader
	err error
}

func (l *lazyReader) get() *dwarf.Reader {
	if l.r == nil && l.err == nil {
		d, err := l.x.Data()
		if err != nil {
			l.err = err
			return nil
		}
		l.r = d.Reader()
	}
	return l.r
}

// Seek is dwarf.Reader.Seek.
func (l *lazyReader) Seek(off dwarf.Offset) {
	if r := l.get(); r != nil {
		r.Seek(off)
	}
}

// Next is dwarf.Reader.Next.
func (l *lazyReader) Next() (*dwarf.Entry, error) {
	if r := l.get(); r != nil {
		return r.Next()
	}
	return nil, l.err
}

// SkipChildren is dwarf.Reader.SkipChildren.
func (l *lazyReader) SkipChildren() {
	if r := l.get(); r != nil {
		r.SkipChildren()
	}
}

// ReadFile reads the inline sites of the ELF object at path.
func ReadFile(path string, opt Options) (*Result, error) {
	f, err := elfobj.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	stop := f.ReleaseEvery(ReleaseInterval)
	defer stop()
	return read(path, f, opt)
}

// ReadBytes is ReadFile for an ELF object held in memory.
func ReadBytes(b []byte, opt Options) (*Result, error) {
	f, err := elfobj.New(b)
	if err != nil {
		return nil, err
	}
	return read("ELF", f, opt)
}

func read(path string, f *elfobj.File, opt Options) (*Result, error) {
	x, err := Load(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return x.Sites(opt)
}

// Sites reads every inline site, in parallel per compilation unit; the
// result does not depend on Options.Workers.
func (x *Object) Sites(opt Options) (*Result, error) {
	o, units := x.o, x.units
	if opt.ProbePoint == ProbeBlock {
		if opt.Text == nil {
			return nil, fmt.Errorf("probe point %v needs Options.Text", ProbeBlock)
		}
		if err := o.loadProbeText(); err != nil {
			return nil, err
		}
	} else if opt.ProbePoint != ProbeEntry {
		return nil, fmt.Errorf("unknown %v", opt.ProbePoint)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	perUnit := make([][]site.Site, len(units))
	perStats := make([]Stats, workers)
	perWarn := make([][]string, workers)
	var next atomic.Int64
	var g errgroup.Group
	for wi := 0; wi < workers; wi++ {
		w := newWorker(x, &opt)
		g.Go(func() error {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(units) {
					break
				}
				if opt.Sink != nil {
					opt.Sink(i, w.unit(&units[i]))
				} else {
					perUnit[i] = w.unit(&units[i])
				}
			}
			perStats[wi] = w.stats
			perWarn[wi] = w.warnings
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}

	res := &Result{Machine: o.f.Machine, Rel: o.rel}
	st := &res.Stats
	st.Warnings = o.relWarn
	if o.relWarn > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d relocations of unsupported types ignored", o.relWarn))
	}
	for wi := range perStats {
		s := &perStats[wi]
		st.Entries += s.Entries
		st.NoAddress += s.NoAddress
		st.Filtered += s.Filtered
		st.ParamEntries += s.ParamEntries
		st.Warnings += s.Warnings
		st.ViewOnly += s.ViewOnly
		st.Resumed += s.Resumed
		st.LostSites += s.LostSites
		st.Moved += s.Moved
		st.NextView += s.NextView
		addCounts(&st.AtBest, &s.AtBest)
		st.AtBestAnyLocation += s.AtBestAnyLocation
		st.ExcludedSites += s.ExcludedSites
		for l, n := range s.ExcludedUnits {
			if st.ExcludedUnits == nil {
				st.ExcludedUnits = map[string]int{}
			}
			st.ExcludedUnits[l] += n
		}
		for _, m := range perWarn[wi] {
			if len(res.Warnings) < maxWarnings {
				res.Warnings = append(res.Warnings, m)
			}
		}
	}
	// Warnings are collected per worker; sort the kept ones so the
	// message list does not depend on scheduling.
	sort.Strings(res.Warnings)
	if opt.Sink != nil {
		return res, nil
	}
	n := 0
	for _, s := range perUnit {
		n += len(s)
	}
	res.Sites = make([]site.Site, 0, n)
	for i := range perUnit {
		res.Sites = append(res.Sites, perUnit[i]...)
		perUnit[i] = nil
	}
	internFuncs(res.Sites)
	site.Sort(res.Sites)
	res.Stats.Counts = site.Count(res.Sites)
	return res, nil
}

// internFuncs makes sites of the same function (same name, declaration
// and prototype, seen from different compilation units) share one *Func.
func internFuncs(sites []site.Site) {
	m := make(map[string]*site.Func)
	for i := range sites {
		f := sites[i].Func
		k := f.Key()
		if g, ok := m[k]; ok {
			sites[i].Func = g
		} else {
			m[k] = f
		}
	}
}

// Counter counts the sites given to Add, as site.Count counts a Result's
// (its functions interned across units as Sites interns them), without
// keeping them: its Add is an Options.Sink, so that statistics of a
// vmlinux never hold its sites.
type Counter struct {
	keep  func(*site.Site) bool
	mu    sync.Mutex
	c     site.Counts
	funcs map[string]bool
}

// NewCounter counts the sites for which keep is true (nil: all).
func NewCounter(keep func(*site.Site) bool) *Counter {
	return &Counter{keep: keep, c: site.Counts{Reasons: map[string]int{}}, funcs: map[string]bool{}}
}

// Add counts the sites of one unit; several goroutines may call it. The
// unit is counted before the lock is taken, and each of its functions
// spelled once (its sites share their *Func).
func (c *Counter) Add(_ int, sites []site.Site) {
	var unit site.Counts
	funcs := map[*site.Func]bool{}
	for i := range sites {
		s := &sites[i]
		if c.keep != nil && !c.keep(s) {
			continue
		}
		unit.Add(s)
		funcs[s.Func] = true
	}
	keys := make([]string, 0, len(funcs))
	for f := range funcs {
		keys = append(keys, f.Key())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	addCounts(&c.c, &unit)
	for _, k := range keys {
		c.funcs[k] = true
	}
}

// Counts is what Add counted.
func (c *Counter) Counts() site.Counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.c
	st.Functions = len(c.funcs)
	return st
}
