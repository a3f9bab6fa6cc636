package trace

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/resolve"
)

// printer writes events, counts and histograms.
type printer struct {
	pl    *plan
	o     Options
	w     *bufio.Writer
	syms  *ksyms
	lines int
	// Reused by every event.
	buf   []byte
	words []uint64
	vals  []NamedValue
}

func newPrinter(pl *plan, o Options, syms *ksyms) *printer {
	return &printer{pl: pl, o: o, w: bufio.NewWriterSize(o.Out, 64<<10), syms: syms}
}

func (p *printer) header() {
	if p.pl.mode == ModeEvents && !p.o.JSON {
		fmt.Fprintf(p.w, "%-15s %-3s %-7s %-16s %s\n", "TIME", "CPU", "PID", "COMM", "PLACE CALL")
	}
}

// placeName is the place as the output names it: the probe point resolve
// gives (caller+0xoff, MOD:caller+0xoff, _stext+0xoff).
func placeName(s *site) string {
	if s.place.Target != "" {
		return s.place.Target
	}
	return fmt.Sprintf("%#x", s.place.Addr)
}

func timeText(ns uint64) string {
	return fmt.Sprintf("%d.%06d", ns/1e9, ns%1e9/1e3)
}

// values decodes the fields of an event.
func (pp *probePlan) values(e rawEvent, s *site) []NamedValue {
	var out []NamedValue
	for i := range pp.fields {
		f := &pp.fields[i]
		if f.hidden {
			continue
		}
		out = append(out, NamedValue{f.name, pp.value(f, e.Avail, e.Fault, e.Words, e.Strs, s)})
	}
	return out
}

// value decodes one field; scalars without allocating.
func (pp *probePlan) value(f *field, avail, fault uint64, words []uint64, strs []string, s *site) Value {
	for w := f.word; w < f.word+f.words; w++ {
		if fault&(1<<uint(w)) != 0 {
			return Value{Kind: vFault}
		}
		if avail&(1<<uint(w)) == 0 {
			why := ""
			if w < len(s.slots) {
				why = s.slots[w].Why
			}
			return Value{Kind: vUnavailable, S: why}
		}
	}
	if f.str >= 0 {
		if fault&(1<<uint(32+f.str)) != 0 {
			return Value{Kind: vFault}
		}
		return Value{Kind: vString, S: strs[f.str]}
	}
	if f.vkind != vRaw {
		// BPF normalised the word already; keep the type's bytes anyway.
		u := words[f.word]
		if f.size < 8 {
			u &= 1<<(8*uint(f.size)) - 1
			if f.signed {
				u = uint64(signExtend(u, f.size))
			}
		}
		switch f.vkind {
		case vInt:
			return Value{Kind: vInt, I: int64(u)}
		case vEnum:
			if n, ok := f.enums[u]; ok {
				return Value{Kind: vEnum, S: n}
			}
			if f.signed {
				return Value{Kind: vInt, I: int64(u)}
			}
			return Value{Kind: vUint, U: u}
		}
		return Value{Kind: f.vkind, U: u}
	}
	b := make([]byte, 8*f.words)
	for k := 0; k < f.words; k++ {
		binary.LittleEndian.PutUint64(b[8*k:], words[f.word+k])
	}
	return decodeValue(pp.spec, f.typ, b[:min(len(b), f.size)])
}

// scalarKind is how value decodes type id without BTF at run time:
// vInt, vUint, vPtr, vBool or vEnum (with its names); vRaw for the rest.
func scalarKind(spec *btf.Spec, id btf.TypeID) (valueKind, map[uint64]string) {
	t, _, err := strip(spec, id)
	if err != nil || t == nil {
		return vRaw, nil
	}
	switch t.Kind() {
	case btf.KindPtr:
		return vPtr, nil
	case btf.KindInt:
		if t.SizeType > 8 {
			return vRaw, nil
		}
		switch enc, _, _ := t.IntEncoding(); {
		case enc&4 != 0:
			return vBool, nil
		case enc&1 != 0:
			return vInt, nil
		}
		return vUint, nil
	case btf.KindEnum, btf.KindEnum64:
		names := map[uint64]string{}
		size := int(t.SizeType)
		for _, e := range t.EnumValues() {
			n, _ := spec.StringAt(e.NameOff)
			v := uint64(e.Value)
			if size < 8 {
				// As BPF normalises the word: sign-extended when signed.
				v &= 1<<(8*uint(size)) - 1
				if t.KindFlag() {
					v = uint64(signExtend(v, size))
				}
			}
			if _, dup := names[v]; !dup && n != "" {
				names[v] = n
			}
		}
		return vEnum, names
	}
	return vRaw, nil
}

