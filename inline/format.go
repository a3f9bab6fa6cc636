package inline

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
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

// FormatOptions control FormatSiteOpts.
type FormatOptions struct {
	RegName RegName
	// Reasons appends " (why)" to unavailable parameters whose location
	// exists in DWARF but cannot be expressed. Sites read back from BTF
	// have no reasons, so leave it off to diff DWARF against BTF.
	Reasons bool
	// Nesting appends " [nested in an inlined OUTER (depth N)]" to a site
	// inside another inline expansion (Outer set).
	Nesting bool
}

// FormatSite writes one line for s:
//
//	0xffffffff81858f3d tcp_disconnect+0x17d .text tcp_snd_cwnd_set(struct tcp_sock * tp [reg3], u32 val [const 0xa])
func FormatSite(w io.Writer, s *Site, regName func(uint32) string) error {
	return FormatSiteOpts(w, s, FormatOptions{RegName: regName})
}

// FormatSiteOpts is FormatSite with options.
func FormatSiteOpts(w io.Writer, s *Site, o FormatOptions) error {
	var b strings.Builder
	b.WriteString("0x")
	b.WriteString(strconv.FormatUint(s.Addr, 16))
	b.WriteByte(' ')
	if s.Caller != "" {
		b.WriteString(s.Caller)
		b.WriteString("+0x")
		b.WriteString(strconv.FormatUint(s.CallerOff, 16))
	} else {
		b.WriteString("?")
	}
	b.WriteByte(' ')
	if s.Section != "" {
		b.WriteString(s.Section)
	} else {
		b.WriteString("?")
	}
	b.WriteByte(' ')
	b.WriteString(s.Func.Name)
	b.WriteByte('(')
	for i, p := range s.Func.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Type)
		b.WriteByte(' ')
		b.WriteString(p.Name)
		b.WriteString(" [")
		var l Location
		if i < len(s.Params) {
			l = s.Params[i]
		}
		b.WriteString(FormatLocation(&l, o.RegName))
		if o.Reasons && l.Kind == LocUnavailable && l.Reason != "" {
			b.WriteString(" (" + l.Reason + ")")
		}
		b.WriteByte(']')
	}
	if s.Func.Variadic {
		if len(s.Func.Params) > 0 {
			b.WriteString(", ")
		}
		b.WriteString("...")
	} else if len(s.Func.Params) == 0 {
		b.WriteString("void")
	}
	b.WriteString(")")
	if o.Nesting && s.Outer != "" {
		b.WriteString(" [nested in an inlined ")
		b.WriteString(s.Outer)
		b.WriteString(" (depth ")
		b.WriteString(strconv.Itoa(s.Depth))
		b.WriteString(")]")
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteSites writes one FormatSite line per site, buffered.
func WriteSites(w io.Writer, sites []Site, o FormatOptions) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	for i := range sites {
		if err := FormatSiteOpts(bw, &sites[i], o); err != nil {
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
	Offset   *int64  `json:"offset,omitempty"`
	Value    *uint64 `json:"value,omitempty"`
	Size     uint8   `json:"size,omitempty"`
	Signed   bool    `json:"signed,omitempty"`
	Section  string  `json:"section,omitempty"`
	Reason   string  `json:"reason,omitempty"`
}

type jsonSite struct {
	Addr       uint64      `json:"addr"`
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
}

// WriteJSON writes sites as a JSON array, one object per site.
func WriteJSON(w io.Writer, sites []Site, regName func(uint32) string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("[")
	enc := json.NewEncoder(bw)
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
		for j, p := range s.Func.Params {
			var l Location
			if j < len(s.Params) {
				l = s.Params[j]
			}
			jp := jsonParam{Name: p.Name, Type: p.Type, Location: FormatLocation(&l, regName),
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
			js.Params = append(js.Params, jp)
		}
		bw.WriteString("\n")
		if err := enc.Encode(&js); err != nil {
			return err
		}
	}
	bw.WriteString("]\n")
	return bw.Flush()
}

// WriteStats prints the --stats summary.
func WriteStats(w io.Writer, st *Stats) error {
	bw := bufio.NewWriter(w)
	pct := func(n, of int) string {
		if of == 0 {
			return ""
		}
		return fmt.Sprintf(" (%.1f%%)", 100*float64(n)/float64(of))
	}
	withParams := st.Sites - st.NoParams
	fmt.Fprintf(bw, "inlined subroutine entries:        %d\n", st.Entries)
	fmt.Fprintf(bw, "  without an address:              %d\n", st.NoAddress)
	if st.Filtered > 0 {
		fmt.Fprintf(bw, "  filtered out:                    %d\n", st.Filtered)
	}
	fmt.Fprintf(bw, "formal parameter entries:          %d\n", st.ParamEntries)
	fmt.Fprintf(bw, "sites:                             %d\n", st.Sites)
	fmt.Fprintf(bw, "functions inlined:                 %d\n", st.Functions)
	fmt.Fprintf(bw, "parameters:                        %d\n", st.Params)
	fmt.Fprintf(bw, "  located:                         %d%s\n", st.Located, pct(st.Located, st.Params))
	fmt.Fprintf(bw, "  no location at the site:         %d%s\n", st.Missing, pct(st.Missing, st.Params))
	fmt.Fprintf(bw, "  unrepresentable:                 %d%s\n", st.Unrepresentable, pct(st.Unrepresentable, st.Params))
	fmt.Fprintf(bw, "  located through a location view: %d\n", st.ViewOnly)
	fmt.Fprintf(bw, "sites with all parameters located: %d%s\n", st.AllLocated, pct(st.AllLocated, withParams))
	fmt.Fprintf(bw, "sites with some located:           %d%s\n", st.SomeLocated, pct(st.SomeLocated, withParams))
	fmt.Fprintf(bw, "sites with none located:           %d%s\n", st.NoneLocated, pct(st.NoneLocated, withParams))
	fmt.Fprintf(bw, "sites without parameters:          %d\n", st.NoParams)
	if len(st.Reasons) > 0 {
		fmt.Fprintf(bw, "unrepresentable locations by reason:\n")
		type rc struct {
			r string
			n int
		}
		var rs []rc
		for r, n := range st.Reasons {
			rs = append(rs, rc{r, n})
		}
		sort.Slice(rs, func(i, j int) bool {
			if rs[i].n != rs[j].n {
				return rs[i].n > rs[j].n
			}
			return rs[i].r < rs[j].r
		})
		for _, x := range rs {
			fmt.Fprintf(bw, "  %-40s %d\n", x.r+":", x.n)
		}
	}
	if st.Warnings > 0 {
		fmt.Fprintf(bw, "warnings (entries skipped):        %d\n", st.Warnings)
	}
	if st.Resumed > 0 {
		fmt.Fprintf(bw, "  undecodable entries passed over: %d (each with the rest of the subtree it ends)\n", st.Resumed)
	}
	if st.LostSites > 0 {
		fmt.Fprintf(bw, "  inline sites dropped unfinished: %d\n", st.LostSites)
	}
	return bw.Flush()
}
