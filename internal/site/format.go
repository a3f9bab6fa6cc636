package site

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
)

// RegName names DWARF register n; nil means "reg<n>" as bpftool prints.
type RegName func(n uint32) string

func regStr(n uint32, rn RegName) string {
	if n == FBReg {
		return "fbreg"
	}
	if rn != nil {
		return rn(n)
	}
	return "reg" + strconv.FormatUint(uint64(n), 10)
}

func offStr(off int64) string {
	if off < 0 {
		return " - 0x" + strconv.FormatUint(uint64(-off), 16)
	}
	return " + 0x" + strconv.FormatUint(uint64(off), 16)
}

// FormatLocation spells a location like bpftool's LOC_PARAM dump (spec
// 7.3): "reg5", "reg1, reg2", "reg5 + 0x10", "*(reg5 + 0x10)",
// "*(fbreg - 0x20)", "const 0xa", "const -0x1", "address 0x...",
// "unavailable".
func FormatLocation(l *Location, rn RegName) string {
	switch l.Kind {
	case LocReg:
		return regStr(l.Reg, rn)
	case LocRegPair:
		return regStr(l.Reg, rn) + ", " + regStr(l.Reg2, rn)
	case LocRegOffset:
		return regStr(l.Reg, rn) + offStr(l.Offset)
	case LocMem:
		if l.Offset == 0 {
			return "*(" + regStr(l.Reg, rn) + ")"
		}
		return "*(" + regStr(l.Reg, rn) + offStr(l.Offset) + ")"
	case LocConst:
		v := l.Value
		if l.Signed {
			sz := l.Size
			if sz == 0 || sz > 8 {
				sz = 8
			}
			sh := 64 - 8*uint(sz)
			if sv := int64(v<<sh) >> sh; sv < 0 {
				return "const -0x" + strconv.FormatUint(uint64(-sv), 16)
			}
		}
		if l.Size > 0 && l.Size < 8 {
			v &= 1<<(8*uint(l.Size)) - 1
		}
		return "const 0x" + strconv.FormatUint(v, 16)
	case LocAddr:
		return "address 0x" + strconv.FormatUint(l.Value, 16)
	}
	return "unavailable"
}

// FormatOptions control WriteSites and WriteJSON.
type FormatOptions struct {
	// RegName spells the registers of the text lines ("%di" where nil
	// gives "reg5") and of JSON's reg_name and reg2_name; JSON's location
	// keeps the DWARF numbers, for a machine.
	RegName RegName
	// Reasons appends " (why)" to unavailable parameters whose location
	// exists in DWARF but cannot be expressed. Sites read back from BTF
	// have no reasons, so leave it off to diff DWARF against BTF.
	Reasons bool
	// Nesting appends " [nested in an inlined OUTER (depth N)]" to a site
	// inside another inline expansion (Outer set).
	Nesting bool
	// Marks, when set, gives what an inspector says of the i-th site:
	// each line then ends with the marks, and each JSON object gains
	// traceable, notrace and no_address.
	Marks func(i int) Marks
	// NoAddresses, when set, says why no site has an address (an object
	// without symbols, whose Addr is a section offset): lines print "?"
	// for it and JSON objects say so in no_address.
	NoAddresses string
}

// Marks are what an inspector adds to a site it read from BTF.
type Marks struct {
	NoAddr  string // why the site has no address ("" = it has one)
	NoTrace string // why a kprobe cannot be placed at it ("" = it can)
	// Module is the loaded module the site is in ("" = vmlinux, or an
	// object that is not running): " [MOD]" after the caller, as
	// /proc/kallsyms marks a module's symbols.
	Module string
}

