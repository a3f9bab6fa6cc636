package cmd

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

// The two paths of "btfinline sites" must describe the same sites with the
// same line: "sites --dwarf FILE" reads the DWARF, "sites" reads the
// .BTF.inline that "btfinline encode FILE" wrote. What may differ, and
// nothing else (docs/inspect.md, "sites and sites --dwarf"):
//
//   - the BTF path appends " [notrace: REASON]" to sites a kprobe cannot
//     sit at (the DWARF path does not check traceability);
//   - the DWARF path lists a site twice when two DW_TAG_inlined_subroutine
//     entries give the same function, address and locations; encode keeps
//     one LOCSEC entry (docs/encoding.md, "exact duplicates are dropped");
//   - the DWARF path appends " [entry pc 0x...]" to a site whose probe
//     moved past its entry pc (.BTF.inline records the probe address
//     only): the mark must name an address below the site's, in the same
//     function, where sites --dwarf --probe-point entry lists a site of
//     the same inlined function.
//
// Types are spelled by one algorithm (site.CType) on both paths, so the
// text must be identical.
type siteDiffFixture struct {
	name  string
	path  string   // the object (relative to the repository root)
	bases []string // -B for encode (root first)
	// pahole: the checked-in object has no .BTF; give a copy one with
	// "pahole -J" (split on the first base, if any) before encoding.
	pahole bool
}

var siteDiffFixtures = []siteDiffFixture{
	{name: "encode/kern.elf", path: "internal/encode/testdata/kern.elf"},
	{name: "encode/kern.a64.elf", path: "internal/encode/testdata/kern.a64.elf"},
	{name: "encode/mod.ko", path: "internal/encode/testdata/mod.ko", bases: []string{"internal/encode/testdata/kern.elf"}},
	{name: "resolve/x86_64.elf", path: "internal/resolve/testdata/x86_64.elf"},
	{name: "resolve/x86_64.o", path: "internal/resolve/testdata/x86_64.o", bases: []string{"internal/resolve/testdata/x86_64.elf"}},
	{name: "resolve/aarch64.elf", path: "internal/resolve/testdata/aarch64.elf"},
	{name: "resolve/aarch64.o", path: "internal/resolve/testdata/aarch64.o", bases: []string{"internal/resolve/testdata/aarch64.elf"}},
	{name: "resolve/patch.elf", path: "internal/resolve/testdata/patch.elf"},
	{name: "resolve/patch.o", path: "internal/resolve/testdata/patch.o", bases: []string{"internal/resolve/testdata/patch.elf"}},
	{name: "demo", path: "cmd/demo/demo"},
	{name: "inline/sites-x86_64", path: "internal/dwarfsite/testdata/sites-x86_64", pahole: true},
	{name: "inline/sites-x86_64-dwarf4", path: "internal/dwarfsite/testdata/sites-x86_64-dwarf4", pahole: true},
	{name: "inline/sites-x86_64.o", path: "internal/dwarfsite/testdata/sites-x86_64.o", bases: []string{"internal/dwarfsite/testdata/sites-x86_64"}, pahole: true},
	{name: "inline/sites-aarch64", path: "internal/dwarfsite/testdata/sites-aarch64", pahole: true},
	{name: "inline/sites-aarch64.o", path: "internal/dwarfsite/testdata/sites-aarch64.o", bases: []string{"internal/dwarfsite/testdata/sites-aarch64"}, pahole: true},
}

var notraceMark = regexp.MustCompile(` \[notrace: [^]]*\]$`)

// entryMark is the mark of a site whose probe moved past its entry pc.
var entryMark = regexp.MustCompile(` \[entry pc (0x[0-9a-f]+)\]`)

// normSites splits a "sites" listing into sorted unique lines, with the
// notrace marks taken out, and counts those marks.
// multiDim matches the dimensions of a multi-dimensional array type.
var multiDim = regexp.MustCompile(`(\[\d+\]){2,}`)

// flattenArrays spells T[7][3][2] as T[42]: pahole (1.24, which made the
// Debian kernels' .BTF) encodes a multi-dimensional array as one array of
// all the elements, and the BTF side spells what the base holds.
func flattenArrays(l string) string {
	return multiDim.ReplaceAllStringFunc(l, func(dims string) string {
		n := uint64(1)
		for _, d := range strings.Split(strings.Trim(dims, "[]"), "][") {
			v, err := strconv.ParseUint(d, 10, 64)
			if err != nil {
				return dims
			}
			n *= v
		}
		return "[" + strconv.FormatUint(n, 10) + "]"
	})
}

