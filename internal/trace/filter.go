package trace

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/asm"
)

// Filter is a parsed --filter expression:
//
//	expr    = and { "||" and }
//	and     = unary { "&&" unary }
//	unary   = "!" unary | "(" expr ")" | compare
//	compare = operand [ ("==" | "!=" | "<" | "<=" | ">" | ">=") operand ]
//	operand = atom { "&" atom } | "(" operand ")" { "&" atom }
//	atom    = NAME | NUMBER | "-" NUMBER
//
// A NAME is an argument as the probe names it (p, p->a, w.lo) or, when
// no argument has that name, a constant the Consts callback of Bind knows
// (BTF enumerators). An operand alone means "!= 0". Semantics, the same
// in Eval and in the BPF the filter compiles to:
//
//   - values are 64-bit, each argument normalised to its type
//     (sign-extended when signed);
//   - a comparison is signed when every argument in both operands is of a
//     signed type (constants do not count), else unsigned, as C compares
//     after the usual conversions to a 64-bit type;
//   - a comparison, or a bare operand, that reads an argument unavailable
//     at the site (or whose load faulted) is false; "!" of it is true.
type Filter struct {
	root *node
	src  string
}

type node struct {
	op   string // "||", "&&", "!", or a comparison ("==" ... ">=", "" for a bare operand)
	l, r *node
	a, b operand
}

type operand []atom // ANDed together

type atom struct {
	name  string // "" for a constant
	value uint64
	// Bound by Bind: the event word and its signedness.
	word   int
	signed bool
	bound  bool
}

// maxFilterLen and maxFilterDepth bound the parser's work.
const (
	maxFilterLen   = 4096
	maxFilterDepth = 64
)

// FilterError is a syntax error at a byte offset of the expression.
type FilterError struct {
	Expr string
	Off  int
	Msg  string
}

func (e *FilterError) Error() string {
	return fmt.Sprintf("--filter %q: at offset %d: %s", e.Expr, e.Off, e.Msg)
}

type token struct {
	kind string // "name", "num", or the operator text; "" at the end
	text string
	off  int
}

func tokenize(s string) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(s) {
				d := s[j]
				if d == '_' || d >= 'a' && d <= 'z' || d >= 'A' && d <= 'Z' || d >= '0' && d <= '9' {
					j++
					continue
				}
				// A member path: "->" or "." followed by a name.
				if (d == '.' || d == '-' && j+1 < len(s) && s[j+1] == '>') && j+1 < len(s) {
					k := j + 1
					if d == '-' {
						k++
					}
					if k < len(s) && (s[k] == '_' || s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z') {
						j = k
						continue
					}
				}
				break
			}
			out = append(out, token{"name", s[i:j], i})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] == '_') {
				j++
			}
			out = append(out, token{"num", s[i:j], i})
			i = j
		default:
			op := ""
			for _, o := range []string{"==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "&", "(", ")", "-"} {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, &FilterError{s, i, fmt.Sprintf("unexpected %q", c)}
			}
			out = append(out, token{op, op, i})
			i += len(op)
		}
	}
	return append(out, token{"", "", len(s)}), nil
}

type parser struct {
	src   string
	toks  []token
	pos   int
	depth int
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) next() token {
	t := p.toks[p.pos]
	if p.pos < len(p.toks)-1 {
		p.pos++
	}
	return t
}

func (p *parser) errAt(t token, format string, args ...any) error {
	return &FilterError{p.src, t.off, fmt.Sprintf(format, args...)}
}

// ParseFilter parses a --filter expression.
func ParseFilter(s string) (*Filter, error) {
	if len(s) > maxFilterLen {
		return nil, &FilterError{s[:32] + "...", 0, fmt.Sprintf("longer than %d bytes", maxFilterLen)}
	}
	toks, err := tokenize(s)
	if err != nil {
		return nil, err
	}
	p := &parser{src: s, toks: toks}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != "" {
		return nil, p.errAt(t, "unexpected %q", t.text)
	}
	return &Filter{root: n, src: s}, nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxFilterDepth {
		return p.errAt(p.peek(), "nested deeper than %d", maxFilterDepth)
	}
	return nil
}

func (p *parser) expr() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == "||" {
		p.next()
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = &node{op: "||", l: l, r: r}
	}
	return l, nil
}

func (p *parser) and() (*node, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == "&&" {
		p.next()
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = &node{op: "&&", l: l, r: r}
	}
	return l, nil
}

