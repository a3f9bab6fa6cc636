package insn

import (
	"debug/elf"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"
)

// Symbolic values: what a register or memory holds after a run of
// straight-line instructions, as an expression of what the registers and
// memory held before it (State). Two values are compared modulo 2^(8n)
// for the n bytes a reader uses (Equal); a value this package cannot
// follow is a fresh unknown, equal only to itself. The x86-64 arithmetic
// and moves the compiler uses to materialize values are modeled; arm64
// register moves only (arm64asm keeps most immediates unexported), with
// anything else an unknown.

// Value is a symbolic 64-bit value.
type Value struct{ n *node }

type nodeKind uint8

const (
	kConst   nodeKind = iota
	kReg              // the register's value at the start
	kUnknown          // a value nothing tells about
	kLoad             // size bytes at addr, zero-extended, as memory was at epoch
	kLin              // sum of coef*term, plus c
	kAnd
	kOr
	kXor
	kMul // of two non-constant values
	kNot
	kShr  // logical, by a constant c
	kSar  // arithmetic, by a constant c
	kSext // of the low c bytes
)

type term struct {
	coef uint64
	v    *node
}

type node struct {
	kind  nodeKind
	c     uint64 // constant, register, unknown id, shift, size, epoch
	epoch int
	a, b  *node
	terms []term // kLin
	key   string
}

// mk sets n's key: its canonical spelling, by which values compare.
func mk(n *node) *node {
	b := make([]byte, 0, 32)
	hex := func(v uint64) { b = strconv.AppendUint(append(b, 'x'), v, 16) }
	switch n.kind {
	case kConst:
		hex(n.c)
	case kReg:
		b = strconv.AppendUint(append(b, 'r'), n.c, 10)
	case kUnknown:
		b = strconv.AppendUint(append(b, '?'), n.c, 10)
	case kLoad:
		b = append(append(append(b, '['), n.a.key...), ']')
		b = strconv.AppendUint(b, n.c, 10)
		b = strconv.AppendInt(append(b, '@'), int64(n.epoch), 10)
	case kLin:
		b = append(b, '(')
		for _, t := range n.terms {
			hex(t.coef)
			b = append(append(append(b, '*'), t.v.key...), '+')
		}
		hex(n.c)
		b = append(b, ')')
	default:
		b = strconv.AppendUint(append(b, 'k'), uint64(n.kind), 10)
		b = append(append(b, '('), n.a.key...)
		if n.b != nil {
			b = append(append(b, ','), n.b.key...)
		} else {
			b = append(b, ',')
			hex(n.c)
		}
		b = append(b, ')')
	}
	n.key = string(b)
	return n
}

func mask(bits uint) uint64 {
	if bits >= 64 {
		return ^uint64(0)
	}
	return 1<<bits - 1
}

// Const is the value c.
func Const(c uint64) Value {
	if c < uint64(len(smallConsts)) {
		return Value{smallConsts[c]}
	}
	return Value{mk(&node{kind: kConst, c: c})}
}

// Reg is the value register r (a DWARF number) had at the start.
func Reg(r uint32) Value {
	if int(r) < len(regs) {
		return Value{regs[r]}
	}
	return Value{mk(&node{kind: kReg, c: uint64(r)})}
}

// Nodes never change once made, so the most common leaves are made once
// and shared: a probe evaluation builds hundreds of thousands of values.
var smallConsts, regs = leaves(kConst, 256), leaves(kReg, 64)

func leaves(k nodeKind, n int) []*node {
	ns := make([]*node, n)
	for i := range ns {
		ns[i] = mk(&node{kind: k, c: uint64(i)})
	}
	return ns
}

// Load is the size bytes (1 to 8) at addr, zero-extended, as memory was
// after epoch stores (State.Epoch).
func Load(addr Value, size int, epoch int) Value {
	return Value{mk(&node{kind: kLoad, a: addr.n, c: uint64(size), epoch: epoch})}
}

func (v Value) ok() bool { return v.n != nil }

// ConstValue returns v's value when it is a constant.
func ConstValue(v Value) (uint64, bool) {
	if v.n != nil && v.n.kind == kConst {
		return v.n.c, true
	}
	return 0, false
}

func (v Value) String() string {
	if v.n == nil {
		return "<nil>"
	}
	return v.n.key
}

