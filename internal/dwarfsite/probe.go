package dwarfsite

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/btfinline/btfinline/internal/elfrel"
	"github.com/btfinline/btfinline/internal/insn"
	"github.com/btfinline/btfinline/internal/site"
)

// ProbePoint says which address of an inline expansion its site gets.
type ProbePoint uint8

const (
	// ProbeEntry is the expansion's entry pc (Site.AddrSource), the
	// address perf probe and pahole use.
	ProbeEntry ProbePoint = iota
	// ProbeBlock is the address that locates the most parameters among
	// the entry pc and the instructions after it that run exactly once
	// each time the expansion is entered (see moveProbe); the entry pc on
	// ties. It needs Options.Text.
	ProbeBlock
)

var probePointNames = [...]string{"entry", "block"}

func (p ProbePoint) String() string {
	if int(p) < len(probePointNames) {
		return probePointNames[p]
	}
	return fmt.Sprintf("ProbePoint(%d)", int(p))
}

// ParseProbePoint reads a ProbePoint by its name ("entry", "block").
func ParseProbePoint(s string) (ProbePoint, error) {
	for i, n := range probePointNames {
		if s == n {
			return ProbePoint(i), nil
		}
	}
	return 0, fmt.Errorf("probe point %q: want %s", s, strings.Join(probePointNames[:], " or "))
}

// Text is what ProbeBlock must know of an object's text that its bytes do
// not say. Addresses are section offsets in an ET_REL object (section
// names the section), link-time addresses otherwise. Package kprobe's
// Rules implement it from the object's own tables.
type Text interface {
	// Barrier reports whether the instruction at [start, end) is one a
	// probe must not be moved onto or past: the kernel rewrites a byte
	// of it at run time (jump label, static call, alternative, ...), or
	// control may arrive at it or leave it other than by falling through
	// (an exception-table entry or fixup, a jump label's target).
	Barrier(section string, start, end uint64) bool
	// Allows reports whether a kprobe can sit at addr inside function
	// caller. A probe moves only to addresses a kprobe takes.
	Allows(section string, addr uint64, caller string) bool
}

// maxProbeScan bounds the instructions looked at after an entry pc.
const maxProbeScan = 64

// codeSec is an executable section's bytes at its layout address (for
// ET_REL relocated on the reader's layout, so that direct jumps between
// sections decode to their targets).
type codeSec struct {
	lo   uint64
	data []byte
}

// probeText is what ProbeBlock reads of the object's text, loaded once
// (Object.Sites) and shared read-only by the workers.
type probeText struct {
	once sync.Once
	err  error
	code []codeSec // sorted by lo
	// parts maps a function name without its ".cold" suffix to the
	// symbols of that name and of its cold parts (indexes into funcs).
	parts map[string][]int
	// relTargets are the targets of an arm64 ET_REL object's branch
	// relocations (elfrel does not apply those): code the bytes do not
	// show a jump to. Sorted layout addresses.
	relTargets []uint64
}

// coldBase is a function symbol's name without gcc's ".cold" partition
// suffix: foo and foo.cold (foo.cold.1, ...) jump into each other.
func coldBase(name string) string {
	if i := strings.Index(name, ".cold"); i > 0 {
		return name[:i]
	}
	return name
}

