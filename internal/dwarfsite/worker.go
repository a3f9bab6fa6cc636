package dwarfsite

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"slices"

	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/chunk"
	"github.com/btfinline/btfinline/internal/dwarfbuf"
	"github.com/btfinline/btfinline/internal/insn"
)

// maxOriginHops bounds DW_AT_abstract_origin / DW_AT_specification
// chains, so that a cycle in corrupt DWARF ends with an error.
const maxOriginHops = 16

// maxTypeDepth bounds type spelling recursion (corrupt type cycles).
const maxTypeDepth = 48

// worker reads compilation units one at a time. It owns its readers and
// caches; everything it shares (object, dwarf.Data, units) is read-only.
type worker struct {
	x   *Object
	o   *object
	opt *Options
	cu  *EntryReader // reads the units' own entries
	r   *lazyReader  // debug/dwarf, for entries the own decoders leave
	lk  *lazyReader  // the same, seeking to referenced entries

	funcs map[dwarf.Offset]*funcInfo
	types map[dwarf.Offset]*typeInfo
	files map[dwarf.Offset]*unitFiles // file tables by unit offset
	// paths are the paths spell made, by directory and name, npaths
	// of them.
	paths  map[string]map[string]string
	npaths int
	// abbrevs caches abbreviation tables by offset, for abbrevAt.
	abbrevs map[uint64]*abbrevTable

	// The unit being read.
	u            *unitHdr
	cuBase       uint64
	rngBase      uint64 // base address of range lists: entry_pc, else low_pc
	locBase      int64
	rngListsBase int64 // DW_AT_rnglists_base: DW_FORM_rnglistx's offset table
	addrBase     int64
	fmt          exprFormat

	stats    Stats
	warnings []string
	buf      []site.Site // the sites of a unit, with Options.Sink
	// paramBuf holds the parameter locations of a unit's sites, with
	// Options.Sink (valid only during its call, like buf): reused from
	// unit to unit instead of a slice per site.
	paramBuf []site.Location
	// flows caches what moveProbe decoded of functions (probe.go).
	flows map[uint64]*fnFlow
	// blockCandidates' results, reused from site to site: moveProbe
	// keeps neither.
	cands []uint64
	insts []insn.Inst
	locs  []site.Location // moveProbe's evaluation of a candidate
	// paramList's lists: read into listScratch, kept in lists until the
	// unit is read (its sites are finished by then).
	listScratch []locEntry
	lists       chunk.Pool[locEntry]
	// rngs holds the unit's sites' range lists (ps.ranges, and
	// site.Ranges for a Sink), read into rngScratch first.
	rngs       chunk.Pool[[2]uint64]
	rngScratch [][2]uint64
	// funcAt's: the unit's funcInfos and their slices (pools), and the
	// scratch a function's parameters are read into.
	fis             chunk.Pool[funcInfo]
	fiOffs          chunk.Pool[dwarf.Offset]
	fiSizes         chunk.Pool[int64]
	fiSigned        chunk.Pool[bool]
	fpParams        []site.Param
	fpOffs, fpTypes []dwarf.Offset
	fpSizes         []int64
	fpSigned        []bool
	// ll is the unit's location list section (llSet: looked up).
	ll    *locListSec
	llSet bool
	// addrxFn is w.addrx, made once: a method value allocates each time,
	// and one is handed to every location evaluated.
	addrxFn func(idx uint64) (uint64, bool)
	// tab is the unit's abbreviation table, its memory reused by the next
	// unit.
	tab abbrevTable
	// look reads the entries funcAt and typeAt refer to (look.go);
	// fastLook: with the worker's own decoder, in the unit being read.
	look     lookReader
	fastLook bool
	// spare are pendingSites done with, for newSite (their params'
	// memory kept).
	spare []*pendingSite
	// attrs is the entry being read (siteAttrsAt).
	attrs siteAttrs
	// str and lineStr are .debug_str and .debug_line_str (readValue).
	str, lineStr string
	// ins is decodeExpr's buffer for exprLoc, which keeps no instruction.
	ins []instr
	// stack is the expression evaluation stack of paramEnv's envs.
	stack []sval
	mp    probeScratch
	// symEval's instructions and stack, reused from call to call.
	symIns   []instr
	symStack []insn.Value
}

type funcInfo struct {
	fn *site.Func
	// paramOffs are the abstract parameter entries, by index: a
	// function has a few, and a scan beats a map per function.
	paramOffs []dwarf.Offset
	sizes     []int64 // byte size of each parameter's type
	signed    []bool
}

type typeInfo struct {
	name   string // ct spelled in C
	ct     *site.CType
	size   int64 // -1 if unknown
	signed bool
}

// pendingSite is an inlined subroutine whose children are being read.
type pendingSite struct {
	site   *site.Site
	fi     *funcInfo
	addr   uint64 // layout address of the probe point
	view   uint64
	ranges [][2]uint64 // layout addresses
	params []paramEntry
	// The memory of site and of a single range: a pendingSite is reused
	// once its site is appended (worker.spare), so neither is allocated
	// per site.
	siteVal site.Site
	one     [1][2]uint64
}

type paramEntry struct {
	off    dwarf.Offset
	origin dwarf.Offset
	name   string
	loc    attrVal // DW_AT_location
	cval   attrVal // DW_AT_const_value
	views  int64
	// The location list, read once: ProbeBlock evaluates it at every
	// candidate address of the site (list: 1 read, 2 unreadable).
	list     []locEntry
	listRead uint8
	memo     exprMemo
}

type frame struct {
	ps      *pendingSite // non-nil for an inlined subroutine (even one skipped)
	sibling uint64       // DW_AT_sibling of the entry, 0 if none
}

func newWorker(x *Object, opt *Options) *worker {
	w := &worker{
		x: x, o: x.o, opt: opt,
		cu: x.EntryReader(), r: &lazyReader{x: x}, lk: &lazyReader{x: x},
		lists:    chunk.Pool[locEntry]{Min: listChunkLen},
		rngs:     chunk.Pool[[2]uint64]{Min: rangeChunkLen},
		fis:      chunk.Pool[funcInfo]{Min: 256},
		fiOffs:   chunk.Pool[dwarf.Offset]{Min: 1024},
		fiSizes:  chunk.Pool[int64]{Min: 1024},
		fiSigned: chunk.Pool[bool]{Min: 1024},
		funcs:    make(map[dwarf.Offset]*funcInfo),
		types:    make(map[dwarf.Offset]*typeInfo),
		files:    make(map[dwarf.Offset]*unitFiles),
		abbrevs:  make(map[uint64]*abbrevTable),
	}
	w.addrxFn = w.addrx
	w.str, w.lineStr = x.o.str, x.o.lineStr
	w.look.w = w
	return w
}