func lin(terms []term, c uint64) *node {
	// Merge equal terms, drop zero coefficients, sort by key.
	var s sum
	for _, t := range terms {
		if t.v.kind == kConst {
			c += t.coef * t.v.c
			continue
		}
		if t.v.kind == kLin {
			for _, u := range t.v.terms {
				s.add(term{t.coef * u.coef, u.v})
			}
			c += t.coef * t.v.c
			continue
		}
		s.add(t)
	}
	out := s.out
	k := 0
	for _, t := range out {
		if t.coef != 0 {
			out[k] = t
			k++
		}
	}
	out = out[:k]
	if len(out) == 0 {
		return mk(&node{kind: kConst, c: c})
	}
	if len(out) == 1 && out[0].coef == 1 && c == 0 {
		return out[0].v
	}
	// The keys are distinct (merged above): any sort gives one order.
	slices.SortFunc(out, func(a, b term) int { return strings.Compare(a.v.key, b.v.key) })
	return mk(&node{kind: kLin, terms: out, c: c})
}

// sum collects terms, merging those of the same key. Most sums have a
// few terms, which a scan finds faster than a map; a long one (built
// from a long run of instructions) gets the map, so that it stays
// linear.
type sum struct {
	out []term
	idx map[string]int
}

const sumScan = 16

func (s *sum) add(t term) {
	if s.idx == nil && len(s.out) < sumScan {
		for i := range s.out {
			if s.out[i].v.key == t.v.key {
				s.out[i].coef += t.coef
				return
			}
		}
		s.out = append(s.out, t)
		return
	}
	if s.idx == nil {
		s.idx = make(map[string]int, 2*sumScan)
		for i, u := range s.out {
			s.idx[u.v.key] = i
		}
	}
	if i, ok := s.idx[t.v.key]; ok {
		s.out[i].coef += t.coef
		return
	}
	s.idx[t.v.key] = len(s.out)
	s.out = append(s.out, t)
}

// Add, Sub, Mul, And, Or, Xor, Not, Neg, Shl, Shr, Sar and Sext are the
// 64-bit operations, folded where both sides are known.
func Add(a, b Value) Value { return Value{lin([]term{{1, a.n}, {1, b.n}}, 0)} }
func Sub(a, b Value) Value { return Value{lin([]term{{1, a.n}, {^uint64(0), b.n}}, 0)} }
func Neg(a Value) Value    { return Value{lin([]term{{^uint64(0), a.n}}, 0)} }

func Mul(a, b Value) Value {
	switch {
	case b.n.kind == kConst:
		return Value{lin([]term{{b.n.c, a.n}}, 0)}
	case a.n.kind == kConst:
		return Value{lin([]term{{a.n.c, b.n}}, 0)}
	}
	return bin(kMul, a, b)
}

func bin(k nodeKind, a, b Value) Value {
	x, y := a.n, b.n
	if x.key > y.key {
		x, y = y, x
	}
	if x.kind == kConst && y.kind == kConst {
		switch k {
		case kAnd:
			return Const(x.c & y.c)
		case kOr:
			return Const(x.c | y.c)
		case kXor:
			return Const(x.c ^ y.c)
		case kMul:
			return Const(x.c * y.c)
		}
	}
	if x.key == y.key {
		switch k {
		case kAnd, kOr:
			return Value{x}
		case kXor:
			return Const(0)
		}
	}
	// Constants of a chain of one operation fold: (v & c1) & c2 is
	// v & (c1 & c2).
	if k != kMul {
		v, c := x, y
		if v.kind == kConst {
			v, c = c, v
		}
		if c.kind == kConst && v.kind == k && (v.a.kind == kConst || v.b.kind == kConst) {
			in, c2 := v.a, v.b
			if in.kind == kConst {
				in, c2 = c2, in
			}
			return bin(k, Value{in}, bin(k, Value{c2}, Value{c}))
		}
	}
	if k == kAnd && y.kind == kConst && y.c == ^uint64(0) || k == kAnd && x.kind == kConst && x.c == ^uint64(0) {
		if x.kind == kConst {
			return Value{y}
		}
		return Value{x}
	}
	return Value{mk(&node{kind: k, a: x, b: y})}
}

func And(a, b Value) Value { return bin(kAnd, a, b) }
func Or(a, b Value) Value  { return bin(kOr, a, b) }
func Xor(a, b Value) Value { return bin(kXor, a, b) }

func Not(a Value) Value {
	if a.n.kind == kConst {
		return Const(^a.n.c)
	}
	if a.n.kind == kNot {
		return Value{a.n.a}
	}
	return Value{mk(&node{kind: kNot, a: a.n})}
}

