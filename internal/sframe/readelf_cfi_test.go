package sframe

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/sframe/cfi"
	"github.com/btfinline/btfinline/internal/testutil"
)

// The row tables of package cfi's interpreter against an independent one:
// readelf --debug-dump=frames-interp (current binutils, from
// ../shared/tools/reftools) prints, for every FDE, the state after every
// advance: the CFA rule and a rule for each register the FDE mentions.
// Every FDE of a file must have the same rules as ours at every address
// where either table starts a row.
//
// What readelf does not print is not compared: DW_CFA_GNU_args_size, the
// AArch64 return address signing state (DW_CFA_AARCH64_negate_ra_state),
// the contents of expressions ("exp"). Readelf shows a register it never
// saw set as "u", as undefined: our unspecified and undefined both count as
// "u".

// readelfRegs are binutils' names of DWARF registers (dwarf.c
// dwarf_regnames_x86_64 and dwarf_regnames_aarch64) for the registers
// call frame information of kernels and libraries mentions; others print
// as rN.
var readelfRegs = map[string]map[string]uint64{
	"x86_64": func() map[string]uint64 {
		m := map[string]uint64{}
		for i, n := range []string{"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"} {
			m[n] = uint64(i)
		}
		for i := 0; i < 16; i++ {
			m["xmm"+strconv.Itoa(i)] = uint64(17 + i)
		}
		return m
	}(),
	"aarch64": func() map[string]uint64 {
		m := map[string]uint64{"sp": 31}
		for i := 0; i < 31; i++ {
			m["x"+strconv.Itoa(i)] = uint64(i)
		}
		for i := 0; i < 32; i++ {
			m["v"+strconv.Itoa(i)] = uint64(64 + i)
		}
		return m
	}(),
}

var regRule = regexp.MustCompile(`\br(\d+) \([^)]*\)`)

// readelfFDE is one FDE of readelf's table: its rows, and the register of
// each rule column.
type readelfFDE struct {
	begin uint64
	cols  []uint64
	rows  []readelfRow
}

type readelfRow struct {
	loc   uint64
	cfa   string   // "rsp+8" as readelf spells it, or "exp"
	rules []string // per column: u, s, c-8, v+8, exp, vexp, a register name
}

// readelfFrames runs readelf on path and returns the FDEs of section sec
// by section offset.
func readelfFrames(t *testing.T, path, sec, arch string, ra uint64) map[int64]*readelfFDE {
	t.Helper()
	readelf := testutil.RefTool(t, "readelf")
	cmd := exec.Command(readelf, "--debug-dump=frames-interp", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	// readelf exits 1 on some libraries without a word (libc); what it
	// printed is still the table.
	if err != nil && !bytes.Contains(out, []byte("Contents of the "+sec+" section")) {
		t.Fatalf("readelf --debug-dump=frames-interp %s: %v\n%s", path, err, stderr.Bytes())
	}
	regOf := func(name string) uint64 {
		if name == "ra" {
			return ra
		}
		if n, ok := readelfRegs[arch][name]; ok {
			return n
		}
		if n, err := strconv.ParseUint(strings.TrimPrefix(name, "r"), 10, 64); err == nil && strings.HasPrefix(name, "r") {
			return n
		}
		t.Fatalf("readelf register name %q unknown", name)
		return 0
	}
	fdes := map[int64]*readelfFDE{}
	cies := map[int64]*readelfFDE{}
	cieOf := map[*readelfFDE]int64{}
	var cur *readelfFDE
	in := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		// A register rule prints as "r3 (rbx)": one field, "r3".
		line := regRule.ReplaceAllString(sc.Text(), "r$1")
		if strings.HasPrefix(line, "Contents of the ") {
			in = strings.HasPrefix(line, "Contents of the "+sec+" section")
			cur = nil
			continue
		}
		if !in {
			continue
		}
		f := strings.Fields(line)
		switch {
		case len(f) >= 6 && f[3] == "FDE":
			off, err1 := strconv.ParseInt(f[0], 16, 64)
			cie, err3 := strconv.ParseInt(strings.TrimPrefix(f[4], "cie="), 16, 64)
			lo, _, ok := strings.Cut(strings.TrimPrefix(f[5], "pc="), "..")
			begin, err2 := strconv.ParseUint(lo, 16, 64)
			if err1 != nil || err2 != nil || err3 != nil || !ok {
				t.Fatalf("readelf FDE line %q", line)
			}
			cur = &readelfFDE{begin: begin}
			fdes[off] = cur
			cieOf[cur] = cie
		case len(f) >= 4 && f[3] == "CIE":
			off, err := strconv.ParseInt(f[0], 16, 64)
			if err != nil {
				t.Fatalf("readelf CIE line %q", line)
			}
			cur = &readelfFDE{}
			cies[off] = cur
		case cur != nil && len(f) >= 2 && f[0] == "LOC" && f[1] == "CFA":
			for _, n := range f[2:] {
				cur.cols = append(cur.cols, regOf(n))
			}
		case cur != nil && len(f) == 2+len(cur.cols):
			loc, err := strconv.ParseUint(f[0], 16, 64)
			if err != nil {
				continue
			}
			cur.rows = append(cur.rows, readelfRow{loc: loc, cfa: f[1], rules: f[2:]})
		}
	}
	// An FDE without instructions has no rows of its own in readelf's
	// table: its state is the CIE's initial row, from its first address.
	for _, fde := range fdes {
		if cie := cies[cieOf[fde]]; len(fde.rows) == 0 && cie != nil && len(cie.rows) > 0 {
			fde.cols = cie.cols
			r := cie.rows[len(cie.rows)-1]
			r.loc = fde.begin
			fde.rows = []readelfRow{r}
		}
	}
	return fdes
}

