package dwarfsite

import (
	"path/filepath"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

// BenchmarkKernelSites reads every inline site of the Debian vmlinux.
// Goal: less wall time than "pahole -J" on the same file (about 5 s),
// peak RSS under 1 GiB.
func BenchmarkKernelSites(b *testing.B) {
	dir := testutil.KernelData(b)
	b.ReportAllocs()
	for b.Loop() {
		res, err := ReadFile(filepath.Join(dir, "vmlinux"), Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(res.Sites)), "sites")
	}
}

// BenchmarkFixtureSites reads the checked-in x86-64 fixture.
func BenchmarkFixtureSites(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFile(filepath.Join(fixtureDir, "sites-x86_64"), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
