package resolve

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"maps"
	"slices"

	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"

	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/btfinline/btfinline/internal/dwarfsite"
	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/kprobe"
	"github.com/btfinline/btfinline/internal/ksym"
	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/testutil"
)

var (
	kernelInlineMu sync.Mutex
	kernelInlines  = map[string]string{}
)

// TestMain removes the encodes that kernelInlineBTFAt shares between the
// tests of the binary (t.TempDir would go with the first test).
func TestMain(m *testing.M) {
	code := m.Run()
	for _, p := range kernelInlines {
		os.RemoveAll(filepath.Dir(p))
	}
	os.Exit(code)
}

// kernelInlineBTF returns a .BTF.inline for a kernel data vmlinux, made
// once per test binary by "btfinline encode" at the entry pcs, the
// addresses perf probe chooses, which the comparisons with perf need
// ($BTFI_VMLINUX_INLINE gives the x86-64 one ready-made).
func kernelInlineBTF(t *testing.T, vmlinux string) string {
	t.Helper()
	// A shortcut while iterating: the 6.1 x86-64 vmlinux's, encoded once.
	if p := os.Getenv("BTFI_VMLINUX_INLINE"); p != "" && vmlinux == filepath.Join(os.Getenv("BTFI_KERNEL_DATA"), "vmlinux") {
		return p
	}
	return kernelInlineBTFAt(t, vmlinux, "entry")
}

// kernelInlineBTFAt is kernelInlineBTF with encode's --probe-point pp.
func kernelInlineBTFAt(t *testing.T, vmlinux, pp string) string {
	t.Helper()
	kernelInlineMu.Lock()
	defer kernelInlineMu.Unlock()
	if p, ok := kernelInlines[vmlinux+" "+pp]; ok {
		return p
	}
	dir, err := os.MkdirTemp("", "btfi-resolve")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "vmlinux.inline")
	cmd := exec.Command("go", "run", "./cmd/btfinline", "encode", vmlinux, "-o", p, "-q", "--probe-point", pp)
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("encode %s: %v\n%s", vmlinux, err, out)
	}
	kernelInlines[vmlinux+" "+pp] = p
	return p
}

// kernelSites returns the inline sites of a kernel data vmlinux, from its
// encoded .BTF.inline, with the refusal reasons of the traceability rules.
func kernelSites(t *testing.T, vmlinux string) ([]site.Site, []site.Marks) {
	t.Helper()
	tg, err := Open(Options{File: kernelInlineBTF(t, vmlinux), Bases: []string{vmlinux}})
	if err != nil {
		t.Fatal(err)
	}
	sites, marks, err := tg.Sites()
	if err != nil {
		t.Fatal(err)
	}
	return sites, marks
}

// forKernels runs check as one subtest per kernel build (x86_64, arm64).
func forKernels(t *testing.T, check func(t *testing.T, k testutil.Kernel, vmlinux string)) {
	for _, k := range testutil.Kernels(t) {
		t.Run(k.Name, func(t *testing.T) { check(t, k, filepath.Join(k.Dir, "vmlinux")) })
	}
}

// perfDeadEnd is the value perf probe gives an argument it finds no
// location for at one of the places of a multi-place probe
// (DEFAULT_PROBE_MAGIC_NUM, 0xdeade12d: "dead end").
const perfDeadEnd = `\deade12d`

type perfProbe struct {
	addrs []uint64          // candidates: perf names the DWARF function, which may be ambiguous
	where string            // perf's SYM+OFF
	args  map[string]string // name -> fetch (location part, type dropped)
}

