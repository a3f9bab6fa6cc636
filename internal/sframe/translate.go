package sframe

import (
	"sort"
	"sync"

	"github.com/btfinline/btfinline/internal/sframe/cfi"
)

// Skip reasons: why a CFI FDE has no SFrame FDE. They follow the GNU as
// warnings ("no SFrame FDE emitted; ...") where there is one.
const (
	SkipCFIError        = "CFI could not be decoded"
	SkipReturnColumn    = "non-default return address column"
	SkipCFAReg          = "CFA in a register other than SP/FP"
	SkipCFAOffset       = "CFA offset outside int32"
	SkipCFAOffsetNoBase = "def_cfa_offset without SP/FP CFA base"
	SkipOffsetRange     = "register save offset outside int32"
	SkipValOffset       = "val_offset rule for SP/FP/RA"
	SkipRegister        = "register rule for SP/FP/RA"
	SkipUndefined       = "undefined SP/FP"
	SkipRemember        = "remember_state without a prior row"
	SkipRestoreState    = "restore_state without remember_state"
	SkipWindowSave      = "DW_CFA_GNU_window_save outside AArch64"
	SkipNegateWithPC    = "DW_CFA_AARCH64_negate_ra_state_with_pc"
	SkipExpression      = "DWARF expression SFrame cannot express"
	SkipArgsSize        = "DW_CFA_GNU_args_size with SP-based CFA"
	SkipOp              = "unsupported call frame instruction"
	SkipRAOffset        = "RA saved at a non-default slot"
	SkipTooManyFREs     = "more than 65535 FREs"
	SkipFPWithoutRA     = "FP on stack without RA on stack"
	SkipNeedsFlex       = "needs a FLEX FDE (SFrame v2 has none)"
	SkipPastEnd         = "row starts past the function end"
	SkipNoCFA           = "no CFA rule"
	SkipPLT             = "PLT FDE replaced by linker-style PLT entries"
	SkipSignalV2        = "untranslatable signal frame (v2 cannot mark it)"
	SkipEmpty           = "empty address range"
	SkipRelocation      = "function start not resolved by a relocation"
)

// Reasons lists the keys of a count by reason (Emitted.Skipped, and the
// like), most frequent first.
func Reasons(m map[string]int) []string {
	rs := make([]string, 0, len(m))
	for r := range m {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool {
		if m[rs[i]] != m[rs[j]] {
			return m[rs[i]] > m[rs[j]]
		}
		return rs[i] < rs[j]
	})
	return rs
}

const regInvalid = ^uint64(0)

type elemLoc uint8

const (
	locNone  elemLoc = iota // not saved / still in its register (gas: LOC_NONE or LOC_REG)
	locStack                // described by a (reg/CFA, offset, deref) triple
)

// gasRow mirrors gas's struct sframe_row_entry.
type gasRow struct {
	begin    uint64
	cfaReg   uint64
	cfaOff   int64
	cfaDeref bool
	fpLoc    elemLoc
	fpReg    uint64
	fpOff    int64
	fpDeref  bool
	raLoc    elemLoc
	raReg    uint64
	raOff    int64
	raDeref  bool
	mangled  bool
	raUndef  bool
	merge    bool // gas merge_candidate: nothing changed since the row was opened
}

func newRow() gasRow {
	return gasRow{cfaReg: regInvalid, fpReg: regInvalid, raReg: regInvalid, merge: true}
}

// copyFrom is gas's sframe_row_entry_initialize.
func (r *gasRow) copyFrom(p *gasRow) {
	b, m := r.begin, r.merge
	*r = *p
	r.begin, r.merge = b, m
}

var xlatePool = sync.Pool{New: func() any { return new(xlate) }}

// xlate is gas's sframe_xlate_ctx.
type xlate struct {
	abi        ABI
	sp, fp, ra uint64
	raTrack    bool
	rows       []gasRow
	cur        gasRow
	hasCur     bool
	remember   gasRow
	hasRem     bool
	cieRow     gasRow // the row the CIE initial instructions define
	hasCIE     bool
	flex       bool
	size       uint64
}

func fitsInt32(v int64) bool { return v >= -1<<31 && v < 1<<31 }

// Translate turns one CFI FDE into an SFrame FDE the way GNU as would have
// from the same CFI directives. It returns the FDE, or a skip reason.
func Translate(f *cfi.FDE, abi ABI, version uint8) (*FDE, string) {
	return translate(f, abi, version, nil)
}

// freArena hands out FRE slices from large blocks: one allocation per
// block instead of one per function.
type freArena struct{ buf []FRE }