// unitEntry decodes u's own entry, valid until the next call.
func (w *worker) unitEntry(u *unitHdr) (*dwarf.Entry, error) {
	if !w.o.foreign {
		w.cu.Seek(u.dieOff)
		return w.cu.Next()
	}
	w.r.Seek(u.dieOff)
	return w.next(w.r)
}

// entryAt decodes the entry at off with debug/dwarf.
func (w *worker) entryAt(off dwarf.Offset) *dwarf.Entry {
	w.r.Seek(off)
	e, err := w.next(w.r)
	if err != nil || e == nil {
		w.warn(".debug_info+0x%x: entry skipped: %v", off, err)
		return nil
	}
	return e
}

func (w *worker) warn(format string, args ...any) {
	w.stats.Warnings++
	if len(w.warnings) < maxWarnings {
		w.warnings = append(w.warnings, fmt.Sprintf(format, args...))
	}
}

// unit reads one compilation unit and returns its sites.
func (w *worker) unit(u *unitHdr) []site.Site {
	if u.utype != 0x01 && u.utype != 0x03 { // compile, partial
		return nil
	}
	// Caches are per unit: gcc keeps abstract origins and types in the
	// unit that uses them, and dropping them bounds memory.
	// So are file tables (a vmlinux's hold ~15 MB of path strings).
	clear(w.funcs)
	clear(w.types)
	clear(w.files)
	w.lists.Reset()
	w.rngs.Reset()
	w.fis.Reset()
	w.fiOffs.Reset()
	w.fiSizes.Reset()
	w.fiSigned.Reset()
	w.u = u
	w.ll, w.llSet = nil, false
	// Older units spell pointer classes as constants, which debug/dwarf
	// tells apart by attribute; objects with forms it cannot decode
	// check every entry it reads (badform.go): both stay with it.
	w.fastLook = w.x.ownDecoders(u)
	w.look.c = dwarfbuf.Make(".debug_info", w.o.order, 0, nil)
	w.fmt = exprFormat{AddrSize: u.asize, RefSize: 4, Order: w.o.order}
	if u.is64 {
		w.fmt.RefSize = 8
	}
	// The unit's table serves the walk and the read of the unit's entry.
	tab := &w.tab
	tabErr := tab.parse(w.o.debug[".debug_abbrev"], u.abbrev, u)
	w.cu.lend(u.abbrev, tab, tabErr == nil)
	cu, err := w.unitEntry(u)
	if err != nil || cu == nil {
		w.warn(".debug_info+0x%x: unit skipped: %v", u.dieOff, err)
		return nil
	}
	w.setUnit(cu)
	excluded := ""
	if len(w.opt.ExcludeLanguages) > 0 {
		lang, _ := cu.Val(dwarf.AttrLanguage).(int64)
		if n := LangName(lang); slices.Contains(w.opt.ExcludeLanguages, n) {
			excluded = n
		}
	}
	if !cu.Children {
		return nil
	}
	if err := tabErr; err != nil {
		w.warn("unit at .debug_info+0x%x skipped: %v", u.off, err)
		return nil
	}
	if excluded != "" {
		if w.stats.ExcludedUnits == nil {
			w.stats.ExcludedUnits = map[string]int{}
		}
		w.stats.ExcludedUnits[excluded]++
		w.stats.ExcludedSites += countInlined(w.o.debug[".debug_info"], u, tab, w.o.order)
		return nil
	}
	info := w.o.debug[".debug_info"]
	// Offsets in the unit are section offsets, so the window starts at 0.
	c := dwarfbuf.Make(".debug_info", w.o.order, 0, info[:u.end])
	// Position after the unit DIE.
	c.Skip(uint64(u.dieOff))
	cuAb := tab.get(c.Uleb())
	if cuAb == nil {
		w.warn(".debug_info+0x%x: unit skipped: unknown abbreviation code", u.dieOff)
		return nil
	}
	skipAttrs(&c, cuAb, u)
	var sites []site.Site
	if w.opt.Sink != nil {
		// The sink copies what it keeps: one buffer serves every unit.
		sites = w.buf[:0]
		defer func() { w.buf = sites[:0] }()
		w.paramBuf = w.paramBuf[:0]
	}
	stack := []frame{{}}
	for len(stack) > 0 && c.Left() > 0 {
		off := dwarf.Offset(c.Off())
		code := c.Uleb()
		if code == 0 {
			if ps := stack[len(stack)-1].ps; ps != nil {
				sites = w.finish(ps, sites)
				w.recycle(ps)
			}
			stack = stack[:len(stack)-1]
			continue
		}
		ab := tab.get(code)
		var sibling uint64
		if ab == nil {
			c.Failf("unknown abbreviation code %d", code)
		} else {
			sibling = skipAttrs(&c, ab, u)
		}
		if c.Err() != nil {
			if ab != nil && ab.tag == dwarf.TagInlinedSubroutine {
				w.stats.LostSites++
			}
			var ok bool
			if stack, ok = w.resume(&c, info[:u.end], off, sibling, stack); !ok {
				break
			}
			continue
		}
		// A type's children (members, enumerators, dimensions,
		// arguments) hold no inline site: pass over them to the sibling
		// rather than walk them.
		if ab.children && sibling > uint64(c.Off()) && sibling < uint64(u.end) && typeTag(ab.tag) {
			c.Reset(0, info[:u.end])
			c.Skip(sibling)
			continue
		}
		parent := stack[len(stack)-1].ps
		switch {
		case ab.tag == dwarf.TagInlinedSubroutine:
			depth := 1
			var outer *pendingSite
			for _, f := range stack {
				if f.ps != nil {
					depth++
					outer = f.ps
				}
			}
			var ps *pendingSite
			if w.siteAttrsAt(off, ab, &w.attrs) {
				ps = w.newSite(&w.attrs, depth)
				if outer != nil && outer.fi != nil && ps.site != nil {
					ps.site.Outer = outer.fi.fn.Name
				}
			} else {
				w.stats.Entries++
				ps = w.pending()
			}
			if ab.children {
				stack = append(stack, frame{ps: ps, sibling: sibling})
			} else {
				sites = w.finish(ps, sites)
				w.recycle(ps)
			}
			continue
		case ab.tag == dwarf.TagFormalParameter && parent != nil:
			w.stats.ParamEntries++
			if parent.site != nil {
				if e := &w.attrs; w.siteAttrsAt(off, ab, e) {
					pe := paramEntry{off: e.off, views: -1, loc: e.location, cval: e.constValue}
					pe.origin, _ = e.origin.offset()
					pe.name, _ = e.name.str()
					if v, ok := e.locviews.int(); ok {
						pe.views = v
					}
					parent.params = append(parent.params, pe)
				}
			}
		}
		if ab.children {
			stack = append(stack, frame{sibling: sibling})
		}
	}
	if err := c.Err(); err != nil {
		w.warn("rest of unit at .debug_info+0x%x skipped: %v", u.off, err)
	}
	return sites
}