// loadProbeText reads the executable sections and the cold-part index.
func (o *object) loadProbeText() error {
	pt := &o.probe
	pt.once.Do(func() {
		if o.f.Machine != elf.EM_X86_64 && o.f.Machine != elf.EM_AARCH64 {
			pt.err = fmt.Errorf("probe point %v: machine %v not supported", ProbeBlock, o.f.Machine)
			return
		}
		for i, s := range o.f.Sections {
			if s.Flags&elf.SHF_ALLOC == 0 || s.Flags&elf.SHF_EXECINSTR == 0 || s.Type != elf.SHT_PROGBITS || s.Size == 0 {
				continue
			}
			var d []byte
			var err error
			if o.rel {
				// Relocation types text holds and debug sections do
				// not (GOTPCREL, arm64 branches) stay unapplied, and
				// are not counted as warnings of the read.
				d, _, err = o.ef.Relocated(i, func(i int) uint64 { return o.base[i] }, false)
			} else {
				d, err = o.ef.Data(s)
			}
			if err != nil {
				pt.err = err
				return
			}
			pt.code = append(pt.code, codeSec{lo: o.base[i], data: d})
			if o.rel && o.f.Machine == elf.EM_AARCH64 {
				rs, err := elfrel.Read(o.f, i, elfrel.Options{Read: o.ef.Data})
				if err != nil {
					pt.err = err
					return
				}
				for _, r := range rs {
					switch elf.R_AARCH64(r.Type) {
					case elf.R_AARCH64_JUMP26, elf.R_AARCH64_CONDBR19, elf.R_AARCH64_TSTBR14:
						if r.Section >= 0 {
							pt.relTargets = append(pt.relTargets, o.base[r.Section]+r.Value)
						}
					}
				}
			}
		}
		sort.Slice(pt.code, func(i, j int) bool { return pt.code[i].lo < pt.code[j].lo })
		slices.Sort(pt.relTargets)
		pt.parts = make(map[string][]int, len(o.funcs))
		for i := range o.funcs {
			b := coldBase(o.funcs[i].name)
			pt.parts[b] = append(pt.parts[b], i)
		}
	})
	return pt.err
}

// codeAt returns the bytes from addr to the end of its section.
func (pt *probeText) codeAt(addr uint64) []byte {
	i := sort.Search(len(pt.code), func(i int) bool { return pt.code[i].lo+uint64(len(pt.code[i].data)) > addr })
	if i < len(pt.code) && pt.code[i].lo <= addr {
		return pt.code[i].data[addr-pt.code[i].lo:]
	}
	return nil
}

// fnFlow is what the choice needs to know of a function: where direct
// branches of it, and of its cold parts, arrive.
type fnFlow struct {
	targets []uint64 // sorted layout addresses
	// opaque: the function has an indirect jump (a switch table, a
	// computed goto: targets nobody lists) or bytes x86asm/arm64asm do
	// not decode (so branches may hide): nothing moves in it.
	opaque bool
}

// flowOf decodes fn and the parts that share its name up to ".cold".
func (w *worker) flowOf(fn *funcSym) *fnFlow {
	if fl, ok := w.flows[fn.addr]; ok {
		return fl
	}
	if w.flows == nil {
		w.flows = make(map[uint64]*fnFlow)
	}
	pt := &w.o.probe
	fl := &fnFlow{}
	fnCold := coldBase(fn.name) != fn.name
	seen := map[uint64]bool{}
	for _, pi := range pt.parts[coldBase(fn.name)] {
		p := &w.o.funcs[pi]
		cold := coldBase(p.name) != p.name
		// Another function of the same name is no part of fn, but a
		// cold part may be any same-named function's.
		if seen[p.addr] || p.addr != fn.addr && !cold && !fnCold {
			continue
		}
		seen[p.addr] = true
		code := pt.codeAt(p.addr)
		if uint64(len(code)) < p.size {
			fl.opaque = true
			continue
		}
		for off := uint64(0); off < p.size; {
			pc := p.addr + off
			in, err := insn.Decode(w.o.f.Machine, code[off:p.size], pc)
			if err != nil {
				fl.opaque = true
				break
			}
			switch in.Kind {
			case insn.Jump, insn.Branch:
				fl.targets = append(fl.targets, in.Target)
				// x86 retpolines turn an indirect jump into a direct jump
				// to a thunk.
				if t := w.o.caller(in.Target); t != nil && strings.HasPrefix(t.name, "__x86_indirect_") {
					fl.opaque = true
				}
			case insn.IndirectJump:
				fl.opaque = true
			}
			off += uint64(in.Len)
		}
	}
	slices.Sort(fl.targets)
	w.flows[fn.addr] = fl
	return fl
}