func (a *freArena) take(n int) []FRE {
	if a == nil || n > 256 {
		return make([]FRE, 0, n)
	}
	if cap(a.buf)-len(a.buf) < n {
		a.buf = make([]FRE, 0, 16384)
	}
	s := a.buf[len(a.buf) : len(a.buf) : len(a.buf)+n]
	a.buf = a.buf[:len(a.buf)+n]
	return s
}

func translate(f *cfi.FDE, abi ABI, version uint8, arena *freArena) (*FDE, string) {
	if f.Size == 0 {
		return nil, SkipEmpty
	}
	x := xlatePool.Get().(*xlate)
	defer xlatePool.Put(x)
	*x = xlate{abi: abi, size: f.Size, rows: x.rows[:0]}
	x.sp, x.fp, x.ra = abi.Regs()
	x.raTrack = abi != ABIAMD64LE
	fde, reason := x.run(f, arena)
	signal := f.CIE.SignalFrame
	if reason != "" {
		if !signal || reason == SkipCFIError {
			return nil, reason
		}
		if version == Version2 {
			return nil, SkipSignalV2
		}
		// gas keeps an FDE without FREs for signal trampolines.
		fde = &FDE{}
		x.flex = false
	}
	fde.Start = int64(f.Begin)
	fde.Size = uint32(f.Size)
	info := FRETypeFor(f.Size)
	if f.CIE.BKey {
		info |= 0x20
	}
	if signal && version == Version3 {
		info |= 0x80
	}
	fde.Info = info
	if x.flex {
		if version == Version2 {
			return nil, SkipNeedsFlex
		}
		fde.Info2 = FDETypeFlex
	}
	return fde, ""
}

func (x *xlate) run(f *cfi.FDE, arena *freArena) (*FDE, string) {
	if f.CIE.RAReg != x.ra {
		return nil, SkipReturnColumn
	}
	var in cfi.Insn
	for i := 0; i < 2; i++ {
		var ir cfi.InsnReader
		if i == 0 {
			ir = f.CIE.Insns()
		} else {
			ir = f.Insns()
		}
		for ir.Next(&in) {
			if err := x.do(&in, f); err != "" {
				return nil, err
			}
		}
		if ir.Err() != nil {
			return nil, SkipCFIError
		}
		if i == 0 {
			x.cieRow, x.hasCIE = newRow(), true
			if x.hasCur {
				x.cieRow = x.cur
			}
		}
	}
	if x.hasCur {
		x.add(x.cur)
		x.hasCur = false
	}
	if len(x.rows) > 0xffff {
		return nil, SkipTooManyFREs
	}
	if x.raTrack {
		for i := range x.rows {
			if r := &x.rows[i]; r.raLoc != locStack && r.fpLoc == locStack {
				return nil, SkipFPWithoutRA
			}
		}
	}
	out := &FDE{FREs: arena.take(len(x.rows))}
	for i := range x.rows {
		r := &x.rows[i]
		if r.begin > f.Size {
			return nil, SkipPastEnd
		}
		fre, reason := x.encodeRow(r)
		if reason != "" {
			return nil, reason
		}
		if n := len(out.FREs); n > 0 && out.FREs[n-1].Start == fre.Start {
			// Two rows at one address (a zero advance): keep the later.
			out.FREs[n-1] = fre
			continue
		}
		out.FREs = append(out.FREs, fre)
	}
	return out, ""
}

func (x *xlate) encodeRow(r *gasRow) (FRE, string) {
	fre := FRE{Start: uint32(r.begin)}
	if r.raUndef {
		return fre, ""
	}
	if r.cfaReg == regInvalid {
		return fre, SkipNoCFA
	}
	var wb [MaxWords]int64
	w := wb[:0]
	var base uint8
	if x.flex {
		w = append(w, int64(ctrlWord(r.cfaReg, r.cfaDeref)), r.cfaOff)
		if r.raLoc == locStack {
			w = append(w, int64(ctrlWord(r.raReg, r.raDeref)), r.raOff)
		} else if r.fpLoc == locStack {
			w = append(w, 0)
		}
		if r.fpLoc == locStack {
			w = append(w, int64(ctrlWord(r.fpReg, r.fpDeref)), r.fpOff)
		}
	} else {
		if r.cfaReg == x.sp {
			base = BaseSP
		}
		w = append(w, r.cfaOff)
		if x.raTrack && r.raLoc == locStack {
			w = append(w, r.raOff)
		}
		if r.fpLoc == locStack {
			w = append(w, r.fpOff)
		}
	}
	for i, v := range w {
		if !fitsInt32(v) && !(x.flex && isCtrl(len(w), i) && v >= 0 && v <= 0xffffffff) {
			return fre, SkipOffsetRange
		}
		fre.W[i] = int32(v)
	}
	fre.Info = FREInfo(base, len(w), 0, r.mangled)
	return fre, ""
}

