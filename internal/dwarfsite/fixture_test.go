package dwarfsite

import (
	"bufio"
	"bytes"
	"debug/elf"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/site"
	"github.com/btfinline/btfinline/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixtures are the checked-in objects of ../dwarfsite/testdata (see its
// Makefile).
var fixtures = []string{
	"sites-x86_64", "sites-x86_64-dwarf4", "sites-x86_64.o", "sites-aarch64", "sites-aarch64.o",
}

// userText is Options.Text for the fixtures: user-space programs, which
// have no patch tables and take a breakpoint anywhere.
type userText struct{}

func (userText) Barrier(string, uint64, uint64) bool { return false }
func (userText) Allows(string, uint64, string) bool  { return true }

// fixtureOptions reads the fixtures with probe point pp.
func fixtureOptions(pp ProbePoint) Options {
	if pp == ProbeBlock {
		return Options{ProbePoint: pp, Text: userText{}}
	}
	return Options{}
}

var probePoints = []ProbePoint{ProbeEntry, ProbeBlock}

// allFixtures adds those whose sources have no EXPECT comments; they are
// checked against llvm-dwarfdump and golden files only.
var allFixtures = append(fixtures[:len(fixtures):len(fixtures)], "wideconst-x86_64.o", "movedreg-x86_64.o", "sites-x86_64-clang")

func readFixture(t testing.TB, name string, opt Options) *Result {
	t.Helper()
	res, err := ReadFile(filepath.Join(fixtureDir, name), opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Warnings != 0 {
		t.Errorf("%s: %d warnings: %q", name, res.Stats.Warnings, res.Warnings)
	}
	return res
}

// dwarfdumpCounts counts DW_TAG_inlined_subroutine entries and the
// DW_TAG_formal_parameter entries directly under them in llvm-dwarfdump's
// --debug-info output (nesting from the indentation).
func dwarfdumpCounts(t testing.TB, path string) (inl, params int) {
	t.Helper()
	tool := testutil.SystemTool(t, "llvm-dwarfdump")
	cmd := exec.Command(tool, "--debug-info", path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	type lvl struct {
		indent int
		inl    bool
	}
	var stack []lvl
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "0x") {
			continue
		}
		i := strings.IndexByte(line, ':')
		if i < 0 {
			continue
		}
		rest := line[i+1:]
		body := strings.TrimLeft(rest, " ")
		indent := len(rest) - len(body)
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		switch {
		case strings.HasPrefix(body, "DW_TAG_inlined_subroutine"):
			inl++
		case strings.HasPrefix(body, "DW_TAG_formal_parameter"):
			if len(stack) > 0 && stack[len(stack)-1].inl {
				params++
			}
		}
		if body != "NULL" {
			stack = append(stack, lvl{indent, strings.HasPrefix(body, "DW_TAG_inlined_subroutine")})
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return inl, params
}

func TestFixtureCounts(t *testing.T) {
	for _, name := range allFixtures {
		t.Run(name, func(t *testing.T) {
			res := readFixture(t, name, Options{})
			inl, params := dwarfdumpCounts(t, filepath.Join(fixtureDir, name))
			if inl == 0 {
				t.Fatal("llvm-dwarfdump shows no inlined subroutines")
			}
			if res.Stats.Entries != inl || res.Stats.ParamEntries != params {
				t.Errorf("read %d inlined subroutines / %d parameters, llvm-dwarfdump %d / %d",
					res.Stats.Entries, res.Stats.ParamEntries, inl, params)
			}
			if res.Stats.Sites+res.Stats.NoAddress != inl {
				t.Errorf("%d sites + %d without address != %d entries", res.Stats.Sites, res.Stats.NoAddress, inl)
			}
		})
	}
}

// TestFixtureWideConst: a DW_FORM_sdata constant of 10 bytes (gcc writes
// 0x9000000000000000 so) costs nothing. It once stopped the DIE scanner,
// and with it the rest of the unit: 3 of the 6 sites were lost.
func TestFixtureWideConst(t *testing.T) {
	res := readFixture(t, "wideconst-x86_64.o", Options{})
	var b strings.Builder
	if err := site.WriteSites(&b, res.Sites, site.FormatOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"first+0x17 .text pick(long unsigned int x [reg0], int y [const 0x3])",
		"fourth+0x0 .text tag(long unsigned int mask [const 0x9000000000000000], int y [reg5])",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no site %q in\n%s", want, b.String())
		}
	}
	if len(res.Sites) != 6 {
		t.Errorf("%d sites, want 6", len(res.Sites))
	}
}

// TestFixtureBadForm: an entry in a form nobody defines costs that entry
// and the rest of its enclosing subprogram (the reader resumes at the
// subprogram's DW_AT_sibling), not the file (debug/dwarf alone refuses
// the whole file) nor the rest of the unit.
func TestFixtureBadForm(t *testing.T) {
	res, err := ReadFile(filepath.Join(fixtureDir, "badform-x86_64.o"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var callers []string
	for _, s := range res.Sites {
		callers = append(callers, fmt.Sprintf("%s+%#x", s.Caller, s.CallerOff))
	}
	want := "second+0x0 second+0x10 third+0x0 third+0x14 fourth+0x0"
	if got := strings.Join(callers, " "); got != want {
		t.Errorf("sites at %s, want %s", got, want)
	}
	if res.Stats.Resumed != 1 || res.Stats.Warnings != 1 || len(res.Warnings) != 1 ||
		!strings.Contains(res.Warnings[0], "resumed at its sibling") || !strings.Contains(res.Warnings[0], "unknown attribute form 0x7e") {
		t.Errorf("resumed %d, warnings %d: %q", res.Stats.Resumed, res.Stats.Warnings, res.Warnings)
	}
}

// expectation is what an EXPECT comment says one parameter holds.
type expectation struct {
	lo, hi uint64 // hi for 16-byte values (lo:hi)
	pair   bool
	sym    string // &sym[+off]
	symOff uint64
}

var expectRE = regexp.MustCompile(`//\s*EXPECT\s+(.*)$`)

// readExpectations parses the EXPECT comments of the fixture sources:
// file base name -> call line -> parameter -> value.
func readExpectations(t testing.TB) map[string]map[int]map[string]expectation {
	t.Helper()
	all := make(map[string]map[int]map[string]expectation)
	for _, src := range []string{"sites.c", "extra.c"} {
		b, err := os.ReadFile(filepath.Join(fixtureDir, src))
		if err != nil {
			t.Fatal(err)
		}
		m := make(map[int]map[string]expectation)
		for i, line := range strings.Split(string(b), "\n") {
			sm := expectRE.FindStringSubmatch(line)
			if sm == nil {
				continue
			}
			ps := make(map[string]expectation)
			for _, kv := range strings.Fields(sm[1]) {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					t.Fatalf("%s:%d: bad EXPECT %q", src, i+1, kv)
				}
				var e expectation
				switch {
				case strings.HasPrefix(v, "&"):
					sym, off, _ := strings.Cut(v[1:], "+")
					e.sym = sym
					if off != "" {
						e.symOff, err = strconv.ParseUint(off, 0, 64)
					}
				case strings.Contains(v, ":"):
					a, b, _ := strings.Cut(v, ":")
					var x, y int64
					x, err = strconv.ParseInt(a, 0, 64)
					if err == nil {
						y, err = strconv.ParseInt(b, 0, 64)
					}
					e.lo, e.hi, e.pair = uint64(x), uint64(y), true
				default:
					var x int64
					if x, err = strconv.ParseInt(v, 0, 64); err != nil {
						e.lo, err = strconv.ParseUint(v, 0, 64)
					} else {
						e.lo = uint64(x)
					}
				}
				if err != nil {
					t.Fatalf("%s:%d: bad EXPECT value %q: %v", src, i+1, kv, err)
				}
				ps[k] = e
			}
			m[i+1] = ps
		}
		all[src] = m
	}
	return all
}

func expectFor(exp map[string]map[int]map[string]expectation, s *site.Site) map[string]expectation {
	return exp[filepath.Base(s.CallFile)][s.CallLine]
}

// symbolValue resolves a fixture symbol; for ET_REL objects it returns
// the section-relative value and the section name.
func symbolValue(t testing.TB, f *elf.File, name string) (uint64, string) {
	t.Helper()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name == name && s.Section != elf.SHN_UNDEF && int(s.Section) < len(f.Sections) {
			return s.Value, f.Sections[s.Section].Name
		}
	}
	t.Fatalf("symbol %s not found", name)
	return 0, ""
}

func truncate(v uint64, size uint8) uint64 {
	if size == 0 || size >= 8 {
		return v
	}
	return v & (1<<(8*uint(size)) - 1)
}

// TestFixtureStatic checks, without running anything, every constant and
// address location against the EXPECT comments, for all fixtures
// (including arm64 and ET_REL ones), and that every call line with an
// EXPECT comment produced a site.
func TestFixtureStatic(t *testing.T) {
	exp := readExpectations(t)
	for _, tc := range fixtureCases(fixtures) {
		name := tc.name
		t.Run(tc.String(), func(t *testing.T) {
			res := readFixture(t, name, fixtureOptions(tc.pp))
			f, err := elf.Open(filepath.Join(fixtureDir, name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			seen := make(map[string]bool)
			checked := 0
			for i := range res.Sites {
				s := &res.Sites[i]
				e := expectFor(exp, s)
				if e == nil {
					continue
				}
				seen[fmt.Sprintf("%s:%d", filepath.Base(s.CallFile), s.CallLine)] = true
				for j, p := range s.Func.Params {
					l := s.Params[j]
					want, ok := e[p.Name]
					if !ok {
						if l.Kind != site.LocUnavailable {
							t.Errorf("%s: %s: located parameter %s has no EXPECT", name, s.Func.Name, p.Name)
						}
						continue
					}
					switch l.Kind {
					case site.LocConst:
						if want.sym != "" || truncate(l.Value, l.Size) != truncate(want.lo, l.Size) {
							t.Errorf("%s: %s(%s) = const 0x%x, want %+v", name, s.Func.Name, p.Name, l.Value, want)
						}
						checked++
					case site.LocAddr:
						v, sec := symbolValue(t, f, want.sym)
						if l.Value != v+want.symOff || (res.Rel && l.Section != sec) {
							t.Errorf("%s: %s(%s) = address 0x%x %s, want %s = 0x%x %s", name, s.Func.Name, p.Name, l.Value, l.Section, want.sym, v+want.symOff, sec)
						}
						checked++
					}
				}
			}
			files := make(map[string]bool)
			for i := range res.Sites {
				files[filepath.Base(res.Sites[i].CallFile)] = true
			}
			for file, lines := range exp {
				if !files[file] {
					continue // not linked into this object
				}
				for line := range lines {
					if !seen[fmt.Sprintf("%s:%d", file, line)] {
						t.Errorf("%s: no site for EXPECT at %s:%d", name, file, line)
					}
				}
			}
			if checked == 0 {
				t.Error("no constant or address location checked")
			}
			t.Logf("%s: %d sites, %d constant/address locations checked", name, len(res.Sites), checked)
		})
	}
}

// fixtureCase is a fixture read with a probe point.
type fixtureCase struct {
	name string
	pp   ProbePoint
}

func (c fixtureCase) String() string { return c.name + "/" + c.pp.String() }

func fixtureCases(names []string) []fixtureCase {
	var out []fixtureCase
	for _, n := range names {
		for _, pp := range probePoints {
			out = append(out, fixtureCase{n, pp})
		}
	}
	return out
}

// fixtureArch is the architecture of fixture name, whose registers its
// golden listing spells as "sites --dwarf" does.
func fixtureArch(t *testing.T, name string) arch.Arch {
	t.Helper()
	f, err := elf.Open(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := arch.FromELF(f.Machine)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestFixtureGolden compares the listing of every fixture with a golden
// file, NAME.golden at the entry pcs and NAME.block.golden with
// ProbeBlock (go test -update rewrites them; review the diff).
func TestFixtureGolden(t *testing.T) {
	for _, tc := range fixtureCases(allFixtures) {
		name := tc.name
		t.Run(tc.String(), func(t *testing.T) {
			res := readFixture(t, name, fixtureOptions(tc.pp))
			var buf bytes.Buffer
			if err := site.WriteSites(&buf, res.Sites, site.FormatOptions{Reasons: true, RegName: fixtureArch(t, name).Spell}); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join(fixtureDir, name+".golden")
			if tc.pp == ProbeBlock {
				golden = filepath.Join(fixtureDir, name+".block.golden")
			}
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("listing differs from %s:\n--- got\n%s--- want\n%s", golden, buf.Bytes(), want)
			}
		})
	}
}

// TestRelMatchesExec reads the ET_REL object and the linked executable
// built from the same source: after relocation, every site must be the
// same (caller, offset, function, locations), so the relocation of
// .debug_info, .debug_loclists and .debug_rnglists is right.
func TestRelMatchesExec(t *testing.T) {
	for _, tc := range fixtureCases([]string{"x86_64", "aarch64"}) {
		arch := tc.name
		t.Run(tc.String(), func(t *testing.T) {
			rel := readFixture(t, "sites-"+arch+".o", fixtureOptions(tc.pp))
			exe := readFixture(t, "sites-"+arch, fixtureOptions(tc.pp))
			key := func(s *site.Site) string {
				var b strings.Builder
				ps := make([]site.Location, len(s.Params))
				copy(ps, s.Params)
				for i := range ps {
					if ps[i].Kind == site.LocAddr {
						ps[i].Value, ps[i].Section = 0, ""
					}
				}
				site.WriteSites(&b, []site.Site{{Func: s.Func, Caller: s.Caller, CallerOff: s.CallerOff, Section: s.Section, Params: ps}}, site.FormatOptions{Reasons: true})
				return fmt.Sprintf("%d %d %s", s.Depth, s.CallLine, b.String())
			}
			var relKeys []string
			for i := range rel.Sites {
				s := &rel.Sites[i]
				if s.Caller == "" || s.Section != ".text" {
					t.Errorf("ET_REL site without caller/section: %+v", s)
				}
				relKeys = append(relKeys, key(s))
			}
			exeKeys := make(map[string]int)
			for i := range exe.Sites {
				s := &exe.Sites[i]
				if filepath.Base(s.CallFile) == "sites.c" {
					exeKeys[key(s)]++
				}
			}
			for _, k := range relKeys {
				if exeKeys[k] == 0 {
					t.Errorf("ET_REL site not in the executable: %s", k)
				}
				exeKeys[k]--
			}
			for k, n := range exeKeys {
				if n > 0 {
					t.Errorf("executable site not in the ET_REL object: %s", k)
				}
			}
		})
	}
}

// TestWorkersDeterministic checks that the output does not depend on the
// number of workers.
func TestWorkersDeterministic(t *testing.T) {
	for _, tc := range fixtureCases([]string{"sites-x86_64", "sites-aarch64"}) {
		name := tc.name
		var first []byte
		for _, n := range []int{1, 2, 3, 8} {
			opt := fixtureOptions(tc.pp)
			opt.Workers = n
			res := readFixture(t, name, opt)
			var buf bytes.Buffer
			site.WriteJSON(&buf, res.Sites, site.FormatOptions{})
			WriteStats(&buf, &res.Stats)
			if first == nil {
				first = buf.Bytes()
			} else if !bytes.Equal(first, buf.Bytes()) {
				t.Errorf("%s: output with %d workers differs from 1 worker", name, n)
			}
		}
	}
}

// TestFixtureRust: a program with a Rust compilation unit (Rust inline
// sites, the unit type "()" as a parameter type) is read whole, as
// llvm-dwarfdump reads it; with Rust left out, the Rust unit is counted,
// not read.
func TestFixtureRust(t *testing.T) {
	path := filepath.Join("..", "encode", "testdata", "rust.elf")
	res, err := ReadFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	inl, params := dwarfdumpCounts(t, path)
	if res.Stats.Entries != inl || res.Stats.ParamEntries != params || res.Stats.Warnings != 0 {
		t.Errorf("read %d inlined subroutines / %d parameters (%d warnings), llvm-dwarfdump %d / %d", res.Stats.Entries, res.Stats.ParamEntries, res.Stats.Warnings, inl, params)
	}
	var b strings.Builder
	site.WriteSites(&b, res.Sites, site.FormatOptions{})
	for _, want := range []string{"rust_mix+0x0 .text write<u8>(() self [unavailable], u8 v [reg4], u64 * acc [reg1])", "c_mix+0x0 .text twice("} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	c, err := ReadFile(path, Options{ExcludeLanguages: []string{"rust"}})
	if err != nil {
		t.Fatal(err)
	}
	cSites := 0
	for _, s := range res.Sites {
		if strings.HasPrefix(s.Caller, "c_mix") {
			cSites++
		}
	}
	if c.Stats.ExcludedUnits["rust"] != 1 || c.Stats.ExcludedSites+c.Stats.Entries != inl || len(c.Sites) != cSites || cSites == 0 {
		t.Errorf("without Rust: units left out %v, %d sites left out + %d read of %d; %d sites, want the %d of the C unit",
			c.Stats.ExcludedUnits, c.Stats.ExcludedSites, c.Stats.Entries, inl, len(c.Sites), cSites)
	}
}

// barText is userText with one address barred or refused.
type barText struct {
	addr   uint64
	refuse bool // Allows refuses addr instead of Barrier barring it
}

func (b *barText) Barrier(_ string, start, end uint64) bool {
	return !b.refuse && start <= b.addr && b.addr < end
}

func (b *barText) Allows(_ string, addr uint64, _ string) bool {
	return !b.refuse || addr != b.addr
}

// TestProbeBlockText: a probe moves past the entry pc only over
// instructions Text does not bar, and only to an address Text does not
// refuse; ProbeBlock without Text is an error.
func TestProbeBlockText(t *testing.T) {
	const name = "sites-x86_64"
	moved := func(res *Result) *site.Site {
		for i := range res.Sites {
			if s := &res.Sites[i]; s.Func.Name == "dec_shift" {
				return s
			}
		}
		t.Fatal("no dec_shift site")
		return nil
	}
	s := moved(readFixture(t, name, fixtureOptions(ProbeBlock)))
	if s.Moved == 0 || s.Addr-s.Moved != s.Ranges[0][0] || s.CallerOff != s.Moved || s.Params[0].Kind != site.LocReg {
		t.Fatalf("dec_shift: moved %d, addr %#x+%#x, ranges %#x, %v", s.Moved, s.Caller, s.CallerOff, s.Ranges, s.Params[0])
	}
	entry := s.Addr - s.Moved
	for _, tc := range []struct {
		name string
		text *barText
	}{
		{"barred at the address", &barText{addr: s.Addr}},
		{"barred before it", &barText{addr: entry}},
		{"refused", &barText{addr: s.Addr, refuse: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := moved(readFixture(t, name, Options{ProbePoint: ProbeBlock, Text: tc.text}))
			if got.Moved != 0 || got.Addr != entry || got.Params[0].Kind != site.LocUnavailable {
				t.Errorf("dec_shift at %#x (moved %d), size %v; want the entry pc %#x, size unavailable", got.Addr, got.Moved, got.Params[0], entry)
			}
		})
	}
	if _, err := ReadFile(filepath.Join(fixtureDir, name), Options{ProbePoint: ProbeBlock}); err == nil {
		t.Error("ProbeBlock without Text: no error")
	}
}

// TestProbeMovedLocation: at a probe moved past the entry pc, a parameter
// has the location the location list gives at the moved address when that
// provably holds the argument, even where the binding at the entry pc is
// an expression LOC_PARAM cannot carry. Issue 26: find_next_bit's offset
// in Debian's 7.2 xfs.ko stayed "multi-op arithmetic", the binding's
// reason, at the moved probe where DWARF says a register: the binding is
// a sign extension spelled as shl 32 / shra 32, the register's value is
// movslq's, and the two did not compare equal.
func TestProbeMovedLocation(t *testing.T) {
	for _, tc := range []struct {
		name, fixture, caller string
		moved                 uint64
		want                  []site.Location // DWARF register numbers
	}{
		// movedreg.c: size from "mov %esi,%esi", offset from movslq.
		{"sign extension", "movedreg-x86_64.o", "first_after", 0xc, []site.Location{
			{Kind: site.LocReg, Reg: 5}, {Kind: site.LocReg, Reg: 4}, {Kind: site.LocReg, Reg: 1},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := readFixture(t, tc.fixture, fixtureOptions(ProbeBlock))
			var s *site.Site
			for i := range res.Sites {
				if res.Sites[i].Caller == tc.caller {
					s = &res.Sites[i]
				}
			}
			if s == nil {
				t.Fatalf("no site in %s", tc.caller)
			}
			if s.Moved != tc.moved {
				t.Errorf("moved %#x past the entry pc, want %#x", s.Moved, tc.moved)
			}
			for i, w := range tc.want {
				if l := s.Params[i]; l.Kind != w.Kind || l.Reg != w.Reg || l.Reason != "" {
					t.Errorf("%s: %+v, want %+v", s.Func.Params[i].Name, l, w)
				}
			}
		})
	}
}

// TestCounterMatchesCount: a Counter given the sites through Sink counts
// what site.Count counts of the Result's (functions interned across
// units alike), on every fixture, with several workers.
func TestCounterMatchesCount(t *testing.T) {
	for _, name := range allFixtures {
		t.Run(name, func(t *testing.T) {
			want := readFixture(t, name, Options{}).Stats.Counts
			c := NewCounter(nil)
			res := readFixture(t, name, Options{Sink: c.Add, Workers: 3})
			if res.Sites != nil {
				t.Fatal("a Sink run kept its sites")
			}
			if got := c.Counts(); !reflect.DeepEqual(got, want) {
				t.Errorf("Counter %+v\nCount   %+v", got, want)
			}
		})
	}
}

// TestLaterFilter reads every fixture at the block probe point with
// mayLocateLater's filter and without it (every bound parameter the entry
// pc leaves unlocated passed on to the candidates): the filter only
// spares work, so the sites must be the same.
func TestLaterFilter(t *testing.T) {
	for _, name := range allFixtures {
		t.Run(name, func(t *testing.T) { checkLaterFilter(t, filepath.Join(fixtureDir, name), fixtureOptions(ProbeBlock)) })
	}
}

func checkLaterFilter(t *testing.T, path string, opt Options) {
	t.Helper()
	with, err := ReadFile(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.noLaterFilter = true
	without, err := ReadFile(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	if with.Stats.Moved != without.Stats.Moved || len(with.Sites) != len(without.Sites) {
		t.Fatalf("%d sites, %d moved; without the filter %d, %d", len(with.Sites), with.Stats.Moved, len(without.Sites), without.Stats.Moved)
	}
	for i := range with.Sites {
		if d := cmp.Diff(without.Sites[i], with.Sites[i]); d != "" {
			t.Fatalf("site %d differs with the filter (-without +with):\n%s", i, d)
		}
	}
}