// Shl shifts left by a constant k (a multiplication by 2^k).
func Shl(a Value, k uint) Value {
	if k >= 64 {
		return Const(0)
	}
	return Value{lin([]term{{1 << k, a.n}}, 0)}
}

func Shr(a Value, k uint) Value {
	if k >= 64 {
		return Const(0)
	}
	if a.n.kind == kConst {
		return Const(a.n.c >> k)
	}
	if k == 0 {
		return a
	}
	if y, ok := unshl(a.n, k); ok {
		return And(Value{y}, Const(mask(64-k)))
	}
	return Value{mk(&node{kind: kShr, a: a.n, c: uint64(k)})}
}

func Sar(a Value, k uint) Value {
	k = min(k, 63)
	if a.n.kind == kConst {
		return Const(uint64(int64(a.n.c) >> k))
	}
	if k == 0 {
		return a
	}
	if y, ok := unshl(a.n, k); ok && k%8 == 0 {
		return Sext(Value{y}, int(64-k)/8)
	}
	return Value{mk(&node{kind: kSar, a: a.n, c: uint64(k)})}
}

// unshl returns y when a is y << k (0 < k < 64): a sum whose coefficients
// and constant all have their low k bits clear, as Shl builds one. A left
// shift and a right shift by the same count are how DWARF spells a sign
// or zero extension (gcc: "DW_OP_const1u 32; DW_OP_shl; DW_OP_const1u 32;
// DW_OP_shra" for (long)int), and x86-64 does it in one movslq or a
// 32-bit mov; the right shift of y << k is rewritten as that extension of
// y so that both spellings compare equal.
func unshl(a *node, k uint) (*node, bool) {
	if a.kind != kLin || k == 0 || k >= 64 {
		return nil, false
	}
	low := mask(k)
	if a.c&low != 0 {
		return nil, false
	}
	ts := make([]term, len(a.terms))
	for i, t := range a.terms {
		if t.coef&low != 0 {
			return nil, false
		}
		ts[i] = term{t.coef >> k, t.v}
	}
	return lin(ts, a.c>>k), true
}

// Sext sign-extends the low n bytes of a.
func Sext(a Value, n int) Value {
	if n >= 8 {
		return a
	}
	if a.n.kind == kConst {
		sh := 64 - 8*uint(n)
		return Const(uint64(int64(a.n.c<<sh) >> sh))
	}
	return Value{mk(&node{kind: kSext, a: a.n, c: uint64(n)})}
}

// Zext keeps the low n bytes of a.
func Zext(a Value, n int) Value {
	if n >= 8 {
		return a
	}
	return And(a, Const(mask(8*uint(n))))
}

// norm rewrites n into a canonical form of its value modulo 2^bits.
// Addition, multiplication, the bitwise operations and truncations keep
// low bits from low bits, so their operands are reduced too; a right
// shift or a load's address needs its operand whole.
func norm(n *node, bits uint) *node {
	m := mask(bits)
	switch n.kind {
	case kConst:
		return mk(&node{kind: kConst, c: n.c & m})
	case kReg, kUnknown:
		return n
	case kLoad:
		a := norm(n.a, 64)
		size := n.c
		// Little-endian: the low bytes of a wider load are a narrower one.
		if uint64(bits) < 8*size {
			size = uint64(bits+7) / 8
		}
		return mk(&node{kind: kLoad, a: a, c: size, epoch: n.epoch})
	case kLin:
		ts := make([]term, len(n.terms))
		for i, t := range n.terms {
			ts[i] = term{t.coef & m, norm(t.v, bits)}
		}
		r := lin(ts, n.c&m)
		if r.kind == kLin {
			for i := range r.terms {
				r.terms[i].coef &= m
			}
			r.c &= m
			r = mk(r)
		} else if r.kind == kConst {
			r = mk(&node{kind: kConst, c: r.c & m})
		}
		return r
	case kAnd:
		// A mask that keeps every bit looked at is no mask.
		if n.b.kind == kConst && n.b.c&m == m {
			return norm(n.a, bits)
		}
		if n.a.kind == kConst && n.a.c&m == m {
			return norm(n.b, bits)
		}
		return bin(kAnd, Value{norm(n.a, bits)}, Value{norm(n.b, bits)}).n
	case kOr, kXor, kMul:
		return bin(n.kind, Value{norm(n.a, bits)}, Value{norm(n.b, bits)}).n
	case kNot:
		return Not(Value{norm(n.a, bits)}).n
	case kSext:
		if uint64(bits) <= 8*n.c {
			return norm(n.a, bits)
		}
		return mk(&node{kind: kSext, a: norm(n.a, uint(8*n.c)), c: n.c})
	case kShr, kSar:
		return mk(&node{kind: n.kind, a: norm(n.a, 64), c: n.c})
	}
	return n
}

