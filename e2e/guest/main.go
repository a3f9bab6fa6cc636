//go:build linux

// Command e2e-guest runs inside the end-to-end test VM (see e2e/README.md).
// It is static (CGO_ENABLED=0) and talks to tracefs directly so that every
// kprobe definition gets its own write and its own errno.
//
//	e2e-guest probe FILE        write each kprobe_events line of FILE, report refusals
//	e2e-guest check PROBES TRACE  compare fetched arguments with the printk reference
//	e2e-guest check -bpftrace PROGRAM [-dmesg LOG] PROBES OUTPUT  the same for bpftrace's printf lines
//	e2e-guest judge [-batch N] SITES   ask the kernel to place a kprobe at every site
//	e2e-guest register FILE     define every kprobe_events line of FILE, timed, quietly
//	e2e-guest tracecheck EVENTS DMESG  compare btfinline trace --json events with the printk reference
//	e2e-guest countcheck P0 P1 COUNTS  compare btfinline trace --count with kprobe_profile
//	e2e-guest faults [-n N] FUNC  SIGKILL btfinline trace FUNC N times; nothing may be left
//
// Every result line starts with "E2E " so that the host can pick it out of
// the serial console.
package main

import (
	"bufio"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/btfinline/btfinline/internal/kprobe"
)

const tracing = "/sys/kernel/tracing"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: e2e-guest probe|check|judge ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "probe":
		err = probeCmd(os.Args[2:])
	case "check":
		err = checkCmd(os.Args[2:])
	case "judge":
		err = judgeCmd(os.Args[2:])
	case "register":
		err = registerCmd(os.Args[2:])
	case "tracecheck":
		err = tracecheckCmd(os.Args[2:])
	case "countcheck":
		err = countcheckCmd(os.Args[2:])
	case "faults":
		err = faultsCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Printf("E2E error %v\n", err)
		os.Exit(1)
	}
}

// writeEvent appends one definition to kprobe_events; the kernel checks the
// address when the probe is registered, so the errno is its verdict.
func writeEvent(def string) error {
	f, err := os.OpenFile(tracing+"/kprobe_events", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, werr := f.Write([]byte(def + "\n"))
	cerr := f.Close()
	if werr != nil {
		return werr
	}
	return cerr
}

func clearEvents() error {
	f, err := os.OpenFile(tracing+"/kprobe_events", os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	return f.Close()
}

func errnoName(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		switch en {
		case syscall.EILSEQ:
			return "EILSEQ"
		case syscall.EINVAL:
			return "EINVAL"
		case syscall.EBUSY:
			return "EBUSY"
		case syscall.ENOENT:
			return "ENOENT"
		case syscall.EEXIST:
			return "EEXIST"
		case syscall.ENOMEM:
			return "ENOMEM"
		case syscall.E2BIG:
			return "E2BIG"
		case syscall.EPERM:
			return "EPERM"
		case syscall.ENOSPC:
			return "ENOSPC"
		}
		return fmt.Sprintf("errno%d", int(en))
	}
	return err.Error()
}

// lastErrorLog returns the reason of the last entry of tracefs error_log,
// e.g. "Failed to register probe event".
func lastErrorLog() string {
	b, err := os.ReadFile(tracing + "/error_log")
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if j := strings.Index(l, "error: "); j >= 0 {
			return strings.TrimSpace(l[j+len("error: "):])
		}
	}
	return ""
}

func clearErrorLog() {
	if f, err := os.OpenFile(tracing+"/error_log", os.O_WRONLY|os.O_TRUNC, 0); err == nil {
		f.Close()
	}
}

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return readLinesFrom(string(b))
}

// readLinesFrom returns the non-empty lines of s that are not comments.
func readLinesFrom(s string) ([]string, error) {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out, nil
}

// probeCmd registers the kprobe definitions of the test module.
func probeCmd(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: probe FILE")
	}
	defs, err := readLines(args[0])
	if err != nil {
		return err
	}
	ok := 0
	kmsg := openKmsg()
	defer kmsg.Close()
	for _, d := range defs {
		clearErrorLog()
		kmsg.drain()
		if err := writeEvent(d); err != nil {
			why := kmsg.drain()
			if why == "" {
				why = lastErrorLog()
			}
			fmt.Printf("E2E refused %s: %s (%s)\n", d, errnoName(err), why)
			continue
		}
		ok++
		fmt.Printf("E2E probe %s\n", d)
	}
	fmt.Printf("E2E probes defined=%d registered=%d\n", len(defs), ok)
	return nil
}