// perfProbes runs perf probe -D for fn with $params and parses
// "p:probe/FN SYM+DEC name=fetch:type ..." lines.
func perfProbes(t *testing.T, vmlinux, fn string, syms *ksym.SymTab) []perfProbe {
	perf := testutil.SystemTool(t, "perf")
	out, err := exec.Command(perf, "probe", "-k", vmlinux, "-D", fn+" $params", "--max-probes=4096").Output()
	if err != nil {
		t.Fatalf("perf probe %s: %v", fn, err)
	}
	perfMeant := testutil.PerfAddrs(t, vmlinux)
	// Every ELF symbol by name, read at the first perf name that is no
	// function symbol.
	var elfSyms map[string][]uint64
	elfSym := func(name string) []uint64 {
		if elfSyms == nil {
			elfSyms = map[string][]uint64{}
			if ef, err := elf.Open(vmlinux); err == nil {
				all, _ := ef.Symbols()
				for _, s := range all {
					elfSyms[s.Name] = append(elfSyms[s.Name], s.Value)
				}
				ef.Close()
			}
		}
		return elfSyms[name]
	}
	var ps []perfProbe
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || !strings.HasPrefix(f[0], "p:") {
			continue
		}
		sym, off := f[1], uint64(0)
		if i := strings.LastIndexByte(sym, '+'); i > 0 {
			off, _ = strconv.ParseUint(sym[i+1:], 10, 64)
			sym = sym[:i]
		}
		// perf spells the DWARF subprogram's name: a static function
		// may exist several times, or only as a gcc clone (foo.constprop.0).
		cands := syms.Clones(sym)
		p := perfProbe{where: f[1], args: map[string]string{}}
		for _, c := range cands {
			p.addrs = append(p.addrs, c.Addr+off)
		}
		if len(cands) == 0 {
			// Moved past its section (testutil.PerfAddrs), a place
			// can come out after a marker symbol (__exittext_end).
			for _, a := range elfSym(sym) {
				p.addrs = append(p.addrs, a+off)
			}
		}
		if len(p.addrs) == 0 {
			t.Errorf("perf names unknown symbol %s", sym)
			continue
		}
		var meant []uint64
		for _, a := range p.addrs {
			meant = append(meant, perfMeant(a)...)
		}
		p.addrs = meant
		for _, a := range f[2:] {
			name, fetch, _ := strings.Cut(a, "=")
			if i := strings.LastIndexByte(fetch, ':'); i > 0 {
				fetch = fetch[:i]
			}
			p.args[name] = fetch
		}
		ps = append(ps, p)
	}
	return ps
}

// TestKernelResolveVsPerf: for each function, the addresses resolve prints
// are perf's plus the out-of-line copies, and every argument perf fetches
// is fetched at the same place by ours.
func TestKernelResolveVsPerf(t *testing.T) { forKernels(t, checkResolveVsPerf) }

