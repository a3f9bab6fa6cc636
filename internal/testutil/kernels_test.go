package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// kernelRow is one kernel of the side-by-side table: where its figures
// come from, each written and compared by the check that measures it.
type kernelRow struct {
	kernel, arch, cc string
	figures          string // docs/figures/<figures>, for a distribution kernel
	doc, block       string // the verdict block of its qemu run
	dwarfBlock       string // kbuild/README.md's located shares, for a kbuild kernel
}

var kernelRows = []kernelRow{
	{kernel: "Debian 12 6.1", arch: "x86-64", cc: "gcc 12", figures: "6.1-x86_64", doc: "README.md", block: "6.1-x86_64"},
	{kernel: "Debian 12 6.1", arch: "arm64", cc: "gcc 12", figures: "6.1-arm64", doc: "e2e/README.md", block: "6.1-arm64"},
	{kernel: "Debian 13 6.12", arch: "x86-64", cc: "gcc 14", figures: "6.12-x86_64", doc: "e2e/README.md", block: "6.12-x86_64"},
	{kernel: "Debian 13 6.12", arch: "arm64", cc: "gcc 14", figures: "6.12-arm64", doc: "e2e/README.md", block: "6.12-arm64"},
	{kernel: "check-kbuild 6.1", arch: "x86-64", cc: "gcc 12", doc: "kbuild/README.md", block: "check-kbuild", dwarfBlock: "check-kbuild-dwarf"},
	{kernel: "check-kbuild 6.12", arch: "x86-64", cc: "gcc 12", doc: "kbuild/README.md", block: "check-kbuild-6.12", dwarfBlock: "check-kbuild-6.12-dwarf"},
	{kernel: "check-kbuild 6.1", arch: "x86-64", cc: "clang 14", doc: "kbuild/README.md", block: "check-kbuild-clang", dwarfBlock: "check-kbuild-clang-dwarf"},
}

// kernelTable is the block of a Markdown file that holds the table.
var kernelTable = regexp.MustCompile("(?s)<!-- kernels -->\n(.*?)<!-- /kernels -->")

