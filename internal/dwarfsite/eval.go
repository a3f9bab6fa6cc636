package dwarfsite

import (
	"encoding/binary"

	"github.com/btfinline/btfinline/internal/site"
)

// Reasons a location cannot be expressed as a LOC_PARAM. They are stable
// strings: --stats counts parameters by them.
const (
	ReasonEntryValue       = "entry_value away from function entry"
	ReasonEntryValueExpr   = "entry_value of an expression"
	ReasonParameterRef     = "GNU_parameter_ref"
	ReasonImplicitPointer  = "implicit_pointer"
	ReasonArithmetic       = "multi-op arithmetic"
	ReasonDoubleDeref      = "double dereference"
	ReasonAbsMemory        = "memory at absolute address"
	ReasonPieceMemory      = "piece of memory"
	ReasonPieceConst       = "piece of constant"
	ReasonPiecePartial     = "partially optimized out"
	ReasonPieceMany        = "more than two pieces"
	ReasonBitPiece         = "bit_piece"
	ReasonTLS              = "TLS address"
	ReasonCFA              = "call_frame_cfa"
	ReasonTyped            = "typed conversion"
	ReasonControlFlow      = "control flow"
	ReasonCall             = "DWARF procedure call"
	ReasonLargeConst       = "constant wider than 8 bytes"
	ReasonVariableValue    = "GNU_variable_value"
	ReasonObjectAddress    = "push_object_address"
	ReasonUnresolvedIndex  = "unresolvable addrx/constx"
	ReasonMalformed        = "malformed expression"
	ReasonMalformedLocList = "malformed location list"
	ReasonTooLarge         = "value wider than 16 bytes"
	// ReasonNotProven: at a probe address moved past the entry pc
	// (ProbeBlock), the location there is not provably the argument.
	ReasonNotProven = "not the argument provably, past the entry pc"
)

type svKind uint8

const (
	svConst svKind = iota // the constant val
	svReg                 // contents of reg, plus off
	svMem                 // the size-byte value loaded from reg+off
	svAddr                // the link-time address val
)

type sval struct {
	kind svKind
	reg  uint32
	off  int64
	val  uint64
	size uint8
}

// evalEnv is what classifying an expression needs besides the bytes.
type evalEnv struct {
	f       exprFormat
	atEntry bool  // the site is at the first instruction of its caller
	size    uint8 // byte size of the parameter's type, 0 if unknown
	// addrx resolves a .debug_addr index (DW_OP_addrx, DW_OP_constx).
	addrx func(idx uint64) (uint64, bool)
	// stack, when set, is the evaluation stack's memory, handed from
	// expression to expression (nil: a new one each time).
	stack *[]sval
}

type piece struct {
	loc  site.Location
	size uint64
	ok   bool // loc is set (false: this part is optimized out)
}

// classify turns a decoded expression into a Location at the site.
func classify(ins []instr, env *evalEnv) site.Location {
	var pb [2]piece // a value is one or two pieces
	pieces := pb[:0]
	st := exprState{}
	if sp := env.stack; sp != nil {
		st.stack = (*sp)[:0]
		defer func() { *sp = st.stack[:0] }()
	}
	for i := range ins {
		in := &ins[i]
		if in.opcode == opPiece {
			l, ok := st.finish(env)
			if ok && l.Kind == site.LocUnavailable {
				return l
			}
			pieces = append(pieces, piece{loc: l, size: in.A, ok: ok})
			st = exprState{stack: st.stack[:0]}
			continue
		}
		if in.opcode == opBitPiece {
			return unavailable(ReasonBitPiece)
		}
		if r := st.step(in, env); r != "" {
			return unavailable(r)
		}
	}
	if len(pieces) == 0 {
		l, ok := st.finish(env)
		if !ok {
			return site.Location{} // empty expression: optimized out
		}
		if l.Kind != site.LocUnavailable && l.Size == 0 {
			l.Size = env.size
		}
		return l
	}
	if !st.empty() {
		return unavailable(ReasonMalformed)
	}
	return combinePieces(pieces, env)
}

func unavailable(reason string) site.Location {
	return site.Location{Kind: site.LocUnavailable, Reason: reason}
}