func appendPad(b []byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, ' ')
	}
	return b
}

// appendCol appends s and pads it to width w, then a space.
func appendCol(b []byte, s string, w int) []byte {
	b = append(b, s...)
	return append(appendPad(b, w-len(s)), ' ')
}

func appendUintCol(b []byte, v uint64, w int) []byte {
	n := len(b)
	b = strconv.AppendUint(b, v, 10)
	return append(appendPad(b, w-(len(b)-n)), ' ')
}

func appendTime(b []byte, ns uint64) []byte {
	n := len(b)
	b = strconv.AppendUint(b, ns/1e9, 10)
	b = append(b, '.')
	us := ns % 1e9 / 1e3
	for d := uint64(100000); d > 0; d /= 10 {
		b = append(b, byte('0'+us/d%10))
	}
	return append(appendPad(b, 15-(len(b)-n)), ' ')
}

// appendValue spells v as Text does, without allocating for scalars.
func appendValue(b []byte, v Value, hex bool) []byte {
	switch v.Kind {
	case vInt:
		if hex {
			if v.I < 0 {
				return strconv.AppendUint(append(b, "-0x"...), -uint64(v.I), 16)
			}
			return strconv.AppendUint(append(b, "0x"...), uint64(v.I), 16)
		}
		return strconv.AppendInt(b, v.I, 10)
	case vUint:
		if hex {
			return strconv.AppendUint(append(b, "0x"...), v.U, 16)
		}
		return strconv.AppendUint(b, v.U, 10)
	case vPtr:
		return strconv.AppendUint(append(b, "0x"...), v.U, 16)
	case vBool:
		return strconv.AppendBool(b, v.U != 0)
	case vEnum:
		return append(b, v.S...)
	}
	return append(b, v.Text(hex)...)
}

func (p *printer) event(raw []byte) error {
	if len(raw) < evWords {
		return fmt.Errorf("short event of %d bytes", len(raw))
	}
	bo := binary.NativeEndian
	si := int(bo.Uint32(raw[evSite:]))
	if si >= len(p.pl.sites) {
		return fmt.Errorf("event of unknown site %d", si)
	}
	s := p.pl.sites[si]
	pp := p.pl.probes[s.probe]
	if len(raw) < pp.layout.eventSize() {
		return fmt.Errorf("event of %d bytes, want %d", len(raw), pp.layout.eventSize())
	}
	p.lines++
	if p.o.JSON || pp.layout.strs > 0 || pp.layout.stackFrames > 0 {
		e, err := pp.layout.decode(raw)
		if err != nil {
			return err
		}
		vals := pp.values(e, s)
		if p.o.JSON {
			return p.eventJSON(pp, s, e, vals)
		}
		p.line(pp, s, raw, vals)
		if e.StackErr != 0 {
			fmt.Fprintf(p.w, "\t(no stack: error %d)\n", e.StackErr)
		}
		for _, ip := range e.Stack {
			fmt.Fprintf(p.w, "\t%s\n", p.syms.name(ip))
		}
		return nil
	}
	// The common case, without a decoded copy of the event.
	if cap(p.words) < pp.layout.words {
		p.words = make([]uint64, pp.layout.words)
	}
	words := p.words[:pp.layout.words]
	for w := range words {
		words[w] = bo.Uint64(raw[evWords+8*w:])
	}
	avail, fault := bo.Uint64(raw[evAvail:]), bo.Uint64(raw[evFault:])
	p.vals = p.vals[:0]
	for i := range pp.fields {
		f := &pp.fields[i]
		if !f.hidden {
			p.vals = append(p.vals, NamedValue{f.name, pp.value(f, avail, fault, words, nil, s)})
		}
	}
	p.line(pp, s, raw, p.vals)
	return nil
}