// typeTag tells the tags of types, whose children are parts of the type.
func typeTag(t dwarf.Tag) bool {
	switch t {
	case dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagClassType, dwarf.TagEnumerationType,
		dwarf.TagArrayType, dwarf.TagSubroutineType:
		return true
	}
	return false
}

// resume recovers from an entry at off whose attributes could not be read
// (c has failed): it moves c to the entry's DW_AT_sibling if that was read,
// else to that of the innermost enclosing entry that has one, so that the
// failure costs that subtree rather than the rest of the unit. The sites
// of inlined subroutines whose entries are left unfinished are dropped
// and counted in Stats.LostSites. It reports false when there is nowhere
// to resume.
func (w *worker) resume(c *dwarfbuf.Buf, unit []byte, off dwarf.Offset, sibling uint64, stack []frame) ([]frame, bool) {
	keep := len(stack) // the frames that stay: none of the entry's ancestors is lost
	if sibling <= uint64(off) || sibling >= uint64(len(unit)) {
		sibling = 0
		for keep > 1 {
			keep--
			if s := stack[keep].sibling; s > uint64(off) && s < uint64(len(unit)) {
				sibling = s
				break
			}
		}
	}
	if sibling == 0 {
		return stack, false
	}
	for _, f := range stack[keep:] {
		if f.ps != nil && f.ps.site != nil {
			w.stats.LostSites++
		}
	}
	w.stats.Resumed++
	w.warn(".debug_info+0x%x: entry skipped, resumed at its sibling 0x%x: %v", off, sibling, c.Err())
	c.Reset(0, unit)
	c.Skip(sibling)
	return stack[:keep], true
}

// newSite starts a site for an inlined subroutine entry. The result
// always exists (its parameters are counted); site is nil when the entry
// has no address, is filtered out or cannot be read.
func (w *worker) newSite(e *siteAttrs, depth int) *pendingSite {
	w.stats.Entries++
	ps := w.pending()
	var ranges [][2]uint64
	var err error
	if !e.ranges.present() {
		// The common low_pc/high_pc case, without debug/dwarf's Ranges
		// (which decodes the unit entry again on every call).
		lo, ok1 := e.lowpc.uint()
		if hf := &e.highpc; ok1 && hf.present() {
			switch hf.kind {
			case valUint:
				ps.one[0] = [2]uint64{lo, hf.u}
				ranges = ps.one[:]
			case valInt:
				ps.one[0] = [2]uint64{lo, lo + hf.u}
				ranges = ps.one[:]
			}
		}
	} else {
		ranges, err = w.ranges(e, w.rngScratch[:0])
		if err == nil {
			w.rngScratch = ranges[:0]
			ranges = w.rngs.Keep(ranges)
		}
	}
	if err != nil {
		w.warn(".debug_info+0x%x: inlined subroutine skipped: ranges: %v", e.off, err)
		return ps
	}
	var addr uint64
	src := ""
	// Without entry_pc the entry is the lowest range start, an empty
	// range included: gcc 14 opens an expansion with an empty range at
	// its entry view ([a,a), then the body) and leaves out entry_pc when
	// that range comes first, as perf's reading (the first range) takes
	// it; where gcc 14 does write entry_pc, it names that same address.
	lowest := func() (uint64, bool) {
		var lo uint64
		ok := false
		for _, r := range ranges {
			if !ok || r[0] < lo {
				lo, ok = r[0], true
			}
		}
		return lo, ok
	}
	if f := &e.entrypc; f.present() {
		switch f.kind {
		case valUint:
			addr, src = f.u, "entry_pc"
		case valInt:
			v := int64(f.u)
			// DWARF 5: a constant entry_pc is an offset from the low pc.
			if lo, ok := e.lowpc.uint(); ok {
				addr, src = lo+uint64(v), "entry_pc"
			} else if lo, ok := lowest(); ok {
				addr, src = lo+uint64(v), "entry_pc"
			}
		}
	}
	if src == "" {
		if lo, ok := e.lowpc.uint(); ok {
			addr, src = lo, "low_pc"
		} else if lo, ok := lowest(); ok {
			addr, src = lo, "ranges"
		}
	}
	if src == "" || (addr == 0 && !w.o.rel) {
		w.stats.NoAddress++
		return ps
	}
	origin, ok := e.origin.offset()
	if !ok {
		w.warn(".debug_info+0x%x: inlined subroutine without DW_AT_abstract_origin skipped", e.off)
		return ps
	}
	fi, err := w.funcAt(origin)
	if err != nil {
		w.warn(".debug_info+0x%x: inlined subroutine skipped: %v", e.off, err)
		return ps
	}
	ps.fi = fi
	if w.opt.Func != nil && !w.opt.Func(fi.fn.Name) {
		w.stats.Filtered++
		return ps
	}
	s := &ps.siteVal
	*s = site.Site{Func: fi.fn, DWARF: site.DWARF{AddrSource: src, Depth: depth}}
	if c := w.o.caller(addr); c != nil {
		s.Caller, s.CallerOff = c.name, addr-c.addr
	}
	if w.opt.Caller != nil && !w.opt.Caller(s.Caller) {
		w.stats.Filtered++
		return ps
	}
	sec := w.o.section(addr)
	s.Addr = addr
	if sec != nil {
		s.Section, s.SectionOff = sec.name, addr-sec.lo
		s.Addr = sec.addr + s.SectionOff
	}
	if len(ranges) > 0 {
		// For a Sink, the ranges need outlive only the unit; its sites
		// share one pool instead of a slice each.
		out := w.rngScratch[:0]
		for _, r := range ranges {
			if sec != nil && w.o.rel && r[0] >= sec.lo && r[1] <= sec.hi {
				r[0], r[1] = r[0]-sec.lo+sec.addr, r[1]-sec.lo+sec.addr
			}
			out = append(out, r)
		}
		w.rngScratch = out[:0]
		if w.opt.Sink != nil {
			s.Ranges = w.rngs.Keep(out)
		} else {
			s.Ranges = slices.Clone(out)
		}
	}
	if v, ok := e.callLine.int(); ok {
		s.CallLine = int(v)
	}
	if v, ok := e.callFile.int(); ok {
		s.CallFile = w.fileName(w.u, v)
	}
	if v, ok := e.entryView.int(); ok {
		ps.view = uint64(v)
	}
	ps.site, ps.fi, ps.addr, ps.ranges = s, fi, addr, ranges
	return ps
}

