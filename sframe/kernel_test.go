package sframe

import (
	"path/filepath"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

// TestKernelUnwindAgrees runs the unwinding check over the Debian vmlinux
// .debug_frame and the modules' (relocated) .debug_frame.
func TestKernelUnwindAgrees(t *testing.T) {
	dir := testutil.KernelData(t)
	files := []string{"vmlinux"}
	for _, m := range []string{"tcp_bbr", "virtio_net", "fuse", "nf_tables", "xfs"} {
		files = append(files, filepath.Join("modules", m+".ko"))
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			for _, v := range []uint8{Version3, Version2} {
				vr := verifyFile(t, filepath.Join(dir, f), v)
				if f == "vmlinux" && v == Version3 && vr.FDEs != 46039 {
					t.Errorf("checked %d FDEs, want all 46039", vr.FDEs)
				}
			}
		})
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
	dir := testutil.KernelData(t)
	for _, m := range []string{"tcp_bbr", "xfs"} {
		t.Run(m, func(t *testing.T) {
			ours, em := emitInto(t, filepath.Join(dir, "modules", m+".ko"), Version3)
			want := readelfSFrame(t, ours)
			if got := ourDump(t, ours); got != want {
				t.Errorf("dump differs:\n%s", lineDiff(got, want))
			}
			if len(em.Section.FDEs) != em.CFIFDEs {
				t.Errorf("%d of %d FDEs kept: %v", len(em.Section.FDEs), em.CFIFDEs, em.Skipped)
			}
		})
	}
}