// line writes TIME CPU PID COMM PLACE FUNC(name=value, ...).
func (p *printer) line(pp *probePlan, s *site, raw []byte, vals []NamedValue) {
	bo := binary.NativeEndian
	b := appendTime(p.buf[:0], bo.Uint64(raw[evTime:]))
	b = appendUintCol(b, uint64(bo.Uint32(raw[evCPU:])), 3)
	b = appendUintCol(b, bo.Uint64(raw[evPID:])>>32, 7)
	b = appendCol(b, cString(raw[evComm:evComm+commLen]), 16)
	b = append(b, placeName(s)...)
	b = append(b, ' ')
	b = append(b, pp.probe.Func...)
	b = append(b, '(')
	k := 0
	for i := range pp.fields {
		f := &pp.fields[i]
		if f.hidden {
			continue
		}
		if k > 0 {
			b = append(b, ", "...)
		}
		b = append(b, f.name...)
		b = append(b, '=')
		b = appendValue(b, vals[k].Value, f.hex)
		k++
	}
	b = append(b, ")\n"...)
	p.w.Write(b)
	p.buf = b
}

type jsonEvent struct {
	Time        string            `json:"time"`
	TimeNS      uint64            `json:"time_ns"`
	CPU         uint32            `json:"cpu"`
	PID         uint32            `json:"pid"`
	TID         uint32            `json:"tid"`
	Comm        string            `json:"comm"`
	Probe       string            `json:"probe"`
	Func        string            `json:"func"`
	Event       string            `json:"event"`
	Kind        resolve.PlaceKind `json:"kind"`
	Place       string            `json:"place"`
	Addr        string            `json:"addr"`
	Args        json.RawMessage   `json:"args"`
	Unavailable map[string]string `json:"unavailable,omitempty"`
	Stack       []string          `json:"stack,omitempty"`
}

func (p *printer) eventJSON(pp *probePlan, s *site, e rawEvent, vals []NamedValue) error {
	args := Value{Kind: vStruct, Fields: vals}
	a, _ := args.MarshalJSON()
	j := jsonEvent{Time: timeText(e.Time), TimeNS: e.Time, CPU: e.CPU, PID: e.TGID, TID: e.PID, Comm: e.Comm,
		Probe: pp.probe.String(), Func: pp.probe.Func, Event: s.place.Event, Kind: s.place.Kind,
		Place: placeName(s), Addr: fmt.Sprintf("%#x", s.place.Addr), Args: a}
	for _, v := range vals {
		if v.Value.Kind == vUnavailable {
			if j.Unavailable == nil {
				j.Unavailable = map[string]string{}
			}
			j.Unavailable[v.Name] = v.Value.S
		}
	}
	for _, ip := range e.Stack {
		j.Stack = append(j.Stack, p.syms.name(ip))
	}
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	p.w.Write(b)
	return p.w.WriteByte('\n')
}

// counts is a snapshot of the per-site hit counters.
type counts []uint64

// key groups a site for --by.
func (p *printer) key(s *site) string {
	pp := p.pl.probes[s.probe]
	switch p.o.By {
	case "caller":
		c := s.place.Caller
		if c == "" {
			c = fmt.Sprintf("%#x", s.place.Addr)
		}
		if pp.object != "vmlinux" && pp.object != "" {
			c = pp.object + ":" + c
		}
		return pp.probe.Func + " " + c
	case "site":
		return pp.probe.Func + " " + placeName(s)
	}
	return pp.probe.String()
}

type countRow struct {
	Func   string `json:"func"`
	Event  string `json:"event"`
	Place  string `json:"place"`
	Caller string `json:"caller"`
	Addr   string `json:"addr"`
	Hits   uint64 `json:"hits"`
}