// moveProbe applies ProbeBlock to a site whose parameters finish
// evaluated at the entry pc, and returns the view-only count of the
// locations the site keeps.
//
// First the entry pc itself: a parameter that no location-list entry
// holds at the site's entry view is taken from the entry that holds at
// the next view of the entry pc. gcc's entry view is the row of the
// inlined function's declaration; the bindings of its parameters take
// effect at the next row, the body's first statement, before anything
// of the body has run, while a value the body gives a parameter takes
// effect at a later row (dbl in dwarfsite/testdata/sites.c: entry view 3,
// first statement at view 4, the doubled value from view 5).
//
// Then the addresses after the entry pc that run exactly once each time
// the expansion is entered: decoded one by one from the entry pc, within
// its function symbol, up to the first
//   - instruction that does not only fall through (the jump, branch,
//     call, return or trap itself is looked at, nothing after it),
//   - target of a direct branch of the function or of its cold parts, or
//     landing pad (ENDBR64, BTI),
//   - barrier (Text.Barrier: patched code, exception-table entries and
//     their fixups, jump-label targets),
//   - bytes that do not decode,
//
// taking an address only inside the expansion's own ranges and where a
// kprobe can sit (Text.Check). A function with an indirect jump, or bytes
// that do not decode, keeps its sites at their entry pcs.
//
// A location there is the current value of the parameter, which may no
// longer be the argument (get_order's size-- runs in the expansion's first
// block). So a parameter counts as located at a later address only when
// its location there provably holds the value its binding at the entry
// pc described: both DWARF expressions are evaluated symbolically, the
// binding's over the registers and memory at the entry pc, the later
// one's over what the instructions in between left (package insn), and
// must be equal in the parameter's bytes. A parameter the entry pc has no
// binding for is never located later. The site moves to the address that
// locates the most parameters, the earliest on ties, and reports there
// what provenAt chooses: DWARF's location at that address when proven,
// never the reason of a binding LOC_PARAM cannot carry (issue 26).
//
// Location views at a later address: view 0, the first state there,
// which follows everything the instructions before it did and precedes
// any later statement that emitted no code at that address.
// DW_OP_entry_value is not usable there: it is past the caller's first
// instruction.
func (w *worker) moveProbe(ps *pendingSite, viewOnly int) int {
	s := ps.site
	n := len(ps.fi.fn.Params)
	if located(s.Params, n) == n {
		return viewOnly
	}
	atEntry := s.Caller != "" && s.CallerOff == 0
	// The scratch below lives for this call only: the worker's memory
	// serves site after site.
	bexpr := scratch(&w.mp.bexpr, len(s.Params))
	bind, bvo := w.locate(ps, point{pc: ps.addr, view: ps.view, orNext: true}, atEntry, false, bexpr, nil)
	if located(bind, n) > located(s.Params, n) {
		s.Params, viewOnly = bind, bvo
		w.stats.NextView++
	}
	if located(s.Params, n) == n {
		return viewOnly
	}
	// Only a parameter whose binding the entry pc cannot express may be
	// located later (one without a binding never is).
	gain := false
	for i := 0; i < n; i++ {
		gain = gain || s.Params[i].Kind == site.LocUnavailable && bexpr[i] != nil
	}
	fn := w.o.caller(ps.addr)
	if !gain || fn == nil || fn.size == 0 {
		return viewOnly
	}
	later := scratch(&w.mp.later, n)
	if !w.mayLocateLater(ps, bind, bexpr, fn, later) {
		return viewOnly
	}
	// What each binding says the argument is, over the entry state: a
	// parameter is located later only where this is known.
	st := insn.NewState(w.o.f.Machine)
	want := scratch(&w.mp.want, n)
	gain = false
	for i := 0; i < n; i++ {
		if bexpr[i] != nil {
			want[i], _ = w.symEval(bexpr[i], st, ps.fi.sizes[i])
		}
		gain = gain || later[i] && want[i] != nil
	}
	if !gain {
		return viewOnly
	}
	cands, insts := w.blockCandidates(ps, fn)
	if len(cands) == 0 {
		return viewOnly
	}
	evals := scratch(&w.mp.evals, len(cands))
	best, bestN := -1, located(bind, n)
	exprs := scratch(&w.mp.exprs, len(bind))
	next := 0 // the next instruction to apply to st
	for ci, a := range cands {
		for ; next < len(insts) && insts[next].PC() < a; next++ {
			st.Step(&insts[next])
		}
		clear(exprs)
		// Most candidates locate nothing new: they are evaluated in
		// w.locs, and only the useful ones kept.
		locs, vo := w.locate(ps, point{pc: a}, false, false, exprs, w.locs)
		w.locs = locs
		useful := false
		for i := 0; i < n; i++ {
			useful = useful || bind[i].Kind == site.LocUnavailable && want[i] != nil && locs[i].Kind != site.LocUnavailable
		}
		if !useful || !w.allows(a, fn) {
			continue
		}
		locs = slices.Clone(locs)
		for i := 0; i < n; i++ {
			locs[i] = w.provenAt(bind[i], bexpr[i], want[i], locs[i], exprs[i], st, ps.fi.sizes[i])
		}
		for i := n; i < len(locs); i++ {
			locs[i] = bind[i] // the varargs slot: never located
		}
		evals[ci] = candEval{locs, vo, located(locs, n)}
		if evals[ci].located > bestN {
			best, bestN = ci, evals[ci].located
		}
	}
	if best < 0 {
		return viewOnly
	}
	// The winner must not be past where a branch of the function lands;
	// only now is the function decoded, for the few sites that move.
	fl := w.flowOf(fn)
	if fl.opaque {
		return viewOnly
	}
	stop := len(cands)
	firstAfter := func(ts []uint64) {
		if i := sort.Search(len(ts), func(i int) bool { return ts[i] > ps.addr }); i < len(ts) {
			stop = min(stop, sort.Search(len(cands), func(j int) bool { return cands[j] >= ts[i] }))
		}
	}
	firstAfter(fl.targets)
	firstAfter(w.o.probe.relTargets)
	if best >= stop {
		best, bestN = -1, located(bind, n)
		for i := range cands[:stop] {
			if evals[i].locs != nil && evals[i].located > bestN {
				best, bestN = i, evals[i].located
			}
		}
		if best < 0 {
			return viewOnly
		}
	}
	s.Params = evals[best].locs
	s.Moved = cands[best] - ps.addr
	s.Addr += s.Moved
	s.SectionOff += s.Moved
	s.CallerOff += s.Moved
	w.stats.Moved++
	return evals[best].viewOnly
}