func (p *parser) unary() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	switch p.peek().kind {
	case "!":
		p.next()
		n, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &node{op: "!", l: n}, nil
	case "(":
		p.next()
		n, err := p.expr()
		if err != nil {
			return nil, err
		}
		if t := p.next(); t.kind != ")" {
			return nil, p.errAt(t, "want \")\", got %q", t.text)
		}
		if n.op != "" {
			return n, nil
		}
		// A parenthesised operand: "(a & 0xff) == 5".
		for p.peek().kind == "&" {
			p.next()
			more, err := p.operand()
			if err != nil {
				return nil, err
			}
			n.a = append(n.a, more...)
		}
		return p.compare(n)
	}
	a, err := p.operand()
	if err != nil {
		return nil, err
	}
	return p.compare(&node{a: a})
}

// compare reads the comparison operator and right operand after n.a, if
// any.
func (p *parser) compare(n *node) (*node, error) {
	var err error
	switch t := p.peek(); t.kind {
	case "==", "!=", "<", "<=", ">", ">=":
		p.next()
		n.op = t.kind
		if n.b, err = p.operand(); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (p *parser) operand() (operand, error) {
	var o operand
	for {
		a, err := p.atom()
		if err != nil {
			return nil, err
		}
		o = append(o, a)
		if p.peek().kind != "&" {
			return o, nil
		}
		p.next()
	}
}

func (p *parser) atom() (atom, error) {
	t := p.next()
	switch t.kind {
	case "name":
		return atom{name: t.text}, nil
	case "num":
		v, err := parseNumber(t.text, false)
		if err != nil {
			return atom{}, p.errAt(t, "%v", err)
		}
		return atom{value: v}, nil
	case "-":
		n := p.next()
		if n.kind != "num" {
			return atom{}, p.errAt(n, "want a number after \"-\", got %q", n.text)
		}
		v, err := parseNumber(n.text, true)
		if err != nil {
			return atom{}, p.errAt(n, "%v", err)
		}
		return atom{value: v}, nil
	case "":
		return atom{}, p.errAt(t, "unexpected end of expression")
	}
	return atom{}, p.errAt(t, "want an argument or a number, got %q", t.text)
}

// parseNumber reads a C integer literal (decimal, 0x hex, 0 octal, 0b
// binary); neg negates it (two's complement).
func parseNumber(s string, neg bool) (uint64, error) {
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	if neg {
		if v > 1<<63 {
			return 0, fmt.Errorf("-%s does not fit in 64 bits", s)
		}
		v = -v
	}
	return v, nil
}

// String returns the expression as given.
func (f *Filter) String() string { return f.src }

// Names returns the names the expression refers to, in order of first use.
func (f *Filter) Names() []string {
	var out []string
	seen := map[string]bool{}
	f.root.walk(func(a *atom) {
		if a.name != "" && !seen[a.name] {
			seen[a.name] = true
			out = append(out, a.name)
		}
	})
	return out
}

func (n *node) walk(fn func(*atom)) {
	if n == nil {
		return
	}
	n.l.walk(fn)
	n.r.walk(fn)
	for i := range n.a {
		fn(&n.a[i])
	}
	for i := range n.b {
		fn(&n.b[i])
	}
}

// Binding says what a name of the filter is.
type Binding struct {
	// Word returns the event word of an argument and whether its type is
	// signed; ok false when the probe has no such argument (or it is not
	// a scalar of at most 8 bytes).
	Word func(name string) (word int, signed bool, ok bool, err error)
	// Const returns the value of a named constant (a BTF enumerator).
	Const func(name string) (uint64, bool)
}

// Bind returns a copy of f with every name resolved.
func (f *Filter) Bind(b Binding) (*Filter, error) {
	root := f.root.clone()
	var err error
	root.walk(func(a *atom) {
		if err != nil || a.name == "" {
			return
		}
		w, s, ok, e := b.Word(a.name)
		if e != nil {
			err = fmt.Errorf("--filter: %w", e)
			return
		}
		if ok {
			a.word, a.signed, a.bound = w, s, true
			return
		}
		if b.Const != nil {
			if v, ok := b.Const(a.name); ok {
				a.value, a.name = v, ""
				return
			}
		}
		err = fmt.Errorf("--filter: %q is neither an argument of the probe nor a known constant", a.name)
	})
	if err != nil {
		return nil, err
	}
	return &Filter{root: root, src: f.src}, nil
}

func (n *node) clone() *node {
	if n == nil {
		return nil
	}
	c := *n
	c.l, c.r = n.l.clone(), n.r.clone()
	c.a = append(operand(nil), n.a...)
	c.b = append(operand(nil), n.b...)
	return &c
}

// Values is what Eval reads: event words and which are available.
type Values struct {
	Words []uint64
	Avail uint64 // bit per word
}

// Eval evaluates a bound filter: the reference semantics of the BPF code.
func (f *Filter) Eval(v Values) bool { return f.root.eval(v) }

func (n *node) eval(v Values) bool {
	switch n.op {
	case "||":
		return n.l.eval(v) || n.r.eval(v)
	case "&&":
		return n.l.eval(v) && n.r.eval(v)
	case "!":
		return !n.l.eval(v)
	}
	a, aok := n.a.value(v)
	if !aok {
		return false
	}
	if n.op == "" {
		return a != 0
	}
	b, bok := n.b.value(v)
	if !bok {
		return false
	}
	signed := n.a.signed() && n.b.signed()
	switch n.op {
	case "==":
		return a == b
	case "!=":
		return a != b
	}
	lt, eq := a < b, a == b
	if signed {
		lt = int64(a) < int64(b)
	}
	switch n.op {
	case "<":
		return lt
	case "<=":
		return lt || eq
	case ">":
		return !lt && !eq
	}
	return !lt // ">="
}

func (o operand) value(v Values) (uint64, bool) {
	r := ^uint64(0)
	for _, a := range o {
		x := a.value
		if a.bound {
			if a.word >= len(v.Words) || v.Avail&(1<<uint(a.word)) == 0 {
				return 0, false
			}
			x = v.Words[a.word]
		}
		r &= x
	}
	return r, true
}

// signed: every argument of the operand is of a signed type.
func (o operand) signed() bool {
	for _, a := range o {
		if a.bound && !a.signed {
			return false
		}
	}
	return true
}

// Registers of the filter code: it runs after the words are in the event
// at r9+event, calls no helper, and may use r1-r5.
const (
	fltAvail = asm.R3
	fltA     = asm.R1
	fltB     = asm.R2
	fltTmp   = asm.R4
)

// compile emits code that falls through when f is true and jumps to
// onFalse when it is false.
func (f *Filter) compile(g *gen, onFalse string) {
	g.emit(asm.LoadMem(fltAvail, asm.R9, scratchEvent+evAvail, asm.DWord))
	f.root.compile(g, onFalse)
}

func (n *node) compile(g *gen, onFalse string) {
	switch n.op {
	case "&&":
		n.l.compile(g, onFalse)
		n.r.compile(g, onFalse)
		return
	case "||":
		right, done := g.fresh("or_right"), g.fresh("or_done")
		n.l.compile(g, right)
		g.jump(asm.Ja.Label(""), done)
		g.mark(right)
		n.r.compile(g, onFalse)
		g.mark(done)
		return
	case "!":
		isFalse := g.fresh("not")
		n.l.compile(g, isFalse)
		g.jump(asm.Ja.Label(""), onFalse)
		g.mark(isFalse)
		return
	}
	n.a.load(g, fltA, onFalse)
	if n.op == "" {
		g.jump(asm.JEq.Imm(fltA, 0, ""), onFalse)
		return
	}
	n.b.load(g, fltB, onFalse)
	signed := n.a.signed() && n.b.signed()
	// Jump to onFalse on the negated comparison.
	var op asm.JumpOp
	switch n.op {
	case "==":
		op = asm.JNE
	case "!=":
		op = asm.JEq
	case "<":
		op = pick(signed, asm.JSGE, asm.JGE)
	case "<=":
		op = pick(signed, asm.JSGT, asm.JGT)
	case ">":
		op = pick(signed, asm.JSLE, asm.JLE)
	case ">=":
		op = pick(signed, asm.JSLT, asm.JLT)
	}
	g.jump(op.Reg(fltA, fltB, ""), onFalse)
}

func pick(signed bool, s, u asm.JumpOp) asm.JumpOp {
	if signed {
		return s
	}
	return u
}

// load puts the operand's value in dst, jumping to onFalse when one of its
// arguments is unavailable.
func (o operand) load(g *gen, dst asm.Register, onFalse string) {
	for i, a := range o {
		r := dst
		if i > 0 {
			r = fltTmp
		}
		if a.bound {
			g.emit(asm.Mov.Reg(asm.R5, fltAvail))
			g.emit(asm.RSh.Imm(asm.R5, int32(a.word)))
			g.emit(asm.And.Imm(asm.R5, 1))
			g.jump(asm.JEq.Imm(asm.R5, 0, ""), onFalse)
			g.emit(asm.LoadMem(r, asm.R9, int16(scratchEvent+evWords+8*a.word), asm.DWord))
		} else {
			g.emit(asm.LoadImm(r, int64(a.value), asm.DWord))
		}
		if i > 0 {
			g.emit(asm.And.Reg(dst, fltTmp))
		}
	}
}