// printCounts prints hits per place and per caller; attached says which
// sites are attached.
func (p *printer) printCounts(c counts, attached []bool, title string) {
	var rows []countRow
	byCaller := map[string]uint64{}
	var callers []string
	var total uint64
	for i, s := range p.pl.sites {
		if !attached[i] {
			continue
		}
		pp := p.pl.probes[s.probe]
		r := countRow{pp.probe.Func, s.place.Event, placeName(s), s.place.Caller, fmt.Sprintf("%#x", s.place.Addr), c[i]}
		rows = append(rows, r)
		k := pp.probe.Func + "\x00" + s.place.Caller
		if _, ok := byCaller[k]; !ok {
			callers = append(callers, k)
		}
		byCaller[k] += c[i]
		total += c[i]
	}
	if p.o.JSON {
		type callerRow struct {
			Func   string `json:"func"`
			Caller string `json:"caller"`
			Hits   uint64 `json:"hits"`
		}
		out := struct {
			Title   string      `json:"counts"`
			Total   uint64      `json:"total"`
			Places  []countRow  `json:"places"`
			Callers []callerRow `json:"callers"`
		}{Title: title, Total: total, Places: rows}
		for _, k := range callers {
			f, c, _ := strings.Cut(k, "\x00")
			out.Callers = append(out.Callers, callerRow{f, c, byCaller[k]})
		}
		b, _ := json.Marshal(out)
		p.w.Write(b)
		p.w.WriteByte('\n')
		return
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Hits > rows[j].Hits })
	fmt.Fprintf(p.w, "%s\n%-24s %-44s %12s\n", title, "FUNC", "PLACE", "HITS")
	hit := 0
	for _, r := range rows {
		if r.Hits == 0 {
			continue
		}
		hit++
		fmt.Fprintf(p.w, "%-24s %-44s %12d\n", r.Func, r.Place, r.Hits)
	}
	fmt.Fprintf(p.w, "%d of %d places hit, %d hits\n", hit, len(rows), total)
	sort.SliceStable(callers, func(i, j int) bool { return byCaller[callers[i]] > byCaller[callers[j]] })
	fmt.Fprintf(p.w, "%-24s %-44s %12s\n", "FUNC", "CALLER", "HITS")
	for _, k := range callers {
		if byCaller[k] == 0 {
			continue
		}
		f, c, _ := strings.Cut(k, "\x00")
		fmt.Fprintf(p.w, "%-24s %-44s %12d\n", f, c, byCaller[k])
	}
	fmt.Fprintln(p.w)
}

// printHists prints the log2 histograms of --hist, one per --by key;
// h holds HistBuckets counters per site.
func (p *printer) printHists(h []uint64, attached []bool, title string) {
	agg := map[string][]uint64{}
	var keys []string
	for i, s := range p.pl.sites {
		if !attached[i] {
			continue
		}
		k := p.key(s)
		if agg[k] == nil {
			agg[k] = make([]uint64, HistBuckets)
			keys = append(keys, k)
		}
		for b := 0; b < HistBuckets; b++ {
			agg[k][b] += h[i*HistBuckets+b]
		}
	}
	for _, k := range keys {
		if p.o.JSON {
			writeHistJSON(p.w, p.o.Hist, p.o.By, k, title, agg[k])
			continue
		}
		fmt.Fprintf(p.w, "%s@%s[%s]:\n", title, p.o.Hist, k)
		writeHist(p.w, agg[k])
		fmt.Fprintln(p.w)
	}
}

// bucketRange names bucket b as bpftrace does: [0], [1], [2, 4), ...
func bucketRange(b int) (lo, hi uint64, text string) {
	switch b {
	case histNeg:
		return 0, 0, "(..., 0)"
	case histZero:
		return 0, 0, "[0]"
	case 2:
		return 1, 1, "[1]"
	}
	k := uint(b - 2)
	lo = 1 << k
	hi = lo << 1 // 0 for the last bucket: [2^63, 2^64)
	return lo, hi, fmt.Sprintf("[%s, %s)", humanPow(k), humanPow(k+1))
}