// mayLocateLater marks in later the parameters that the binding bind
// leaves unlocated, though bound (bexpr), and that have a location an
// address moveProbe may move to could give: an expression of theirs (one
// that holds at every address, or a list entry that holds somewhere in
// the expansion's ranges after the entry pc, within fn) that locates them
// where the entry pc does not; it reports whether there is one. Without
// one no candidate can be useful, and neither the bindings are evaluated
// symbolically nor the instructions after the entry pc decoded: seven in
// ten of the sites of a vmlinux that would have been.
func (w *worker) mayLocateLater(ps *pendingSite, bind []site.Location, bexpr [][]byte, fn *funcSym, later []bool) bool {
	fi := ps.fi
	n := len(fi.fn.Params)
	end := fn.addr + fn.size
	// Whether an entry from lo to hi may hold at a candidate address: one
	// after the entry pc, before fn's end, in the expansion's ranges
	// (and, with location views, perhaps at hi itself).
	reaches := func(lo, hi uint64) bool {
		for _, r := range ps.ranges {
			from, to := max(r[0], ps.addr+1), min(r[1], end)
			if from < to && lo < to && hi >= from {
				return true
			}
		}
		return false
	}
	quiet := func(string, ...any) {}
	found := false
	for k := range ps.params {
		pe := &ps.params[k]
		i := paramIndex(fi, pe)
		if i < 0 || i >= n || later[i] || bind[i].Kind != site.LocUnavailable || bexpr[i] == nil || !pe.loc.present() {
			continue // a constant or no location is the same at every address
		}
		if w.opt.noLaterFilter {
			later[i], found = true, true
			continue
		}
		env := w.paramEnv(fi, i, false)
		locates := func(expr []byte, sec string, off int64) bool {
			l, _ := w.exprLoc(expr, sec, off, &env, quiet)
			return w.fitParam(fi, i, l).Kind != site.LocUnavailable
		}
		switch pe.loc.class {
		case dwarf.ClassExprLoc, dwarf.ClassBlock:
			later[i] = pe.loc.kind == valBytes && locates(pe.loc.b, ".debug_info", int64(pe.off))
		case dwarf.ClassLocListPtr, dwarf.ClassLocList:
			ll, es, ok := w.paramList(pe, quiet)
			for j := 0; ok && j < len(es) && !later[i]; j++ {
				e := &es[j]
				later[i] = (e.Default || reaches(e.Low, e.High)) && locates(e.Expr, ll.Name, e.ExprOff)
			}
		}
		found = found || later[i]
	}
	return found
}