func checkResolveVsPerf(t *testing.T, k testutil.Kernel, vmlinux string) {
	inl := kernelInlineBTF(t, vmlinux)
	tg, err := Open(Options{File: inl, Bases: []string{vmlinux}})
	if err != nil {
		t.Fatal(err)
	}
	// What each class of argument counts, per function: the figures of
	// the comparison (docs/figures/KERNEL/resolve-vs-perf.txt).
	var figures strings.Builder
	defer func() { testutil.Figures(t, k, "resolve-vs-perf.txt", figures.String()) }()
	fns := []string{"tcp_snd_cwnd_set", "msecs_to_jiffies", "kmalloc", "__list_del_entry"}
	if k.Release != "6.1" {
		fns[2] = "kmalloc_noprof" // kmalloc is a macro over it since 6.10
	}
	for _, fn := range fns {
		t.Run(fn, func(t *testing.T) {
			reasons := dwarfReasons(t, vmlinux, fn)
			r, err := tg.Resolve(fn, nil)
			if err != nil {
				t.Fatal(err)
			}
			ours := map[uint64]*Place{}
			entries := map[uint64]bool{}
			for i := range r.Places {
				p := &r.Places[i]
				if !p.HasAddr {
					t.Errorf("%s: no address (%s)", p.Event, p.Note)
					continue
				}
				ours[p.Addr] = p
				if p.Kind == PlaceEntry {
					entries[p.Addr] = true
				}
			}
			perf := perfProbes(t, vmlinux, fn, tg.Syms)
			theirs := map[uint64]bool{}
			var missing []string
			argsSame, argsDiffer, argsMissing, deadEnd := 0, 0, 0, 0
			stackValue := 0
			classes := map[string]int{}
			for _, pp := range perf {
				var p *Place
				for _, a := range pp.addrs {
					if q, ok := ours[a]; ok && p == nil {
						p = q
						theirs[a] = true
					}
				}
				if p == nil {
					missing = append(missing, pp.where)
					continue
				}
				got := map[string]Fetch{}
				for _, f := range p.Fetches {
					got[f.Name] = f
				}
				for name, want := range pp.args {
					f, ok := got[name]
					g := f.Arg
					if i := strings.LastIndexByte(g, ':'); i > 0 {
						g = g[:i]
					}
					switch {
					case want == perfDeadEnd && ok:
						// perf found no location there and says so with
						// its magic number; ours has one (gcc 14's
						// location views: an empty address range whose
						// views hold at the entry pc).
						deadEnd++
					case !ok || g == "" && !strings.HasPrefix(f.Loc, "reg") && !strings.HasPrefix(f.Loc, "fbreg"):
						// perf fetches where we say unavailable: perf drops
						// the rest of a computed DWARF expression (e.g.
						// "breg0 0, lit1, shr, stack_value" becomes +0(%ax));
						// see docs/inspect.md. Each such argument must have
						// a named reason, from DWARF at the same address.
						argsMissing++
						c := perfOnlyClass(f, ok, reasons[reasonKey{p.Addr, f.Param}])
						if c == "" {
							t.Errorf("%s (%#x): perf fetches %s=%s, ours unavailable (%q) without a reason in DWARF", pp.where, p.Addr, name, want, f.Unavailable)
						}
						classes[c]++
					case sameFetch(want, g):
						argsSame++
					case isStackValue(want, g, f):
						// perf dereferences a DW_OP_stack_value address.
						stackValue++
					default:
						argsDiffer++
						t.Errorf("%s (%#x): %s: perf %s, ours %s (%s)", pp.where, p.Addr, name, want, g, f.Loc)
					}
				}
			}
			var extra []string
			for a, p := range ours {
				if !theirs[a] && !entries[a] {
					extra = append(extra, p.Caller+"+0x"+strconv.FormatUint(p.CallerOff, 16))
				}
			}
			sort.Strings(missing)
			sort.Strings(extra)
			t.Logf("%s: perf %d probes, ours %d places (%d entries); args same %d, differ %d, perf derefs a stack_value %d, perf-only (computed expressions) %d; %d sites perf does not list",
				fn, len(perf), len(r.Places), len(entries), argsSame, argsDiffer, stackValue, argsMissing, len(extra))
			fmt.Fprintf(&figures, "%s: perf %d probe points, ours %d places (%d out-of-line entries, %d nested sites perf does not list)\n",
				fn, len(perf), len(r.Places), len(entries), len(extra))
			fmt.Fprintf(&figures, "  arguments fetched alike: %d\n  perf dereferences a DW_OP_stack_value address: %d\n  differ: %d\n", argsSame, stackValue, argsDiffer)
			for _, c := range slices.Sorted(maps.Keys(classes)) {
				fmt.Fprintf(&figures, "  perf fetches, ours unavailable: %s: %d\n", c, classes[c])
			}
			if deadEnd > 0 {
				fmt.Fprintf(&figures, "  perf finds no location (its %s), ours fetches: %d\n", perfDeadEnd, deadEnd)
			}
			if len(missing) > 0 {
				t.Errorf("%d perf probe points missing from ours, e.g. %v", len(missing), missing[:min(10, len(missing))])
			}
			if len(extra) > 0 {
				// perf does not descend into an inline instance to find a
				// nested instance of the same function; we list both.
				t.Logf("inline sites perf does not list, e.g. %v", extra[:min(10, len(extra))])
			}
		})
	}
}

// reasonKey is a parameter at a site address.
type reasonKey struct {
	addr  uint64
	param string
}