// pending is a cleared pendingSite.
func (w *worker) pending() *pendingSite {
	if n := len(w.spare); n > 0 {
		ps := w.spare[n-1]
		w.spare = w.spare[:n-1]
		return ps
	}
	return &pendingSite{}
}

// recycle takes back a pendingSite whose site was appended (by value)
// and which nothing refers to any more.
func (w *worker) recycle(ps *pendingSite) {
	clear(ps.params)
	*ps = pendingSite{params: ps.params[:0]}
	w.spare = append(w.spare, ps)
}

// paramsOf returns room for ps's parameter locations: nil (a slice of
// their own) unless the sites go to a Sink, else in paramBuf.
func (w *worker) paramsOf(ps *pendingSite) []site.Location {
	if w.opt.Sink == nil {
		return nil
	}
	n := len(ps.fi.fn.Params)
	if ps.fi.fn.Variadic {
		n++
	}
	// A full buffer stays with the sites that use it.
	return chunk.Take(&w.paramBuf, n, 64, paramBufLen)
}

const paramBufLen = 4096

// finish evaluates the parameters of a site and appends it.
func (w *worker) finish(ps *pendingSite, sites []site.Site) []site.Site {
	if ps.site == nil {
		return sites
	}
	s := ps.site
	var viewOnly int
	s.Params, viewOnly = w.locate(ps, point{pc: ps.addr, view: ps.view}, s.Caller != "" && s.CallerOff == 0, true, nil, w.paramsOf(ps))
	entry := s.Params
	if w.opt.ProbePoint == ProbeBlock {
		viewOnly = w.moveProbe(ps, viewOnly)
	}
	if w.opt.AtBest {
		w.countAtBest(ps, entry, s.Params)
	}
	w.stats.ViewOnly += viewOnly
	return append(sites, *s)
}

// point is where locate evaluates locations: pc at location view view;
// orNext also takes, for a list with no entry there, the entry that holds
// at the next view (moveProbe's binding rule, probe.go).
type point struct {
	pc, view uint64
	orNext   bool
}

// locate evaluates the parameters of a site at pt; atEntry says pt.pc is
// its caller's first instruction. exprs, when not nil, gets the DWARF
// expression of each slot's location. It returns one location per slot,
// in into's memory when that has room, and how many came from a
// view-only entry; warn reports malformed locations (once per site: on
// the first evaluation).
func (w *worker) locate(ps *pendingSite, pt point, atEntry, warn bool, exprs [][]byte, into []site.Location) ([]site.Location, int) {
	fi := ps.fi
	n := len(fi.fn.Params)
	slots := n
	if fi.fn.Variadic {
		slots++
	}
	locs := slices.Grow(into[:0], slots)[:slots]
	clear(locs)
	viewOnly := 0
	for k := range ps.params {
		pe := &ps.params[k]
		i := paramIndex(fi, pe)
		if i < 0 {
			if warn {
				w.warn(".debug_info+0x%x: parameter does not match a parameter of %s", pe.off, fi.fn.Name)
			}
			continue
		}
		env := w.paramEnv(fi, i, atEntry)
		l, vo, expr := w.paramLoc(pe, pt, &env, warn)
		if vo {
			viewOnly++
		}
		l = w.fitParam(fi, i, l)
		// gcc sometimes emits two entries for one parameter; keep the
		// more useful location.
		if rank(&l) >= rank(&locs[i]) {
			locs[i] = l
			if exprs != nil {
				exprs[i] = expr
			}
		}
	}
	return locs, viewOnly
}

// paramIndex is the parameter of fi that pe describes, -1 if none.
func paramIndex(fi *funcInfo, pe *paramEntry) int {
	if i := slices.Index(fi.paramOffs, pe.origin); i >= 0 {
		return i
	}
	if pe.name != "" {
		for j, p := range fi.fn.Params {
			if p.Name == pe.name {
				return j
			}
		}
	}
	return -1
}

// paramEnv is what evaluating a location of parameter i of fi needs.
func (w *worker) paramEnv(fi *funcInfo, i int, atEntry bool) evalEnv {
	env := evalEnv{f: w.fmt, atEntry: atEntry, addrx: w.addrxFn, stack: &w.stack}
	if sz := fi.sizes[i]; sz > 0 && sz <= 255 {
		env.size = uint8(sz)
	}
	return env
}

// fitParam is location l of parameter i of fi as a site carries it: what
// LOC_PARAM cannot hold for the parameter's type is unrepresentable.
func (w *worker) fitParam(fi *funcInfo, i int, l site.Location) site.Location {
	if l.Kind == site.LocUnavailable {
		return l
	}
	sz := fi.sizes[i]
	switch {
	case sz > 16:
		return unavailable(ReasonTooLarge)
	case l.Kind == site.LocConst && sz > 8:
		return unavailable(ReasonLargeConst)
	case l.Kind == site.LocConst:
		l.Signed = fi.signed[i]
	}
	if l.Kind == site.LocAddr && w.o.rel {
		if sec := w.o.allocSection(l.Value); sec != nil {
			l.Value = l.Value - sec.lo + sec.addr
			l.Section = sec.name
		}
	}
	return l
}

// rank orders locations: located, then unrepresentable, then none.
func rank(l *site.Location) int {
	switch {
	case l.Kind != site.LocUnavailable:
		return 2
	case l.Reason != "":
		return 1
	}
	return 0
}

