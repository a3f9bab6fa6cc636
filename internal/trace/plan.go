package trace

import (
	"errors"
	"fmt"
	"strings"

	"github.com/btfinline/btfinline/internal/arch"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/resolve"
	"github.com/cilium/ebpf/asm"
)

// This file is the seam with package resolve: a probe's places and fetch
// specs become fields, words and per-site slots.

// field is one value of a probe's events.
type field struct {
	name     string // as the output names it: a, p->a
	typ      btf.TypeID
	typeName string
	word     int // first event word
	words    int // 1, or 2 for a 9-16 byte value
	size     int // bytes of the value
	scalar   bool
	signed   bool
	str      int // string index, -1 for none
	hex      bool
	hidden   bool // only for --filter or --hist, not printed
	// param is the parameter's index; path, the member steps after the
	// parameter's own location.
	param int
	path  []Step
	err   string // why the field can never be read (a 32-byte struct)
	// vkind and enums decode a scalar without BTF at run time
	// (scalarKind); vRaw: through decodeValue.
	vkind valueKind
	enums map[uint64]string
}

// site is one place a probe is attached.
type site struct {
	probe   int
	place   resolve.Place
	slots   []Slot
	refused string // why it is not attached ("" = attach)
}

// probePlan is everything one probe needs to be built and printed.
type probePlan struct {
	probe  Probe
	object string
	arch   arch.Arch
	spec   *btf.Spec
	result *resolve.Result
	params []param
	fields []field
	layout layout
	types  []wordType
	strs   []int // string k reads behind word strs[k]
	sites  []site
	// hiPaths: the paths of second words of 9-16 byte members.
	hiPaths []hiPath
	filter  *Filter // bound to this probe's words
	hist    int     // --hist: the word
}

type hiPath struct {
	word int
	path []Step
}

func (pl *probePlan) hiPath(word int) []Step {
	for _, h := range pl.hiPaths {
		if h.word == word {
			return h.path
		}
	}
	return nil
}

type param struct {
	name string
	typ  btf.TypeID
}

// funcParams returns the parameters of FUNC id (name and type).
func funcParams(spec *btf.Spec, id btf.TypeID) ([]param, error) {
	fn, err := spec.TypeByID(id)
	if err != nil {
		return nil, err
	}
	if fn.Kind() != btf.KindFunc {
		return nil, fmt.Errorf("type [%d] is %s, not FUNC", id, fn.Kind())
	}
	proto, err := spec.TypeByID(btf.TypeID(fn.SizeType))
	if err != nil {
		return nil, err
	}
	if proto.Kind() != btf.KindFuncProto {
		return nil, fmt.Errorf("FUNC [%d] has type %s, not FUNC_PROTO", id, proto.Kind())
	}
	var out []param
	for _, p := range proto.Params() {
		if p.Type == 0 && p.NameOff == 0 {
			break // varargs
		}
		n, _ := spec.StringAt(p.NameOff)
		out = append(out, param{n, p.Type})
	}
	return out, nil
}