func combinePieces(ps []piece, env *evalEnv) site.Location {
	var total uint64
	for _, p := range ps {
		total += p.size
	}
	for _, p := range ps {
		if !p.ok {
			return unavailable(ReasonPiecePartial)
		}
	}
	if len(ps) == 1 {
		l := ps[0].loc
		if l.Kind == site.LocMem || l.Kind == site.LocConst || l.Kind == site.LocAddr || total > 8 {
			// A lone piece of memory or a constant narrower than the
			// object is still the whole value when it covers it.
			if total > 16 {
				return unavailable(ReasonTooLarge)
			}
		}
		l.Size = uint8(min(total, 16))
		return l
	}
	if len(ps) > 2 {
		return unavailable(ReasonPieceMany)
	}
	a, b := ps[0].loc, ps[1].loc
	if a.Kind == site.LocReg && b.Kind == site.LocReg {
		if total > 16 {
			return unavailable(ReasonTooLarge)
		}
		return site.Location{Kind: site.LocRegPair, Reg: a.Reg, Reg2: b.Reg, Size: uint8(total)}
	}
	if a.Kind == site.LocMem || b.Kind == site.LocMem {
		return unavailable(ReasonPieceMemory)
	}
	return unavailable(ReasonPieceConst)
}

type exprState struct {
	stack    []sval
	reg      bool // a register location (DW_OP_reg*)
	regNum   uint32
	implicit *site.Location
	value    bool // DW_OP_stack_value seen
}

func (s *exprState) empty() bool {
	return len(s.stack) == 0 && !s.reg && s.implicit == nil
}

func (s *exprState) push(v sval) { s.stack = append(s.stack, v) }

func (s *exprState) pop() (sval, bool) {
	if len(s.stack) == 0 {
		return sval{}, false
	}
	v := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	return v, true
}