// dwarfReasons reads fn's sites from vmlinux's DWARF: why each parameter
// that has a location DWARF cannot express is unavailable (.BTF.inline
// keeps no reasons).
func dwarfReasons(t *testing.T, vmlinux, fn string) map[reasonKey]string {
	t.Helper()
	res, err := dwarfsite.ReadFile(vmlinux, dwarfsite.Options{Func: func(n string) bool { return n == fn }})
	if err != nil {
		t.Fatal(err)
	}
	m := map[reasonKey]string{}
	for _, s := range res.Sites {
		for i, p := range s.Func.Params {
			if i < len(s.Params) && s.Params[i].Reason != "" {
				m[reasonKey{s.Addr, p.Name}] = s.Params[i].Reason
			}
		}
	}
	return m
}

// perfOnlyClass names why an argument perf fetches is unavailable in ours:
// a DWARF location the format cannot carry (its reason in DWARF), an
// address value kprobe_events cannot compute; "" when there is no reason.
func perfOnlyClass(f Fetch, ok bool, dwarfReason string) string {
	switch {
	case !ok:
		return ""
	case strings.HasPrefix(f.Unavailable, "value is %") && strings.Contains(f.Unavailable, "cannot add an offset"):
		return "an address (reg+offset), which kprobe_events cannot compute"
	case f.Unavailable == "no location at this site" && dwarfReason != "":
		return "DWARF location not representable: " + dwarfReason
	}
	return ""
}

// sameFetch compares perf's and our fetch argument text: immediates by
// value (perf prints decimal, we hex), memory "+0(%r)" as "+0(%r)".
func sameFetch(perf, ours string) bool {
	if perf == ours {
		return true
	}
	if strings.HasPrefix(perf, "\\") && strings.HasPrefix(ours, "\\") {
		a, err1 := strconv.ParseUint(perf[1:], 0, 64)
		b, err2 := strconv.ParseUint(ours[1:], 0, 64)
		return err1 == nil && err2 == nil && a == b
	}
	return false
}

// isStackValue: perf "+N(%r)" where we have the address %r+N itself
// (DW_OP_bregN/fbreg ... DW_OP_stack_value).
func isStackValue(perf, ours string, f Fetch) bool {
	if !strings.HasSuffix(perf, ")") || !strings.HasPrefix(perf, "+") && !strings.HasPrefix(perf, "-") {
		return false
	}
	if ours != "" && strings.HasSuffix(perf, "("+ours+")") && strings.HasPrefix(perf, "+0(") {
		return true
	}
	return ours == "" && f.Expr != "" && strings.HasPrefix(f.Expr, "(uint64)(reg(")
}

