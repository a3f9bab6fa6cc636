package cframe

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/btfinline/btfinline/internal/sframe"
	"github.com/btfinline/btfinline/internal/testutil"
)

// The table of docs/cframe.md that answers the review: "make cframe-table"
// (scripts/cframe-table) fetches the inputs and runs TestCFrameTable (the
// sizes and counts, compared with testdata/table.md), BenchmarkLookupTable
// (one run) and TestCFrameLookupTable (the lookup figures of that run,
// compared with testdata/lookup-run.txt). BTFI_UPDATE=1 rewrites both.
// TestDocsTables, a unit test, checks that the docs and the README show
// exactly those files' figures.

const (
	tableGolden  = "testdata/table.md"
	lookupGolden = "testdata/lookup-run.txt"
)

// tableInput is one binary of the table.
type tableInput struct {
	name   string // short name (benchmark names)
	label  string // what the table calls it: file, package, version
	path   string
	vmlin  bool
	sparse bool // also measure it with its functions spread apart
}

// tableInputs are the table's binaries; every one is required.
func tableInputs(t testing.TB) []tableInput {
	t.Helper()
	var ins []tableInput
	for _, m := range []struct{ env, name, arch string }{{"BTFI_CFRAME_MESA", "mesa-amd64", "amd64"}, {"BTFI_CFRAME_MESA_ARM64", "mesa-arm64", "arm64"}} {
		p := os.Getenv(m.env)
		if p == "" {
			t.Fatalf("$%s unset (scripts/cframe-table sets it)", m.env)
		}
		ins = append(ins, tableInput{name: m.name, path: p, label: fmt.Sprintf("libvulkan_radeon.so (Debian 13 mesa-vulkan-drivers %s, %s)", os.Getenv(m.env+"_VERSION"), m.arch)})
	}
	for _, l := range []struct{ pkg, file, name string }{{"libllvm15", "libLLVM-15.so.1", "libLLVM-15"}, {"libc6", "libc.so.6", "libc"}, {"libstdc++6", "libstdc++.so.6", "libstdc++"}} {
		p, v := testutil.PackageFile(t, l.pkg, l.file)
		ins = append(ins, tableInput{name: l.name, path: p, label: fmt.Sprintf("%s (Debian 12 %s %s, amd64)", l.file, l.pkg, v), sparse: l.name == "libc"})
	}
	for _, k := range testutil.Kernels(t) {
		if !k.Pinned {
			continue // the table is written down: Debian 12's builds only
		}
		ver := filepath.Base(k.Dir)
		ins = append(ins, tableInput{name: "vmlinux-" + k.Arch, path: filepath.Join(k.Dir, "vmlinux"), label: fmt.Sprintf("vmlinux %s (Debian 12 %s, .debug_frame)", k.Arch, strings.TrimPrefix(ver, "kernel-")), vmlin: true})
	}
	return ins
}

// tableOptions are the table's CFrame columns.
var tableOptions = []Options{
	{Strategy: StrategyNone, InnerBits: -1},
	{Strategy: StrategyNone, Dedup: true, InnerBits: -1},
	{Strategy: StrategyCalleeSaved, Dedup: true, InnerBits: -1},
	{Strategy: StrategyCalleeSaved, Dedup: true, CutAll: true, InnerBits: -1},
}

type tableRow struct {
	in     tableInput
	m      *Measurement
	text   uint64 // .text bytes
	sparse *TableSize
	// The pre-proposal's counting, by llvm-dwarfdump (x86-64 .eh_frame).
	llvmRows, llvmUnique int
}

