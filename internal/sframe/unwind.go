package sframe

import (
	"fmt"
	"sort"

	"golang.org/x/arch/x86/x86asm"

	"github.com/btfinline/btfinline/internal/sframe/cfi"
)

// ValueKind says how a caller's register value is recovered.
type ValueKind uint8

const (
	ValSame    ValueKind = iota // unchanged: still in the register
	ValAt                       // saved in memory at CFA+Off
	ValCFAOff                   // the value is CFA+Off
	ValReg                      // Reg+Off, loaded from there if Deref
	ValUnknown                  // no representation
)

// Value is a recovery rule for the CFA, the RA or the FP.
type Value struct {
	Kind  ValueKind
	Reg   uint64
	Off   int64
	Deref bool
}

func (v Value) String() string {
	switch v.Kind {
	case ValSame:
		return "same"
	case ValAt:
		return fmt.Sprintf("[cfa%+d]", v.Off)
	case ValCFAOff:
		return fmt.Sprintf("cfa%+d", v.Off)
	case ValReg:
		if v.Deref {
			return fmt.Sprintf("[r%d%+d]", v.Reg, v.Off)
		}
		return fmt.Sprintf("r%d%+d", v.Reg, v.Off)
	}
	return "?"
}

// Frame is what an unwinder learns for one PC: how to get the CFA, the
// return address and the frame pointer of the caller.
type Frame struct {
	RAUndefined bool
	CFA, RA, FP Value
	Mangled     bool
}

func (f Frame) String() string {
	if f.RAUndefined {
		return "RA undefined"
	}
	m := ""
	if f.Mangled {
		m = " mangled"
	}
	return fmt.Sprintf("cfa=%v ra=%v fp=%v%s", f.CFA, f.RA, f.FP, m)
}

// Lookup finds the FDE and FRE covering pc and returns the frame rule.
// ok is false when no FDE covers pc or the FDE has no FRE for it.
func (s *Section) Lookup(pc int64) (fr Frame, fde *FDE, ok bool) {
	i := -1
	if s.Flags&FlagFDESorted != 0 {
		j := sort.Search(len(s.FDEs), func(k int) bool { return s.FDEs[k].Start > pc })
		i = j - 1
	} else {
		for k := range s.FDEs {
			f := &s.FDEs[k]
			if pc >= f.Start && pc < f.Start+int64(f.Size) {
				i = k
				break
			}
		}
	}
	if i < 0 {
		return fr, nil, false
	}
	f := &s.FDEs[i]
	if pc < f.Start || pc >= f.Start+int64(f.Size) {
		return fr, nil, false
	}
	off := uint64(pc - f.Start)
	if f.PCType() == PCTypeMask && f.RepSize != 0 {
		off %= uint64(f.RepSize)
	}
	j := sort.Search(len(f.FREs), func(k int) bool { return uint64(f.FREs[k].Start) > off }) - 1
	if j < 0 {
		return fr, f, false
	}
	return s.FrameOf(f, &f.FREs[j]), f, true
}

// FrameOf interprets one FRE of FDE f.
func (s *Section) FrameOf(f *FDE, r *FRE) Frame {
	var fr Frame
	w := r.Words()
	if len(w) == 0 {
		fr.RAUndefined = true
		return fr
	}
	fr.Mangled = r.Mangled()
	sp, fp, _ := s.ABI.Regs()
	if s.Version == Version3 && f.Flex() {
		pair := func(i int) Value {
			if i+1 >= len(w) {
				return Value{Kind: ValUnknown}
			}
			c := uint32(w[i])
			if c&1 == 0 {
				if c&2 != 0 {
					return Value{Kind: ValAt, Off: int64(w[i+1])}
				}
				return Value{Kind: ValCFAOff, Off: int64(w[i+1])}
			}
			return Value{Kind: ValReg, Reg: uint64(c >> 3), Off: int64(w[i+1]), Deref: c&2 != 0}
		}
		fr.CFA = pair(0)
		fr.RA, fr.FP = Value{Kind: ValSame}, Value{Kind: ValSame}
		if s.FixedRA != 0 {
			fr.RA = Value{Kind: ValAt, Off: int64(s.FixedRA)}
		}
		if s.FixedFP != 0 {
			fr.FP = Value{Kind: ValAt, Off: int64(s.FixedFP)}
		}
		fpIdx := -1
		if len(w) >= 3 {
			if w[2] == 0 {
				fpIdx = 3
			} else {
				fr.RA = pair(2)
				fpIdx = 4
			}
		}
		if fpIdx > 0 && fpIdx+1 < len(w) {
			fr.FP = pair(fpIdx)
		}
		return fr
	}
	base := fp
	if r.Base() == BaseSP {
		base = sp
	}
	fr.CFA = Value{Kind: ValReg, Reg: base, Off: int64(w[0])}
	raIdx, fpIdx := s.defaultWordIndexes()
	switch {
	case s.FixedRA != 0:
		fr.RA = Value{Kind: ValAt, Off: int64(s.FixedRA)}
	case raIdx < len(w) && w[raIdx] != 0:
		fr.RA = Value{Kind: ValAt, Off: int64(w[raIdx])}
	default:
		fr.RA = Value{Kind: ValSame}
	}
	switch {
	case fpIdx < len(w):
		fr.FP = Value{Kind: ValAt, Off: int64(w[fpIdx])}
	case s.FixedFP != 0:
		fr.FP = Value{Kind: ValAt, Off: int64(s.FixedFP)}
	default:
		fr.FP = Value{Kind: ValSame}
	}
	return fr
}