// registerCmd defines every line of FILE, one write each, and says how
// long it took and how many the kernel refused.
func registerCmd(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: register FILE")
	}
	defs, err := readLines(args[0])
	if err != nil {
		return err
	}
	start := time.Now()
	ok := 0
	refused := map[string]int{}
	for _, d := range defs {
		if err := writeEvent(d); err != nil {
			refused[errnoName(err)]++
			continue
		}
		ok++
	}
	fmt.Printf("E2E register defined=%d registered=%d seconds=%.2f refused=%v\n", len(defs), ok, time.Since(start).Seconds(), refused)
	return nil
}

// probeDef is one parsed kprobe definition: p:GROUP/EVENT WHERE NAME=FETCH:TYPE...
type probeDef struct {
	event string
	fn    string
	types map[string]string
}

var eventSuffix = regexp.MustCompile(`_[0-9]+$`)

func parseProbe(def string) (probeDef, error) {
	fs := strings.Fields(def)
	if len(fs) < 2 || !strings.HasPrefix(fs[0], "p:") {
		return probeDef{}, fmt.Errorf("not a kprobe definition: %q", def)
	}
	ev := fs[0][2:]
	if i := strings.IndexByte(ev, '/'); i >= 0 {
		ev = ev[i+1:]
	}
	p := probeDef{event: ev, fn: eventSuffix.ReplaceAllString(ev, ""), types: map[string]string{}}
	for _, a := range fs[2:] {
		name, fetch, ok := strings.Cut(a, "=")
		if !ok {
			continue
		}
		typ := "x64"
		if i := strings.LastIndexByte(fetch, ':'); i >= 0 {
			typ = fetch[i+1:]
		}
		p.types[name] = typ
	}
	return p, nil
}

// typeWidth returns the bit width and signedness of a fetch type.
func typeWidth(t string) (int, bool) {
	if len(t) < 2 {
		return 64, false
	}
	n, err := strconv.Atoi(t[1:])
	if err != nil {
		return 64, false
	}
	return n, t[0] == 's'
}

func parseTraceValue(s string, typ string) (uint64, error) {
	_, signed := typeWidth(typ)
	if strings.HasPrefix(s, "0x") {
		return strconv.ParseUint(s[2:], 16, 64)
	}
	if signed || strings.HasPrefix(s, "-") {
		v, err := strconv.ParseInt(s, 10, 64)
		return uint64(v), err
	}
	return strconv.ParseUint(s, 10, 64)
}

func mask(v uint64, bits int) uint64 {
	if bits >= 64 {
		return v
	}
	return v & (1<<uint(bits) - 1)
}

type kv struct {
	key, val string
	optional bool
}

// fields splits "k=v k=v" as printed by the module and by the trace.
func fields(s string) []kv {
	var out []kv
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		opt := strings.HasPrefix(k, "*")
		out = append(out, kv{strings.TrimPrefix(k, "*"), v, opt})
	}
	return out
}

var (
	// kprobe hit: "... 12.345678: btfi_add3_0: (btfi_call_regs2+0x17/0x4a [btfi_e2e]) a=0x5 b=..."
	hitRE = regexp.MustCompile(`:\s+(\S+):\s+\(([^)]*)\)(.*)$`)
	// printk reference via the printk:console event or dmesg.
	refRE = regexp.MustCompile(`btfi: fn=(\S+)(.*)$`)
	runRE = regexp.MustCompile(`console: btfi: (run|done) n=`)
)

type hit struct {
	probe probeDef
	where string
	args  []kv
}

