// Package testutil finds the external reference tools and data that the
// tests compare against. "make test" provides them (scripts/setup, make
// check-kernel); a plain "go test" outside CI skips the comparisons it
// cannot make, and inside CI (CI=true) a missing tool or data set is a
// failure, so that a comparison can never pass by not running.
//
// It imports the standard library only, and only tests import it.
package testutil

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// RefTool returns the path of a reference tool from
// ../shared/tools/reftools (readelf, objdump, as, ld, nm, bpftool, pahole),
// found through $BTFI_REFTOOLS.
func RefTool(t testing.TB, name string) string {
	t.Helper()
	return toolIn(t, "BTFI_REFTOOLS", name, "reference tool")
}

// toolIn returns name in the folder $env names, or reports it missing.
func toolIn(t testing.TB, env, name, what string) string {
	t.Helper()
	if dir := os.Getenv(env); dir != "" {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	missing(t, what+" "+name+" ($"+env+" unset or lacks it; run make test)")
	return ""
}

// SystemTool returns the path of a tool installed from Debian's packages
// (llvm-dwarfdump, aarch64-linux-gnu-gcc, ...).
func SystemTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		missing(t, "system tool "+name+" (scripts/setup installs it)")
	}
	return p
}

// KernelData returns the folder of ../shared/tools/kernel-data (the Debian
// 6.1 vmlinux and modules), from $BTFI_KERNEL_DATA, which make
// check-kernel and make bench KERNEL=1 set; without it the test or
// benchmark skips, and inside CI fails.
func KernelData(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("BTFI_KERNEL_DATA")
	if dir == "" {
		missing(t, "kernel data: BTFI_KERNEL_DATA unset (make check-kernel sets it)")
	}
	return dir
}

func missing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("missing %s", what)
	}
	t.Skipf("missing %s", what)
}

// Kernel is one real kernel build of the kernel data.
type Kernel struct {
	Name    string // the subtest name: "6.1-x86_64", "6.1-arm64", "6.12-x86_64"
	Arch    string // "x86_64" or "arm64"
	Release string // "6.1", "6.12"
	Dir     string // vmlinux, modules/*.ko, and for Debian's packages config, version
	// Pinned is true for the builds whose figures the tests write down
	// (Debian 12's 6.1, whose package is pinned); for the others every
	// expectation is derived live, since the archive may have replaced
	// the build the tool fetched.
	Pinned bool
}

// kernelEnvs are the kernel builds make check-kernel provides.
var kernelEnvs = []struct {
	env                 string
	name, arch, release string
	pinned              bool
}{
	{"BTFI_KERNEL_DATA", "6.1-x86_64", "x86_64", "6.1", true},
	{"BTFI_KERNEL_DATA_ARM64", "6.1-arm64", "arm64", "6.1", true},
	{"BTFI_KERNEL_DATA_TRIXIE", "6.12-x86_64", "x86_64", "6.12", false},
	{"BTFI_KERNEL_DATA_ARM64_TRIXIE", "6.12-arm64", "arm64", "6.12", false},
}

// Kernels returns the kernel builds to check: Debian 12's 6.1 for x86-64
// ($BTFI_KERNEL_DATA) and arm64 ($BTFI_KERNEL_DATA_ARM64), and Debian
// 13's 6.12 for x86-64 ($BTFI_KERNEL_DATA_TRIXIE), which make
// check-kernel sets. Outside CI a build whose variable is unset is left
// out (with none, the test skips); inside CI each missing one fails.
func Kernels(t testing.TB) []Kernel {
	t.Helper()
	var ks []Kernel
	for _, e := range kernelEnvs {
		dir := os.Getenv(e.env)
		if dir == "" {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s unset (make check-kernel sets it)", e.env)
			}
			continue
		}
		ks = append(ks, Kernel{Name: e.name, Arch: e.arch, Release: e.release, Dir: dir, Pinned: e.pinned})
	}
	if len(ks) == 0 {
		missing(t, "kernel data: BTFI_KERNEL_DATA, BTFI_KERNEL_DATA_ARM64, BTFI_KERNEL_DATA_TRIXIE unset (make check-kernel sets them)")
	}
	return ks
}

// Modules returns the names of the build's modules (modules/*.ko): the
// same five for both 6.1 builds, and on 6.12 overlay in place of fuse
// (built in there).
func (k Kernel) Modules() []string {
	paths, _ := filepath.Glob(filepath.Join(k.Dir, "modules", "*.ko"))
	var out []string
	for _, p := range paths {
		out = append(out, strings.TrimSuffix(filepath.Base(p), ".ko"))
	}
	sort.Strings(out)
	return out
}

// Version is the Debian package version of the build (its folder's
// version file), or "" when it has none.
func (k Kernel) Version() string {
	b, _ := os.ReadFile(filepath.Join(k.Dir, "version"))
	return strings.TrimSpace(string(b))
}

// Vmlinux is the path of the build's vmlinux.
func (k Kernel) Vmlinux() string { return filepath.Join(k.Dir, "vmlinux") }

// Module is the path of module m of the build.
func (k Kernel) Module(m string) string { return filepath.Join(k.Dir, "modules", m+".ko") }