// paramLoc finds the location of one parameter at pt; viewOnly says it
// came from an entry that holds only at certain views.
func (w *worker) paramLoc(pe *paramEntry, pt point, env *evalEnv, warn bool) (l site.Location, viewOnly bool, expr []byte) {
	// Evaluations after the first are quiet: the same list gave its
	// warnings already.
	warnf := func(format string, args ...any) {
		if warn {
			w.warn(format, args...)
		}
	}
	if !pe.loc.present() {
		if pe.cval.present() {
			switch pe.cval.kind {
			case valInt:
				return site.Location{Kind: site.LocConst, Value: pe.cval.u, Size: env.size}, false, nil
			case valBytes:
				v := pe.cval.b
				if len(v) > 8 {
					return unavailable(ReasonLargeConst), false, nil
				}
				return site.Location{Kind: site.LocConst, Value: bytesValue(v, w.fmt.Order), Size: uint8(len(v))}, false, nil
			default:
				return unavailable(ReasonLargeConst), false, nil
			}
		}
		return site.Location{}, false, nil
	}
	switch pe.loc.class {
	case dwarf.ClassExprLoc, dwarf.ClassBlock:
		if pe.loc.kind == valBytes {
			expr = pe.loc.b
		}
		l, expr = w.memoExprLoc(pe, expr, ".debug_info", int64(pe.off), env, warnf)
		return l, false, expr
	case dwarf.ClassLocListPtr, dwarf.ClassLocList:
		ll, es, ok := w.paramList(pe, warnf)
		if !ok {
			return unavailable(ReasonMalformedLocList), false, nil
		}
		e := entryAtPC(es, pt.pc, pt.view)
		if e == nil && pt.orNext {
			e = entryAtPC(es, pt.pc, pt.view+1)
		}
		if e == nil {
			return site.Location{}, false, nil
		}
		viewOnly = e.HasViews && e.Low == e.High
		l, expr = w.memoExprLoc(pe, e.Expr, ll.Name, e.ExprOff, env, warnf)
		return l, viewOnly, expr
	}
	return unavailable(ReasonMalformed), false, nil
}

// memoExprLoc is exprLoc, given again without evaluating when pe's last
// evaluation was of the same expression (the same bytes of the section)
// in the same kind of place: moveProbe evaluates a site's parameters at
// every candidate address, and consecutive candidates mostly fall in the
// same list entry. Only the first evaluation warns anyway.
func (w *worker) memoExprLoc(pe *paramEntry, expr []byte, sec string, exprOff int64, env *evalEnv, warnf func(string, ...any)) (site.Location, []byte) {
	m := &pe.memo
	if m.set && m.atEntry == env.atEntry && len(m.expr) == len(expr) && (len(expr) == 0 || &m.expr[0] == &expr[0]) {
		return m.loc, m.out
	}
	l, out := w.exprLoc(expr, sec, exprOff, env, warnf)
	*m = exprMemo{set: true, expr: expr, atEntry: env.atEntry, loc: l, out: out}
	return l, out
}

// exprMemo is a parameter's last evaluated expression and its result.
type exprMemo struct {
	set     bool
	atEntry bool
	expr    []byte
	loc     site.Location
	out     []byte
}

// listChunkLen is how many location-list entries one allocation holds.
const listChunkLen = 512

// rangeChunkLen is how many address ranges one allocation holds (16 KiB).
const rangeChunkLen = 1024

// paramList reads the location list of pe (whose DW_AT_location is of a
// list class); false when it cannot be read (reported through warnf).
func (w *worker) paramList(pe *paramEntry, warnf func(string, ...any)) (*locListSec, []locEntry, bool) {
	ll := w.locSec()
	switch pe.listRead {
	case 1:
		return ll, pe.list, true
	case 2:
		return nil, nil, false
	}
	// Only the first read warns (the later ones are quiet anyway).
	pe.listRead = 2
	if ll == nil {
		warnf(".debug_info+0x%x: location list without %s", pe.off, w.locSecName())
		return nil, nil, false
	}
	var off int64
	switch pe.loc.kind {
	case valInt:
		off = int64(pe.loc.u)
	case valUint: // DW_FORM_loclistx
		v := pe.loc.u
		o, ok := w.loclistx(ll, v)
		if !ok {
			warnf(".debug_info+0x%x: DW_FORM_loclistx %d out of range", pe.off, v)
			return nil, nil, false
		}
		off = o
	}
	lu := locListUnit{Format: w.fmt, Base: w.cuBase, Addrx: w.addrxFn}
	es, err := readLocListTo(w.listScratch[:0], ll, off, pe.views, &lu)
	w.listScratch = es[:0]
	if err != nil {
		warnf(".debug_info+0x%x: %v", pe.off, err)
		return nil, nil, false
	}
	// Kept in a chunk shared by many lists: a list lives as long as its
	// site, and most are a few entries.
	pe.list, pe.listRead = w.lists.Keep(es), 1
	return ll, es, true
}

// exprLoc classifies the location expression expr (at exprOff of section
// sec), and gives it back if it decodes (nil if not, or empty: no
// location).
func (w *worker) exprLoc(expr []byte, sec string, exprOff int64, env *evalEnv, warnf func(string, ...any)) (site.Location, []byte) {
	if len(expr) == 0 {
		return site.Location{}, nil
	}
	ins, err := decodeExprTo(w.ins[:0], expr, w.fmt, sec, exprOff)
	w.ins = ins[:0]
	if err != nil {
		warnf("%v", err)
		return unavailable(ReasonMalformed), nil
	}
	return classify(ins, env), expr
}

func (w *worker) locSecName() string {
	if w.u.version >= 5 {
		return ".debug_loclists"
	}
	return ".debug_loc"
}

func (w *worker) locSec() *locListSec {
	if w.llSet {
		return w.ll
	}
	w.llSet = true
	n := w.locSecName()
	b := w.o.debug[n]
	if b == nil {
		return nil
	}
	w.ll = &locListSec{Name: n, Data: b, V5: w.u.version >= 5}
	return w.ll
}

// setUnit takes from the unit entry cu what the unit's other entries are
// read against: the base addresses and the bases of its .debug_addr,
// .debug_loclists and .debug_rnglists tables.
func (w *worker) setUnit(cu *dwarf.Entry) {
	w.cuBase, _ = cu.Val(dwarf.AttrLowpc).(uint64)
	w.rngBase = w.cuBase
	if v, ok := cu.Val(dwarf.AttrEntrypc).(uint64); ok {
		w.rngBase = v
	}
	w.locBase, _ = cu.Val(dwarf.AttrLoclistsBase).(int64)
	w.rngListsBase, _ = cu.Val(dwarf.AttrRnglistsBase).(int64)
	w.addrBase, _ = cu.Val(dwarf.AttrAddrBase).(int64)
}