// cfiText spells our row's CFA and the rule of register reg as readelf
// does.
func cfiText(r *cfi.Row, reg uint64, name func(uint64) string) (cfa, rule string) {
	if r.CFA.Expr != nil {
		cfa = "exp"
	} else {
		cfa = fmt.Sprintf("%s%+d", name(r.CFA.Reg), r.CFA.Off)
	}
	x := r.Reg(reg)
	switch x.Kind {
	case cfi.RuleUnspecified, cfi.RuleUndefined:
		rule = "u"
	case cfi.RuleSameValue:
		rule = "s"
	case cfi.RuleOffset:
		rule = fmt.Sprintf("c%+d", x.Off)
	case cfi.RuleValOffset:
		rule = fmt.Sprintf("v%+d", x.Off)
	case cfi.RuleRegister:
		rule = "r" + strconv.FormatUint(x.Reg, 10)
	case cfi.RuleExpression:
		rule = "exp"
	case cfi.RuleValExpression:
		rule = "vexp"
	}
	return cfa, rule
}

// checkRowsVsReadelf compares every FDE of path's call frame section with
// readelf's table of it; it returns the FDEs and the addresses compared.
func checkRowsVsReadelf(t *testing.T, path string) (fdes, points int) {
	t.Helper()
	in, done, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	res, cs, err := in.CFI()
	if err != nil {
		t.Fatal(err)
	}
	arch := "x86_64"
	if in.ABI != ABIAMD64LE {
		arch = "aarch64"
	}
	names := map[uint64]string{}
	for n, r := range readelfRegs[arch] {
		names[r] = n
	}
	name := func(r uint64) string {
		if n, ok := names[r]; ok {
			return n
		}
		return "r" + strconv.FormatUint(r, 10)
	}
	var ra uint64
	if len(res.FDEs) > 0 {
		ra = res.FDEs[0].CIE.RAReg
	}
	theirs := readelfFrames(t, path, cs.Name, arch, ra)
	bad := 0
	report := func(format string, a ...any) {
		if bad++; bad <= 10 {
			t.Errorf(format, a...)
		}
	}
	for _, fde := range res.FDEs {
		re := theirs[fde.Offset]
		if re == nil {
			report("FDE at %s+%#x: not in readelf's table", cs.Name, fde.Offset)
			continue
		}
		delete(theirs, fde.Offset)
		var ours []cfi.Row
		if err := fde.Execute(func(r *cfi.Row) error {
			row := *r
			row.Regs = append([]cfi.Rule(nil), r.Regs...)
			ours = append(ours, row)
			return nil
		}); err != nil {
			report("FDE at %s+%#x: %v", cs.Name, fde.Offset, err)
			continue
		}
		// A register ours has a rule for must be one of readelf's
		// columns.
		cols := map[uint64]bool{}
		for _, c := range re.cols {
			cols[c] = true
		}
		for _, r := range ours {
			for reg, x := range r.Regs {
				if x.Kind != cfi.RuleUnspecified && !cols[uint64(reg)] {
					report("FDE at %s+%#x, pc %#x: we have a rule for r%d, readelf no column", cs.Name, fde.Offset, r.Loc, reg)
				}
			}
		}
		// Compare the state in effect at every row start of either table,
		// relative to the FDE's start (readelf shows a relocatable
		// object's addresses section-relative).
		at := map[uint64]bool{}
		for _, r := range ours {
			at[r.Loc-fde.Begin] = true
		}
		for _, r := range re.rows {
			at[r.loc-re.begin] = true
		}
		for off := range at {
			if off >= fde.Size {
				continue
			}
			var o *cfi.Row
			for i := range ours {
				if ours[i].Loc-fde.Begin <= off {
					o = &ours[i]
				}
			}
			var tr *readelfRow
			for i := range re.rows {
				if re.rows[i].loc-re.begin <= off {
					tr = &re.rows[i]
				}
			}
			if o == nil || tr == nil {
				report("FDE at %s+%#x, +%#x: a row in one table only (ours %v, readelf %v)", cs.Name, fde.Offset, off, o != nil, tr != nil)
				continue
			}
			points++
			for i, reg := range re.cols {
				cfa, rule := cfiText(o, reg, name)
				if i == 0 && cfa != tr.cfa {
					report("FDE at %s+%#x, +%#x: CFA %s, readelf %s", cs.Name, fde.Offset, off, cfa, tr.cfa)
				}
				if rule != tr.rules[i] {
					report("FDE at %s+%#x, +%#x: %s %s, readelf %s", cs.Name, fde.Offset, off, name(reg), rule, tr.rules[i])
				}
			}
			if len(re.cols) == 0 {
				if cfa, _ := cfiText(o, 0, name); cfa != tr.cfa {
					report("FDE at %s+%#x, +%#x: CFA %s, readelf %s", cs.Name, fde.Offset, off, cfa, tr.cfa)
				}
			}
		}
		fdes++
	}
	skipped := map[int64]bool{}
	for _, s := range res.Skipped {
		skipped[s.Offset] = true
	}
	for off := range theirs {
		if !skipped[off] {
			report("FDE at %s+%#x: readelf has it, we do not", cs.Name, off)
		}
	}
	if bad > 10 {
		t.Errorf("%d differences in all", bad)
	}
	if fdes == 0 || points == 0 {
		t.Fatalf("%s: nothing compared", path)
	}
	t.Logf("%s: %d FDEs, %d addresses agree with readelf", path, fdes, points)
	return fdes, points
}