// A64Tool returns the path of an aarch64 binutils tool (as, ld, objdump)
// from scripts/a64tools, found through $BTFI_A64TOOLS.
func A64Tool(t testing.TB, name string) string {
	t.Helper()
	return toolIn(t, "BTFI_A64TOOLS", name, "aarch64 tool")
}

// Objdump returns an objdump that disassembles k's machine code.
func (k Kernel) Objdump(t testing.TB) string {
	if k.Arch == "arm64" {
		return A64Tool(t, "objdump")
	}
	return RefTool(t, "objdump")
}

// figuresDir is docs/figures of the repository: the figures the README and
// docs quote, one folder per kernel build.
func figuresDir() string { return filepath.Join(repoRoot(), "docs", "figures") }

// repoRoot is the repository's top folder.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// UpdateFigures says whether the figure files are being rewritten
// (BTFI_UPDATE_FIGURES=1: after a change that moves them, on purpose).
func UpdateFigures() bool { return os.Getenv("BTFI_UPDATE_FIGURES") != "" }

// Figures checks got against docs/figures/<k.Name>/<name>, the figures the
// README quotes for build k. For a pinned build a difference fails; for
// another build the file is compared only when it was written for the
// same package version (docs/figures/<k.Name>/version), since the archive
// may have replaced the build, whose figures are then only logged. With
// BTFI_UPDATE_FIGURES=1 the files are written instead.
func Figures(t testing.TB, k Kernel, name, got string) {
	t.Helper()
	dir := filepath.Join(figuresDir(), k.Name)
	path := filepath.Join(dir, name)
	version, _ := os.ReadFile(filepath.Join(k.Dir, "version"))
	if UpdateFigures() {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		if len(version) > 0 {
			os.WriteFile(filepath.Join(dir, "version"), version, 0o644)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("no figures file %s (write it with BTFI_UPDATE_FIGURES=1): %v", path, err)
		return
	}
	if !k.Pinned {
		if was, _ := os.ReadFile(filepath.Join(dir, "version")); !bytes.Equal(was, version) {
			t.Logf("%s: build %q, the figures are of %q: not compared; now:\n%s", name, bytes.TrimSpace(version), bytes.TrimSpace(was), got)
			return
		}
	}
	if string(want) != got {
		t.Errorf("%s figures changed (the README quotes them; BTFI_UPDATE_FIGURES=1 rewrites them on purpose):\n--- %s\n%s\n--- now\n%s", k.Name, path, want, got)
	}
}

// PackageFile returns the installed file of Debian package pkg whose name
// is base (scripts/setup installs the package), and the package's version.
func PackageFile(t testing.TB, pkg, base string) (path, version string) {
	t.Helper()
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", pkg).Output()
	if err != nil || len(out) == 0 {
		missing(t, "Debian package "+pkg+" (scripts/setup installs it)")
		return "", ""
	}
	version = string(out)
	list, err := exec.Command("dpkg", "-L", pkg).Output()
	if err != nil {
		missing(t, "file list of "+pkg)
		return "", ""
	}
	for _, p := range strings.Split(string(list), "\n") {
		if filepath.Base(p) == base {
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, version
			}
		}
	}
	missing(t, base+" in package "+pkg)
	return "", ""
}

// KcoreSegment is one PT_LOAD of a fake /proc/kcore: Data is the kernel
// memory at Addr.
type KcoreSegment struct {
	Addr uint64
	Data []byte
}

// WriteKcore writes path as the kernel writes /proc/kcore: a
// little-endian ELF64 core file with one PT_LOAD per segment, its
// virtual address the kernel address.
func WriteKcore(t testing.TB, path string, segs ...KcoreSegment) {
	t.Helper()
	const ehdr, phdr = 64, 56
	var b bytes.Buffer
	le := binary.LittleEndian
	b.Write([]byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	for _, v := range []any{uint16(4), uint16(62), uint32(1), uint64(0), uint64(ehdr), uint64(0),
		uint32(0), uint16(ehdr), uint16(phdr), uint16(len(segs)), uint16(64), uint16(0), uint16(0)} {
		binary.Write(&b, le, v)
	}
	off := uint64(ehdr + phdr*len(segs))
	for _, s := range segs {
		n := uint64(len(s.Data))
		for _, v := range []any{uint32(1), uint32(7), off, s.Addr, uint64(0), n, n, uint64(4096)} {
			binary.Write(&b, le, v)
		}
		off += n
	}
	for _, s := range segs {
		b.Write(s.Data)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
}

// DocSays fails t for each of wants that the repository file rel (a
// document) does not say, white space aside: the figures and constants a
// document quotes are the code's.
func DocSays(t testing.TB, rel string, wants ...string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(), rel))
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ")
	for _, w := range wants {
		if !strings.Contains(doc, w) {
			t.Errorf("%s does not say %q", rel, w)
		}
	}
}

// InChild runs the test named name again in a child process of the test
// binary, with env added to the environment, for what is the process's
// own (the collector's settings, the heap's mappings), and returns what
// the child printed; the child's failure fails t.
func InChild(t testing.TB, name string, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s in a child: %v\n%s", name, err, out)
	}
	return string(out)
}