// loclistx resolves a DW_FORM_loclistx index through the unit's offset
// table at DW_AT_loclists_base.
func (w *worker) loclistx(ll *locListSec, idx uint64) (int64, bool) {
	return w.offsetx(ll.Name, ll.Data, w.locBase, idx)
}

// offsetx resolves index idx of the offset table at base in section data
// (.debug_loclists or .debug_rnglists, DWARF 5 7.29): the offset of the
// list it names, which the table gives relative to base.
func (w *worker) offsetx(name string, data []byte, base int64, idx uint64) (int64, bool) {
	sz := uint64(4)
	if w.u.is64 {
		sz = 8
	}
	if base < 0 || idx > uint64(len(data))/sz {
		return 0, false
	}
	p := uint64(base) + idx*sz
	if p > uint64(len(data)) {
		return 0, false
	}
	c := dwarfbuf.Make(name, w.o.order, int64(p), data[p:])
	v := c.Sized(int(sz))
	if c.Err() != nil {
		return 0, false
	}
	return int64(uint64(base) + v), true
}

// addrx reads entry idx of the unit's .debug_addr table.
func (w *worker) addrx(idx uint64) (uint64, bool) {
	b := w.o.debug[".debug_addr"]
	as := uint64(w.u.asize)
	if b == nil || idx > uint64(len(b))/as {
		return 0, false
	}
	p := uint64(w.addrBase) + idx*as
	if p > uint64(len(b)) || as > uint64(len(b))-p {
		return 0, false
	}
	c := dwarfbuf.Make(".debug_addr", w.o.order, int64(p), b[p:])
	v := c.Sized(int(as))
	return v, c.Err() == nil
}

// unitOf returns the unit holding off.
func (w *worker) unitOf(off dwarf.Offset) *unitHdr { return w.x.unitOf(off) }

// fileName maps a DW_AT_decl_file / DW_AT_call_file index of unit u to a
// path through the unit's line table header.
func (w *worker) fileName(u *unitHdr, idx int64) string {
	fs, ok := w.files[u.off]
	if !ok {
		fs = &unitFiles{refs: w.fileTable(u)}
		fs.paths = make([]string, len(fs.refs))
		w.files[u.off] = fs
	}
	if idx < 0 || idx >= int64(len(fs.refs)) {
		return ""
	}
	if fs.paths[idx] == "" {
		fs.paths[idx] = w.spell(&fs.refs[idx])
	}
	return fs.paths[idx]
}

// spell is f.path(), each path spelled once by a worker instead of once
// per unit: every unit has a file table of its own, and they name the
// same headers.
func (w *worker) spell(f *fileRef) string {
	dir := ""
	if f.join {
		dir = f.dir // a path not joined is its name, as joined to ""
	}
	names := w.paths[dir]
	if p, ok := names[string(f.name)]; ok {
		return p
	}
	if w.npaths >= maxSpelled {
		clear(w.paths)
		w.npaths = 0
	}
	if names == nil {
		if w.paths == nil {
			w.paths = map[string]map[string]string{}
		}
		names = map[string]string{}
		w.paths[dir] = names
	}
	p := f.path()
	names[string(f.name)] = p
	w.npaths++
	return p
}

// maxSpelled bounds the paths a worker keeps (a vmlinux names about
// 30,000); beyond it it starts over.
const maxSpelled = 1 << 17

// unitFiles is a unit's file table, each path spelled when first asked
// for ("" until then: an empty path is spelled again, at no cost).
type unitFiles struct {
	refs  []fileRef
	paths []string
}

// fileTable is the file table of u's line program, as debug/dwarf's
// LineReader gives it (nil if there is none).
func (w *worker) fileTable(u *unitHdr) []fileRef {
	line := w.o.debug[".debug_line"]
	cu, err := w.unitEntry(u)
	if err != nil || cu == nil || line == nil {
		return nil
	}
	off, ok := cu.Val(dwarf.AttrStmtList).(int64)
	if !ok {
		return nil
	}
	compDir, _ := cu.Val(dwarf.AttrCompDir).(string)
	fs, err := lineFileRefs(line, w.o.debug[".debug_str"], w.o.debug[".debug_line_str"], w.o.order, off, compDir)
	if err != errLineAsk {
		return fs
	}
	// A header it may refuse, or paths it joins otherwise: as it does.
	d, err := w.x.Data()
	if err != nil {
		return nil
	}
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return nil
	}
	names := readerFiles(lr)
	refs := make([]fileRef, len(names))
	for i, n := range names {
		refs[i].name = []byte(n)
	}
	return refs
}