func TestCFrameTable(t *testing.T) {
	if os.Getenv("BTFI_CFRAME_TABLE") == "" {
		t.Skip("make cframe-table runs it")
	}
	var rows []tableRow
	for _, in := range tableInputs(t) {
		t.Run(in.name, func(t *testing.T) {
			t0 := time.Now()
			r := measureInput(t, in)
			rows = append(rows, r)
			t.Logf("%s: %v", in.name, time.Since(t0))
		})
	}
	if t.Failed() {
		return
	}
	for _, m := range tableClaims(rows) {
		t.Error(m)
	}
	got := renderTable(rows)
	if os.Getenv("BTFI_UPDATE") != "" {
		if err := os.WriteFile(tableGolden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(tableGolden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the table changed (BTFI_UPDATE=1 make cframe-table rewrites %s, then update the docs):\n%s", tableGolden, cmp.Diff(string(want), got))
	}
}

func measureInput(t *testing.T, in tableInput) tableRow {
	sin, done, err := sframe.OpenFile(in.path)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	r := tableRow{in: in}
	if s := sin.File.Section(".text"); s != nil {
		r.text = s.Size
	}
	if r.m, err = Measure(sin, tableOptions); err != nil {
		t.Fatal(err)
	}
	// Every table counted is one that unwinds like the CFI.
	for _, o := range cliStrategies {
		e, _ := verifyInput(t, sin, o)
		if in.sparse && o.Strategy == StrategyCalleeSaved {
			r.sparse = spreadOut(t, e, o)
		}
	}
	if sin.ABI == sframe.ABIAMD64LE && !in.vmlin && strings.HasPrefix(in.name, "mesa") {
		r.llvmRows, r.llvmUnique = llvmCount(t, in.path)
		if r.llvmRows != r.m.Rows || r.llvmUnique != r.m.UniqueStates {
			t.Errorf("llvm-dwarfdump counts %d rows, %d unique states; we count %d, %d", r.llvmRows, r.llvmUnique, r.m.Rows, r.m.UniqueStates)
		}
	}
	return r
}

// spreadDistance is how far apart spreadOut puts the functions.
const spreadDistance = 64 << 10

// spreadOut builds e's table with every function moved to its own 64 KiB
// boundary (a sparse layout: every function followed by a hole) and checks
// its lookups against the functions' rows.
func spreadOut(t *testing.T, e *Emitted, o Options) *TableSize {
	funcs := make([]Func, 0, len(e.Funcs))
	for _, f := range e.Funcs {
		if f.Rep != 0 {
			continue
		}
		funcs = append(funcs, f)
	}
	for i := range funcs {
		funcs[i].Addr = uint64(i) * spreadDistance
	}
	o.ABI = e.SFrame.Section.ABI
	bt, err := Build(funcs, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bt.Encode(0)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Decode(b, 0, ".cframe")
	if err != nil {
		t.Fatal(err)
	}
	checkFuncs(t, funcs, bt, tab)
	return &TableSize{Options: o, Bytes: len(b), Stats: bt.Stats, Header: bt.Header}
}

// checkFuncs checks a table against the rows it was built from: at every
// row start, before it and at the function's last byte, the state in
// effect; no frame right after each function and before the first.
func checkFuncs(t *testing.T, funcs []Func, bt *Built, tab *Table) {
	bad := 0
	check := func(pc uint64, want State, wok bool) {
		got, ok := tab.Lookup(pc)
		if (ok != wok || got != want) && bad < 10 {
			bad++
			t.Errorf("%#x: got %v %v, want %v %v", pc, got, ok, want, wok)
		}
	}
	for i, f := range funcs {
		if !bt.Kept[i] {
			continue
		}
		var prev State
		have := false
		for _, r := range f.Rows {
			if r.Start > 0 {
				check(f.Addr+uint64(r.Start)-1, prev, have)
			}
			check(f.Addr+uint64(r.Start), r.State, true)
			prev, have = r.State, true
		}
		check(f.Addr+f.Size-1, prev, true)
		check(f.Addr+f.Size, State{}, false)
	}
}

// llvmCount counts rows and unique states of path's .eh_frame the way the
// pre-proposal's extract_cfa_states.py does: the "0xADDR: CFA=..." lines
// of llvm-dwarfdump --eh-frame, unique by their text after the address.
func llvmCount(t *testing.T, path string) (rows, unique int) {
	cmd := exec.Command(testutil.SystemTool(t, "llvm-dwarfdump"), "--eh-frame", path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^\s+0x[0-9a-f]+:\s+(CFA=.*)$`)
	seen := map[string]bool{}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			rows++
			seen[m[1]] = true
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return rows, len(seen)
}

// tableClaims checks what docs/cframe.md says of the table: CFrame
// (callee-saved) is smaller than .eh_frame + .eh_frame_hdr (or
// .debug_frame) and than SFrame v3 on every binary, and bit-packing alone
// is the largest share of its saving against SFrame v3; most functions
// are followed by a GAP entry; the x86-64 vmlinux has most of its buckets
// empty; on the arm64 vmlinux keeping every callee-saved cut is larger
// than sharing whole functions; spread out, every function is followed
// by a GAP entry.
func tableClaims(rows []tableRow) []string {
	var bad []string
	for _, r := range rows {
		m := r.m
		if s := &m.Tables[2].Stats; r.in.name == "vmlinux-x86_64" && 2*s.EmptyBuckets <= int(m.Tables[2].Header.NumBuckets) {
			bad = append(bad, fmt.Sprintf("%s: %d of %d buckets empty", r.in.name, s.EmptyBuckets, m.Tables[2].Header.NumBuckets))
		}
		if s := &m.Tables[2].Stats; 2*s.Gaps <= s.Funcs {
			bad = append(bad, fmt.Sprintf("%s: %d GAP entries for %d functions", r.in.name, s.Gaps, s.Funcs))
		}
		if r.in.name == "vmlinux-arm64" && m.Tables[3].Bytes <= m.Tables[1].Bytes {
			bad = append(bad, fmt.Sprintf("%s: every cut kept %d bytes, whole functions shared %d", r.in.name, m.Tables[3].Bytes, m.Tables[1].Bytes))
		}
		if r.sparse != nil && r.sparse.Stats.Gaps != r.sparse.Stats.Funcs {
			bad = append(bad, fmt.Sprintf("%s spread out: %d GAP entries for %d functions", r.in.name, r.sparse.Stats.Gaps, r.sparse.Stats.Funcs))
		}
		v3, none, whole, cs := m.V3.Bytes, m.Tables[0].Bytes, m.Tables[1].Bytes, m.Tables[2].Bytes
		if uint64(cs) >= m.CFIBytes+m.HdrBytes || cs >= v3 {
			bad = append(bad, fmt.Sprintf("%s: CFrame %d bytes, %s %d, SFrame v3 %d", r.in.name, cs, m.CFIName, m.CFIBytes+m.HdrBytes, v3))
		}
		if v3-none <= none-whole || v3-none <= whole-cs {
			bad = append(bad, fmt.Sprintf("%s: bit-packing saves %d bytes, whole-function dedup %d, the cuts %d", r.in.name, v3-none, none-whole, whole-cs))
		}
	}
	return bad
}

// num spells n with thousands separators.
func num[T int | uint64 | uint32](n T) string {
	s := strconv.FormatUint(uint64(n), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func pct(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*a/b)
}

func block(name, body string) string {
	return fmt.Sprintf("<!-- cframe-table:%s -->\n%s<!-- /cframe-table:%s -->\n", name, body, name)
}

func drops(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, r := range sframe.Reasons(m) {
		parts = append(parts, fmt.Sprintf("%s %s", num(m[r]), r))
	}
	return strings.Join(parts, "; ")
}

// The pre-proposal's own row (GCC, no frame pointers, the author's build).
const preProposalRow = "| pre-proposal: GCC, no frame pointers (the author's own build) | 7,141,795 | 116,244 | 646,512 | 14,529 | 491 | 103,178 | 912 |\n"

// renderTable writes every block of testdata/table.md.
func renderTable(rows []tableRow) string {
	var out strings.Builder
	out.WriteString("# Generated by make cframe-table (cframe/table_test.go); do not edit.\n\n")
	// The pre-proposal's counts, reproduced.
	var b strings.Builder
	b.WriteString("| | .text | .eh_frame_hdr | .eh_frame | FDEs | .text/FDE | rows (\"FRE count\") | unique CFA states |\n|---|--:|--:|--:|--:|--:|--:|--:|\n")
	b.WriteString(preProposalRow)
	for _, r := range rows {
		if r.llvmRows == 0 {
			continue
		}
		m := r.m
		fmt.Fprintf(&b, "| %s: btfinline | %s | %s | %s | %s | %d | %s | %s |\n", r.in.label, num(r.text), num(m.HdrBytes), num(m.CFIBytes), num(m.FDEs), r.text/uint64(m.FDEs), num(m.Rows), num(m.UniqueStates))
		fmt.Fprintf(&b, "| the same, counted by llvm-dwarfdump --eh-frame as extract_cfa_states.py does | | | | | | %s | %s |\n", num(r.llvmRows), num(r.llvmUnique))
	}
	out.WriteString(block("preproposal", b.String()))
	out.WriteString("\n")
	// Sizes.
	b.Reset()
	b.WriteString("| binary | .eh_frame + .eh_frame_hdr | SFrame v2 | SFrame v3 | CFrame, bit-packing only | CFrame, + whole-function dedup | CFrame, + callee-saved chunks, dedup | CFrame / .eh_frame+hdr |\n|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range rows {
		m := r.m
		ref := num(m.CFIBytes + m.HdrBytes)
		if m.HdrBytes == 0 {
			ref += " (" + m.CFIName + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.in.label, ref, num(m.V2.Bytes), num(m.V3.Bytes),
			num(m.Tables[0].Bytes), num(m.Tables[1].Bytes), num(m.Tables[2].Bytes), pct(float64(m.Tables[2].Bytes), float64(m.CFIBytes+m.HdrBytes)))
	}
	out.WriteString(block("sizes", b.String()))
	out.WriteString("\n")
	// Counts.
	b.Reset()
	b.WriteString("| binary | FDEs | CFI rows | unique CFA states | SFrame v3 FREs | CFrame rows | CFrame states (CFA/RA/FP) | whole functions: chunks → after dedup | callee-saved: chunks → after dedup |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range rows {
		m := r.m
		n, c := &m.Tables[1].Stats, &m.Tables[2].Stats
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s → %s | %s → %s |\n", r.in.name, num(m.FDEs), num(m.Rows), num(m.UniqueStates), num(m.V3.FREs),
			num(c.Rows), num(c.States), num(n.Pieces), num(n.Chunks), num(c.Pieces), num(c.Chunks))
	}
	out.WriteString(block("counts", b.String()))
	out.WriteString("\n")
	// Drops.
	b.Reset()
	b.WriteString("| binary | SFrame v2 drops | SFrame v3 drops | CFrame drops (beyond SFrame v3's) |\n|---|---|---|---|\n")
	for _, r := range rows {
		m := r.m
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.in.name, drops(m.V2.Skipped), drops(m.V3.Skipped), drops(m.Tables[2].Stats.Dropped))
	}
	out.WriteString(block("drops", b.String()))
	out.WriteString("\n")
	// Where the bytes go, and the shares of the saving.
	b.Reset()
	b.WriteString("| binary | bit parameters | outer | states | chunk index | inner entries (GAP) | inner bytes | FRE payload | empty buckets |\n|---|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range rows {
		ts := r.m.Tables[2]
		s := &ts.Stats
		h := &ts.Header
		fmt.Fprintf(&b, "| %s | trim %d, outer %d, inner %d | %s | %s | %s | %s (%s) | %s | %s | %s of %s |\n", r.in.name, h.BottomTrim, h.OuterBits(), h.InnerBits,
			num(s.OuterBytes), num(s.StateBytes), num(s.ChunkBytes), num(s.Pieces+s.Gaps), num(s.Gaps), num(s.InnerBytes), num(s.PayloadBytes), num(s.EmptyBuckets), num(h.NumBuckets))
	}
	out.WriteString(block("bytes", b.String()))
	out.WriteString("\n")
	b.Reset()
	b.WriteString("| binary | saving vs SFrame v3 | from bit-packing alone | from whole-function dedup | from callee-saved cuts | callee-saved keeping every cut | bit-packing only, states inline instead of a state table | GAP entries, share of the table |\n|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range rows {
		m := r.m
		v3, none, whole, cs := float64(m.V3.Bytes), float64(m.Tables[0].Bytes), float64(m.Tables[1].Bytes), float64(m.Tables[2].Bytes)
		s := &m.Tables[2].Stats
		h := &m.Tables[2].Header
		gapBytes := float64(s.Gaps) * float64(h.innerEntryW()) / 8
		// Without the state table each FRE of the bit-packing-only table
		// would carry its state record instead of a state id.
		n, nh := &m.Tables[0].Stats, &m.Tables[0].Header
		inline := none + float64(n.PayloadRows)*float64(nh.stateRecW()-uint(nh.StateW))/8 - float64(n.StateBytes)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s bytes | %s bytes | %s |\n", r.in.name, pct(v3-cs, v3), pct(v3-none, v3-cs), pct(none-whole, v3-cs), pct(whole-cs, v3-cs), num(m.Tables[3].Bytes), num(uint64(inline)), pct(gapBytes, cs))
	}
	out.WriteString(block("shares", b.String()))
	out.WriteString("\n")
	// The sparse layout.
	b.Reset()
	b.WriteString("| layout | functions | CFrame bytes | inner entries (GAP) | buckets (empty) | bit parameters |\n|---|--:|--:|--:|--:|---|\n")
	for _, r := range rows {
		if r.sparse == nil {
			continue
		}
		for _, x := range []struct {
			what string
			ts   *TableSize
		}{{r.in.name + " as linked", &r.m.Tables[2]}, {fmt.Sprintf("%s, every function moved to its own %d KiB", r.in.name, spreadDistance>>10), r.sparse}} {
			s, h := &x.ts.Stats, &x.ts.Header
			fmt.Fprintf(&b, "| %s | %s | %s | %s (%s) | %s (%s) | trim %d, outer %d, inner %d |\n", x.what, num(s.Funcs), num(x.ts.Bytes), num(s.Pieces+s.Gaps), num(s.Gaps), num(h.NumBuckets), num(s.EmptyBuckets), h.BottomTrim, h.OuterBits(), h.InnerBits)
		}
	}
	out.WriteString(block("sparse", b.String()))
	return out.String()
}