// appendSite appends the line of one site:
//
//	0xffffffff81858f3d tcp_disconnect+0x17d .text tcp_snd_cwnd_set(struct tcp_sock * tp [reg3], u32 val [const 0xa])
//
// and, for a site whose probe moved past its entry pc (Site.Moved), that
// address after the prototype: "... [entry pc 0xffffffff81858f38]".
func appendSite(b []byte, s *Site, o *FormatOptions, m Marks) []byte {
	if m.NoAddr != "" || o.NoAddresses != "" {
		b = append(b, '?')
	} else {
		b = append(b, "0x"...)
		b = strconv.AppendUint(b, s.Addr, 16)
	}
	b = append(b, ' ')
	if s.Caller != "" {
		b = append(b, s.Caller...)
		b = append(b, "+0x"...)
		b = strconv.AppendUint(b, s.CallerOff, 16)
	} else {
		b = append(b, '?')
	}
	if m.Module != "" {
		b = append(b, " ["...)
		b = append(b, m.Module...)
		b = append(b, ']')
	}
	b = append(b, ' ')
	if s.Section != "" {
		b = append(b, s.Section...)
	} else {
		b = append(b, '?')
	}
	b = append(b, ' ')
	b = append(b, s.Func.Name...)
	b = append(b, '(')
	for i, p := range s.Func.Params {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, p.Type...)
		b = append(b, ' ')
		b = append(b, p.Name...)
		b = append(b, " ["...)
		var l Location
		if i < len(s.Params) {
			l = s.Params[i]
		}
		b = append(b, FormatLocation(&l, o.RegName)...)
		if o.Reasons && l.Kind == LocUnavailable && l.Reason != "" {
			b = append(b, " ("+l.Reason+")"...)
		}
		b = append(b, ']')
	}
	if s.Func.Variadic {
		if len(s.Func.Params) > 0 {
			b = append(b, ", "...)
		}
		b = append(b, "..."...)
	} else if len(s.Func.Params) == 0 {
		b = append(b, "void"...)
	}
	b = append(b, ')')
	if s.Moved != 0 {
		// The probe moved past the entry pc (which perf probe and pahole
		// give): name that address, so the two can be matched.
		b = append(b, " [entry pc 0x"...)
		b = strconv.AppendUint(b, s.Addr-s.Moved, 16)
		b = append(b, ']')
	}
	if o.Nesting && s.Outer != "" {
		b = append(b, " [nested in an inlined "...)
		b = append(b, s.Outer...)
		b = append(b, " (depth "...)
		b = strconv.AppendInt(b, int64(s.Depth), 10)
		b = append(b, ")]"...)
	}
	if m.NoAddr != "" {
		b = append(b, " ["+m.NoAddr+"]"...)
	}
	if m.NoTrace != "" {
		b = append(b, " [notrace: "+m.NoTrace+"]"...)
	}
	return append(b, '\n')
}

