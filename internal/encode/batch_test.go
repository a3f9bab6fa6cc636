package encode

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

// checkBatch encodes paths in one Batch on bases, with each number of
// jobs, and requires each output to be byte for byte File's for that path
// alone, reported in the order given. fails lists the paths that must
// fail (with the error File gives) while the others are written.
func checkBatch(t *testing.T, paths, bases []string, o Options, fails map[string]bool) {
	t.Helper()
	o.Bases = bases
	want := map[string][]byte{}
	wantErr := map[string]string{}
	for _, p := range paths {
		r, err := File(p, o)
		if err != nil {
			if !fails[p] {
				t.Fatalf("%s: %v", p, err)
			}
			wantErr[p] = err.Error()
			continue
		}
		if fails[p] {
			t.Fatalf("%s: encodes, want an error", p)
		}
		want[p] = r.Data
	}
	for _, jobs := range []int{1, 2, 8} {
		dir := t.TempDir()
		var js []Job
		for _, p := range paths {
			js = append(js, Job{Path: p, Out: OutputIn(dir, p)})
		}
		var reported []string
		err := Batch(js, BatchOptions{Options: o, Jobs: jobs}, func(j Job, r *Result, note string, err error) {
			reported = append(reported, j.Path)
			switch {
			case err != nil && err.Error() != wantErr[j.Path]:
				t.Errorf("jobs %d: %s: error %v, want %q", jobs, j.Path, err, wantErr[j.Path])
			case err == nil && (r.Spec != nil || r.Base != nil):
				t.Errorf("jobs %d: %s: the batch kept the Specs", jobs, j.Path)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(reported, " ") != strings.Join(paths, " ") {
			t.Errorf("jobs %d: reported %v, want %v", jobs, reported, paths)
		}
		for _, p := range paths {
			got, err := os.ReadFile(OutputIn(dir, p).Path)
			if fails[p] {
				if err == nil {
					t.Errorf("jobs %d: %s: output written despite the error", jobs, p)
				}
				continue
			}
			if err != nil {
				t.Errorf("jobs %d: %v", jobs, err)
			} else if !bytes.Equal(got, want[p]) {
				t.Errorf("jobs %d: %s: batch output (%d bytes) differs from the one-by-one output (%d bytes)", jobs, p, len(got), len(want[p]))
			}
		}
	}
}

// TestBatch: a batch writes what one run per file writes, whatever the
// number of jobs, and one file's error costs that file only.
func TestBatch(t *testing.T) {
	t.Run("no base", func(t *testing.T) {
		var paths []string
		for _, n := range []string{"kern.elf", "kern.a64.elf", "rust.elf", "rust-all.elf"} {
			paths = append(paths, fixturePath(n))
		}
		checkBatch(t, paths, nil, Options{ExcludeLanguages: []string{"rust"}}, nil)
	})
	t.Run("modules", func(t *testing.T) {
		mod, other := fixturePath("mod.ko"), fixturePath("mod-other.ko")
		checkBatch(t, []string{other, mod}, []string{fixturePath("kern.elf")}, Options{}, map[string]bool{other: true})
	})
}

func TestBatchErrors(t *testing.T) {
	dir := t.TempDir()
	mod := fixturePath("mod.ko")
	for _, c := range []struct {
		name string
		jobs []Job
		o    BatchOptions
		want string
	}{
		{"two write one file", []Job{{mod, OutputIn(dir, mod)}, {mod, OutputIn(dir, "other/mod.ko")}}, BatchOptions{}, "would both write"},
		{"no output", []Job{{mod, Output{}}}, BatchOptions{}, "-o OUT"},
		{"base", []Job{{mod, OutputIn(dir, mod)}}, BatchOptions{Options: Options{Bases: []string{filepath.Join(dir, "none")}}}, "no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Batch(c.jobs, c.o, func(Job, *Result, string, error) { t.Error("a job ran") })
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one mentioning %q", err, c.want)
			}
		})
	}
}

// TestKernelBatch: the five modules of each kernel in one batch on its
// vmlinux, byte for byte their one-by-one outputs.
func TestKernelBatch(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		t.Run(k.Name, func(t *testing.T) {
			var paths []string
			for _, m := range k.Modules() {
				paths = append(paths, k.Module(m))
			}
			checkBatch(t, paths, []string{k.Vmlinux()}, Options{ExcludeLanguages: []string{"rust"}}, nil)
		})
	}
}
