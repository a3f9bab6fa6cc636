package sframe

import (
	"fmt"
	"sort"

	"github.com/btfinline/btfinline/sframe/cfi"
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
	FDEs       int // SFrame FDEs checked against CFI
	PLT        int // PC-mask FDEs (PLT), not backed by CFI rows
	Points     int // addresses compared
	Mismatches []string
	NoCFI      int // SFrame FDEs without a CFI FDE at the same start
}

// Verify checks that for every row boundary and FRE boundary of every FDE
// in the decoded section s (made from em), the SFrame frame rule equals the
// CFI row's. Relocatable inputs compare section-relative starts.
func (in *Input) Verify(em *Emitted, s *Section, maxReport int) VerifyResult {
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
	for i := range s.FDEs {
		sf := &s.FDEs[i]
		if sf.PCType() == PCTypeMask {
			vr.PLT++
			continue
		}
		k := key{-1, uint64(sf.Start)}
		if in.Rel {
			// Section-relative starts: the emitter's FDE order is the
			// section's index order for relocatable files.
			k = key{em.FuncSection[i], uint64(sf.Start)}
		}
		cf := cfiBy[k]
		if cf == nil {
			vr.NoCFI++
			continue
		}
		vr.FDEs++
		if len(sf.FREs) == 0 {
			continue // signal frame without rows: "no information"
		}
		var rows []cfi.Row
		if err := cf.Execute(func(r *cfi.Row) error {
			c := *r
			c.Regs = append([]cfi.Rule(nil), r.Regs...)
			rows = append(rows, c)
			return nil
		}); err != nil {
			vr.Mismatches = append(vr.Mismatches, fmt.Sprintf("FDE at %#x: CFI: %v", sf.Start, err))
			continue
		}
		pts := map[uint64]bool{}
		for _, r := range rows {
			pts[r.Loc-cf.Begin] = true
		}
		for _, r := range sf.FREs {
			pts[uint64(r.Start)] = true
		}
		for off := range pts {
			if off >= uint64(sf.Size) {
				continue
			}
			vr.Points++
			pc := cf.Begin + off
			ri := sort.Search(len(rows), func(k int) bool { return rows[k].End > pc })
			var want Frame
			if ri < len(rows) && rows[ri].Loc <= pc {
				want = FrameOfRow(s.ABI, cf.CIE.RAReg, &rows[ri])
			} else {
				want = Frame{CFA: Value{Kind: ValUnknown}}
			}
			var got Frame
			var ok bool
			if in.Rel {
				got, ok = s.lookupIn(sf, off)
			} else {
				got, _, ok = s.Lookup(sf.Start + int64(off))
			}
			if !ok || got != want {
				if len(vr.Mismatches) < maxReport {
					vr.Mismatches = append(vr.Mismatches, fmt.Sprintf("pc %#x (FDE %#x+%#x): sframe %v, cfi %v", pc, sf.Start, off, got, want))
				} else {
					vr.Mismatches = append(vr.Mismatches, "")
				}
			}
		}
	}
	return vr
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
