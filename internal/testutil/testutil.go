// Package testutil finds the external reference tools and data that the
// tests compare against. "make test" provides them (scripts/setup); a plain
// "go test" outside CI skips the comparisons it cannot make, and inside CI
// (CI=true) a missing tool is a failure, so that a comparison can never pass
// by not running.
package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
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
// (llvm-dwarfdump, gdb, aarch64-linux-gnu-gcc, ...).
func SystemTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		missing(t, "system tool "+name+" (scripts/setup installs it)")
	}
	return p
}

// KernelData returns the folder of ../shared/tools/kernel-data (the Debian
// 6.1 vmlinux and modules), from $BTFI_KERNEL_DATA. Only the check-kernel
// and bench targets set it.
func KernelData(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("BTFI_KERNEL_DATA")
	if dir == "" {
		t.Skip("BTFI_KERNEL_DATA unset (make check-kernel sets it)")
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

// Kernel is one real kernel build of the kernel data: the Debian 6.1
// x86-64 kernel of ../shared/tools/kernel-data and, when fetched, its arm64
// build (scripts/kernel-data-arm64).
type Kernel struct {
	Arch string // "x86_64" or "arm64"
	Dir  string // vmlinux, modules/*.ko
}

// Kernels returns the kernel builds to check: x86-64 from
// $BTFI_KERNEL_DATA (skipping without it, like KernelData) and arm64 from
// $BTFI_KERNEL_DATA_ARM64, which make check-kernel sets too (inside CI it
// must be set).
func Kernels(t testing.TB) []Kernel {
	t.Helper()
	ks := []Kernel{{"x86_64", KernelData(t)}}
	if dir := os.Getenv("BTFI_KERNEL_DATA_ARM64"); dir != "" {
		ks = append(ks, Kernel{"arm64", dir})
	} else if os.Getenv("CI") != "" {
		t.Fatal("BTFI_KERNEL_DATA_ARM64 unset (make check-kernel sets it)")
	}
	return ks
}

// KernelModules are the modules both kernel builds provide.
var KernelModules = []string{"tcp_bbr", "virtio_net", "fuse", "nf_tables", "xfs"}

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