// TestCFIRowsVsReadelf: the fixtures, x86-64 and aarch64, linked and
// relocatable.
func TestCFIRowsVsReadelf(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(fixtures, "*.exe"))
	objs, _ := filepath.Glob(filepath.Join(fixtures, "*.o"))
	paths = append(paths, objs...)
	if len(paths) < 10 {
		t.Fatalf("only %d fixtures", len(paths))
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) { checkRowsVsReadelf(t, p) })
	}
}

// TestBigCFIRowsVsReadelf: the shared libraries of the packages
// scripts/setup installs (libLLVM has one of the largest .eh_frame of a
// Debian system).
func TestBigCFIRowsVsReadelf(t *testing.T) {
	for _, l := range []struct{ pkg, file string }{{"libllvm15", "libLLVM-15.so.1"}, {"libc6", "libc.so.6"}, {"libstdc++6", "libstdc++.so.6"}} {
		t.Run(l.file, func(t *testing.T) {
			p, _ := testutil.PackageFile(t, l.pkg, l.file)
			checkRowsVsReadelf(t, p)
		})
	}
}

// TestKernelCFIRowsVsReadelf: every kernel build's vmlinux .debug_frame
// and its modules' (relocated) ones.
func TestKernelCFIRowsVsReadelf(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		t.Run(k.Name+"/vmlinux", func(t *testing.T) {
			fdes, points := checkRowsVsReadelf(t, k.Vmlinux())
			testutil.Figures(t, k, "cfi-vs-readelf-vmlinux.txt", fmt.Sprintf("vmlinux .debug_frame: %d FDEs, the rules at %d row starts equal readelf --debug-dump=frames-interp's\n", fdes, points))
		})
		for _, m := range k.Modules() {
			t.Run(k.Name+"/"+m, func(t *testing.T) { checkRowsVsReadelf(t, k.Module(m)) })
		}
	}
}