// TestKernelTable: the README and kbuild/README.md set every kernel the
// checks run on side by side, in a table made from the files and blocks
// those checks compare their results with (docs/figures for the whole
// kernel, the e2e-run blocks for the qemu runs), so that no cell can
// drift from what a check asserts. BTFI_UPDATE_FIGURES=1 rewrites it.
func TestKernelTable(t *testing.T) {
	root := repoRoot()
	want, err := makeKernelTable(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{"README.md", "kbuild/README.md"} {
		path := filepath.Join(root, doc)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m := kernelTable.FindSubmatch(b)
		if m == nil {
			t.Errorf("%s has no <!-- kernels --> block", doc)
			continue
		}
		if string(m[1]) == want {
			continue
		}
		if !UpdateFigures() {
			t.Errorf("%s: the kernel table differs from the checks' figures:\n--- figures\n%s--- block\n%s", doc, want, m[1])
			continue
		}
		out := kernelTable.ReplaceAllLiteral(b, []byte("<!-- kernels -->\n"+want+"<!-- /kernels -->"))
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func makeKernelTable(root string) (string, error) {
	var b strings.Builder
	b.WriteString("| kernel | arch | compiler | inline sites | parameters located | sites with all located | bytes a site | kprobe-able sites | qemu: judged sites accepted | traceable and refused | module arguments right |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range kernelRows {
		verdict, err := e2eBlock(filepath.Join(root, r.doc), r.block)
		if err != nil {
			return "", err
		}
		// A kbuild build has no encode or stats figures.
		var sites, located, allLocated string
		perSite, kprobeable := "–", "–"
		if r.figures != "" {
			dir := filepath.Join(figuresDir(), r.figures)
			dw, err := os.ReadFile(filepath.Join(dir, "sites-dwarf-vmlinux.txt"))
			if err != nil {
				return "", err
			}
			enc, err := os.ReadFile(filepath.Join(dir, "encode-vmlinux.txt"))
			if err != nil {
				return "", err
			}
			st, err := os.ReadFile(filepath.Join(dir, "stats-vmlinux.txt"))
			if err != nil {
				return "", err
			}
			f := fields{src: r.figures}
			sites = f.num(dw, `(?m)^sites: +(\d+)$`)
			located = f.str(dw, `(?m)^  located: +\d+ \(([0-9.]+%)\)$`)
			allLocated = f.str(dw, `(?m)^sites with all parameters located: +\d+ \(([0-9.]+%)\)$`)
			perSite = f.str(enc, `(?m)^total: \d+ bytes, ([0-9.]+) bytes per site$`)
			kprobeable = f.str(st, `(?m)^    kprobe-able \(not in a refused region\) +\d+ +([0-9.]+%)$`)
			if f.err != nil {
				return "", f.err
			}
		} else {
			dw, err := e2eBlock(filepath.Join(root, r.doc), r.dwarfBlock)
			if err != nil {
				return "", err
			}
			// The kernel's own compiler's line (the clang block has gcc's too).
			cc := strings.Fields(r.cc)[0]
			f := fields{src: r.dwarfBlock}
			line := `(?m)^DWARF ` + cc + `: (\d+) sites, \d+ parameters, \d+ located \(([0-9.]+%)\), \d+ sites with all located \(([0-9.]+%) of`
			sites = f.num(dw, line)
			located = f.group(dw, line, 2)
			allLocated = f.group(dw, line, 3)
			if f.err != nil {
				return "", f.err
			}
		}
		f := fields{src: r.doc + " " + r.block}
		judged := f.num(verdict, `(?m)^E2E judge sites=(\d+) `)
		accepted := f.num(verdict, `(?m)^E2E judge sites=\d+ accepted=(\d+) `)
		refused := f.num(verdict, `(?m)^E2E judge oracle traceable=yes kernel=refused: (\d+)`)
		checked := f.num(verdict, `(?m)^E2E summary .* arguments checked=(\d+),`)
		matched := f.num(verdict, `(?m)^E2E summary .* matched=(\d+),`)
		if f.err != nil {
			return "", f.err
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s of %s | %s | %s of %s |\n",
			r.kernel, r.arch, r.cc, sites, located, allLocated, perSite, kprobeable,
			accepted, judged, refused, matched, checked)
	}
	return b.String(), nil
}

// e2eBlock is the body of a document's block NAME (<!-- e2e-run:NAME -->),
// which the run that wrote it compares itself with.
func e2eBlock(doc, name string) ([]byte, error) {
	b, err := os.ReadFile(doc)
	if err != nil {
		return nil, err
	}
	re := regexp.MustCompile("(?s)<!-- e2e-run:" + regexp.QuoteMeta(name) + " -->\n```\n(.*?)```\n<!-- /e2e-run:" + regexp.QuoteMeta(name) + " -->")
	m := re.FindSubmatch(b)
	if m == nil || len(m[1]) == 0 {
		return nil, fmt.Errorf("%s: no lines in block e2e-run:%s", doc, name)
	}
	return m[1], nil
}

// fields takes figures out of a text by pattern, keeping the first
// pattern that did not match as its error.
type fields struct {
	src string
	err error
}

func (f *fields) group(b []byte, pattern string, i int) string {
	m := regexp.MustCompile(pattern).FindSubmatch(b)
	if m == nil {
		if f.err == nil {
			f.err = fmt.Errorf("%s: no line matches %q", f.src, pattern)
		}
		return ""
	}
	return string(m[i])
}

func (f *fields) str(b []byte, pattern string) string { return f.group(b, pattern, 1) }

// num is a count, written with thousands separators.
func (f *fields) num(b []byte, pattern string) string {
	s := f.str(b, pattern)
	n, err := strconv.Atoi(s)
	if err != nil {
		if f.err == nil {
			f.err = fmt.Errorf("%s: %q is not a count", f.src, s)
		}
		return ""
	}
	return thousands(n)
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
