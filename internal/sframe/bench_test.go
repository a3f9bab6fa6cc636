package sframe

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

func benchEmit(b *testing.B, path string) {
	if _, err := os.Stat(path); err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	var size int
	for b.Loop() {
		in, done, err := OpenFile(path)
		if err != nil {
			b.Fatal(err)
		}
		em, err := in.Emit(EmitOptions{Version: Version3})
		if err != nil {
			b.Fatal(err)
		}
		out, err := em.Encode(in.SectionAddr())
		if err != nil {
			b.Fatal(err)
		}
		size = len(out)
		done()
	}
	b.ReportMetric(float64(size), "sframe-bytes")
}

// benchReadelf times readelf merely printing the same CFI, for comparison.
func benchReadelf(b *testing.B, path string) {
	if _, err := os.Stat(path); err != nil {
		b.Skip(err)
	}
	readelf := testutil.RefTool(b, "readelf")
	for b.Loop() {
		cmd := exec.Command(readelf, "--debug-dump=frames", path)
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEmitFixture(b *testing.B) { benchEmit(b, filepath.Join(fixtures, "x86-O2.nosf.exe")) }

// libLLVM is the libLLVM of the package scripts/setup installs.
func libLLVM(b *testing.B) string {
	p, _ := testutil.PackageFile(b, "libllvm15", "libLLVM-15.so.1")
	return p
}

func BenchmarkEmitLLVM(b *testing.B)          { benchEmit(b, libLLVM(b)) }
func BenchmarkReadelfFramesLLVM(b *testing.B) { benchReadelf(b, libLLVM(b)) }

func BenchmarkKernelEmitVmlinux(b *testing.B) {
	benchEmit(b, filepath.Join(testutil.KernelData(b), "vmlinux"))
}

func BenchmarkKernelReadelfFramesVmlinux(b *testing.B) {
	benchReadelf(b, filepath.Join(testutil.KernelData(b), "vmlinux"))
}
