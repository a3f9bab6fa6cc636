package cfi

import "fmt"

// RuleKind says how a register's caller value is recovered.
type RuleKind uint8

const (
	RuleUnspecified   RuleKind = iota // no rule given (same value by convention, undefined for RA)
	RuleUndefined                     // DW_CFA_undefined
	RuleSameValue                     // DW_CFA_same_value
	RuleOffset                        // saved at CFA+Off
	RuleValOffset                     // value is CFA+Off
	RuleRegister                      // in register Reg
	RuleExpression                    // saved at address computed by Expr
	RuleValExpression                 // value computed by Expr
)

var ruleNames = [...]string{"unspecified", "undefined", "same", "offset", "val_offset", "register", "expression", "val_expression"}

func (k RuleKind) String() string {
	if int(k) < len(ruleNames) {
		return ruleNames[k]
	}
	return fmt.Sprintf("rule(%d)", uint8(k))
}

// Rule is one register's rule in a row.
type Rule struct {
	Kind RuleKind
	Reg  uint64
	Off  int64
	Expr []byte
}

// CFA is a row's canonical frame address rule: Reg+Off, or Expr when
// Expr is non-nil.
type CFA struct {
	Reg  uint64
	Off  int64
	Expr []byte
}

// Row is the unwinding state for the addresses [Loc, End).
type Row struct {
	Loc, End  uint64
	CFA       CFA
	Regs      []Rule // indexed by DWARF register number; shorter means unspecified
	RAMangled bool   // AArch64: DW_CFA_AARCH64_negate_ra_state toggles it
	ArgsSize  uint64 // DW_CFA_GNU_args_size
}

// Reg returns the rule for register r.
func (r *Row) Reg(n uint64) Rule {
	if n < uint64(len(r.Regs)) {
		return r.Regs[n]
	}
	return Rule{}
}

// MaxReg bounds register numbers; a larger one is an error rather than a
// huge allocation.
const MaxReg = 4096

type state struct {
	cfa      CFA
	regs     []Rule
	mangled  bool
	argsSize uint64
}

func (s *state) clone() state {
	c := *s
	c.regs = append([]Rule(nil), s.regs...)
	return c
}

func (s *state) set(n uint64, r Rule) {
	for uint64(len(s.regs)) <= n {
		s.regs = append(s.regs, Rule{})
	}
	s.regs[n] = r
}

func (s *state) get(n uint64) Rule {
	if n < uint64(len(s.regs)) {
		return s.regs[n]
	}
	return Rule{}
}

// Execute interprets the FDE (after its CIE's initial instructions) and
// calls fn for each row, in address order. The Row passed to fn is only
// valid during the call. Rows past the FDE's end are not reported.
func (f *FDE) Execute(fn func(*Row) error) error {
	var st state
	var initial state
	loc := f.Begin
	end := f.End()
	var stack []state
	fail := func(in *Insn, msg string, a ...any) error {
		return &Error{Section: f.sec.name(), Offset: in.Pos, Msg: fmt.Sprintf(msg, a...)}
	}
	var row Row
	emit := func(next uint64) error {
		if next <= loc || loc >= end {
			return nil
		}
		if next > end {
			next = end
		}
		row = Row{Loc: loc, End: next, CFA: st.cfa, Regs: st.regs, RAMangled: st.mangled, ArgsSize: st.argsSize}
		return fn(&row)
	}
	run := func(ir InsnReader, inCIE bool) error {
		var in Insn
		for ir.Next(&in) {
			if in.Reg > MaxReg || in.Reg2 > MaxReg {
				return fail(&in, "%v: register %d out of range", in.Op, max(in.Reg, in.Reg2))
			}
			switch in.Op {
			case OpNop:
			case OpAdvanceLoc, OpAdvanceLoc1, OpAdvanceLoc2, OpAdvanceLoc4, OpMIPSAdvanceLoc8, OpSetLoc:
				if inCIE {
					return fail(&in, "%v in CIE initial instructions", in.Op)
				}
				next := loc + in.Delta
				if in.Op == OpSetLoc {
					next = in.Delta
					if next < loc {
						return fail(&in, "DW_CFA_set_loc to %#x goes backwards from %#x", next, loc)
					}
				} else if next < loc {
					return fail(&in, "%v overflows the address space", in.Op)
				}
				if err := emit(next); err != nil {
					return err
				}
				loc = next
			case OpDefCFA, OpDefCFASF:
				st.cfa = CFA{Reg: in.Reg, Off: in.Off}
			case OpDefCFARegister:
				if st.cfa.Expr != nil {
					return fail(&in, "%v with an expression CFA", in.Op)
				}
				st.cfa.Reg = in.Reg
			case OpDefCFAOffset, OpDefCFAOffsetSF:
				if st.cfa.Expr != nil {
					return fail(&in, "%v with an expression CFA", in.Op)
				}
				st.cfa.Off = in.Off
			case OpDefCFAExpression:
				st.cfa = CFA{Expr: in.Expr}
			case OpUndefined:
				st.set(in.Reg, Rule{Kind: RuleUndefined})
			case OpSameValue:
				st.set(in.Reg, Rule{Kind: RuleSameValue})
			case OpOffset, OpOffsetExtended, OpOffsetExtendedSF, OpGNUNegativeOffsetExtended:
				st.set(in.Reg, Rule{Kind: RuleOffset, Off: in.Off})
			case OpValOffset, OpValOffsetSF:
				st.set(in.Reg, Rule{Kind: RuleValOffset, Off: in.Off})
			case OpRegister:
				st.set(in.Reg, Rule{Kind: RuleRegister, Reg: in.Reg2})
			case OpExpression:
				st.set(in.Reg, Rule{Kind: RuleExpression, Expr: in.Expr})
			case OpValExpression:
				st.set(in.Reg, Rule{Kind: RuleValExpression, Expr: in.Expr})
			case OpRestore, OpRestoreExtended:
				if inCIE {
					return fail(&in, "%v in CIE initial instructions", in.Op)
				}
				st.set(in.Reg, initial.get(in.Reg))
			case OpRememberState:
				if len(stack) >= 1024 {
					return fail(&in, "remember_state nesting too deep")
				}
				stack = append(stack, st.clone())
			case OpRestoreState:
				if len(stack) == 0 {
					return fail(&in, "restore_state without remember_state")
				}
				// The CFA and the mangled-RA state are part of the saved
				// row; args size is not (it tracks the current call).
				args := st.argsSize
				st = stack[len(stack)-1]
				st.argsSize = args
				stack = stack[:len(stack)-1]
			case OpGNUWindowSave:
				st.mangled = !st.mangled
			case OpAArch64NegateRAStateWithPC:
				st.mangled = !st.mangled
			case OpGNUArgsSize:
				st.argsSize = uint64(in.Off)
			default:
				return fail(&in, "unhandled %v", in.Op)
			}
		}
		return ir.Err()
	}
	if err := run(f.CIE.Insns(), true); err != nil {
		return err
	}
	initial = st.clone()
	if err := run(f.Insns(), false); err != nil {
		return err
	}
	return emit(end)
}

// Table returns the FDE's full row table.
func (f *FDE) Table() ([]Row, error) {
	var rows []Row
	err := f.Execute(func(r *Row) error {
		c := *r
		c.Regs = append([]Rule(nil), r.Regs...)
		rows = append(rows, c)
		return nil
	})
	return rows, err
}
