package resolve

import (
	"fmt"
	"strings"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/site"
)

// CFAFunc returns the rule for the canonical frame address at a link-time
// pc: CFA = register reg + off. It is how DW_OP_fbreg locations become
// fetchable at a kprobe (gcc kernels use DW_OP_call_frame_cfa as frame
// base). nil, or ok == false, leaves such parameters unavailable.
type CFAFunc func(pc uint64) (reg uint32, off int64, ok bool)

// Fetch is one fetch argument of a probe: where a parameter (or half of a
// register pair) is at one site, spelled for each output format.
type Fetch struct {
	Name  string `json:"name"`             // event field name, unique within the probe
	Param string `json:"param"`            // C parameter name
	Type  string `json:"type"`             // C type
	Loc   string `json:"location"`         // what the BTF says, e.g. "reg 3", "mem reg 7 +8"
	Arg   string `json:"kprobe,omitempty"` // kprobe_events/perf fetcharg, e.g. "%bx:x64"
	// Expr is the bpftrace expression and Verb its printf verb.
	Expr string `json:"bpftrace,omitempty"`
	Verb string `json:"-"`
	// Unavailable says why the value cannot be fetched here (for kprobe
	// syntax when Expr is set but Arg is not).
	Unavailable string `json:"unavailable,omitempty"`
	// Read is the fetch as a program executes it (package trace compiles
	// it to BPF); nil when the value cannot be read at all. It is set for
	// a register plus an offset too, which kprobe_events cannot add.
	Read *Read `json:"-"`
	// Part says which half of a parameter's value this fetch is, when
	// the value is split over two (a register pair, 16 bytes in memory).
	Part Part `json:"-"`
}

// Part is the part of a parameter's value one fetch reads.
type Part uint8

const (
	Whole Part = iota // the whole value
	Lo                // the low 8 bytes (event field NAME_lo)
	Hi                // the rest (NAME_hi)
)

// ByParam groups the place's fetches by parameter, for its first n
// parameters in order: one fetch, or a value's Lo and Hi halves.
func (p *Place) ByParam(n int) [][]Fetch {
	out := make([][]Fetch, n)
	fs := p.Fetches
	for j := 0; j < n && len(fs) > 0; j++ {
		k := 1
		if len(fs) > 1 && fs[0].Param == fs[1].Param && fs[0].Part == Lo && fs[1].Part == Hi {
			k = 2
		}
		out[j], fs = fs[:k], fs[k:]
	}
	return out
}

// Read says how to compute one fetched value: start from register Reg
// (a DWARF number; a frame-base location already turned into the CFA
// register), or from Value when Const; add Off; then, when Size > 0, load
// Size bytes (1 to 8) at that address.
type Read struct {
	Const bool
	Reg   uint32
	Value uint64
	Off   int64
	Size  int
}

// fetchType returns the kprobe_events type of a value of size bytes:
// x64 for pointers, s/u by signedness, x for raw bits.
func fetchType(ti TypeInfo, size int) string {
	switch {
	case ti.Pointer:
		return "x64"
	case ti.Float || ti.Aggregate:
		return fmt.Sprintf("x%d", bits(size))
	case ti.Signed:
		return fmt.Sprintf("s%d", bits(size))
	}
	return fmt.Sprintf("u%d", bits(size))
}

// bits rounds a byte size up to a width kprobe_events has.
func bits(size int) int {
	switch {
	case size <= 1:
		return 8
	case size <= 2:
		return 16
	case size <= 4:
		return 32
	}
	return 64
}

func btType(ti TypeInfo, size int) (cast, verb string) {
	n := bits(size)
	switch {
	case ti.Pointer:
		return "uint64", "%lx"
	case ti.Float || ti.Aggregate:
		return fmt.Sprintf("uint%d", n), "%lx"
	case ti.Signed:
		return fmt.Sprintf("int%d", n), "%ld"
	}
	return fmt.Sprintf("uint%d", n), "%lu"
}

// FetchArgs returns the fetch arguments for one site: one per parameter,
// two for a value split over a register pair or a 9-16 byte value in
// memory. pc is the site's link-time address (for cfa).
func FetchArgs(a arch.Arch, names []string, types []TypeInfo, locs []site.Location, pc uint64, cfa CFAFunc) []Fetch {
	used := map[string]bool{}
	var out []Fetch
	for i, name := range names {
		var loc site.Location
		if i < len(locs) {
			loc = locs[i]
		} else {
			loc.Reason = "no LOC_PROTO entry"
		}
		var ti TypeInfo
		if i < len(types) {
			ti = types[i]
		}
		base := fieldName(name, i, used)
		out = append(out, paramFetches(a, base, name, ti, loc, pc, cfa, used)...)
	}
	return out
}

