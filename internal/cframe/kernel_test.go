package cframe

import (
	"path/filepath"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

// cliStrategies are the two the command line offers.
var cliStrategies = []Options{tableOptions[0], tableOptions[2]}

// TestKernelUnwindAgrees: the unwinding check on the Debian vmlinux
// (.debug_frame) and modules, x86-64 and arm64, for both strategies: every
// function kept, every instruction boundary, every gap.
func TestKernelUnwindAgrees(t *testing.T) {
	wantFuncs := map[string]int{"6.1-x86_64": 46039, "6.1-arm64": 44940}
	for _, k := range testutil.Kernels(t) {
		files := []string{"vmlinux"}
		for _, m := range k.Modules() {
			files = append(files, filepath.Join("modules", m+".ko"))
		}
		for _, f := range files {
			for _, o := range cliStrategies {
				t.Run(k.Name+"/"+f+"/"+optName(o), func(t *testing.T) {
					e, vr := verifyPath(t, filepath.Join(k.Dir, f), o)
					if vr.NotKept != 0 || len(e.Built.Stats.Dropped) != 0 {
						t.Errorf("%d functions not kept: %v", vr.NotKept, e.Built.Stats.Dropped)
					}
					if n, ok := wantFuncs[k.Name]; ok && f == "vmlinux" && vr.FDEs != n {
						t.Errorf("checked %d functions, want all %d", vr.FDEs, n)
					}
					if f != "vmlinux" && len(e.Sections) == 0 {
						t.Error("a module's table has no section map")
					}
				})
			}
		}
	}
}

// TestKernelLLVM: the same on libLLVM (98,256 functions, 12.6 M
// instruction boundaries).
func TestKernelLLVM(t *testing.T) {
	testutil.KernelData(t)
	p, _ := testutil.PackageFile(t, "libllvm15", "libLLVM-15.so.1")
	for _, o := range cliStrategies {
		t.Run(optName(o), func(t *testing.T) { verifyPath(t, p, o) })
	}
}