// checkCmd pairs every kprobe hit of function F with the reference line of
// the same call of F (printk:console events are interleaved with the kprobe
// events in one ring buffer, in execution order): the next reference line,
// or the one just before the hit within the same run of the callers, for a
// site whose DW_AT_entry_pc gcc put after the inlined printk (arm64's
// btfi_frame: the probe fires after the line it is checked against).
//
// -tag T prefixes every line it prints with "E2E T " instead of "E2E "
// (the peers' checks, beside the run's own summary). TRACE may be the
// ring buffer or perf script's lines of the same events (GROUP:EVENT).
//
// -bpftrace PROGRAM reads TRACE as bpftrace's output of PROGRAM (resolve
// --format bpftrace lines, and printk:console printed as "console: MSG"):
// each line "EVENT k=v ..." of an event PROGRAM prints is a hit, its
// values in hex where PROGRAM's format says so. bpftrace's str() cuts a
// long message short, so with -dmesg FILE the console's "btfi: " lines
// are the last as many of the kernel log's, each checked to begin with
// what bpftrace printed.
func checkCmd(args []string) error {
	tag, program, dmesg := "", "", ""
	for len(args) > 2 && (args[0] == "-tag" || args[0] == "-bpftrace" || args[0] == "-dmesg") {
		switch args[0] {
		case "-tag":
			tag = args[1]
		case "-bpftrace":
			program = args[1]
		default:
			dmesg = args[1]
		}
		args = args[2:]
	}
	if len(args) != 2 {
		return errors.New("usage: check [-tag T] [-bpftrace PROGRAM [-dmesg FILE]] PROBES TRACE")
	}
	defs, err := readLines(args[0])
	if err != nil {
		return err
	}
	lines, err := readLines(args[1])
	if err != nil {
		return err
	}
	if program != "" {
		prog, err := readLines(program)
		if err != nil {
			return err
		}
		var log []string
		if dmesg != "" {
			if log, err = readLines(dmesg); err != nil {
				return err
			}
		}
		if lines, err = bpftraceHits(prog, lines, log); err != nil {
			return err
		}
	}
	w := io.Writer(os.Stdout)
	if tag != "" {
		w = &tagWriter{w: os.Stdout, tag: "E2E " + tag + " "}
	}
	_, err = check(w, defs, lines)
	return err
}

// bpftracePrintf is a resolve --format bpftrace line's event and the
// formats of its values: kprobe:WHERE { printf("EVENT k=%lx k=%lu\n", ...); }
var bpftracePrintf = regexp.MustCompile(`^kprobe:(\S+) \{ printf\("(\S+)((?: \S+=%[a-z]+)*)\\n"`)

// bpftraceHits turns bpftrace's output of program into the lines check
// reads: "bpftrace: EVENT: (WHERE) k=v ...", a value printed with %x or
// %lx given its 0x; other lines as they are, but with a kernel log
// (dmesg), each "console: btfi: " line is the log's line of that printk
// in full: the log's last "btfi: " lines, as many as the console's, in
// order, each beginning with what bpftrace printed.
func bpftraceHits(program, out, dmesg []string) ([]string, error) {
	type event struct {
		where string
		hex   map[string]bool
	}
	events := map[string]event{}
	for _, l := range program {
		m := bpftracePrintf.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		e := event{where: m[1], hex: map[string]bool{}}
		for _, f := range fields(m[3]) {
			e.hex[f.key] = strings.HasSuffix(f.val, "x")
		}
		events[m[2]] = e
	}
	const console = "console: btfi: "
	var full []string
	if dmesg != nil {
		n := 0
		for _, l := range out {
			if strings.HasPrefix(l, console) {
				n++
			}
		}
		for _, l := range dmesg {
			if i := strings.Index(l, "btfi: "); i >= 0 {
				full = append(full, l[i:])
			}
		}
		if len(full) < n {
			return nil, fmt.Errorf("bpftrace printed %d printk lines, the kernel log has %d", n, len(full))
		}
		full = full[len(full)-n:]
	}
	res := make([]string, 0, len(out))
	for _, l := range out {
		if dmesg != nil && strings.HasPrefix(l, console) {
			msg := strings.TrimPrefix(l, "console: ")
			if !strings.HasPrefix(full[0], msg) {
				return nil, fmt.Errorf("bpftrace's printk line %q is not the kernel log's %q", msg, full[0])
			}
			l, full = "console: "+full[0], full[1:]
		}
		name, rest, _ := strings.Cut(l, " ")
		e, ok := events[name]
		if !ok {
			res = append(res, l)
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "bpftrace: %s: (%s)", name, e.where)
		for _, f := range fields(rest) {
			v := f.val
			if e.hex[f.key] {
				v = "0x" + v
			}
			fmt.Fprintf(&b, " %s=%s", f.key, v)
		}
		res = append(res, b.String())
	}
	return res, nil
}