// step applies one operation; it returns a reason when the expression
// cannot be represented.
func (s *exprState) step(in *instr, env *evalEnv) string {
	if s.reg || s.implicit != nil || s.value {
		// Only DW_OP_piece may follow a register location, an implicit
		// value or DW_OP_stack_value.
		if in.opcode == opNop || in.opcode == opGNUUninit {
			return ""
		}
		return ReasonMalformed
	}
	op := in.opcode
	switch {
	case op >= opLit0 && op <= opLit31:
		s.push(sval{kind: svConst, val: uint64(op - opLit0)})
		return ""
	case op >= opReg0 && op <= opReg31:
		return s.setReg(uint32(op-opReg0), env)
	case op >= opBreg0 && op <= opBreg31:
		s.push(sval{kind: svReg, reg: uint32(op - opBreg0), off: int64(in.A)})
		return ""
	}
	switch op {
	case opRegx:
		if in.A > 0xfffffffe {
			return ReasonMalformed
		}
		return s.setReg(uint32(in.A), env)
	case opBregx:
		if in.A > 0xfffffffe {
			return ReasonMalformed
		}
		s.push(sval{kind: svReg, reg: uint32(in.A), off: int64(in.B)})
	case opRegvalType, opGNURegvalType:
		if in.A > 0xfffffffe {
			return ReasonMalformed
		}
		s.push(sval{kind: svReg, reg: uint32(in.A)})
	case opFbreg:
		s.push(sval{kind: svReg, reg: site.FBReg, off: int64(in.A)})
	case opAddr, opGNUEncodedAddr:
		s.push(sval{kind: svAddr, val: in.A})
	case opConst1u, opConst1s, opConst2u, opConst2s, opConst4u, opConst4s,
		opConst8u, opConst8s, opConstu, opConsts:
		// A constant wider than 64 bits is its low 64 bits in a type of
		// at most 8 bytes (what the type can hold); a wider type would
		// need the rest.
		if in.Wide && env.size > 8 {
			return ReasonLargeConst
		}
		s.push(sval{kind: svConst, val: in.A})
	case opAddrx, opConstx, opGNUAddrIndex, opGNUConstIndex:
		if env.addrx == nil {
			return ReasonUnresolvedIndex
		}
		v, ok := env.addrx(in.A)
		if !ok {
			return ReasonUnresolvedIndex
		}
		k := svAddr
		if op == opConstx || op == opGNUConstIndex {
			k = svConst
		}
		s.push(sval{kind: k, val: v})
	case opConstType, opGNUConstType:
		if len(in.Block) > 8 {
			return ReasonLargeConst
		}
		s.push(sval{kind: svConst, val: bytesValue(in.Block, env.f.Order)})
	case opStackValue:
		if len(s.stack) == 0 {
			return ReasonMalformed
		}
		s.value = true
	case opImplicitValue:
		if len(s.stack) != 0 {
			return ReasonMalformed
		}
		if len(in.Block) > 8 {
			return ReasonLargeConst
		}
		s.implicit = &site.Location{Kind: site.LocConst, Value: bytesValue(in.Block, env.f.Order), Size: uint8(len(in.Block))}
	case opEntryValue, opGNUEntryValue:
		inner, err := decodeExpr(in.Block, env.f, "", 0)
		if err != nil || len(inner) != 1 {
			if err != nil {
				return ReasonMalformed
			}
			return ReasonEntryValueExpr
		}
		var reg uint32
		switch iop := inner[0].opcode; {
		case iop >= opReg0 && iop <= opReg31:
			reg = uint32(iop - opReg0)
		case iop == opRegx && inner[0].A <= 0xfffffffe:
			reg = uint32(inner[0].A)
		default:
			return ReasonEntryValueExpr
		}
		// The value the register had when the out-of-line caller was
		// entered. A probe reads the current register, which is that
		// value only at the caller's first instruction.
		if !env.atEntry {
			return ReasonEntryValue
		}
		s.push(sval{kind: svReg, reg: reg})
	case opDeref, opDerefSize, opDerefType, opGNUDerefType:
		size := uint8(env.f.AddrSize)
		if op != opDeref {
			size = uint8(in.A)
		}
		v, ok := s.pop()
		if !ok {
			return ReasonMalformed
		}
		switch v.kind {
		case svReg:
			s.push(sval{kind: svMem, reg: v.reg, off: v.off, size: size})
		case svMem:
			return ReasonDoubleDeref
		default:
			return ReasonAbsMemory
		}
	case opPlusUconst:
		v, ok := s.pop()
		if !ok {
			return ReasonMalformed
		}
		r := addConst(v, in.A)
		if r == nil {
			return ReasonArithmetic
		}
		s.push(*r)
	case opPlus:
		b, ok1 := s.pop()
		a, ok2 := s.pop()
		if !ok1 || !ok2 {
			return ReasonMalformed
		}
		var r *sval
		switch {
		case b.kind == svConst:
			r = addConst(a, b.val)
		case a.kind == svConst:
			r = addConst(b, a.val)
		}
		if r == nil {
			return ReasonArithmetic
		}
		s.push(*r)
	case opMinus:
		b, ok1 := s.pop()
		a, ok2 := s.pop()
		if !ok1 || !ok2 {
			return ReasonMalformed
		}
		if b.kind != svConst {
			return ReasonArithmetic
		}
		r := addConst(a, -b.val)
		if r == nil {
			return ReasonArithmetic
		}
		s.push(*r)
	case opNeg, opNot, opAbs:
		v, ok := s.pop()
		if !ok {
			return ReasonMalformed
		}
		if v.kind != svConst {
			return ReasonArithmetic
		}
		switch op {
		case opNeg:
			v.val = -v.val
		case opNot:
			v.val = ^v.val
		case opAbs:
			if int64(v.val) < 0 {
				v.val = -v.val
			}
		}
		s.push(v)
	case opAnd, opOr, opXor, opMul, opDiv, opMod, opShl, opShr, opShra,
		opEq, opGe, opGt, opLe, opLt, opNe:
		b, ok1 := s.pop()
		a, ok2 := s.pop()
		if !ok1 || !ok2 {
			return ReasonMalformed
		}
		if a.kind != svConst || b.kind != svConst {
			return ReasonArithmetic
		}
		v, ok := foldBinary(op, a.val, b.val)
		if !ok {
			return ReasonArithmetic
		}
		s.push(sval{kind: svConst, val: v})
	case opDup:
		if len(s.stack) == 0 {
			return ReasonMalformed
		}
		s.push(s.stack[len(s.stack)-1])
	case opDrop:
		if _, ok := s.pop(); !ok {
			return ReasonMalformed
		}
	case opOver, opPick:
		n := uint64(1)
		if op == opPick {
			n = in.A
		}
		if n >= uint64(len(s.stack)) {
			return ReasonMalformed
		}
		s.push(s.stack[len(s.stack)-1-int(n)])
	case opSwap:
		if len(s.stack) < 2 {
			return ReasonMalformed
		}
		n := len(s.stack)
		s.stack[n-1], s.stack[n-2] = s.stack[n-2], s.stack[n-1]
	case opRot:
		if len(s.stack) < 3 {
			return ReasonMalformed
		}
		n := len(s.stack)
		s.stack[n-1], s.stack[n-2], s.stack[n-3] = s.stack[n-2], s.stack[n-3], s.stack[n-1]
	case opNop, opGNUUninit:
	case opSkip, opBra:
		return ReasonControlFlow
	case opCall2, opCall4, opCallRef:
		return ReasonCall
	case opFormTLSAddress, opGNUPushTLSAddress:
		return ReasonTLS
	case opCallFrameCFA:
		return ReasonCFA
	case opConvert, opReinterpret, opGNUConvert, opGNUReinterpret:
		return ReasonTyped
	case opImplicitPointer, opGNUImplicitPointer:
		return ReasonImplicitPointer
	case opGNUParameterRef:
		return ReasonParameterRef
	case opGNUVariableValue:
		return ReasonVariableValue
	case opPushObjectAddress:
		return ReasonObjectAddress
	case opXderef, opXderefSize, opXderefType:
		return ReasonAbsMemory
	default:
		return ReasonMalformed
	}
	return ""
}