// ctrlWord builds a FLEX control word: a register base (reg_p) unless the
// value is CFA-relative, deref_p when the value is loaded from memory.
func ctrlWord(reg uint64, deref bool) uint64 {
	if reg == regInvalid {
		return 2 // CFA-based, dereferenced: a stack slot
	}
	c := reg<<3 | 1
	if deref {
		c |= 2
	}
	return c
}

func (x *xlate) add(r gasRow) { x.rows = append(x.rows, r) }

func (x *xlate) last() *gasRow {
	if len(x.rows) == 0 {
		return nil
	}
	return &x.rows[len(x.rows)-1]
}

func (x *xlate) ensureCur() *gasRow {
	if !x.hasCur {
		x.cur, x.hasCur = newRow(), true
	}
	return &x.cur
}

func (x *xlate) do(in *cfi.Insn, f *cfi.FDE) string {
	switch in.Op {
	case cfi.OpNop:
		return ""
	case cfi.OpAdvanceLoc, cfi.OpAdvanceLoc1, cfi.OpAdvanceLoc2, cfi.OpAdvanceLoc4, cfi.OpMIPSAdvanceLoc8, cfi.OpSetLoc:
		var pc uint64
		prev := uint64(0)
		if x.hasCur {
			prev = x.cur.begin
		}
		if in.Op == cfi.OpSetLoc {
			if in.Delta < f.Begin {
				return SkipPastEnd
			}
			pc = in.Delta - f.Begin
		} else {
			pc = prev + in.Delta
			if pc < prev {
				return SkipPastEnd
			}
		}
		if pc > f.Size {
			return SkipPastEnd
		}
		if x.hasCur {
			if !x.cur.merge {
				x.add(x.cur)
				n := newRow()
				n.copyFrom(&x.cur)
				x.cur = n
			}
		} else {
			x.cur, x.hasCur = newRow(), true
		}
		x.cur.begin = pc
		return ""
	}
	cur := x.ensureCur()
	switch in.Op {
	case cfi.OpDefCFA, cfi.OpDefCFASF:
		if !fitsInt32(in.Off) {
			return SkipCFAOffset
		}
		if in.Reg != x.sp && in.Reg != x.fp {
			if x.abi != ABIAMD64LE || in.Reg > 31 {
				return SkipCFAReg
			}
			x.flex = true
		}
		cur.cfaReg, cur.cfaOff, cur.cfaDeref, cur.merge = in.Reg, in.Off, false, false
	case cfi.OpDefCFARegister:
		if in.Reg != x.sp && in.Reg != x.fp {
			if x.abi != ABIAMD64LE {
				return SkipCFAReg
			}
			x.flex = true
		}
		cur.cfaReg = in.Reg
		if l := x.last(); l != nil {
			// gas takes the offset from the last closed row, not the
			// scratch row (sframe_xlate_do_def_cfa_register).
			cur.cfaOff = l.cfaOff
		}
		cur.cfaDeref, cur.merge = false, false
	case cfi.OpDefCFAOffset, cfi.OpDefCFAOffsetSF:
		if cur.cfaReg != x.sp && cur.cfaReg != x.fp {
			return SkipCFAOffsetNoBase
		}
		if !fitsInt32(in.Off) {
			return SkipCFAOffset
		}
		cur.cfaOff, cur.merge = in.Off, false
	case cfi.OpOffset, cfi.OpOffsetExtended, cfi.OpOffsetExtendedSF, cfi.OpGNUNegativeOffsetExtended:
		switch {
		case in.Reg == x.fp:
			cur.fpLoc, cur.fpOff, cur.fpReg, cur.fpDeref, cur.merge = locStack, in.Off, regInvalid, false, false
		case in.Reg == x.ra && x.raTrack:
			cur.raLoc, cur.raOff, cur.raReg, cur.raDeref, cur.raUndef, cur.merge = locStack, in.Off, regInvalid, false, false, false
		case in.Reg == x.ra:
			// AMD64: RA has a fixed slot at CFA-8.
			if in.Off != int64(amd64FixedRA) {
				x.flex = true
				cur.raLoc, cur.raOff, cur.raReg, cur.raDeref, cur.raUndef, cur.merge = locStack, in.Off, regInvalid, false, false, false
			} else if cur.raLoc != locNone || cur.raUndef {
				cur.raLoc, cur.raUndef, cur.merge = locNone, false, false
			}
		}
	case cfi.OpValOffset, cfi.OpValOffsetSF:
		if in.Reg == x.fp || (x.raTrack && in.Reg == x.ra) || (in.Reg == x.sp && in.Off != 0) {
			return SkipValOffset
		}
	case cfi.OpRegister:
		switch x.abi {
		case ABIAMD64LE:
			switch in.Reg {
			case x.fp:
				cur.fpLoc, cur.fpOff, cur.fpReg, cur.fpDeref, cur.merge = locStack, 0, in.Reg2, false, false
				x.flex = true
			case x.ra:
				cur.raLoc, cur.raOff, cur.raReg, cur.raDeref, cur.raUndef, cur.merge = locStack, 0, in.Reg2, false, false, false
				x.flex = true
			case x.sp:
				return SkipRegister
			}
		default:
			if in.Reg == x.ra || in.Reg == x.sp || in.Reg == x.fp {
				return SkipRegister
			}
		}
	case cfi.OpRememberState:
		l := x.last()
		if l == nil {
			return SkipRemember
		}
		if !x.hasRem {
			x.remember, x.hasRem = newRow(), true
		}
		x.remember.copyFrom(l)
	case cfi.OpRestoreState:
		if !x.hasRem {
			return SkipRestoreState
		}
		cur.copyFrom(&x.remember)
		cur.merge = false
	case cfi.OpRestore, cfi.OpRestoreExtended:
		// gas restores from its first row, which includes whatever the
		// FDE did before its first advance; DWARF restores the CIE's
		// initial rule. They differ for FDEs that start with registers
		// already saved (.cold parts), where gas's choice unwinds wrongly.
		first := &x.cieRow
		if !x.hasCIE {
			first = cur
		}
		switch {
		case in.Reg == x.fp:
			cur.fpLoc, cur.fpOff, cur.merge = first.fpLoc, first.fpOff, false
			cur.fpReg, cur.fpDeref = first.fpReg, first.fpDeref
		case x.raTrack && in.Reg == x.ra:
			cur.raLoc, cur.raOff, cur.raUndef, cur.merge = first.raLoc, first.raOff, first.raUndef, false
			cur.raReg, cur.raDeref = first.raReg, first.raDeref
		}
	case cfi.OpGNUWindowSave:
		if x.abi != ABIAArch64LE && x.abi != ABIAArch64BE {
			return SkipWindowSave
		}
		cur.mangled, cur.merge = !cur.mangled, false
	case cfi.OpAArch64NegateRAStateWithPC:
		return SkipNegateWithPC
	case cfi.OpUndefined:
		switch in.Reg {
		case x.sp, x.fp:
			return SkipUndefined
		case x.ra:
			cur.raUndef, cur.merge = true, false
		}
	case cfi.OpSameValue:
		switch {
		case x.raTrack && in.Reg == x.ra:
			cur.raLoc, cur.raOff, cur.raUndef, cur.merge = locNone, 0, false, false
		case in.Reg == x.fp:
			cur.fpLoc, cur.fpOff, cur.merge = locNone, 0, false
		}
	case cfi.OpGNUArgsSize:
		// gas sees this only as .cfi_escape 0x2e,N with a one-byte N.
		if len(in.Raw) != 2 {
			return SkipArgsSize
		}
		if in.Off != 0 && cur.cfaReg != x.fp {
			return SkipArgsSize
		}
	case cfi.OpDefCFAExpression:
		// Only .cfi_escape 0x0f,3,DW_OP_breg6,off,DW_OP_deref on AMD64.
		e := in.Expr
		if x.abi != ABIAMD64LE || len(e) != 3 || e[0] != 0x76 || e[2] != 0x06 || e[1]&0x80 != 0 {
			return SkipExpression
		}
		x.flex = true
		cur.cfaReg, cur.cfaOff, cur.cfaDeref, cur.merge = x.fp, sleb1(e[1]), true, false
	case cfi.OpExpression:
		// .cfi_escape 0x10,reg,2,DW_OP_bregN,off with one-byte operands.
		e := in.Expr
		if len(in.Raw) != 5 || len(e) != 2 || e[1]&0x80 != 0 {
			return SkipExpression
		}
		switch {
		case x.abi == ABIAMD64LE && in.Reg == x.fp && e[0] == 0x76:
			x.flex = true
			cur.fpLoc, cur.fpOff, cur.fpReg, cur.fpDeref, cur.merge = locStack, sleb1(e[1]), x.fp, true, false
		case in.Reg == x.sp || in.Reg == x.fp || (x.raTrack && in.Reg == x.ra) || in.Reg == cur.cfaReg:
			return SkipExpression
		}
	case cfi.OpValExpression:
		return SkipExpression
	default:
		return SkipOp + " " + in.Op.String()
	}
	return ""
}

const amd64FixedRA = -8

func sleb1(b byte) int64 { return int64(int8(b<<1) >> 1) }