// tagWriter puts its tag in place of the "E2E " that starts each line.
type tagWriter struct {
	w   io.Writer
	tag string
}

func (t *tagWriter) Write(b []byte) (int, error) {
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if l == "" {
			continue
		}
		if _, err := io.WriteString(t.w, t.tag+strings.TrimPrefix(l, "E2E ")); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

// checkResult counts what check saw.
type checkResult struct {
	probed, hit, checked, matched, mismatched, unavailable, unpaired int
}

func check(w io.Writer, defs, lines []string) (checkResult, error) {
	var res checkResult
	probes := map[string]probeDef{}
	for _, d := range defs {
		p, err := parseProbe(d)
		if err != nil {
			return res, err
		}
		probes[p.event] = p
	}
	pending := map[string][]hit{}
	// early holds, per function, a reference line no hit was waiting for,
	// within the current run ("btfi: run" .. "btfi: done"): a hit that
	// follows takes it.
	early := map[string]string{}
	hits := map[string]int{}
	compare := func(h hit, refs string) {
		got := map[string]string{}
		for _, a := range h.args {
			got[a.key] = a.val
		}
		for _, r := range fields(refs) {
			tv, fetched := got[r.key]
			if !fetched {
				if !r.optional {
					res.unavailable++
					fmt.Fprintf(w, "E2E unavailable %s %s %s\n", h.probe.event, h.where, r.key)
				}
				continue
			}
			res.checked++
			typ := h.probe.types[r.key]
			bits, _ := typeWidth(typ)
			want, err1 := strconv.ParseUint(strings.TrimPrefix(r.val, "0x"), 16, 64)
			have, err2 := parseTraceValue(tv, typ)
			if err1 == nil && err2 == nil && mask(want, bits) == mask(have, bits) {
				res.matched++
				fmt.Fprintf(w, "E2E match %s %s %s=%s (%s)\n", h.probe.event, h.where, r.key, tv, typ)
				continue
			}
			res.mismatched++
			fmt.Fprintf(w, "E2E MISMATCH %s %s %s: kprobe %s (%s), printk %s\n", h.probe.event, h.where, r.key, tv, typ, r.val)
		}
	}
	for _, l := range lines {
		if runRE.MatchString(l) {
			clear(early)
			continue
		}
		if m := refRE.FindStringSubmatch(l); m != nil && strings.Contains(l, "console:") {
			fn := m[1]
			q := pending[fn]
			if len(q) == 0 {
				early[fn] = m[2] // a hit may follow; else an unprobed site
				continue
			}
			pending[fn] = q[1:]
			compare(q[0], m[2])
			continue
		}
		m := hitRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		ev := m[1]
		if i := strings.LastIndexByte(ev, ':'); i >= 0 {
			ev = ev[i+1:] // perf script: GROUP:EVENT
		}
		p, ok := probes[ev]
		if !ok {
			continue
		}
		hits[p.event]++
		h := hit{p, m[2], fields(m[3])}
		if refs, ok := early[p.fn]; ok && len(pending[p.fn]) == 0 {
			delete(early, p.fn)
			compare(h, refs)
			continue
		}
		pending[p.fn] = append(pending[p.fn], h)
	}
	var fns []string
	for fn := range pending {
		fns = append(fns, fn)
	}
	sort.Strings(fns)
	for _, fn := range fns {
		for _, h := range pending[fn] {
			res.unpaired++
			fmt.Fprintf(w, "E2E UNPAIRED %s %s: kprobe hit without a printk reference of %s\n", h.probe.event, h.where, fn)
		}
	}
	var events []string
	for ev := range probes {
		events = append(events, ev)
	}
	sort.Strings(events)
	res.probed = len(probes)
	for _, ev := range events {
		fmt.Fprintf(w, "E2E hits %s %d\n", ev, hits[ev])
		if hits[ev] > 0 {
			res.hit++
		}
	}
	fmt.Fprintf(w, "E2E summary sites probed=%d, sites hit=%d, arguments checked=%d, matched=%d, mismatched=%d, unavailable=%d, unpaired=%d\n",
		res.probed, res.hit, res.checked, res.matched, res.mismatched, res.unavailable, res.unpaired)
	return res, nil
}

// judgeCmd places a kprobe at every site of a list (ADDR SECTION
// CALLER+OFF FUNC, link-time addresses), in batches, and counts what the
// kernel refuses and why. With KASLR the addresses are moved by the
// difference between the running and the link-time _text.
func judgeCmd(args []string) error {
	fs := flag.NewFlagSet("judge", flag.ContinueOnError)
	batch := fs.Int("batch", 256, "kprobes registered before the batch is removed")
	linkText := fs.String("text", "ffffffff81000000", "link-time address of -textsym")
	textSym := fs.String("textsym", "_text", "kernel symbol the KASLR offset is taken from (arm64 kallsyms has no _text: _stext)")
	limit := fs.Int("limit", 0, "stop after this many sites (0: all)")
	keptMax := fs.Int("kept-max", 2000, "list at most this many sites the oracle kept that the kernel refused")
	traceable := fs.String("traceable", "", "site list of a traceability oracle (btfinline sites --traceable): count its verdicts against the kernel's")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: judge [-batch N] SITES")
	}
	lt, err := strconv.ParseUint(*linkText, 16, 64)
	if err != nil {
		return err
	}
	rt, err := kallsymsAddr(*textSym)
	if err != nil {
		return err
	}
	lines, err := readLines(fs.Arg(0))
	if err != nil {
		return err
	}
	lines = uniqueAddrs(lines)
	if *limit > 0 && len(lines) > *limit {
		lines = lines[:*limit]
	}
	var oracle map[string]bool
	if *traceable != "" {
		tl, err := readLines(*traceable)
		if err != nil {
			return err
		}
		oracle = map[string]bool{}
		for _, l := range tl {
			oracle[strings.Fields(l)[0]] = true
		}
	}
	// matrix[said traceable][kernel accepted]
	var matrix [2][2]int
	matrixEx := map[[2]int]string{}
	if err := clearEvents(); err != nil {
		return err
	}
	kmsg := openKmsg()
	defer kmsg.Close()
	bl, err := readBlacklist()
	if err != nil {
		return err
	}
	kcore := openKcore()
	defer kcore.Close()
	start := time.Now()
	reasons := map[string]int{}
	bySection := map[string][2]int{}
	examples := map[string]string{}
	accepted, inBatch, unexplained := 0, 0, 0
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) < 4 {
			return fmt.Errorf("bad site line %q", l)
		}
		a, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil {
			return fmt.Errorf("bad site line %q", l)
		}
		addr := a - lt + rt
		kmsg.drain()
		err = writeEvent(fmt.Sprintf("p:judge/s%d 0x%x", i, addr))
		if (i+1)%1000 == 0 {
			fmt.Printf("E2E judge progress %d/%d %.1fs\n", i+1, len(lines), time.Since(start).Seconds())
		}
		why := ""
		if err != nil {
			why = refusal(err, kmsg, bl, addr)
			if runtime.GOARCH == "arm64" && errors.Is(err, syscall.EINVAL) && strings.Contains(why, "no message") {
				if r := kprobe.ARM64Refusal(kcore.read(addr-4*kprobe.ARM64AtomicWindow, 4*(kprobe.ARM64AtomicWindow+1)), siteOffset(f[2])); r != "" {
					why = "EINVAL: " + r
				}
			}
		}
		if oracle != nil {
			said, got := b2i(oracle[f[0]]), b2i(err == nil)
			// Each site the oracle kept and the kernel refused is one of
			// btfinline's errors: list them (link-time address, for the
			// host's disassembler), up to a bound.
			if said == 1 && got == 0 && matrix[1][0] < *keptMax {
				fmt.Printf("E2E judge kept-refused %s %s %s %s: %s\n", f[0], f[1], f[2], f[3], why)
			}
			matrix[said][got]++
			if _, ok := matrixEx[[2]int{said, got}]; !ok {
				matrixEx[[2]int{said, got}] = f[2] + " " + f[3]
			}
		}
		sec := bySection[f[1]]
		if err == nil {
			accepted++
			inBatch++
			sec[0]++
		} else {
			// A refusal is explained by the kernel's message, by the
			// blacklist, or by btfinline's rules having said no; a silent
			// refusal of a site called traceable (or judged without the
			// list) is not.
			if strings.Contains(why, "no message") && (oracle == nil || oracle[f[0]]) {
				unexplained++
			}
			r := f[1] + " " + why
			reasons[r]++
			if _, ok := examples[r]; !ok {
				examples[r] = fmt.Sprintf("%s %s %s", f[1], f[2], f[3])
			}
			sec[1]++
		}
		bySection[f[1]] = sec
		if inBatch >= *batch {
			if err := clearEvents(); err != nil {
				return fmt.Errorf("removing a batch: %v", err)
			}
			inBatch = 0
		}
	}
	if err := clearEvents(); err != nil {
		return err
	}
	el := time.Since(start)
	fmt.Printf("E2E judge sites=%d accepted=%d refused=%d unexplained=%d seconds=%.1f\n", len(lines), accepted, len(lines)-accepted, unexplained, el.Seconds())
	var rs []string
	for r := range reasons {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return reasons[rs[i]] > reasons[rs[j]] })
	for _, r := range rs {
		fmt.Printf("E2E judge refused %d: %s, e.g. %s\n", reasons[r], r, examples[r])
	}
	if oracle != nil {
		yn := [2]string{"no", "yes"}
		for said := 1; said >= 0; said-- {
			for got := 1; got >= 0; got-- {
				fmt.Printf("E2E judge oracle traceable=%s kernel=%s: %d, e.g. %s\n", yn[said],
					map[int]string{0: "refused", 1: "accepted"}[got], matrix[said][got], matrixEx[[2]int{said, got}])
			}
		}
	}
	var secs []string
	for s := range bySection {
		secs = append(secs, s)
	}
	sort.Strings(secs)
	for _, s := range secs {
		fmt.Printf("E2E judge section %s accepted=%d refused=%d\n", s, bySection[s][0], bySection[s][1])
	}
	return nil
}