// fieldName makes a unique, valid event field name.
func fieldName(param string, i int, used map[string]bool) string {
	n := sanitize(param)
	if n == "" {
		n = fmt.Sprintf("arg%d", i+1)
	}
	base := n
	for k := 2; used[n]; k++ {
		n = fmt.Sprintf("%s_%d", base, k)
	}
	used[n] = true
	return n
}

func sanitize(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			if i == 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

func paramFetches(a arch.Arch, field, param string, ti TypeInfo, loc site.Location, pc uint64, cfa CFAFunc, used map[string]bool) []Fetch {
	f := Fetch{Name: field, Param: param, Type: ti.Name, Loc: DescribeLocation(loc)}
	size := ti.Size
	if size == 0 {
		size = int(loc.Size)
	}
	if size == 0 {
		size = 8
	}
	unavail := func(why string) []Fetch {
		f.Unavailable = why
		return []Fetch{f}
	}
	kt := fetchType(ti, size)
	cast, verb := btType(ti, size)
	f.Verb = verb
	switch loc.Kind {
	case site.LocUnavailable:
		if loc.Reason != "" {
			return unavail(loc.Reason)
		}
		return unavail("no location at this site")
	case site.LocReg:
		r, ok := a.RegName(loc.Reg)
		br, _ := a.BpftraceReg(loc.Reg)
		if !ok || loc.Reg == site.FBReg {
			return unavail(fmt.Sprintf("DWARF register %d has no pt_regs name (not a general register)", loc.Reg))
		}
		if size > 8 {
			return unavail(fmt.Sprintf("%d-byte value in one register", size))
		}
		f.Arg = "%" + r + ":" + kt
		f.Expr = fmt.Sprintf("(%s)reg(%q)", cast, br)
		f.Read = &Read{Reg: loc.Reg}
		return []Fetch{f}
	case site.LocRegPair:
		r1, ok1 := a.RegName(loc.Reg)
		r2, ok2 := a.RegName(loc.Reg2)
		b1, _ := a.BpftraceReg(loc.Reg)
		b2, _ := a.BpftraceReg(loc.Reg2)
		if !ok1 || !ok2 {
			return unavail(fmt.Sprintf("register pair %d:%d has no pt_regs names", loc.Reg, loc.Reg2))
		}
		used[field+"_lo"], used[field+"_hi"] = true, true
		lo, hi := f, f
		lo.Name, hi.Name = field+"_lo", field+"_hi"
		lo.Arg, hi.Arg = "%"+r1+":x64", "%"+r2+":"+fmt.Sprintf("x%d", bits(size-8))
		lo.Expr, hi.Expr = fmt.Sprintf("reg(%q)", b1), fmt.Sprintf("reg(%q)", b2)
		lo.Verb, hi.Verb = "%lx", "%lx"
		lo.Read, hi.Read = &Read{Reg: loc.Reg}, &Read{Reg: loc.Reg2}
		lo.Part, hi.Part = Lo, Hi
		return []Fetch{lo, hi}
	case site.LocRegOffset:
		if loc.Reg == site.FBReg {
			reg, off, ok := cfaAt(cfa, pc)
			if !ok {
				return unavail("address relative to the frame base (CFA), which is not known at this pc")
			}
			loc.Reg, loc.Offset = reg, loc.Offset+off
		}
		r, ok := a.RegName(loc.Reg)
		br, _ := a.BpftraceReg(loc.Reg)
		if !ok {
			return unavail(fmt.Sprintf("DWARF register %d has no pt_regs name", loc.Reg))
		}
		f.Expr = fmt.Sprintf("(uint64)(reg(%q) %+d)", br, loc.Offset)
		f.Verb = "%lx"
		f.Read = &Read{Reg: loc.Reg, Off: loc.Offset}
		if loc.Offset == 0 {
			f.Arg = "%" + r + ":x64"
			return []Fetch{f}
		}
		// kprobe_events has no arithmetic on fetched values.
		f.Unavailable = fmt.Sprintf("value is %%%s%+d (an address); kprobe_events cannot add an offset without a load", r, loc.Offset)
		return []Fetch{f}
	case site.LocMem:
		if loc.Reg == site.FBReg {
			reg, off, ok := cfaAt(cfa, pc)
			if !ok {
				return unavail("in memory relative to the frame base (DW_OP_fbreg; the CFA is not known at this pc)")
			}
			loc.Reg, loc.Offset = reg, loc.Offset+off
		}
		r, ok := a.RegName(loc.Reg)
		br, _ := a.BpftraceReg(loc.Reg)
		if !ok {
			return unavail(fmt.Sprintf("DWARF register %d has no pt_regs name", loc.Reg))
		}
		if size > 16 {
			return unavail(fmt.Sprintf("%d-byte value in memory at %+d(%%%s): fetch its fields by offset", size, loc.Offset, r))
		}
		if size > 8 {
			used[field+"_lo"], used[field+"_hi"] = true, true
			lo, hi := f, f
			lo.Name, hi.Name = field+"_lo", field+"_hi"
			lo.Arg = fmt.Sprintf("%+d(%%%s):x64", loc.Offset, r)
			hi.Arg = fmt.Sprintf("%+d(%%%s):x%d", loc.Offset+8, r, bits(size-8))
			lo.Expr = fmt.Sprintf("*(uint64*)(reg(%q) %+d)", br, loc.Offset)
			hi.Expr = fmt.Sprintf("*(uint64*)(reg(%q) %+d)", br, loc.Offset+8)
			lo.Verb, hi.Verb = "%lx", "%lx"
			lo.Read = &Read{Reg: loc.Reg, Off: loc.Offset, Size: 8}
			hi.Read = &Read{Reg: loc.Reg, Off: loc.Offset + 8, Size: size - 8}
			lo.Part, hi.Part = Lo, Hi
			return []Fetch{lo, hi}
		}
		f.Arg = fmt.Sprintf("%+d(%%%s):%s", loc.Offset, r, kt)
		f.Expr = fmt.Sprintf("*(%s*)(reg(%q) %+d)", cast, br, loc.Offset)
		f.Read = &Read{Reg: loc.Reg, Off: loc.Offset, Size: size}
		return []Fetch{f}
	case site.LocConst:
		v := loc.Value
		if size < 8 {
			v &= 1<<(8*uint(size)) - 1
		}
		f.Arg = fmt.Sprintf("\\%#x:%s", v, kt)
		if ti.Signed {
			f.Expr = fmt.Sprintf("(%s)%d", cast, signExtend(v, size))
		} else {
			f.Expr = fmt.Sprintf("(%s)%d", cast, v)
		}
		f.Read = &Read{Const: true, Value: v}
		return []Fetch{f}
	case site.LocAddr:
		f.Arg = fmt.Sprintf("\\%#x:x64", loc.Value)
		f.Expr = fmt.Sprintf("(uint64)%#x", loc.Value)
		f.Verb = "%lx"
		f.Read = &Read{Const: true, Value: loc.Value}
		return []Fetch{f}
	}
	return unavail(fmt.Sprintf("unknown location kind %d", loc.Kind))
}

func cfaAt(cfa CFAFunc, pc uint64) (uint32, int64, bool) {
	if cfa == nil {
		return 0, 0, false
	}
	return cfa(pc)
}

func signExtend(v uint64, size int) int64 {
	if size >= 8 {
		return int64(v)
	}
	sh := 64 - 8*uint(size)
	return int64(v<<sh) >> sh
}

// DescribeLocation spells a location the way "sites" output does.
func DescribeLocation(l site.Location) string {
	reg := func(r uint32) string {
		if r == site.FBReg {
			return "fbreg"
		}
		return fmt.Sprintf("reg%d", r)
	}
	switch l.Kind {
	case site.LocReg:
		return reg(l.Reg)
	case site.LocRegPair:
		return reg(l.Reg) + ":" + reg(l.Reg2)
	case site.LocRegOffset:
		return fmt.Sprintf("%s%+d", reg(l.Reg), l.Offset)
	case site.LocMem:
		return fmt.Sprintf("*(%s%+d)", reg(l.Reg), l.Offset)
	case site.LocConst:
		if l.Signed {
			return fmt.Sprintf("const %d", signExtend(l.Value, int(max(l.Size, 1))))
		}
		return fmt.Sprintf("const %#x", l.Value)
	case site.LocAddr:
		return fmt.Sprintf("addr %#x", l.Value)
	}
	if l.Reason != "" {
		return "unavailable (" + l.Reason + ")"
	}
	return "unavailable"
}