// candEval is moveProbe's evaluation of a candidate address.
type candEval struct {
	locs     []site.Location
	viewOnly int
	located  int
}

// probeScratch is moveProbe's memory, reused from site to site.
type probeScratch struct {
	later        []bool
	bexpr, exprs [][]byte
	want         [][]symPiece
	evals        []candEval
}

// scratch returns n cleared elements of *buf, growing it when short.
func scratch[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	b := (*buf)[:n]
	clear(b)
	return b
}

// provenAt is parameter i's location at a later address: the location
// DWARF gives there (at, from expression atExpr) or the binding's own
// (bind, from bexpr), whichever provably holds the value the binding
// described (want) in the state st; else unavailable.
func (w *worker) provenAt(bind site.Location, bexpr []byte, want []symPiece, at site.Location, atExpr []byte, st *insn.State, size int64) site.Location {
	if bind.Kind == site.LocConst && bexpr == nil {
		return bind // DW_AT_const_value: the same everywhere
	}
	if want != nil {
		if at.Kind != site.LocUnavailable && atExpr != nil {
			if got, ok := w.symEval(atExpr, st, size); ok && samePieces(want, got) {
				return at
			}
		}
		if bind.Kind != site.LocUnavailable {
			if got, ok := w.symEval(bexpr, st, size); ok && samePieces(want, got) {
				return bind
			}
		}
	}
	// Unlocated, the parameter is described as it is at this address,
	// not at the entry pc: the reason a binding LOC_PARAM cannot carry
	// ("multi-op arithmetic" for a sign extension) says nothing of a
	// location DWARF gives here, which is either not provably the argument
	// or unavailable for its own reason. A parameter without a binding
	// keeps what the entry pc said: it is never located later.
	switch {
	case bind.Kind != site.LocUnavailable:
		return unavailable(ReasonNotProven)
	case bexpr == nil:
		return bind
	case at.Kind != site.LocUnavailable:
		return unavailable(ReasonNotProven)
	}
	return at
}

// located counts the first n locations that are located.
func located(locs []site.Location, n int) int {
	k := 0
	for i := 0; i < n && i < len(locs); i++ {
		if locs[i].Kind != site.LocUnavailable {
			k++
		}
	}
	return k
}

// blockCandidates lists the addresses after the entry pc a probe may move
// to (moveProbe), before branch targets are known and before Text.Allows
// is asked (moveProbe asks it of the few that locate a parameter more),
// in address order, and the instructions from the entry pc up to the last
// of them, both valid until its next call.
func (w *worker) blockCandidates(ps *pendingSite, fn *funcSym) ([]uint64, []insn.Inst) {
	sec := w.o.section(ps.addr)
	if sec == nil {
		return nil, nil
	}
	end := min(fn.addr+fn.size, sec.hi)
	code := w.o.probe.codeAt(ps.addr)
	if code == nil || end <= ps.addr || uint64(len(code)) < end-ps.addr {
		return nil, nil
	}
	code = code[:end-ps.addr]
	at := func(a uint64) uint64 { return w.o.textAddr(sec, a) }
	out, insts := w.cands[:0], w.insts[:0]
	defer func() { w.cands, w.insts = out[:0], insts[:0] }()
	pc := ps.addr
	for k := 0; k < maxProbeScan && pc < end; k++ {
		in, err := insn.Decode(w.o.f.Machine, code[pc-ps.addr:], pc)
		if err != nil || w.opt.Text.Barrier(sec.name, at(pc), at(pc+uint64(in.Len))) {
			break
		}
		if pc != ps.addr {
			if in.Kind == insn.Landing {
				break
			}
			if inRanges(ps.ranges, pc) {
				out = append(out, pc)
			}
		}
		if !in.Kind.FallsThrough() {
			break
		}
		insts = append(insts, in)
		pc += uint64(in.Len)
	}
	return out, insts
}

