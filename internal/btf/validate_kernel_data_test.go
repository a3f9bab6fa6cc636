package btf

import (
	"path/filepath"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

// TestKernelValidateBothLoaders: the Debian kernels' vmlinux BTF and the
// modules' BTF split on it are accepted by BPF_BTF_LOAD's rules and by the
// boot/module loader's.
func TestKernelValidateBothLoaders(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		t.Run(k.Name, func(t *testing.T) {
			vm, err := LoadFile(filepath.Join(k.Dir, "vmlinux"), nil)
			if err != nil {
				t.Fatal(err)
			}
			check := func(t *testing.T, s *Spec) {
				for _, l := range []Loader{LoaderBTFLoad, LoaderKernel} {
					if errs := s.ValidateFor(l); len(errs) != 0 {
						t.Errorf("%s: %d violations, first %v", l, len(errs), errs[0])
					}
				}
			}
			t.Run("vmlinux", func(t *testing.T) { check(t, vm) })
			for _, name := range k.Modules() {
				t.Run(name, func(t *testing.T) {
					s, err := LoadFile(filepath.Join(k.Dir, "modules", name+".ko"), vm)
					if err != nil {
						t.Fatal(err)
					}
					check(t, s)
				})
			}
		})
	}
}
