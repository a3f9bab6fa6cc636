package btfinline

import (
	"cmp"
	"strconv"

	"github.com/btfinline/btfinline/internal/kprobe"
	"github.com/btfinline/btfinline/internal/resolve"
)

// PlaceKind says what a place is.
type PlaceKind int

const (
	// Inline is an inline expansion of the function inside a caller.
	Inline PlaceKind = iota
	// Entry is the entry of an out-of-line copy of the function.
	Entry
)

func (k PlaceKind) String() string {
	switch k {
	case Inline:
		return "inline"
	case Entry:
		return "entry"
	}
	return "PlaceKind(" + strconv.Itoa(int(k)) + ")"
}

// Place is one address where a kprobe for a function fires.
type Place struct {
	Kind PlaceKind
	Func string // the function probed
	// Symbol is the copy's symbol for an Entry place: the function
	// itself, or a gcc clone (fn.isra.0, fn.constprop.0), whose
	// parameters may differ from the function's: their fetches are
	// then unavailable.
	Symbol string
	// Position is where the place is; for an Entry place the caller is
	// the copy's own symbol, at offset 0. Address is the running
	// kernel's for a target opened with OpenRunning, else the ELF's
	// link-time address.
	Position
	// Probe is the probe point as kprobe_events, perf and bpftrace spell
	// it: "caller+0x1a", "_stext+0x..." when the caller's name is not
	// unique, "module:caller+0x1a"; "" when no spelling is safe.
	Probe string
	// Refusal says which kprobe rule of the kernel refuses the place; nil
	// when a kprobe can sit there.
	Refusal *Refusal
	// Note is a caveat about the place, "" for none.
	Note string
	// Args are the function's parameters at this place, in order.
	Args []Arg

	running bool // Address is the running kernel's
}

// Refusal says why a kprobe cannot sit at a place: the kernel's rule
// ("blacklist", "section", "padding", "dead code", "notrace",
// "patch site", "instruction"; docs/inspect.md gives each one's source
// in the kernel) and what was found there.
type Refusal struct {
	Rule   string
	Detail string
}

func (r *Refusal) Error() string { return r.Rule + ": " + r.Detail }

func refusal(f kprobe.Refusal) *Refusal {
	if f.OK() {
		return nil
	}
	return &Refusal{Rule: f.Rule.String(), Detail: f.Detail}
}

// Arg is one parameter of the function at one place.
type Arg struct {
	Name string
	Type string // the C type
	// Size is the value's size in bytes (0: unknown), and Signed says
	// whether it is a signed integer: a register holds more bits than a
	// narrower value, and only the low Size bytes are the value.
	Size   int
	Signed bool
	// Location says where the value is, as the BTF records it ("reg 5",
	// "mem reg 7 +8").
	Location string
	// Fetch reads the value: one part, or two (the low 8 bytes first)
	// for a value split over a register pair or 9 to 16 bytes of memory.
	// Empty when Unavailable says why the value cannot be read here.
	Fetch       []Fetch
	Unavailable string
	// Kprobe is the value's fetch argument for kprobe_events and perf
	// probe ("%di:u64", "+8(%sp):s32"), "" when they cannot fetch it.
	Kprobe string
	// Bpftrace is the value as a bpftrace expression ("reg(\"di\")").
	Bpftrace string
}

// Fetch says how a program computes one part of an argument: start from
// the register (or from Value when Const), add Offset, then, when Size is
// not 0, load Size bytes (1 to 8) from that kernel address.
type Fetch struct {
	Const bool
	Value uint64
	// Register is the DWARF number, RegisterName its name in struct
	// pt_regs ("di", "x1"), and PtRegsOffset its byte offset there,
	// which a program reads from its context.
	Register     uint32
	RegisterName string
	PtRegsOffset int
	Offset       int64
	Size         int
}

func newPlace(t *Target, r *resolve.Result, p *resolve.Place) Place {
	o := Place{Func: r.Func, Symbol: p.Symbol, Probe: p.Target, Refusal: refusal(p.Refusal), Note: p.Note, running: t.t.Running,
		Position: Position{Caller: p.Caller, CallerOffset: p.CallerOff, Section: p.Section, SectionOffset: p.SectionOff, Address: p.Addr, HasAddress: p.HasAddr}}
	if p.Kind == resolve.PlaceEntry {
		o.Kind = Entry
	}
	a := t.t.Arch
	for i, parts := range p.ByParam(len(r.Params)) {
		arg := Arg{Name: r.Params[i].Name, Type: r.Params[i].Type}
		if i < len(r.Types) {
			arg.Size, arg.Signed = r.Types[i].Size, r.Types[i].Signed
		}
		why := ""
		for _, f := range parts {
			arg.Location = f.Loc
			if f.Read == nil {
				why = cmp.Or(why, f.Unavailable, "no location at this place")
				continue
			}
			rd := f.Read
			fe := Fetch{Const: rd.Const, Value: rd.Value, Offset: rd.Off, Size: rd.Size}
			if !rd.Const {
				fe.Register = rd.Reg
				fe.RegisterName, _ = a.RegName(rd.Reg)
				fe.PtRegsOffset, _ = a.PtRegsOffset(rd.Reg)
			}
			arg.Fetch = append(arg.Fetch, fe)
		}
		if len(parts) == 1 {
			arg.Kprobe, arg.Bpftrace = parts[0].Arg, parts[0].Expr
		}
		if len(parts) == 0 {
			why = "no location at this place"
		}
		if why != "" {
			arg.Fetch, arg.Unavailable = nil, why
		}
		o.Args = append(o.Args, arg)
	}
	return o
}