// Equal reports whether a and b are provably the same in their low n
// bytes (1 to 8). Unknowns make values unequal unless they are the very
// same unknown.
func Equal(a, b Value, n int) bool {
	if !a.ok() || !b.ok() || n < 1 || n > 8 {
		return false
	}
	return norm(a.n, 8*uint(n)).key == norm(b.n, 8*uint(n)).key
}

// State is what the registers and memory hold after a run of
// instructions, in terms of what they held at its start. Registers are
// DWARF numbers below 64; a number above names a value no instruction
// changes (a reader's stand-in for a function's frame base).
type State struct {
	machine elf.Machine
	regs    map[uint32]Value // changed registers; others hold Reg(r)
	epoch   int              // stores so far
	unknown uint64
}

// NewState starts a run for machine m.
func NewState(m elf.Machine) *State {
	return &State{machine: m, regs: map[uint32]Value{}}
}

// Clone copies s.
func (s *State) Clone() *State {
	c := *s
	c.regs = make(map[uint32]Value, len(s.regs))
	for k, v := range s.regs {
		c.regs[k] = v
	}
	return &c
}

// RegValue is what register r holds now.
func (s *State) RegValue(r uint32) Value {
	if v, ok := s.regs[r]; ok {
		return v
	}
	return Reg(r)
}

// Epoch counts the stores so far: a load after a store reads another
// memory than one before it.
func (s *State) Epoch() int { return s.epoch }

func (s *State) fresh() Value {
	s.unknown++
	return Value{mk(&node{kind: kUnknown, c: s.unknown})}
}

// Step applies in (from Decode) to s.
func (s *State) Step(in *Inst) {
	if in.Kind.FallsThrough() {
		switch in.raw {
		case rawX86:
			if s.x86(&in.x86, in.pc, in.Len) {
				return
			}
		case rawARM64:
			if s.arm64(&in.a64) {
				return
			}
		}
	}
	s.clobber(in)
}

// clobber applies what Writes says: changed registers become unknown.
func (s *State) clobber(in *Inst) {
	if in.WritesMem {
		s.epoch++
	}
	if in.WritesAll {
		for r := uint32(0); r < 64; r++ {
			s.regs[r] = s.fresh()
		}
		return
	}
	for r := uint32(0); r < 64; r++ {
		if in.Writes&(1<<r) != 0 {
			s.regs[r] = s.fresh()
		}
	}
}

// x86 register widths in x86asm's order.
func x86Width(r x86asm.Reg) int {
	switch {
	case r >= x86asm.AL && r <= x86asm.R15B:
		return 1
	case r >= x86asm.AX && r <= x86asm.R15W:
		return 2
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return 4
	case r >= x86asm.RAX && r <= x86asm.R15:
		return 8
	}
	return 0
}