// FrameOfRow says what a CFI row gives for the CFA, RA and FP.
func FrameOfRow(abi ABI, raReg uint64, row *cfi.Row) Frame {
	_, fp, _ := abi.Regs()
	var fr Frame
	fr.Mangled = row.RAMangled
	if row.CFA.Expr != nil {
		e := row.CFA.Expr
		if len(e) == 3 && e[0] == 0x76 && e[2] == 0x06 && e[1]&0x80 == 0 {
			fr.CFA = Value{Kind: ValReg, Reg: 6, Off: sleb1(e[1]), Deref: true}
		} else {
			fr.CFA = Value{Kind: ValUnknown}
		}
	} else {
		fr.CFA = Value{Kind: ValReg, Reg: row.CFA.Reg, Off: row.CFA.Off}
	}
	conv := func(r cfi.Rule) Value {
		switch r.Kind {
		case cfi.RuleUnspecified, cfi.RuleSameValue:
			return Value{Kind: ValSame}
		case cfi.RuleOffset:
			return Value{Kind: ValAt, Off: r.Off}
		case cfi.RuleValOffset:
			return Value{Kind: ValCFAOff, Off: r.Off}
		case cfi.RuleRegister:
			return Value{Kind: ValReg, Reg: r.Reg}
		case cfi.RuleExpression:
			e := r.Expr
			if len(e) == 2 && e[0] >= 0x70 && e[0] <= 0x8f && e[1]&0x80 == 0 {
				return Value{Kind: ValReg, Reg: uint64(e[0] - 0x70), Off: sleb1(e[1]), Deref: true}
			}
		}
		return Value{Kind: ValUnknown}
	}
	ra := row.Reg(raReg)
	if ra.Kind == cfi.RuleUndefined {
		return Frame{RAUndefined: true}
	}
	fr.RA = conv(ra)
	fr.FP = conv(row.Reg(fp))
	return fr
}

// VerifyResult counts the unwinding check.
type VerifyResult struct {
	FDEs       int // FDEs checked against CFI
	PLT        int // PC-mask FDEs (PLT), not backed by CFI rows
	Points     int // addresses compared inside functions
	GapPoints  int // addresses outside every function checked for "no frame"
	Mismatches []string
	NoCFI      int // FDEs without a CFI FDE at the same start
	NotKept    int // FDEs the table under test does not describe
}

// Loc is an address asked about: in a linked object Sec is -1 and Addr
// the address; in a relocatable one Sec is the ELF section index and Addr
// the offset in it.
type Loc struct {
	Sec  int
	Addr uint64
}

func (l Loc) String() string {
	if l.Sec < 0 {
		return fmt.Sprintf("%#x", l.Addr)
	}
	return fmt.Sprintf("[%d]+%#x", l.Sec, l.Addr)
}

// FrameFinder answers the frame rule at l the way one table format finds
// it. ok false means "no frame".
type FrameFinder func(l Loc) (fr Frame, ok bool)

// CheckOptions controls CheckFrames.
type CheckOptions struct {
	MaxReport int
	// Insns adds every instruction boundary of every function to the
	// points checked (x86-64 decoded with x86asm; AArch64 every 4 bytes).
	Insns bool
	// Gaps checks that addresses outside every function kept, within and
	// around the executable sections, answer "no frame".
	Gaps bool
	// Keep says which FDEs of the emitted section the table describes
	// (nil: all). The others are counted in NotKept and not checked.
	Keep func(i int) bool
}