func normSites(out string) (lines []string, notrace int) {
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l == "" {
			continue
		}
		l = flattenArrays(l)
		if m := notraceMark.FindStringIndex(l); m != nil {
			l = l[:m[0]]
			notrace++
		}
		if !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return lines, notrace
}

func runCLI(t testing.TB, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("btfinline %s: exit %d\n%s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

// diffSites encodes obj on bases with probe point pp, lists its sites
// both ways and compares; it returns how many sites, notrace marks and
// moved sites (entry marks) it saw.
func diffSites(t *testing.T, obj string, bases []string, pp string) (n, notrace, moved int) {
	t.Helper()
	inl := filepath.Join(t.TempDir(), "obj.inline")
	args := []string{"encode", obj, "-o", inl, "-q", "--probe-point", pp}
	for _, b := range bases {
		args = append(args, "-B", b)
	}
	runCLI(t, args...)
	dw := runCLI(t, "sites", "--dwarf", "--nesting", "--probe-point", pp, obj)
	args = []string{"sites", "--nesting", inl}
	for _, b := range append(append([]string(nil), bases...), obj) {
		args = append(args, "-B", b)
	}
	bt := runCLI(t, args...)
	dw, moved = checkEntryMarks(t, obj, dw, pp)
	dl, dn := normSites(dw)
	bl, bn := normSites(bt)
	if dn != 0 {
		t.Errorf("sites --dwarf printed %d notrace marks", dn)
	}
	if len(dl) == 0 {
		t.Fatalf("no sites")
	}
	// Nesting: one BTF entry stands for every DWARF instance with the
	// same function, locations and address (exact duplicates are
	// dropped), and takes the nesting of one of them.
	dwNests := map[string]map[string]bool{}
	dl = stripNesting(dl, func(site, mark string) {
		if dwNests[site] == nil {
			dwNests[site] = map[string]bool{}
		}
		dwNests[site][mark] = true
	})
	bad := 0
	bl = stripNesting(bl, func(site, mark string) {
		if !dwNests[site][mark] && bad < 10 {
			bad++
			t.Errorf("sites (BTF) nesting %q not among DWARF's for %s", mark, site)
		}
	})
	compareLines(t, dl, bl)
	return len(bl), bn, moved
}

// checkEntryMarks takes the entry-pc marks out of a sites --dwarf
// listing made with probe point pp: with "entry" there must be none; with
// "block" each must name an address below its site's, and sites --dwarf
// --probe-point entry must list a site of the same function there.
func checkEntryMarks(t *testing.T, obj, dw, pp string) (string, int) {
	t.Helper()
	marks := entryMark.FindAllStringSubmatchIndex(dw, -1)
	if pp == "entry" {
		if len(marks) > 0 {
			t.Errorf("--probe-point entry: %d sites moved past their entry pc", len(marks))
		}
		return dw, 0
	}
	if len(marks) == 0 {
		return dw, 0
	}
	atEntry := map[string]bool{} // "ADDR FUNC" of the entry-pc listing
	for _, l := range strings.Split(runCLI(t, "sites", "--dwarf", "--probe-point", "entry", obj), "\n") {
		if f := strings.Fields(l); len(f) >= 4 {
			atEntry[f[0]+" "+strings.SplitN(f[3], "(", 2)[0]] = true
		}
	}
	bad := 0
	var out strings.Builder
	for _, l := range strings.Split(dw, "\n") {
		m := entryMark.FindStringSubmatchIndex(l)
		if m == nil {
			out.WriteString(l + "\n")
			continue
		}
		f := strings.Fields(l)
		addr, err1 := strconv.ParseUint(strings.TrimPrefix(f[0], "0x"), 16, 64)
		entry, err2 := strconv.ParseUint(l[m[2]+2:m[3]], 16, 64)
		fn := strings.SplitN(f[3], "(", 2)[0]
		caller, off, _ := strings.Cut(f[1], "+0x")
		coff, err3 := strconv.ParseUint(off, 16, 64)
		if (err1 != nil || err2 != nil || err3 != nil || entry >= addr || addr-entry > coff || caller == "" ||
			!atEntry[l[m[2]:m[3]]+" "+fn]) && bad < 10 {
			bad++
			t.Errorf("entry mark of %q: no site of %s at that entry pc in its function (sites --dwarf --probe-point entry)", l, fn)
		}
		out.WriteString(l[:m[0]] + l[m[1]:] + "\n")
	}
	return strings.TrimSuffix(out.String(), "\n"), len(marks)
}

var nestingMark = regexp.MustCompile(` \[nested in an inlined [^]]*\]$`)

// stripNesting removes the --nesting mark from each line, reports it, and
// returns the sorted unique lines without it.
func stripNesting(lines []string, each func(site, mark string)) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lines {
		mark := ""
		if m := nestingMark.FindStringIndex(l); m != nil {
			l, mark = l[:m[0]], l[m[0]:]
		}
		each(l, mark)
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

func compareLines(t *testing.T, dw, bt []string) {
	t.Helper()
	i, j, shown := 0, 0, 0
	for (i < len(dw) || j < len(bt)) && shown < 20 {
		switch {
		case j == len(bt) || i < len(dw) && dw[i] < bt[j]:
			t.Errorf("only in sites --dwarf: %s", dw[i])
			i++
			shown++
		case i == len(dw) || bt[j] < dw[i]:
			t.Errorf("only in sites (BTF):   %s", bt[j])
			j++
			shown++
		default:
			i++
			j++
		}
	}
}

func TestSitesDWARFvsBTF(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, fx := range siteDiffFixtures {
		t.Run(fx.name, func(t *testing.T) {
			obj := filepath.Join(root, fx.path)
			var bases []string
			for _, b := range fx.bases {
				bases = append(bases, filepath.Join(root, b))
			}
			if fx.pahole {
				obj, bases = withPaholeBTF(t, obj, bases)
			}
			for _, pp := range []string{"entry", "block"} {
				n, notrace, moved := diffSites(t, obj, bases, pp)
				t.Logf("--probe-point %s: %d sites equal; %d notrace marks, %d moved", pp, n, notrace, moved)
			}
		})
	}
}

// withPaholeBTF copies obj (and its base) to a temporary folder and adds
// .BTF with pahole -J; a relocatable object's BTF is split on the base's.
func withPaholeBTF(t *testing.T, obj string, bases []string) (string, []string) {
	t.Helper()
	pahole := testutil.RefTool(t, "pahole")
	dir := t.TempDir()
	var nb []string
	for _, b := range bases {
		c := filepath.Join(dir, filepath.Base(b))
		copyFile(t, b, c)
		if out, err := exec.Command(pahole, "-J", c).CombinedOutput(); err != nil {
			t.Fatalf("pahole -J %s: %v\n%s", b, err, out)
		}
		nb = append(nb, c)
	}
	c := filepath.Join(dir, filepath.Base(obj))
	copyFile(t, obj, c)
	args := []string{"-J"}
	if len(nb) > 0 {
		args = append(args, "--btf_base", nb[len(nb)-1])
	}
	if out, err := exec.Command(pahole, append(args, c)...).CombinedOutput(); err != nil {
		t.Fatalf("pahole -J %s: %v\n%s", obj, err, out)
	}
	return c, nb
}

// TestKernelSitesDWARFvsBTF diffs both paths on the Debian vmlinux and
// five modules, with the default probe points (TestSitesDWARFvsBTF
// diffs both kinds on the fixtures).
func TestKernelSitesDWARFvsBTF(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		vmlinux := filepath.Join(k.Dir, "vmlinux")
		t.Run(k.Name+"/vmlinux", func(t *testing.T) {
			n, notrace, moved := diffSites(t, vmlinux, nil, "block")
			t.Logf("%d sites equal; %d notrace marks, %d moved", n, notrace, moved)
		})
		for _, m := range k.Modules() {
			t.Run(k.Name+"/"+m, func(t *testing.T) {
				n, notrace, moved := diffSites(t, filepath.Join(k.Dir, "modules", m+".ko"), []string{vmlinux}, "block")
				t.Logf("%d sites equal; %d notrace marks, %d moved", n, notrace, moved)
			})
		}
	}
}