// x86 applies the x86-64 instruction x at pc of length n; false when it
// is not modeled (the caller clobbers what it writes).
func (s *State) x86(x *x86asm.Inst, pc uint64, n int) bool {
	next := pc + uint64(n)
	addr := func(m x86asm.Mem) (Value, bool) {
		if m.Segment != 0 && m.Segment != x86asm.DS && m.Segment != x86asm.SS {
			return Value{}, false // %gs:, %fs: per-CPU and TLS bases
		}
		v := Const(uint64(m.Disp))
		if m.Base == x86asm.RIP {
			v = Const(next + uint64(m.Disp))
		} else if m.Base != 0 {
			r, ok := x86DWARF[m.Base]
			if !ok || x86Width(m.Base) != 8 {
				return Value{}, false
			}
			v = Add(v, s.RegValue(r))
		}
		if m.Index != 0 {
			r, ok := x86DWARF[m.Index]
			if !ok || x86Width(m.Index) != 8 {
				return Value{}, false
			}
			v = Add(v, Mul(s.RegValue(r), Const(uint64(m.Scale))))
		}
		return v, true
	}
	// read returns an operand's value and width in bytes.
	read := func(a x86asm.Arg) (Value, int, bool) {
		switch a := a.(type) {
		case x86asm.Reg:
			r, ok := x86DWARF[a]
			w := x86Width(a)
			if !ok || w == 0 || a >= x86asm.AH && a <= x86asm.BH {
				return Value{}, 0, false
			}
			return Zext(s.RegValue(r), w), w, true
		case x86asm.Mem:
			ad, ok := addr(a)
			if !ok || x.MemBytes < 1 || x.MemBytes > 8 {
				return Value{}, 0, false
			}
			return Load(ad, x.MemBytes, s.epoch), x.MemBytes, true
		case x86asm.Imm:
			return Const(uint64(a)), 0, true
		}
		return Value{}, 0, false
	}
	// write sets a register operand: a 32-bit write zero-extends, a
	// narrower one merges (not modeled).
	write := func(a x86asm.Arg, v Value) bool {
		r, ok := a.(x86asm.Reg)
		if !ok {
			return false
		}
		d, ok := x86DWARF[r]
		switch w := x86Width(r); {
		case !ok:
			return false
		case w == 8:
			s.regs[d] = v
		case w == 4:
			s.regs[d] = Zext(v, 4)
		default:
			return false
		}
		return true
	}
	switch x.Op {
	case x86asm.NOP, x86asm.CMP, x86asm.TEST, x86asm.BT, x86asm.PAUSE,
		x86asm.PREFETCHT0, x86asm.PREFETCHT1, x86asm.PREFETCHT2, x86asm.PREFETCHNTA, x86asm.PREFETCHW:
		return true
	case x86asm.MOV, x86asm.MOVZX:
		if _, ok := x.Args[0].(x86asm.Mem); ok {
			s.epoch++
			return true
		}
		v, _, ok := read(x.Args[1])
		return ok && write(x.Args[0], v)
	case x86asm.MOVSX, x86asm.MOVSXD:
		v, w, ok := read(x.Args[1])
		return ok && w > 0 && write(x.Args[0], Sext(v, w))
	case x86asm.LEA:
		m, ok := x.Args[1].(x86asm.Mem)
		if !ok {
			return false
		}
		v, ok := addr(m)
		return ok && write(x.Args[0], v)
	case x86asm.ADD, x86asm.SUB, x86asm.AND, x86asm.OR, x86asm.XOR, x86asm.IMUL:
		if _, ok := x.Args[0].(x86asm.Reg); !ok {
			return false
		}
		a, b := x.Args[0], x.Args[1]
		if x.Op == x86asm.IMUL && x.Args[2] != nil {
			a, b = x.Args[1], x.Args[2]
		} else if x.Op == x86asm.IMUL && x.Args[1] == nil {
			return false
		}
		va, _, ok1 := read(a)
		vb, _, ok2 := read(b)
		if !ok1 || !ok2 {
			return false
		}
		var v Value
		switch x.Op {
		case x86asm.ADD:
			v = Add(va, vb)
		case x86asm.SUB:
			v = Sub(va, vb)
		case x86asm.AND:
			v = And(va, vb)
		case x86asm.OR:
			v = Or(va, vb)
		case x86asm.XOR:
			v = Xor(va, vb)
		case x86asm.IMUL:
			v = Mul(va, vb)
		}
		return write(x.Args[0], v)
	case x86asm.INC, x86asm.DEC, x86asm.NEG, x86asm.NOT:
		va, _, ok := read(x.Args[0])
		if !ok {
			return false
		}
		var v Value
		switch x.Op {
		case x86asm.INC:
			v = Add(va, Const(1))
		case x86asm.DEC:
			v = Sub(va, Const(1))
		case x86asm.NEG:
			v = Neg(va)
		case x86asm.NOT:
			v = Not(va)
		}
		return write(x.Args[0], v)
	case x86asm.SHL, x86asm.SHR, x86asm.SAR:
		k, ok := x.Args[1].(x86asm.Imm)
		va, w, ok2 := read(x.Args[0])
		if !ok || !ok2 || w < 4 {
			return false
		}
		sh := uint(k) & 63
		if w == 4 {
			sh = uint(k) & 31
		}
		var v Value
		switch x.Op {
		case x86asm.SHL:
			v = Shl(va, sh)
		case x86asm.SHR:
			v = Shr(va, sh)
		case x86asm.SAR:
			v = Sar(Sext(va, w), sh)
		}
		return write(x.Args[0], v)
	case x86asm.XCHG:
		va, _, ok1 := read(x.Args[0])
		vb, _, ok2 := read(x.Args[1])
		_, r1 := x.Args[0].(x86asm.Reg)
		_, r2 := x.Args[1].(x86asm.Reg)
		if !ok1 || !ok2 || !r1 || !r2 {
			return false
		}
		return write(x.Args[0], vb) && write(x.Args[1], va)
	case x86asm.PUSH:
		sp := Sub(s.RegValue(7), Const(8))
		s.regs[7] = sp
		s.epoch++
		return true
	case x86asm.POP:
		ld := Load(s.RegValue(7), 8, s.epoch)
		s.regs[7] = Add(s.RegValue(7), Const(8))
		return write(x.Args[0], ld)
	}
	return false
}