// SectionFinder looks up frame rules in the decoded SFrame section s made
// from em (in the emitter's FDE order).
func (in *Input) SectionFinder(em *Emitted, s *Section) FrameFinder {
	if !in.Rel {
		return func(l Loc) (Frame, bool) {
			fr, _, ok := s.Lookup(int64(l.Addr))
			return fr, ok
		}
	}
	// Section-relative starts: search the FDEs of one section.
	bySec := map[int][]int{}
	for i := range s.FDEs {
		bySec[em.FuncSection[i]] = append(bySec[em.FuncSection[i]], i)
	}
	for _, idx := range bySec {
		sort.SliceStable(idx, func(a, b int) bool { return s.FDEs[idx[a]].Start < s.FDEs[idx[b]].Start })
	}
	return func(l Loc) (Frame, bool) {
		idx := bySec[l.Sec]
		j := sort.Search(len(idx), func(k int) bool { return uint64(s.FDEs[idx[k]].Start) > l.Addr }) - 1
		if j < 0 {
			return Frame{}, false
		}
		f := &s.FDEs[idx[j]]
		if l.Addr >= uint64(f.Start)+uint64(f.Size) {
			return Frame{}, false
		}
		return s.lookupIn(f, l.Addr-uint64(f.Start))
	}
}

// CheckFrames is the unwinding property, for any table format: at every
// CFI row boundary and FRE start (and, with opt.Insns, every instruction
// boundary) of every FDE of em kept, find answers the CFI row's rule for
// the CFA, RA and FP; PC-mask (PLT) FDEs answer what their SFrame FREs
// say, FDEs without FREs answer "no frame"; with opt.Gaps, addresses
// outside every kept function answer "no frame".
func (in *Input) CheckFrames(em *Emitted, find FrameFinder, opt CheckOptions) VerifyResult {
	var vr VerifyResult
	type key struct {
		sec  int
		addr uint64
	}
	cfiBy := map[key]*cfi.FDE{}
	execs := in.execRanges()
	for _, f := range em.CFI.FDEs {
		k := key{-1, f.Begin}
		if in.Rel {
			sec, ok := execs.find(f.Begin)
			if !ok {
				continue
			}
			k = key{sec, f.Begin - in.base[sec]}
		}
		cfiBy[k] = f
	}
	s := em.Section
	report := func(msg string, a ...any) {
		if len(vr.Mismatches) < opt.MaxReport {
			vr.Mismatches = append(vr.Mismatches, fmt.Sprintf(msg, a...))
		} else {
			vr.Mismatches = append(vr.Mismatches, "")
		}
	}
	var spans []span
	var rows []cfi.Row
	for i := range s.FDEs {
		sf := &s.FDEs[i]
		if opt.Keep != nil && !opt.Keep(i) {
			vr.NotKept++
			continue
		}
		sec := -1
		if in.Rel {
			sec = em.FuncSection[i]
		}
		start := uint64(sf.Start)
		spans = append(spans, span{sec, start, start + uint64(sf.Size)})
		pts := map[uint64]bool{}
		for _, r := range sf.FREs {
			pts[uint64(r.Start)] = true
		}
		if opt.Insns {
			in.insnBoundaries(sec, start, uint64(sf.Size), pts)
		}
		var want func(off uint64) (Frame, bool)
		switch {
		case sf.PCType() == PCTypeMask:
			vr.PLT++
			want = func(off uint64) (Frame, bool) { return s.lookupIn(sf, off) }
		case len(sf.FREs) == 0:
			// A signal frame without rows: "no information".
			vr.FDEs++
			want = func(uint64) (Frame, bool) { return Frame{}, false }
		default:
			cf := cfiBy[key{sec, start}]
			if cf == nil {
				vr.NoCFI++
				continue
			}
			vr.FDEs++
			rows = rows[:0]
			if err := cf.Execute(func(r *cfi.Row) error {
				c := *r
				c.Regs = append([]cfi.Rule(nil), r.Regs...)
				rows = append(rows, c)
				return nil
			}); err != nil {
				report("FDE at %#x: CFI: %v", sf.Start, err)
				continue
			}
			for _, r := range rows {
				pts[r.Loc-cf.Begin] = true
			}
			want = func(off uint64) (Frame, bool) {
				pc := cf.Begin + off
				ri := sort.Search(len(rows), func(k int) bool { return rows[k].End > pc })
				if ri < len(rows) && rows[ri].Loc <= pc {
					return FrameOfRow(s.ABI, cf.CIE.RAReg, &rows[ri]), true
				}
				return Frame{CFA: Value{Kind: ValUnknown}}, true
			}
		}
		offs := make([]uint64, 0, len(pts))
		for off := range pts {
			if off < uint64(sf.Size) {
				offs = append(offs, off)
			}
		}
		sort.Slice(offs, func(a, b int) bool { return offs[a] < offs[b] })
		for _, off := range offs {
			vr.Points++
			w, wok := want(off)
			got, ok := find(Loc{sec, start + off})
			if ok != wok || got != w {
				report("pc %#x (FDE %#x+%#x): got %v (found %v), want %v (found %v)", start+off, sf.Start, off, got, ok, w, wok)
			}
		}
	}
	if opt.Gaps {
		for _, l := range in.gapPoints(spans) {
			vr.GapPoints++
			if got, ok := find(l); ok {
				report("%v is outside every function but has a frame: %v", l, got)
			}
		}
	}
	return vr
}