// planProbe builds the plan of probe p over the places r resolve found.
func planProbe(p Probe, t *resolve.Target, r *resolve.Result, extra []string, o Options) (*probePlan, error) {
	pl := &probePlan{probe: p, object: t.Name, arch: t.Arch, spec: t.Spec, result: r}
	if len(r.FuncIDs) > 0 {
		ps, err := funcParams(t.Spec, btf.TypeID(r.FuncIDs[0]))
		if err != nil {
			return nil, err
		}
		pl.params = ps
	}
	args := p.Args
	if args == nil {
		for _, q := range pl.params {
			if q.name != "" {
				args = append(args, Arg{Path: []string{q.name}})
			}
		}
	}
	for _, a := range args {
		if err := pl.addField(a, false, o.Hex); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	// Arguments the filter or the histogram name but the probe does not
	// show.
	for _, n := range extra {
		if pl.fieldByName(n) != nil {
			continue
		}
		a, err := parseArg(n)
		if err != nil {
			return nil, err
		}
		if _, err := pl.paramIndex(a.Path[0]); err != nil {
			continue // not an argument: the filter may know it as a constant
		}
		if err := pl.addField(a, true, false); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	regs, err := regsOf(t.Arch)
	if err != nil {
		return nil, err
	}
	pl.layout.stackFrames = 0
	if o.Stack {
		pl.layout.stackFrames = StackFrames
	}
	pl.layout.maxSteps = 1
	for _, f := range pl.fields {
		pl.layout.maxSteps = max(pl.layout.maxSteps, 1+len(f.path))
	}
	if err := pl.layout.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	for _, pc := range r.Places {
		s := site{place: pc}
		switch {
		case !pc.Refusal.OK():
			s.refused = "not traceable: " + pc.Refusal.Detail
		case !pc.HasAddr:
			s.refused = "no address"
			if pc.Note != "" {
				s.refused = pc.Note
			}
		}
		if s.slots, err = pl.siteSlots(regs, pc); err != nil {
			return nil, fmt.Errorf("%s at %s: %w", p, where(pc), err)
		}
		pl.sites = append(pl.sites, s)
	}
	return pl, nil
}

func where(pc resolve.Place) string {
	if pc.Target != "" {
		return pc.Target
	}
	return fmt.Sprintf("%s+%#x", pc.Caller, pc.CallerOff)
}

func (pl *probePlan) fieldByName(n string) *field {
	for i := range pl.fields {
		if pl.fields[i].name == n {
			return &pl.fields[i]
		}
	}
	return nil
}

func (pl *probePlan) paramIndex(name string) (int, error) {
	var names []string
	for i, q := range pl.params {
		if q.name == name {
			return i, nil
		}
		names = append(names, q.name)
	}
	if len(names) == 0 {
		return 0, fmt.Errorf("no parameter %q: the function has no parameters in BTF", name)
	}
	return 0, fmt.Errorf("no parameter %q (parameters: %s)", name, strings.Join(names, ", "))
}

// addField adds an argument: the parameter's words, or the member a path
// reaches from a pointer parameter.
func (pl *probePlan) addField(a Arg, hidden, hex bool) error {
	j, err := pl.paramIndex(a.Path[0])
	if err != nil {
		return err
	}
	spec := pl.spec
	f := field{name: a.Name(), param: j, typ: pl.params[j].typ, str: -1, hex: a.Hex || hex, hidden: hidden}
	// Walk the path: value mode (the word holds a value of type typ) or
	// address mode (the word will hold the address of a typ, off bytes
	// ahead).
	addr, off := false, int64(0)
	for i, m := range a.Path[1:] {
		sep := a.Sep[i]
		switch {
		case sep == "->" && addr:
			// Load the pointer the path reached first.
			if _, ok := pointee(spec, f.typ); !ok {
				return fmt.Errorf("%s: %s is %s, not a pointer", a.Name(), strings.Join(a.Path[:i+1], ""), typeName(spec, f.typ))
			}
			f.path = append(f.path, Step{Off: off, Size: 8})
			fallthrough
		case sep == "->":
			to, ok := pointee(spec, f.typ)
			if !ok {
				return fmt.Errorf("%s: \"->\" on %s, which is not a pointer", a.Name(), typeName(spec, f.typ))
			}
			mt, mo, err := findMember(spec, to, m)
			if err != nil {
				return fmt.Errorf("%s: %w", a.Name(), err)
			}
			f.typ, addr, off = mt, true, int64(mo)
		case sep == "." && addr:
			mt, mo, err := findMember(spec, f.typ, m)
			if err != nil {
				return fmt.Errorf("%s: %w", a.Name(), err)
			}
			f.typ, off = mt, off+int64(mo)
		default:
			return fmt.Errorf("%s: \".\" on the by-value parameter %s: it is shown whole; use \"->\" on pointers", a.Name(), a.Path[0])
		}
	}
	f.typeName = typeName(spec, f.typ)
	f.vkind, f.enums = scalarKind(spec, f.typ)
	f.size = sizeOf(spec, f.typ)
	if f.size == 0 {
		f.size = 8
	}
	f.scalar = true
	if size, signed, ok := scalarInfo(spec, f.typ); ok {
		f.size, f.signed = size, signed
	} else {
		f.scalar = false
	}
	if a.Str {
		_, isPtr := pointee(spec, f.typ)
		t, _, _ := strip(spec, f.typ)
		isArr := t != nil && t.Kind() == btf.KindArray
		switch {
		case isPtr:
			if addr {
				f.path = append(f.path, Step{Off: off, Size: 8})
			}
		case isArr && addr:
			f.path = append(f.path, Step{Off: off}) // the array's address
		default:
			return fmt.Errorf("%s: \":str\" needs a pointer or a char array behind a pointer, not %s", a.Name(), f.typeName)
		}
		f.str, f.words, f.size, f.scalar, f.vkind = len(pl.strs), 1, 8, false, vRaw
		f.word = pl.nextWord()
		pl.strs = append(pl.strs, f.word)
		pl.types = append(pl.types, wordType{bytes: 8})
		pl.fields = append(pl.fields, f)
		pl.layout.words, pl.layout.strs = len(pl.types), len(pl.strs)
		return nil
	}
	if addr {
		if f.size > 16 {
			return fmt.Errorf("%s is a %d-byte %s: name one of its members", a.Name(), f.size, f.typeName)
		}
		// One load per word, the last of the rest of the bytes.
		f.words = (f.size + 7) / 8
		base := f.path
		f.path = append(append([]Step(nil), base...), Step{Off: off, Size: min(8, f.size)})
		f.word = pl.nextWord()
		pl.addWords(f)
		pl.fields = append(pl.fields, f)
		if f.words == 2 {
			// The second word repeats the path for the next 8 bytes.
			pl.hiPaths = append(pl.hiPaths, hiPath{word: f.word + 1, path: append(append([]Step(nil), base...), Step{Off: off + 8, Size: f.size - 8})})
		}
		return nil
	}
	f.words = 1
	if f.size > 8 {
		f.words = 2
	}
	if f.size > 16 {
		f.err = fmt.Sprintf("a %d-byte %s by value: name a member through a pointer", f.size, f.typeName)
	}
	f.word = pl.nextWord()
	pl.addWords(f)
	pl.fields = append(pl.fields, f)
	return nil
}

func (pl *probePlan) nextWord() int { return len(pl.types) }

func (pl *probePlan) addWords(f field) {
	if f.words == 1 {
		pl.types = append(pl.types, wordType{bytes: min(8, f.size), signed: f.signed && f.scalar})
	} else {
		pl.types = append(pl.types, wordType{bytes: 8}, wordType{bytes: f.size - 8})
	}
	pl.layout.words = len(pl.types)
}

// siteSlots computes the slot of every word at one place.
func (pl *probePlan) siteSlots(regs ptRegs, pc resolve.Place) ([]Slot, error) {
	slots := make([]Slot, pl.layout.words)
	byParam := pc.ByParam(len(pl.params))
	for _, f := range pl.fields {
		fs := byParam[f.param]
		why := "no location at this site"
		if len(fs) > 0 && fs[0].Unavailable != "" {
			why = fs[0].Unavailable
		}
		if f.err != "" {
			why = f.err
		}
		if f.err != "" || len(fs) == 0 {
			for w := 0; w < f.words; w++ {
				slots[f.word+w] = Slot{Why: why}
			}
			continue
		}
		if len(f.path) == 0 && f.str < 0 {
			// The parameter itself: its one or two fetches.
			for w := 0; w < f.words; w++ {
				var rd *resolve.Read
				if w < len(fs) {
					rd = fs[w].Read
				}
				if len(fs) != f.words {
					rd, why = nil, fmt.Sprintf("%d fetches for a %d-byte value", len(fs), f.size)
				}
				s, err := slotOf(regs, rd, why)
				if err != nil {
					return nil, err
				}
				slots[f.word+w] = s
			}
			continue
		}
		// A path (or a string) from a pointer parameter.
		if len(fs) != 1 {
			slots[f.word] = Slot{Why: "the parameter is not one word"}
			continue
		}
		for w := 0; w < f.words; w++ {
			s, err := slotOf(regs, fs[0].Read, why)
			if err != nil {
				return nil, err
			}
			if s.Kind != slotNone {
				path := f.path
				if w == 1 {
					path = pl.hiPath(f.word + 1)
				}
				s.Steps = append(s.Steps, path...)
				if len(s.Steps) > pl.layout.maxSteps {
					return nil, errors.New("more steps than the layout has")
				}
			}
			slots[f.word+w] = s
		}
	}
	return slots, nil
}

// program builds the probe's BPF program.
func (pp *probePlan) program(pl *plan, fds mapFDs) (asm.Instructions, error) {
	regs, err := regsOf(pp.arch)
	if err != nil {
		return nil, err
	}
	insns, err := buildProgram(progConfig{layout: pp.layout, regs: regs, types: pp.types, strs: pp.strs,
		fetch: pp.fetched(pl.mode), filter: pp.filter, tgid: pl.tgid, mode: pl.mode, hist: pp.hist, fds: fds})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pp.probe, err)
	}
	return insns, nil
}

// fetched says which words the program of mode must read: all for
// events; for --count and --hist those the filter and the histogram use.
func (pp *probePlan) fetched(m Mode) []bool {
	if m == ModeEvents {
		return nil
	}
	need := make([]bool, pp.layout.words)
	if pp.filter != nil {
		pp.filter.root.walk(func(a *atom) {
			if a.bound && a.word < len(need) {
				need[a.word] = true
			}
		})
	}
	if m == ModeHist && pp.hist < len(need) {
		need[pp.hist] = true
	}
	return need
}
