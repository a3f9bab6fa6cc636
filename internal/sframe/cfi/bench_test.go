package cfi

import (
	"debug/elf"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

// libLLVM has one of the largest .eh_frame sections on a Debian system
// (about 4 MB, 100k FDEs), so its decode time is dominated by the byte
// cursor rather than by setup. It is the file of the package scripts/setup
// installs.
func benchLLVM(b *testing.B) string {
	p, _ := testutil.PackageFile(b, "libllvm15", "libLLVM-15.so.1")
	return p
}

func benchSection(b *testing.B, path, name string, kind Kind) *Section {
	f, err := elf.Open(path)
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	s := f.Section(name)
	if s == nil {
		b.Skipf("%s has no %s", path, name)
	}
	data, err := s.Data()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	return &Section{Kind: kind, Data: data, Addr: s.Addr, Order: f.ByteOrder, PtrSize: 8}
}

// BenchmarkParseLLVM walks the CIEs and FDEs of libLLVM's .eh_frame.
func BenchmarkParseLLVM(b *testing.B) {
	s := benchSection(b, benchLLVM(b), ".eh_frame", EHFrame)
	b.ReportAllocs()
	for b.Loop() {
		res, err := Parse(s)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(res.FDEs)), "fdes")
	}
}

// BenchmarkInsnsLLVM decodes every call frame instruction of libLLVM's
// .eh_frame (parsed once, outside the loop).
func BenchmarkInsnsLLVM(b *testing.B) {
	s := benchSection(b, benchLLVM(b), ".eh_frame", EHFrame)
	res, err := Parse(s)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, f := range res.FDEs {
			ir := f.Insns()
			var in Insn
			for ir.Next(&in) {
				n++
			}
			if err := ir.Err(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n), "insns")
	}
}