// a64Reg maps an arm64asm general register to its DWARF number and
// width in bytes (xzr/wzr: number 0xff, reads as 0).
func a64Reg(a arm64asm.Arg) (uint32, int, bool) {
	var r arm64asm.Reg
	sp := false
	switch a := a.(type) {
	case arm64asm.Reg:
		r = a
	case arm64asm.RegSP:
		r, sp = arm64asm.Reg(a), true
	default:
		return 0, 0, false
	}
	switch {
	case r >= arm64asm.W0 && r <= arm64asm.W30:
		return uint32(r - arm64asm.W0), 4, true
	case r >= arm64asm.X0 && r <= arm64asm.X30:
		return uint32(r - arm64asm.X0), 8, true
	case r == arm64asm.WZR:
		if sp {
			return 31, 4, true
		}
		return 0xff, 4, true
	case r == arm64asm.XZR:
		if sp {
			return 31, 8, true
		}
		return 0xff, 8, true
	}
	return 0, 0, false
}

// arm64 applies the moves, sign and zero extensions, shifts by a
// constant and bitwise operations with an immediate (the forms whose
// operands arm64asm exports); false for anything else.
func (s *State) arm64(x *arm64asm.Inst) bool {
	read := func(a arm64asm.Arg) (Value, int, bool) {
		switch a := a.(type) {
		case arm64asm.Imm64:
			return Const(a.Imm), 0, true
		case arm64asm.Imm:
			return Const(uint64(a.Imm)), 0, true
		}
		r, w, ok := a64Reg(a)
		if !ok {
			return Value{}, 0, false
		}
		if r == 0xff {
			return Const(0), w, true
		}
		return Zext(s.RegValue(r), w), w, true
	}
	d, dw, ok := a64Reg(x.Args[0])
	if !ok {
		return false
	}
	set := func(v Value) bool {
		if d != 0xff {
			s.regs[d] = Zext(v, dw)
		}
		return true
	}
	switch x.Op {
	case arm64asm.MOV:
		v, _, ok := read(x.Args[1])
		return ok && x.Args[2] == nil && set(v)
	case arm64asm.SXTB, arm64asm.SXTH, arm64asm.SXTW, arm64asm.UXTB, arm64asm.UXTH:
		// (long)int and its kin, which DWARF spells as a shift pair
		// (Sar, Shr): sxtw x2, w2 before find_next_bit.
		v, _, ok := read(x.Args[1])
		if !ok || x.Args[2] != nil {
			return false
		}
		switch x.Op {
		case arm64asm.UXTB:
			return set(Zext(v, 1))
		case arm64asm.UXTH:
			return set(Zext(v, 2))
		case arm64asm.SXTB:
			return set(Sext(v, 1))
		case arm64asm.SXTH:
			return set(Sext(v, 2))
		}
		return set(Sext(v, 4))
	case arm64asm.LSL, arm64asm.LSR, arm64asm.ASR:
		v, _, ok := read(x.Args[1])
		k, isImm := x.Args[2].(arm64asm.Imm)
		if !ok || !isImm {
			return false
		}
		sh := uint(k.Imm) & uint(8*dw-1)
		switch x.Op {
		case arm64asm.LSL:
			return set(Shl(v, sh))
		case arm64asm.LSR:
			return set(Shr(v, sh))
		default:
			return set(Sar(Sext(v, dw), sh))
		}
	case arm64asm.AND, arm64asm.ORR, arm64asm.EOR:
		a, _, ok1 := read(x.Args[1])
		imm, isImm := x.Args[2].(arm64asm.Imm64)
		if !ok1 || !isImm || x.Args[3] != nil {
			return false
		}
		b := Const(imm.Imm)
		switch x.Op {
		case arm64asm.AND:
			return set(And(a, b))
		case arm64asm.ORR:
			return set(Or(a, b))
		default:
			return set(Xor(a, b))
		}
	}
	return false
}
