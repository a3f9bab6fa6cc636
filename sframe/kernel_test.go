package sframe

import (
	"path/filepath"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

// TestKernelUnwindAgrees runs the unwinding check over the Debian vmlinux
// .debug_frame and the modules' (relocated) .debug_frame, x86-64 and arm64
// (whose kernel signs return addresses: DW_CFA_AARCH64_negate_ra_state).
func TestKernelUnwindAgrees(t *testing.T) {
	wantFDEs := map[string]int{"6.1-x86_64": 46039, "6.1-arm64": 44940}
	for _, k := range testutil.Kernels(t) {
		files := []string{"vmlinux"}
		for _, m := range k.Modules() {
			files = append(files, filepath.Join("modules", m+".ko"))
		}
		for _, f := range files {
			t.Run(k.Name+"/"+f, func(t *testing.T) {
				if _, err := openFixture(t, filepath.Join(k.Dir, f)).Stats(); err != nil {
					t.Errorf("stats: %v", err)
				}
				for _, v := range []uint8{Version3, Version2} {
					vr := verifyFile(t, filepath.Join(k.Dir, f), v)
					if n, ok := wantFDEs[k.Name]; ok && f == "vmlinux" && v == Version3 && vr.FDEs != n {
						t.Errorf("checked %d FDEs, want all %d", vr.FDEs, n)
					}
				}
			})
		}
	}
}

// TestKernelLLVM checks the largest shared library on the machine.
func TestKernelLLVM(t *testing.T) {
	testutil.KernelData(t)
	for _, l := range []string{"/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1"} {
		t.Run(filepath.Base(l), func(t *testing.T) { verifyFile(t, l, Version3) })
	}
}

// TestKernelModuleSection adds .sframe (+ .rela.sframe) to kernel modules
// and checks that readelf reads it exactly as our dump prints it.
func TestKernelModuleSection(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		for _, m := range []string{"tcp_bbr", "xfs"} {
			t.Run(k.Name+"/"+m, func(t *testing.T) { checkModuleSection(t, filepath.Join(k.Dir, "modules", m+".ko")) })
		}
	}
}

func checkModuleSection(t *testing.T, ko string) {
	{
		{
			ours, em := emitInto(t, ko, Version3)
			want := readelfSFrame(t, ours)
			if got := ourDump(t, ours); got != want {
				t.Errorf("dump differs:\n%s", lineDiff(got, want))
			}
			if len(em.Section.FDEs) != em.CFIFDEs {
				t.Errorf("%d of %d FDEs kept: %v", len(em.Section.FDEs), em.CFIFDEs, em.Skipped)
			}
		}
	}
}
