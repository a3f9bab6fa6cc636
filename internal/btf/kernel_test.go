package btf

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

// TestKernelELF reads the Debian 6.1 vmlinux and modules themselves (not
// the checked-in extracts): .BTF round-trips, validates, and dumps like
// both bpftools, for vmlinux and every module split on it.
func TestKernelELF(t *testing.T) {
	tools := bpftools(t)
	for _, k := range testutil.Kernels(t) {
		t.Run(k.Name, func(t *testing.T) { checkKernelELF(t, k, tools) })
	}
}

func checkKernelELF(t *testing.T, k testutil.Kernel, tools map[string]string) {
	vmPath := filepath.Join(k.Dir, "vmlinux")
	vm, err := LoadFile(vmPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if k.Name == "6.1-x86_64" {
		raw, _ := vmlinux(t)
		if !bytes.Equal(mustMarshal(t, vm, MarshalOptions{}), raw) {
			t.Fatal("vmlinux .BTF differs from btf/testdata/vmlinux.btf.gz (make -C btf/testdata kernel)")
		}
	} else {
		f, err := elf.Open(vmPath)
		if err != nil {
			t.Fatal(err)
		}
		want, err := f.Section(".BTF").Data()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mustMarshal(t, vm, MarshalOptions{}), want) {
			t.Fatal("vmlinux .BTF round trip differs")
		}
	}
	check := func(t *testing.T, s *Spec, args ...string) {
		if errs := s.Validate(); len(errs) != 0 {
			t.Fatalf("%d violations, first %v", len(errs), errs[0])
		}
		var b bytes.Buffer
		if err := s.Dump(&b, DumpOptions{}); err != nil {
			t.Fatal(err)
		}
		for name, tool := range tools {
			want := runBpftool(t, tool, append([]string{"btf", "dump"}, args...)...)
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("%s: %s", name, firstDiff(b.String(), string(want)))
			}
		}
	}
	t.Run("vmlinux", func(t *testing.T) { check(t, vm, "file", vmPath) })
	for _, name := range k.Modules() {
		m := filepath.Join(k.Dir, "modules", name+".ko")
		t.Run(name, func(t *testing.T) {
			s, err := LoadFile(m, vm)
			if err != nil {
				t.Fatal(err)
			}
			f, err := elf.Open(m)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			want, err := f.Section(".BTF").Data()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(mustMarshal(t, s, MarshalOptions{}), want) {
				t.Fatal("round trip differs")
			}
			check(t, s, "-B", vmPath, "file", m)
		})
	}
}

// TestSysfsBTF reads the running kernel's BTF from /sys/kernel/btf (raw,
// reported size 0 or 4096): it round-trips, validates and dumps like both
// bpftools. Newer kernels than the 6.1 fixture carry DECL_TAG, TYPE_TAG and
// kflag variants.
func TestSysfsBTF(t *testing.T) {
	const p = "/sys/kernel/btf/vmlinux"
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Skipf("no %s: %v", p, err)
	}
	tools := bpftools(t)
	s, err := LoadFile(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustMarshal(t, s, MarshalOptions{}), raw) {
		t.Fatal("round trip differs")
	}
	if errs := s.Validate(); len(errs) != 0 {
		t.Fatalf("%d violations, first %v", len(errs), errs[0])
	}
	var b bytes.Buffer
	s.Dump(&b, DumpOptions{})
	for name, tool := range tools {
		want := runBpftool(t, tool, "btf", "dump", "file", p)
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s: %s", name, firstDiff(b.String(), string(want)))
		}
	}
}