// funcAt resolves the function an inlined subroutine's abstract origin
// points to, following DW_AT_abstract_origin and DW_AT_specification.
func (w *worker) funcAt(off dwarf.Offset) (*funcInfo, error) {
	if fi, ok := w.funcs[off]; ok {
		return fi, nil
	}
	fn := &site.Func{}
	var (
		retType   dwarf.Offset
		hasRet    bool
		paramsAt  dwarf.Offset
		hasParams bool
		declUnit  *unitHdr
		declFile  int64 = -1
	)
	cur := off
	hops := 0
	for ; hops < maxOriginHops; hops++ {
		w.look.Seek(cur)
		e, err := w.look.Next()
		if err != nil {
			return nil, fmt.Errorf("abstract origin .debug_info+0x%x: %v", cur, err)
		}
		if e == nil || e.tag == 0 {
			return nil, &FormatError{Section: ".debug_info", Offset: int64(cur), Msg: "abstract origin is not an entry"}
		}
		if e.tag != dwarf.TagSubprogram {
			return nil, &FormatError{Section: ".debug_info", Offset: int64(cur), Msg: "abstract origin is a " + e.tag.String() + ", not a subprogram"}
		}
		if fn.Name == "" {
			fn.Name, _ = e.name.str()
		}
		if declFile < 0 {
			if v, ok := e.declFile.int(); ok {
				declFile, declUnit = v, w.unitOf(cur)
				if l, ok := e.declLine.int(); ok {
					fn.DeclLine = int(l)
				}
			}
		}
		if !hasRet {
			retType, hasRet = e.typ.offset()
		}
		if !hasParams && e.children {
			paramsAt, hasParams = cur, true
		}
		next, ok := e.origin.offset()
		if !ok {
			next, ok = e.specification.offset()
		}
		if !ok {
			break
		}
		cur = next
	}
	if hops == maxOriginHops {
		return nil, &FormatError{Section: ".debug_info", Offset: int64(off), Msg: "cyclic or too long abstract_origin/specification chain"}
	}
	if fn.Name == "" {
		return nil, &FormatError{Section: ".debug_info", Offset: int64(off), Msg: "inlined function has no name"}
	}
	// The parameters are read into the worker's scratch first, then
	// kept at their count: fn outlives the unit (the encoder keeps it),
	// and the rest of fi lives in pools the next unit writes again.
	params, offs, typeOffs := w.fpParams[:0], w.fpOffs[:0], w.fpTypes[:0]
	if hasParams {
		w.look.Seek(paramsAt)
		w.look.Next()
		for {
			e, err := w.look.Next()
			if err != nil {
				return nil, fmt.Errorf("parameters of %s at .debug_info+0x%x: %v", fn.Name, paramsAt, err)
			}
			if e == nil || e.tag == 0 {
				break
			}
			switch e.tag {
			case dwarf.TagFormalParameter:
				p := site.Param{}
				p.Name, _ = e.name.str()
				to, _ := e.typ.offset()
				p.TypeOff = uint64(to)
				offs = append(offs, e.off)
				params = append(params, p)
				typeOffs = append(typeOffs, to)
			case dwarf.TagUnspecifiedParameters:
				fn.Variadic = true
			}
			if e.children {
				w.look.SkipChildren()
			}
		}
	}
	w.fpParams, w.fpOffs, w.fpTypes = params[:0], offs[:0], typeOffs[:0]
	if len(params) > 0 {
		fn.Params = slices.Clone(params)
	}
	fi := w.fis.Add(funcInfo{fn: fn, paramOffs: w.fiOffs.Keep(offs)})
	if declUnit != nil {
		fn.DeclFile = w.fileName(declUnit, declFile)
	}
	fn.Return = "void"
	if hasRet {
		t := w.typeAt(retType, 0)
		fn.Return, fn.RetTypeOff = t.name, uint64(retType)
	}
	sizes, signed := w.fpSizes[:0], w.fpSigned[:0]
	for i, to := range typeOffs {
		t := unknownType
		if to != 0 {
			t = w.typeAt(to, 0)
		}
		fn.Params[i].Type = t.name
		sizes = append(sizes, t.size)
		signed = append(signed, t.signed)
	}
	fi.sizes, fi.signed = w.fiSizes.Keep(sizes), w.fiSigned.Keep(signed)
	w.fpSizes, w.fpSigned = sizes[:0], signed[:0]
	w.funcs[off] = fi
	return fi, nil
}

var unknownType = &typeInfo{name: "?", ct: &site.CType{Name: "?"}, size: -1}

// C's spelling of the qualifier tags and of the tagged types' tags.
var (
	qualifiers = map[dwarf.Tag]string{dwarf.TagConstType: "const", dwarf.TagVolatileType: "volatile",
		dwarf.TagRestrictType: "restrict", dwarf.TagAtomicType: "_Atomic"}
	tagKeywords = map[dwarf.Tag]string{dwarf.TagStructType: "struct", dwarf.TagUnionType: "union",
		dwarf.TagClassType: "class", dwarf.TagEnumerationType: "enum"}
)

// subrangeCount is the element count of a DW_TAG_subrange_type: its
// DW_AT_count, or DW_AT_upper_bound + 1 (C arrays start at 0); -1 when
// neither is a constant (flexible arrays, VLAs).
func subrangeCount(e *lookEntry) int64 {
	switch e.count.kind {
	case valInt, valUint:
		return int64(e.count.u)
	}
	switch e.upperBound.kind {
	case valInt, valUint:
		return int64(e.upperBound.u) + 1
	}
	return -1
}

// typeAt spells the type at off in C and finds its size and signedness.
func (w *worker) typeAt(off dwarf.Offset, depth int) *typeInfo {
	if t, ok := w.types[off]; ok {
		return t
	}
	if depth > maxTypeDepth {
		return unknownType
	}
	w.look.Seek(off)
	le, err := w.look.Next()
	if err != nil || le == nil || le.tag == 0 {
		return unknownType
	}
	// The reader's entry is overwritten by the reads below: what they
	// need of it is taken first.
	tag, children := le.tag, le.children
	enc, _ := le.encoding.int()
	// Guard against cycles through corrupt references.
	w.types[off] = unknownType
	name, _ := le.name.str()
	size, hasSize := le.byteSize.int()
	if !hasSize {
		size = -1
	}
	inner, hasInner := le.typ.offset()
	// A type and its own spelling node in one allocation.
	box := &struct {
		t  typeInfo
		ct site.CType
	}{typeInfo{size: size}, site.CType{Kind: site.CNamed, Name: name}}
	t := &box.t
	t.ct = &box.ct
	in := func() *typeInfo {
		if !hasInner {
			return &typeInfo{size: -1}
		}
		return w.typeAt(inner, depth+1)
	}
	switch tag {
	case dwarf.TagBaseType:
		t.signed = enc == 0x05 || enc == 0x06 || enc == 0x0d // signed, signed_char, signed_fixed
	case dwarf.TagUnspecifiedType:
		if name == "" {
			t.ct.Name = "void"
		}
	case dwarf.TagPointerType, dwarf.TagReferenceType, dwarf.TagRvalueReferenceType:
		if !hasSize {
			t.size = int64(w.fmt.AddrSize)
		}
		star := "*"
		if tag == dwarf.TagReferenceType {
			star = "&"
		} else if tag == dwarf.TagRvalueReferenceType {
			star = "&&"
		}
		t.ct = &site.CType{Kind: site.CPtr, Name: star, Elem: in().ct}
	case dwarf.TagConstType, dwarf.TagVolatileType, dwarf.TagRestrictType, dwarf.TagAtomicType:
		q := qualifiers[tag]
		it := in()
		t.size, t.signed = it.size, it.signed
		t.ct = &site.CType{Kind: site.CQual, Name: q, Elem: it.ct}
	case dwarf.TagTypedef:
		it := in()
		t.size, t.signed = it.size, it.signed
		if name == "" {
			t.ct = it.ct
		}
	case dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagClassType, dwarf.TagEnumerationType:
		kw := tagKeywords[tag]
		if name == "" {
			name = "{...}"
		}
		t.ct.Name = kw + " " + name
		if tag == dwarf.TagEnumerationType && hasInner {
			it := w.typeAt(inner, depth+1)
			t.signed = it.signed
			if t.size < 0 {
				t.size = it.size
			}
		}
	case dwarf.TagArrayType:
		// One CArray per dimension (DW_TAG_subrange_type children),
		// outermost first; read them before recursing, which moves the
		// lookup reader.
		var dims []int64
		if children {
			for {
				c, err := w.look.Next()
				if err != nil || c == nil || c.tag == 0 {
					break
				}
				if c.tag == dwarf.TagSubrangeType {
					dims = append(dims, subrangeCount(c))
				}
				if c.children {
					w.look.SkipChildren()
				}
			}
		}
		if len(dims) == 0 {
			dims = []int64{-1}
		}
		ct := in().ct
		for i := len(dims) - 1; i >= 0; i-- {
			ct = &site.CType{Kind: site.CArray, N: dims[i], Elem: ct}
		}
		t.ct = ct
	case dwarf.TagSubroutineType:
		// Collect the argument types before recursing: the lookup
		// reader is reused by the recursion.
		var args []dwarf.Offset
		fn := &site.CType{Kind: site.CFunc}
		if children {
			for {
				c, err := w.look.Next()
				if err != nil || c == nil || c.tag == 0 {
					break
				}
				if c.tag == dwarf.TagFormalParameter {
					a, _ := c.typ.offset()
					args = append(args, a)
				} else if c.tag == dwarf.TagUnspecifiedParameters {
					fn.Variadic = true
				}
				if c.children {
					w.look.SkipChildren()
				}
			}
		}
		fn.Elem = in().ct
		for _, a := range args {
			fn.Args = append(fn.Args, w.typeAt(a, depth+1).ct)
		}
		t.ct = fn
	default:
		if name == "" {
			t.ct.Name = "?"
		}
	}
	t.name = t.ct.String()
	w.types[off] = t
	return t
}