func humanPow(k uint) string {
	units := []string{"", "K", "M", "G", "T", "P", "E"}
	u := k / 10
	if u >= uint(len(units)) {
		u = uint(len(units)) - 1
	}
	return fmt.Sprintf("%d%s", uint64(1)<<(k-10*u), units[u])
}

func writeHist(w io.Writer, h []uint64) {
	first, last := -1, -1
	var peak uint64
	for b := 0; b < histUnavail; b++ {
		if h[b] > 0 {
			if first < 0 {
				first = b
			}
			last = b
			peak = max(peak, h[b])
		}
	}
	for b := first; b >= 0 && b <= last; b++ {
		_, _, text := bucketRange(b)
		bar := 0
		if peak > 0 {
			bar = int(h[b] * 52 / peak)
		}
		fmt.Fprintf(w, "%-20s %8d |%-52s|\n", text, h[b], strings.Repeat("@", bar))
	}
	if n := h[histUnavail]; n > 0 {
		fmt.Fprintf(w, "%-20s %8d\n", "unavailable", n)
	}
}

func writeHistJSON(w io.Writer, arg, by, key, title string, h []uint64) {
	type bucket struct {
		Min   uint64 `json:"min"`
		Max   uint64 `json:"max_exclusive"`
		Count uint64 `json:"count"`
	}
	out := struct {
		Title       string   `json:"hist,omitempty"`
		Arg         string   `json:"arg"`
		By          string   `json:"by"`
		Key         string   `json:"key"`
		Negative    uint64   `json:"negative"`
		Zero        uint64   `json:"zero"`
		Buckets     []bucket `json:"buckets"`
		Unavailable uint64   `json:"unavailable"`
	}{Title: title, Arg: arg, By: by, Key: key, Negative: h[histNeg], Zero: h[histZero], Unavailable: h[histUnavail]}
	if out.By == "" {
		out.By = "function"
	}
	for b := 2; b < histUnavail; b++ {
		if h[b] > 0 {
			lo, hi, _ := bucketRange(b)
			out.Buckets = append(out.Buckets, bucket{lo, hi, h[b]})
		}
	}
	var buf bytes.Buffer
	json.NewEncoder(&buf).Encode(out)
	w.Write(buf.Bytes())
}

// skips reports the places that are not attached: each with its reason
// when verbose (or when there are few), else one line per reason class
// with a count and an example.
type skips struct {
	w       io.Writer
	verbose bool
	n       int
	classes map[string]*skipClass
	order   []string
	lines   []string
}

type skipClass struct {
	fn, example string
	n           int
}

// maxSkipLines: up to this many skipped places are listed one by one.
const maxSkipLines = 10

func newSkips(w io.Writer, verbose bool) *skips {
	return &skips{w: w, verbose: verbose, classes: map[string]*skipClass{}}
}

// funcWord is the function a notrace reason names: classes group the
// reasons without it.
var funcWord = regexp.MustCompile(`function [^ :]+`)

func (k *skips) add(fn, place, why string) {
	k.n++
	line := fmt.Sprintf("btfinline trace: skipping %s at %s: %s", fn, place, why)
	if k.verbose {
		fmt.Fprintln(k.w, line)
		return
	}
	k.lines = append(k.lines, line)
	c := fn + "\x00" + funcWord.ReplaceAllString(why, "function")
	if k.classes[c] == nil {
		k.classes[c] = &skipClass{fn: fn, example: place}
		k.order = append(k.order, c)
	}
	k.classes[c].n++
}

func (k *skips) summary() {
	if k.verbose || k.n == 0 {
		return
	}
	if k.n <= maxSkipLines {
		for _, l := range k.lines {
			fmt.Fprintln(k.w, l)
		}
		return
	}
	for _, c := range k.order {
		sc := k.classes[c]
		_, why, _ := strings.Cut(c, "\x00")
		places := "places"
		if sc.n == 1 {
			places = "place"
		}
		fmt.Fprintf(k.w, "btfinline trace: skipping %d %s of %s: %s (e.g. %s; --verbose lists them)\n", sc.n, places, sc.fn, why, sc.example)
	}
}
