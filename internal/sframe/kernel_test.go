package sframe

import (
	"fmt"
	"path/filepath"
	"strings"
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
				var fig strings.Builder
				for _, v := range []uint8{Version3, Version2} {
					vr := verifyFile(t, filepath.Join(k.Dir, f), v)
					if n, ok := wantFDEs[k.Name]; ok && f == "vmlinux" && v == Version3 && vr.FDEs != n {
						t.Errorf("checked %d FDEs, want all %d", vr.FDEs, n)
					}
					fmt.Fprintf(&fig, "SFrame v%d of vmlinux .debug_frame: %d FDEs, %d instruction boundaries and %d addresses between functions agree with the CFI\n", v, vr.FDEs, vr.Points, vr.GapPoints)
				}
				if f == "vmlinux" {
					testutil.Figures(t, k, "sframe-vmlinux.txt", fig.String())
				}
			})
		}
	}
}

// TestBigLibrariesUnwindAgrees runs the unwinding check (SFrame v3 and
// v2 against the CFI, at every instruction boundary) on the largest
// .eh_frame of a Debian system, libLLVM's, and on libc's and libstdc++'s:
// files of the packages scripts/setup installs, found through dpkg. It
// runs with the kernel checks (make check-kernel), for its time.
func TestBigLibrariesUnwindAgrees(t *testing.T) {
	for _, l := range []struct{ pkg, file string }{{"libllvm15", "libLLVM-15.so.1"}, {"libc6", "libc.so.6"}, {"libstdc++6", "libstdc++.so.6"}} {
		t.Run(l.file, func(t *testing.T) {
			p, _ := testutil.PackageFile(t, l.pkg, l.file)
			for _, v := range []uint8{Version3, Version2} {
				if vr := verifyFile(t, p, v); vr.FDEs == 0 {
					t.Errorf("%s: no FDE checked", p)
				}
			}
		})
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