func (s *exprState) setReg(r uint32, env *evalEnv) string {
	if len(s.stack) != 0 {
		return ReasonMalformed
	}
	s.reg, s.regNum = true, r
	return ""
}

// finish turns the state into a Location; ok is false for an empty
// description (the object, or this piece of it, is optimized out).
func (s *exprState) finish(env *evalEnv) (site.Location, bool) {
	switch {
	case s.reg:
		return site.Location{Kind: site.LocReg, Reg: s.regNum}, true
	case s.implicit != nil:
		return *s.implicit, true
	case len(s.stack) == 0:
		return site.Location{}, false
	}
	top := s.stack[len(s.stack)-1]
	if s.value {
		switch top.kind {
		case svConst:
			return site.Location{Kind: site.LocConst, Value: top.val}, true
		case svAddr:
			return site.Location{Kind: site.LocAddr, Value: top.val}, true
		case svReg:
			if top.off == 0 && top.reg != site.FBReg {
				return site.Location{Kind: site.LocReg, Reg: top.reg}, true
			}
			return site.Location{Kind: site.LocRegOffset, Reg: top.reg, Offset: top.off, Signed: top.off < 0}, true
		case svMem:
			return site.Location{Kind: site.LocMem, Reg: top.reg, Offset: top.off, Signed: top.off < 0, Size: top.size}, true
		}
	}
	// A memory location description: the top of the stack is the
	// address of the object.
	switch top.kind {
	case svReg:
		return site.Location{Kind: site.LocMem, Reg: top.reg, Offset: top.off, Signed: top.off < 0}, true
	case svMem:
		return unavailable(ReasonDoubleDeref), true
	default:
		return unavailable(ReasonAbsMemory), true
	}
}

func addConst(v sval, c uint64) *sval {
	switch v.kind {
	case svConst, svAddr:
		v.val += c
	case svReg:
		v.off += int64(c)
	default:
		return nil
	}
	return &v
}

func foldBinary(op opcode, a, b uint64) (uint64, bool) {
	bool2 := func(x bool) uint64 {
		if x {
			return 1
		}
		return 0
	}
	switch op {
	case opAnd:
		return a & b, true
	case opOr:
		return a | b, true
	case opXor:
		return a ^ b, true
	case opMul:
		return a * b, true
	case opDiv:
		if b == 0 || (int64(a) == -1<<63 && int64(b) == -1) {
			return 0, false
		}
		return uint64(int64(a) / int64(b)), true
	case opMod:
		if b == 0 {
			return 0, false
		}
		return a % b, true
	case opShl:
		if b >= 64 {
			return 0, true
		}
		return a << b, true
	case opShr:
		if b >= 64 {
			return 0, true
		}
		return a >> b, true
	case opShra:
		if b >= 64 {
			b = 63
		}
		return uint64(int64(a) >> b), true
	case opEq:
		return bool2(int64(a) == int64(b)), true
	case opGe:
		return bool2(int64(a) >= int64(b)), true
	case opGt:
		return bool2(int64(a) > int64(b)), true
	case opLe:
		return bool2(int64(a) <= int64(b)), true
	case opLt:
		return bool2(int64(a) < int64(b)), true
	case opNe:
		return bool2(int64(a) != int64(b)), true
	}
	return 0, false
}

func bytesValue(b []byte, order binary.ByteOrder) uint64 {
	var v uint64
	if order == binary.BigEndian {
		for _, x := range b {
			v = v<<8 | uint64(x)
		}
		return v
	}
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}