// BenchmarkKernelResolve measures "resolve FUNC" end to end on the kernel
// data's vmlinux and its .BTF.inline: open, decode one function, format.
func BenchmarkKernelResolve(b *testing.B) {
	dir := testutil.KernelData(b)
	vmlinux := filepath.Join(dir, "vmlinux")
	inl := os.Getenv("BTFI_VMLINUX_INLINE")
	if inl == "" {
		b.Skip("BTFI_VMLINUX_INLINE unset")
	}
	b.ReportAllocs()
	fn := os.Getenv("BTFI_RESOLVE_FUNC")
	if fn == "" {
		fn = "tcp_snd_cwnd_set"
	}
	for i := 0; i < b.N; i++ {
		tg, err := Open(Options{File: inl, Bases: []string{vmlinux}})
		if err != nil {
			b.Fatal(err)
		}
		r, err := tg.Resolve(fn, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Write(io.Discard, "kprobe"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestKernelStats prints the traceability table of the kernel data's
// vmlinux and checks that the classes partition the functions.
func TestKernelStats(t *testing.T) { forKernels(t, checkStats) }

func checkStats(t *testing.T, k testutil.Kernel, vmlinux string) {
	// stats counts what the default encode (block probe points) gives.
	st := checkedStats(t, kernelInlineBTFAt(t, vmlinux, "block"), vmlinux)
	var b bytes.Buffer
	st.Write(&b)
	testutil.Figures(t, k, "stats-vmlinux.txt", b.String())
	// Debian 6.1 x86-64 has tens of thousands of each; a broken reader
	// (e.g. no __mcount_loc) would give zero.
	if st.Fentry < 20000 || st.InlinedOnly < 10000 || st.NoTrace < 1000 {
		t.Errorf("implausible table: %+v", st)
	}
}

// checkedStats computes the stats table of inl on bases, logs it and
// checks that the classes partition the functions and the sites.
func checkedStats(t *testing.T, inl string, bases ...string) *Stats {
	t.Helper()
	tg, err := Open(Options{File: inl, Bases: bases})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ComputeStats(tg, true)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	st.Write(&b)
	t.Logf("\n%s", b.String())
	if sum := st.Fentry + st.InlinedOnly + st.NoTrace + st.NoBTF + st.ClonesOnly + st.Other; sum != st.Functions {
		t.Errorf("classes sum to %d, total %d", sum, st.Functions)
	}
	if st.Sites != st.SitesFull+st.SitesPartial+st.SitesNone || st.Sites != st.SitesTraceable+st.SitesNoTrace {
		t.Errorf("site rows do not add up: %+v", st)
	}
	return st
}

// TestKernelStatsModules: the table for a module (its own symbols, its
// __mcount_loc through relocations, its own BTF FUNCs; vmlinux's FUNCs only
// mark module functions deduplicated into it). tcp_bbr is small enough to
// know by hand (objdump -dr): of its 18 function symbols, every function
// begins with call __fentry__ except cleanup_module = bbr_unregister
// (__exit is notrace); bbr_register = init_module are init text.
func TestKernelStatsModules(t *testing.T) { forKernels(t, checkStatsModules) }

func checkStatsModules(t *testing.T, k testutil.Kernel, vmlinux string) {
	for _, m := range k.Modules() {
		t.Run(m, func(t *testing.T) {
			ko := filepath.Join(k.Dir, "modules", m+".ko")
			st := checkedStats(t, encodeModule(t, vmlinux, ko), vmlinux, ko)
			if st.Fentry == 0 || st.InlinedOnly == 0 || st.Other != 0 {
				t.Errorf("implausible table: %+v", st)
			}
			if m == "tcp_bbr" && k.Name == "6.1-x86_64" {
				want := [4]int{14, 4, 2, 0} // fentry, notrace, of which init/exit, no BTF
				if got := [4]int{st.Fentry, st.NoTrace, st.NoTraceInit, st.NoBTF}; got != want {
					t.Errorf("tcp_bbr fentry, notrace, init/exit, no BTF = %v, want %v", got, want)
				}
			}
		})
	}
}

// TestKernelPerfAcceptsOurSyntax: perf probe -D accepts the commands of
// "--format perf" and turns them into the same kprobe_events fetch args.
func TestKernelPerfAcceptsOurSyntax(t *testing.T) { forKernels(t, checkPerfAcceptsOurSyntax) }

func checkPerfAcceptsOurSyntax(t *testing.T, _ testutil.Kernel, vmlinux string) {
	perf := testutil.SystemTool(t, "perf")
	tg, err := Open(Options{File: kernelInlineBTF(t, vmlinux), Bases: []string{vmlinux}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tg.Resolve("tcp_snd_cwnd_set", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Places {
		if p.skipped() != "" {
			continue
		}
		spec := p.Target + kprobeArgs(&p)
		out, err := exec.Command(perf, "probe", "-k", vmlinux, "--no-inlines", "-D", spec).CombinedOutput()
		if err != nil {
			t.Errorf("perf probe -D %q: %v\n%s", spec, err, out)
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 1 {
			t.Errorf("%s: perf made %d probes of %q", p.Event, len(lines), spec)
		}
		got := strings.Fields(lines[0])
		if len(got) < 2 {
			t.Errorf("perf output %q", out)
			continue
		}
		if w := strings.Fields(kprobeArgs(&p)); strings.Join(got[2:], " ") != strings.Join(w, " ") {
			t.Errorf("%s: perf made %q of our %q", p.Event, got[2:], w)
		}
	}
}

// TestKernelPatchSites: sites refused as jump-label, static-call or BUG()
// sites are, according to objdump, at a nop/jmp, a call and a ud2.
func TestKernelPatchSites(t *testing.T) { forKernels(t, checkPatchSites) }

// patchInsns are the instructions objdump shows at each kind of patch
// site: x86-64 jump labels are a 2- or 5-byte nop or jmp, static calls a
// call/nop/jmp, BUG() a ud2; arm64 jump labels a nop or b, BUG() a brk, and
// arm64 has no inline static calls.
// patchInsns are the instructions each patch-site rule stands for, as
// golang.org/x/arch decodes them at the site: a jump label is a NOP (the
// key off) or a JMP/B (on); a static call site a CALL (or, for a tail
// call, a JMP; NOP when the call is off); a BUG() a UD2/BRK.
var patchInsns = map[string]map[string][]string{
	"x86_64": {
		"jump label patch site": {"NOP", "JMP", "XCHG"},
		"static call site":      {"CALL", "JMP", "NOP"},
		"BUG() trap":            {"UD2"},
	},
	"arm64": {
		"jump label patch site": {"NOP", "B"},
		"BUG() trap":            {"BRK"},
	},
}

// decodeAt decodes the instruction of the linked image at addr.
func decodeAt(t *testing.T, f *elf.File, arch string, addr uint64) string {
	t.Helper()
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR == 0 || addr < s.Addr || addr >= s.Addr+s.Size {
			continue
		}
		b := make([]byte, 16)
		n, _ := s.ReadAt(b, int64(addr-s.Addr))
		b = b[:n]
		if arch == "arm64" {
			in, err := arm64asm.Decode(b)
			if err != nil {
				return "?" + err.Error()
			}
			return in.Op.String()
		}
		in, err := x86asm.Decode(b, 64)
		if err != nil {
			return "?" + err.Error()
		}
		if in.Op == x86asm.XCHG && in.Args[0] != in.Args[1] {
			return "XCHG " + in.String() // only xchg %ax,%ax is a NOP
		}
		return in.Op.String()
	}
	return "?no text"
}

// checkPatchSites: every site a patch-site rule refuses holds the
// instruction the rule stands for (all of them, decoded by x/arch), and
// each rule refuses some site of vmlinux.
func checkPatchSites(t *testing.T, k testutil.Kernel, vmlinux string) {
	sites, marks := kernelSites(t, vmlinux)
	want := patchInsns[k.Arch]
	f, err := elf.Open(vmlinux)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]int{}
	bad := 0
	for i := range sites {
		why := marks[i].NoTrace
		ok := want[why]
		if ok == nil {
			continue
		}
		seen[why]++
		a := sites[i].Addr
		if op := decodeAt(t, f, k.Arch, a); !slices.Contains(ok, op) {
			if bad++; bad <= 10 {
				t.Errorf("%s at %#x (%s+%#x): %s there", why, a, sites[i].Caller, sites[i].CallerOff, op)
			}
		}
	}
	if bad > 10 {
		t.Errorf("%d refused sites in all without the instruction", bad)
	}
	t.Logf("refused patch sites, every one checked: %v", seen)
	for why := range want {
		if seen[why] == 0 {
			t.Errorf("no site refused as %s", why)
		}
	}
}

// kernelNesting is the DWARF side of the nesting join (cmd's --nesting).
func kernelNesting(tg *Target, fn string, keys []site.NestKey) (map[site.NestKey]site.Nest, error) {
	f, err := elfobj.Open(tg.ELFPath())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rules, err := kprobe.ForELF(f)
	if err != nil {
		return nil, err
	}
	return dwarfsite.Nesting(f, rules, func(n string) bool { return n == fn }, false, keys)
}

// TestKernelNesting: the inline places perf does not list are the ones
// nested in another instance of the same function, which --nesting marks
// (from the vmlinux DWARF).
func TestKernelNesting(t *testing.T) { forKernels(t, checkNesting) }

func checkNesting(t *testing.T, _ testutil.Kernel, vmlinux string) {
	tg, err := Open(Options{File: kernelInlineBTF(t, vmlinux), Bases: []string{vmlinux}})
	if err != nil {
		t.Fatal(err)
	}
	const fn = "__list_del_entry"
	r, err := tg.Resolve(fn, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := kernelNesting(tg, fn, r.NestKeys())
	if err != nil {
		t.Fatal(err)
	}
	marked := r.MarkNesting(m)
	perf := map[uint64]bool{}
	for _, p := range perfProbes(t, vmlinux, fn, tg.Syms) {
		for _, a := range p.addrs {
			perf[a] = true
		}
	}
	extra, nestedExtra, nestedInPerf := 0, 0, 0
	for _, p := range r.Places {
		if p.Kind != PlaceInline {
			continue
		}
		switch {
		case !perf[p.Addr]:
			extra++
			if p.Outer == fn || p.Outer == "" && p.Caller == fn {
				nestedExtra++
			} else {
				t.Errorf("%s at %#x: not in perf and not nested in %s (outer %q, depth %d)", p.Event, p.Addr, fn, p.Outer, p.Depth)
			}
		case p.Outer == fn:
			nestedInPerf++
		}
	}
	t.Logf("%d places marked nested in %s; %d places perf lacks, all nested; %d nested places perf lists too", marked, fn, extra, nestedInPerf)
	if nestedExtra == 0 {
		t.Error("no nested place")
	}
}

// TestKernelObjectBaseIsStext: CONST|ADDR values are relative to
// locsec.ObjectBase, and "--running" alone adds kallsyms' _stext to them;
// that is right only if the two are the same address in the ELF. (arm64's
// kallsyms has no _text, which is 64 KiB below _stext there.)
func TestKernelObjectBaseIsStext(t *testing.T) { forKernels(t, checkObjectBaseIsStext) }

func checkObjectBaseIsStext(t *testing.T, _ testutil.Kernel, vmlinux string) {
	tg, err := Open(Options{File: vmlinux, NoInline: true})
	if err != nil {
		t.Fatal(err)
	}
	stext, ok := tg.markers["_stext"]
	if !ok {
		t.Fatal("no _stext")
	}
	if tg.Space.consts != stext || tg.Space.stext != stext || tg.Space.kind != elfLinked {
		t.Errorf("object base %#x, probe point base %#x (kind %d), _stext %#x", tg.Space.consts, tg.Space.stext, tg.Space.kind, stext)
	}
	t.Logf("object base = _stext = %#x (_text %#x)", stext, tg.markers["_text"])
}

// TestKernelARM64InsnRules: on the arm64 vmlinux the instruction rules
// refuse sites the running kernel refused in the e2e run: die+0xdc
// (get_current, after a CASA), flush_thread+0x1c (an MSR),
// do_one_initcall+0x9c (MRS of DAIF), and
// collapse_huge_page+0x7f8, which is inside an exclusive sequence only
// once alternatives turn the LL/SC ldxr/stxr before it into LSE.
func TestKernelARM64InsnRules(t *testing.T) {
	// The sites below are Debian 12's build's (pinned).
	var k *testutil.Kernel
	for _, x := range testutil.Kernels(t) {
		if x.Arch == "arm64" && x.Pinned {
			k = &x
		}
	}
	if k == nil {
		t.Skip("no arm64 6.1 kernel data")
	}
	sites, marks := kernelSites(t, filepath.Join(k.Dir, "vmlinux"))
	want := map[string]string{
		"die+0xdc":                 "inside an exclusive sequence",
		"flush_thread+0x1c":        "MSR is not single-stepped",
		"do_one_initcall+0x9c":     "MRS of DAIF",
		"collapse_huge_page+0x7f8": "as alternatives patch it",
	}
	counts := map[string]int{}
	for i, s := range sites {
		why := marks[i].NoTrace
		if strings.HasPrefix(why, "arm64: ") {
			counts[strings.TrimSpace(strings.SplitN(why, ":", 3)[1])]++
		}
		where := s.Caller + "+0x" + strconv.FormatUint(s.CallerOff, 16)
		if w, ok := want[where]; ok {
			if !strings.Contains(why, w) {
				t.Errorf("%s %s: %q, want %q", where, s.Func.Name, why, w)
			}
			delete(want, where)
		}
	}
	for where := range want {
		t.Errorf("no site at %s", where)
	}
	t.Logf("refused by the arm64 instruction rules: %v", counts)
}
