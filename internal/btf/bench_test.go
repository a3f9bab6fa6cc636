package btf

import (
	"io"
	"testing"
)

// Benchmarks on the checked-in Debian 6.1 vmlinux BTF (95,057 types, 4 MB).

func BenchmarkParseVmlinux(b *testing.B) {
	raw, _ := vmlinux(b)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(raw, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalVmlinux(b *testing.B) {
	raw, s := vmlinux(b)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Marshal(MarshalOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateVmlinux(b *testing.B) {
	_, s := vmlinux(b)
	b.ReportAllocs()
	for b.Loop() {
		if errs := s.Validate(); len(errs) != 0 {
			b.Fatal(errs[0])
		}
	}
}

// BenchmarkParseValidateVmlinux is the "decode+validate" figure.
func BenchmarkParseValidateVmlinux(b *testing.B) {
	raw, _ := vmlinux(b)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := Parse(raw, nil)
		if err != nil {
			b.Fatal(err)
		}
		if errs := s.Validate(); len(errs) != 0 {
			b.Fatal(errs[0])
		}
	}
}

func BenchmarkDumpVmlinux(b *testing.B) {
	_, s := vmlinux(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Dump(io.Discard, DumpOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAddStringVmlinux: the first AddString on split BTF builds the
// vmlinux string index.
func BenchmarkAddStringVmlinux(b *testing.B) {
	raw, _ := vmlinux(b)
	b.ReportAllocs()
	for b.Loop() {
		vm, _ := Parse(raw, nil)
		s := NewSpec(vm)
		s.AddString("task_struct")
		s.AddString("not.in.vmlinux")
	}
}