// WriteSites writes one line per site, with its marks.
func WriteSites(w io.Writer, sites []Site, o FormatOptions) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var b []byte
	for i := range sites {
		var m Marks
		if o.Marks != nil {
			m = o.Marks(i)
		}
		b = appendSite(b[:0], &sites[i], &o, m)
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

var kindNames = [...]string{"unavailable", "reg", "reg_pair", "reg_offset", "mem", "const", "addr"}

func (k LocKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "LocKind(" + strconv.Itoa(int(k)) + ")"
}

type jsonParam struct {
	Name     string  `json:"name"`
	Type     string  `json:"type"`
	Location string  `json:"location"`
	Kind     string  `json:"kind"`
	Reg      *uint32 `json:"reg,omitempty"`
	Reg2     *uint32 `json:"reg2,omitempty"`
	RegName  string  `json:"reg_name,omitempty"`
	Reg2Name string  `json:"reg2_name,omitempty"`
	Offset   *int64  `json:"offset,omitempty"`
	Value    *uint64 `json:"value,omitempty"`
	Size     uint8   `json:"size,omitempty"`
	Signed   bool    `json:"signed,omitempty"`
	Section  string  `json:"section,omitempty"`
	Reason   string  `json:"reason,omitempty"`
}

type jsonSite struct {
	Addr       uint64      `json:"addr"`
	EntryPC    *uint64     `json:"entry_pc,omitempty"` // when the probe moved past it
	AddrSource string      `json:"addr_source,omitempty"`
	Section    string      `json:"section"`
	SectionOff uint64      `json:"section_off"`
	Caller     string      `json:"caller"`
	CallerOff  uint64      `json:"caller_off"`
	Depth      int         `json:"depth,omitempty"`
	Outer      string      `json:"outer,omitempty"`
	CallFile   string      `json:"call_file,omitempty"`
	CallLine   int         `json:"call_line,omitempty"`
	Func       string      `json:"func"`
	DeclFile   string      `json:"decl_file,omitempty"`
	DeclLine   int         `json:"decl_line,omitempty"`
	Return     string      `json:"return"`
	Variadic   bool        `json:"variadic,omitempty"`
	Params     []jsonParam `json:"params"`
	Ranges     [][2]uint64 `json:"ranges,omitempty"`
	// With marks.
	Module    string `json:"module,omitempty"`
	Traceable *bool  `json:"traceable,omitempty"`
	NoTrace   string `json:"notrace,omitempty"`
	NoAddr    string `json:"no_address,omitempty"`
}

// WriteJSON writes sites as a JSON array, one object per site.
func WriteJSON(w io.Writer, sites []Site, o FormatOptions) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("[")
	for i := range sites {
		s := &sites[i]
		if i > 0 {
			bw.WriteString(",")
		}
		js := jsonSite{
			Addr: s.Addr, AddrSource: s.AddrSource, Section: s.Section, SectionOff: s.SectionOff,
			Caller: s.Caller, CallerOff: s.CallerOff, Depth: s.Depth, Outer: s.Outer, CallFile: s.CallFile,
			CallLine: s.CallLine, Func: s.Func.Name, DeclFile: s.Func.DeclFile,
			DeclLine: s.Func.DeclLine, Return: s.Func.Return, Variadic: s.Func.Variadic,
			Params: make([]jsonParam, 0, len(s.Func.Params)), Ranges: s.Ranges,
		}
		if s.Moved != 0 {
			e := s.Addr - s.Moved
			js.EntryPC = &e
		}
		for j, p := range s.Func.Params {
			var l Location
			if j < len(s.Params) {
				l = s.Params[j]
			}
			jp := jsonParam{Name: p.Name, Type: p.Type, Location: FormatLocation(&l, nil),
				Kind: l.Kind.String(), Size: l.Size, Signed: l.Signed, Section: l.Section, Reason: l.Reason}
			switch l.Kind {
			case LocReg:
				jp.Reg = &l.Reg
			case LocRegPair:
				jp.Reg, jp.Reg2 = &l.Reg, &l.Reg2
			case LocRegOffset, LocMem:
				jp.Reg, jp.Offset = &l.Reg, &l.Offset
			case LocConst, LocAddr:
				jp.Value = &l.Value
			}
			if o.RegName != nil && jp.Reg != nil && l.Reg != FBReg {
				jp.RegName = o.RegName(l.Reg)
				if jp.Reg2 != nil {
					jp.Reg2Name = o.RegName(l.Reg2)
				}
			}
			js.Params = append(js.Params, jp)
		}
		if o.Marks != nil {
			m := o.Marks(i)
			tr := m.NoAddr == "" && m.NoTrace == "" && o.NoAddresses == ""
			js.Traceable, js.NoTrace, js.NoAddr, js.Module = &tr, m.NoTrace, m.NoAddr, m.Module
			if js.NoAddr == "" {
				js.NoAddr = o.NoAddresses
			}
		}
		b, err := json.Marshal(&js)
		if err != nil {
			return err
		}
		bw.WriteString("\n")
		bw.Write(b)
	}
	if len(sites) > 0 {
		bw.WriteString("\n")
	}
	bw.WriteString("]\n")
	return bw.Flush()
}