type span struct {
	sec        int
	start, end uint64
}

// gapPoints lists addresses outside every span: both ends of every gap
// between functions (every byte of a short gap, 32 at each end of a long
// one and its middle), and before the first and after the last function,
// per executable section for relocatable inputs.
func (in *Input) gapPoints(spans []span) []Loc {
	sort.Slice(spans, func(a, b int) bool {
		if spans[a].sec != spans[b].sec {
			return spans[a].sec < spans[b].sec
		}
		return spans[a].start < spans[b].start
	})
	var out []Loc
	gap := func(sec int, a, b uint64) {
		if b <= a {
			return
		}
		if b-a <= 64 {
			for x := a; x < b; x++ {
				out = append(out, Loc{sec, x})
			}
			return
		}
		for x := uint64(0); x < 32; x++ {
			out = append(out, Loc{sec, a + x}, Loc{sec, b - 1 - x})
		}
		out = append(out, Loc{sec, a + (b-a)/2})
	}
	var end uint64 // the furthest end so far in the section: overlaps leave no gap
	for i, sp := range spans {
		if i == 0 || spans[i-1].sec != sp.sec {
			lo := uint64(0)
			if !in.Rel {
				lo = sp.start - min(sp.start, 4096)
			}
			gap(sp.sec, lo, sp.start)
		} else {
			gap(sp.sec, end, sp.start)
		}
		if i == 0 || spans[i-1].sec != sp.sec {
			end = sp.end
		} else {
			end = max(end, sp.end)
		}
		if i == len(spans)-1 || spans[i+1].sec != sp.sec {
			gap(sp.sec, end, end+4096)
		}
	}
	return out
}

// insnBoundaries adds the offsets of every instruction in the function at
// start (a section offset when sec >= 0) to pts.
func (in *Input) insnBoundaries(sec int, start, size uint64, pts map[uint64]bool) {
	code := in.codeAt(sec, start, size)
	switch in.ABI {
	case ABIAMD64LE:
		for off := 0; off < len(code); {
			pts[uint64(off)] = true
			inst, err := x86asm.Decode(code[off:], 64)
			if err != nil || inst.Len == 0 {
				off++ // not code (or not decodable): try the next byte
				continue
			}
			off += inst.Len
		}
	default:
		for off := uint64(0); off < uint64(len(code)); off += 4 {
			pts[off] = true
		}
	}
}

// codeAt returns the bytes of [start, start+size) of the executable
// section holding them (section sec at offset start for relocatable
// inputs), or nil.
func (in *Input) codeAt(sec int, start, size uint64) []byte {
	if sec < 0 {
		var ok bool
		if sec, ok = in.execRanges().find(start); !ok {
			return nil
		}
		start -= in.File.Sections[sec].Addr
	}
	s := in.File.Sections[sec]
	d, err := in.data(s)
	if err != nil || start > uint64(len(d)) {
		return nil
	}
	return d[start:min(uint64(len(d)), start+size)]
}

func (s *Section) lookupIn(f *FDE, off uint64) (Frame, bool) {
	if f.PCType() == PCTypeMask && f.RepSize != 0 {
		off %= uint64(f.RepSize)
	}
	j := sort.Search(len(f.FREs), func(k int) bool { return uint64(f.FREs[k].Start) > off }) - 1
	if j < 0 {
		return Frame{}, false
	}
	return s.FrameOf(f, &f.FREs[j]), true
}