// ranges is debug/dwarf's Data.Ranges for an entry of the unit being
// read, without its cost: Data.Ranges decodes the unit's entry again on
// every call to find the base address, which w.rngBase keeps. It reads
// the lists the same way, to the same result, appended to ret.
func (w *worker) ranges(e *siteAttrs, ret [][2]uint64) ([][2]uint64, error) {
	low, lowOK := e.lowpc.uint()
	var high uint64
	var highOK bool
	if hf := &e.highpc; hf.present() {
		switch hf.class {
		case dwarf.ClassAddress:
			high, highOK = hf.uint()
		case dwarf.ClassConstant:
			if off, ok := hf.int(); ok {
				high, highOK = low+uint64(off), true
			}
		}
	}
	if lowOK && highOK {
		ret = append(ret, [2]uint64{low, high})
	}
	if rl := w.o.debug[".debug_rnglists"]; w.u.version >= 5 && rl != nil {
		f := &e.ranges
		if !f.present() {
			return ret, nil
		}
		var off int64
		switch f.kind {
		case valInt:
			if f.class != dwarf.ClassRangeListPtr {
				return ret, nil
			}
			off = int64(f.u)
		case valUint:
			// DW_FORM_rnglistx (clang), already resolved to the list's
			// offset (entry.go, and debug/dwarf).
			if f.class != dwarf.ClassRngList {
				return ret, nil
			}
			off = int64(f.u)
		default:
			return ret, nil
		}
		return w.rnglist(rl, off, ret)
	}
	off, ok := e.ranges.int()
	if r := w.o.debug[".debug_ranges"]; ok && r != nil {
		if off < 0 || off > int64(len(r)) {
			return nil, fmt.Errorf("invalid range offset %d (max %d)", off, len(r))
		}
		c := dwarfbuf.Make(".debug_ranges", w.o.order, off, r[off:])
		base := w.rngBase
		max := ^uint64(0) >> uint((8-w.u.asize)*8)
		for c.Left() > 0 {
			lo, hi := c.Sized(w.u.asize), c.Sized(w.u.asize)
			if c.Err() != nil {
				return nil, c.Err()
			}
			if lo == 0 && hi == 0 {
				break
			}
			if lo == max {
				base = hi
			} else {
				ret = append(ret, [2]uint64{base + lo, base + hi})
			}
		}
	}
	return ret, nil
}

// rnglist reads the DWARF 5 range list at off of .debug_rnglists.
func (w *worker) rnglist(rl []byte, off int64, ret [][2]uint64) ([][2]uint64, error) {
	if off < 0 || off > int64(len(rl)) {
		return nil, fmt.Errorf("invalid rnglist offset %d (max %d)", off, len(rl))
	}
	c := dwarfbuf.Make(".debug_rnglists", w.o.order, off, rl[off:])
	base := w.rngBase
	addr := func(idx uint64) (uint64, error) {
		if a, ok := w.addrx(idx); ok {
			return a, nil
		}
		return 0, errors.New("offset out of range")
	}
	for {
		op := c.U8()
		if c.Err() != nil {
			return nil, c.Err()
		}
		switch op {
		case 0: // DW_RLE_end_of_list
			return ret, nil
		case 1: // DW_RLE_base_addressx
			a, err := addr(c.Uleb())
			if err != nil {
				return nil, err
			}
			base = a
		case 2: // DW_RLE_startx_endx
			si, ei := c.Uleb(), c.Uleb()
			s, err := addr(si)
			if err != nil {
				return nil, err
			}
			e, err := addr(ei)
			if err != nil {
				return nil, err
			}
			ret = append(ret, [2]uint64{s, e})
		case 3: // DW_RLE_startx_length
			si, n := c.Uleb(), c.Uleb()
			s, err := addr(si)
			if err != nil {
				return nil, err
			}
			ret = append(ret, [2]uint64{s, s + n})
		case 4: // DW_RLE_offset_pair
			a, b := c.Uleb(), c.Uleb()
			ret = append(ret, [2]uint64{base + a, base + b})
		case 5: // DW_RLE_base_address
			base = c.Sized(w.u.asize)
		case 6: // DW_RLE_start_end
			s, e := c.Sized(w.u.asize), c.Sized(w.u.asize)
			ret = append(ret, [2]uint64{s, e})
		case 7: // DW_RLE_start_length
			s := c.Sized(w.u.asize)
			ret = append(ret, [2]uint64{s, s + c.Uleb()})
		}
	}
}