// refusal says why the kernel refused a kprobe at addr: the errno plus
// the kernel's log line, or for a silent EINVAL whether the address is in
// the debugfs kprobe blacklist.
func refusal(err error, kmsg *kmsgReader, bl blacklist, addr uint64) string {
	r := errnoName(err)
	if msg := kmsg.drain(); msg != "" {
		r += ": " + msg
	} else if errors.Is(err, syscall.EINVAL) {
		if bl.contains(addr) {
			r += ": in the kprobe blacklist (NOKPROBE_SYMBOL, noinstr, entry code)"
		} else {
			r += ": no message (jump label, static call, BUG, exception table, an instruction the arch will not single-step, or not kernel text)"
		}
	}
	return r
}

func kallsymsAddr(name string) (uint64, error) {
	f, err := os.Open("/proc/kallsyms")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 3 && fs[2] == name {
			return strconv.ParseUint(fs[0], 16, 64)
		}
	}
	return 0, fmt.Errorf("%s not in /proc/kallsyms", name)
}

// kmsgReader reads the kernel log records written since the last drain:
// the kernel says why it refused a kprobe there ("Could not probe notrace
// function ...", "kprobe: ...") while the write only returns an errno.
type kmsgReader struct {
	fd int // -1 when /dev/kmsg is not there
}