// allows is Text.Allows of the address a in fn.
func (w *worker) allows(a uint64, fn *funcSym) bool {
	sec := w.o.section(a)
	return sec != nil && w.opt.Text.Allows(sec.name, w.o.textAddr(sec, a), fn.name)
}

// textAddr is the address a, in sec, as Text takes it: a section offset
// for ET_REL.
func (o *object) textAddr(sec *secRange, a uint64) uint64 {
	if o.rel {
		return a - sec.lo
	}
	return a
}

func inRanges(rs [][2]uint64, a uint64) bool {
	for _, r := range rs {
		if r[0] <= a && a < r[1] {
			return true
		}
	}
	return false
}

// symPiece is one piece of a value: its symbolic value and byte size.
type symPiece struct {
	v    insn.Value
	size int
}

func samePieces(a, b []symPiece) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i].size != b[i].size || !insn.Equal(a[i].v, b[i].v, a[i].size) {
			return false
		}
	}
	return true
}

// Stand-ins for values no instruction of a function changes.
const (
	symFrameBase = site.FBReg     // DW_OP_fbreg's base
	symCFA       = site.FBReg - 1 // DW_OP_call_frame_cfa
)

// symEval evaluates a location expression over st: the value of a
// parameter of size bytes it locates, as pieces. It fails (false) for
// anything but registers, constants, addresses, arithmetic, loads and
// pieces of those (entry values, implicit pointers, typed operations).
func (w *worker) symEval(expr []byte, st *insn.State, size int64) ([]symPiece, bool) {
	ins, err := decodeExprTo(w.symIns[:0], expr, w.fmt, "", 0)
	w.symIns = ins[:0]
	if err != nil || len(ins) == 0 {
		return nil, false
	}
	// The stack's memory goes from call to call; the pieces are kept.
	stack := w.symStack[:0]
	defer func() { w.symStack = stack[:0] }()
	var (
		pieces []symPiece
		loc    insn.Value // a register location or an implicit value
		hasLoc bool
		value  bool // DW_OP_stack_value
	)
	pop := func() (insn.Value, bool) {
		if len(stack) == 0 {
			return insn.Value{}, false
		}
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		return v, true
	}
	push := func(v insn.Value) { stack = append(stack, v) }
	// finish turns what the operations so far describe into a value of
	// n bytes.
	finish := func(n int) (insn.Value, bool) {
		defer func() { stack, hasLoc, value = stack[:0], false, false }()
		if n < 1 || n > 8 {
			return insn.Value{}, false
		}
		switch {
		case hasLoc:
			return loc, len(stack) == 0
		case value:
			v, ok := pop()
			return v, ok && len(stack) == 0
		}
		a, ok := pop()
		if !ok || len(stack) != 0 {
			return insn.Value{}, false
		}
		return insn.Load(a, n, st.Epoch()), true
	}
	reg := func(r uint32) insn.Value { return st.RegValue(r) }
	for i := range ins {
		in := &ins[i]
		if in.Wide {
			return nil, false
		}
		op := in.opcode
		if (hasLoc || value) && op != opPiece {
			return nil, false
		}
		switch {
		case op >= opLit0 && op <= opLit31:
			push(insn.Const(uint64(op - opLit0)))
			continue
		case op >= opReg0 && op <= opReg31:
			loc, hasLoc = reg(uint32(op-opReg0)), true
			continue
		case op >= opBreg0 && op <= opBreg31:
			push(insn.Add(reg(uint32(op-opBreg0)), insn.Const(in.A)))
			continue
		}
		switch op {
		case opNop:
		case opAddr, opConst1u, opConst1s, opConst2u, opConst2s, opConst4u, opConst4s,
			opConst8u, opConst8s, opConstu, opConsts:
			push(insn.Const(in.A))
		case opAddrx, opConstx, opGNUAddrIndex, opGNUConstIndex:
			v, ok := w.addrx(in.A)
			if !ok {
				return nil, false
			}
			push(insn.Const(v))
		case opRegx:
			loc, hasLoc = reg(uint32(in.A)), true
		case opBregx:
			push(insn.Add(reg(uint32(in.A)), insn.Const(in.B)))
		case opFbreg:
			push(insn.Add(insn.Reg(symFrameBase), insn.Const(in.A)))
		case opCallFrameCFA:
			push(insn.Reg(symCFA))
		case opImplicitValue:
			if len(in.Block) > 8 {
				return nil, false
			}
			loc, hasLoc = insn.Const(bytesValue(in.Block, w.fmt.Order)), true
		case opStackValue:
			value = true
		case opDup, opDrop, opSwap, opOver:
			if len(stack) < map[opcode]int{opDup: 1, opDrop: 1, opSwap: 2, opOver: 2}[op] {
				return nil, false
			}
			t := len(stack) - 1
			switch op {
			case opDup:
				push(stack[t])
			case opDrop:
				stack = stack[:t]
			case opSwap:
				stack[t], stack[t-1] = stack[t-1], stack[t]
			case opOver:
				push(stack[t-1])
			}
		case opDeref, opDerefSize:
			a, ok := pop()
			n := w.fmt.AddrSize
			if op == opDerefSize {
				n = int(in.A)
			}
			if !ok || n < 1 || n > 8 {
				return nil, false
			}
			push(insn.Load(a, n, st.Epoch()))
		case opNeg, opNot:
			a, ok := pop()
			if !ok {
				return nil, false
			}
			if op == opNeg {
				push(insn.Neg(a))
			} else {
				push(insn.Not(a))
			}
		case opPlusUconst:
			a, ok := pop()
			if !ok {
				return nil, false
			}
			push(insn.Add(a, insn.Const(in.A)))
		case opPlus, opMinus, opMul, opAnd, opOr, opXor, opShl, opShr, opShra:
			b, ok1 := pop()
			a, ok2 := pop()
			if !ok1 || !ok2 {
				return nil, false
			}
			v, ok := symBinary(op, a, b)
			if !ok {
				return nil, false
			}
			push(v)
		case opPiece:
			v, ok := finish(int(in.A))
			if !ok {
				return nil, false
			}
			pieces = append(pieces, symPiece{v, int(in.A)})
		default:
			return nil, false
		}
	}
	if len(pieces) > 0 {
		if len(stack) != 0 || hasLoc || value {
			return nil, false
		}
		return pieces, true
	}
	v, ok := finish(int(size))
	if !ok {
		return nil, false
	}
	return []symPiece{{v, int(size)}}, true
}

// symBinary applies a binary DWARF operation; shifts need a constant
// count.
func symBinary(op opcode, a, b insn.Value) (insn.Value, bool) {
	switch op {
	case opPlus:
		return insn.Add(a, b), true
	case opMinus:
		return insn.Sub(a, b), true
	case opMul:
		return insn.Mul(a, b), true
	case opAnd:
		return insn.And(a, b), true
	case opOr:
		return insn.Or(a, b), true
	case opXor:
		return insn.Xor(a, b), true
	}
	k, ok := insn.ConstValue(b)
	if !ok || k > 63 {
		return insn.Value{}, false
	}
	switch op {
	case opShl:
		return insn.Shl(a, uint(k)), true
	case opShr:
		return insn.Shr(a, uint(k)), true
	}
	return insn.Sar(a, uint(k)), true
}