// openKmsg opens /dev/kmsg non-blocking with raw syscalls: an os.File
// would hand the descriptor to Go's poller and block in Read.
func openKmsg() *kmsgReader {
	fd, err := syscall.Open("/dev/kmsg", syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return &kmsgReader{fd: -1}
	}
	syscall.Seek(fd, 0, 2) // SEEK_END: only records from now on
	return &kmsgReader{fd: fd}
}

func (k *kmsgReader) Close() {
	if k.fd >= 0 {
		syscall.Close(k.fd)
	}
}

var symbolRE = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+(/0x[0-9a-f]+)?|0x[0-9a-f]+|[0-9a-f]{16})\b`)

// drain returns the last message logged since the previous call, with
// addresses and symbols blanked out so that equal reasons group together.
func (k *kmsgReader) drain() string {
	if k.fd < 0 {
		return ""
	}
	last := ""
	buf := make([]byte, 8192)
	for {
		n, err := syscall.Read(k.fd, buf)
		if err == syscall.EPIPE {
			continue // records were overwritten: read on
		}
		if n <= 0 || err != nil {
			break
		}
		rec := string(buf[:n])
		if i := strings.IndexByte(rec, ';'); i >= 0 {
			rec = rec[i+1:]
		}
		if i := strings.IndexByte(rec, '\n'); i >= 0 {
			rec = rec[:i]
		}
		last = rec
	}
	last = symbolRE.ReplaceAllString(last, "SYM")
	if strings.Contains(last, "Could not probe notrace function") {
		last = "Could not probe notrace function (no ftrace location in the function)"
	}
	return last
}

// kcoreReader reads the running kernel's text through /proc/kcore: the
// instructions the kernel judged, after boot-time patching (alternatives,
// jump labels), to name the arm64 instruction rule behind a silent EINVAL.
type kcoreReader struct {
	f *elf.File
	c io.Closer
}

func openKcore() *kcoreReader {
	fh, err := os.Open("/proc/kcore")
	if err != nil {
		return &kcoreReader{}
	}
	f, err := elf.NewFile(fh)
	if err != nil {
		fh.Close()
		return &kcoreReader{}
	}
	return &kcoreReader{f, fh}
}

func (k *kcoreReader) Close() {
	if k.c != nil {
		k.c.Close()
	}
}

// read returns n bytes of kernel memory at addr, or nil.
func (k *kcoreReader) read(addr, n uint64) []byte {
	if k.f == nil {
		return nil
	}
	for _, p := range k.f.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr+n <= p.Vaddr+p.Filesz {
			b := make([]byte, n)
			if _, err := p.ReadAt(b, int64(addr-p.Vaddr)); err != nil {
				return nil
			}
			return b
		}
	}
	return nil
}

// siteOffset is OFF of a CALLER+0xOFF site name (0 when there is none).
func siteOffset(s string) uint64 {
	_, o, ok := strings.Cut(s, "+0x")
	if !ok {
		return 0
	}
	v, _ := strconv.ParseUint(o, 16, 64)
	return v
}

// blacklist holds the address ranges of /sys/kernel/debug/kprobes/blacklist.
type blacklist [][2]uint64

func readBlacklist() (blacklist, error) {
	b, err := os.ReadFile("/sys/kernel/debug/kprobes/blacklist")
	if err != nil {
		return nil, err
	}
	return parseBlacklist(string(b))
}

// parseBlacklist reads the kernel's lines, "0xSTART-0xEND\tSYMBOL" with
// " [MODULE]" after a module's symbol (kprobe_blacklist_seq_show). A line
// in another shape is an error: a blacklist that silently parses to
// nothing makes every blacklisted refusal look unexplained.
func parseBlacklist(text string) (blacklist, error) {
	var bl blacklist
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		rng, _, _ := strings.Cut(l, "\t")
		los, his, ok := strings.Cut(rng, "-")
		lo, err1 := strconv.ParseUint(strings.TrimPrefix(los, "0x"), 16, 64)
		hi, err2 := strconv.ParseUint(strings.TrimPrefix(his, "0x"), 16, 64)
		if !ok || err1 != nil || err2 != nil || hi < lo {
			return nil, fmt.Errorf("kprobes blacklist: line %q is not 0xSTART-0xEND<TAB>SYMBOL", l)
		}
		bl = append(bl, [2]uint64{lo, hi})
	}
	if len(bl) == 0 {
		return nil, errors.New("kprobes blacklist is empty (a kernel always lists its entry code)")
	}
	return bl, nil
}

func (bl blacklist) contains(addr uint64) bool {
	for _, r := range bl {
		if addr >= r[0] && addr < r[1] {
			return true
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// uniqueAddrs keeps the first line of each address: the kernel's verdict
// is per address, and several inlined functions may start at one.
func uniqueAddrs(lines []string) []string {
	seen := map[string]bool{}
	out := lines[:0:0]
	for _, l := range lines {
		a, _, _ := strings.Cut(l, " ")
		if !seen[a] {
			seen[a] = true
			out = append(out, l)
		}
	}
	return out
}
