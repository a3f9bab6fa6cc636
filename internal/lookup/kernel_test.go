package lookup

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/encode"
	"github.com/btfinline/btfinline/internal/testutil"
)

// kernelRoot is a / whose running kernel is build k, with module mod
// loaded, as Debian lays out its -dbg package: /sys serves the files'
// .BTF and notes, /usr/lib/debug holds the files.
func kernelRoot(t *testing.T, k testutil.Kernel, mod string) (root, rel string) {
	t.Helper()
	root = t.TempDir()
	section := func(path, name string) []byte {
		f, err := elf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		s := f.Section(name)
		if s == nil {
			t.Fatalf("%s has no %s", path, name)
		}
		b, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	write := func(p string, b []byte) {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(p, target string) {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	ko, err := elfobj.Open(k.Module(mod))
	if err != nil {
		t.Fatal(err)
	}
	rel, _, _ = strings.Cut(modinfo(ko, "vermagic"), " ")
	ko.Close()
	if rel == "" {
		t.Fatalf("%s: no vermagic", k.Module(mod))
	}
	write("/sys/kernel/btf/vmlinux", section(k.Vmlinux(), ".BTF"))
	write("/sys/kernel/notes", section(k.Vmlinux(), ".notes"))
	write("/sys/kernel/btf/"+mod, section(k.Module(mod), ".BTF"))
	write("/sys/module/"+mod+"/notes/.note.gnu.build-id", section(k.Module(mod), ".note.gnu.build-id"))
	write("/proc/sys/kernel/osrelease", []byte(rel+"\n"))
	write("/etc/os-release", []byte("ID=debian\n"))
	link("/usr/lib/debug/boot/vmlinux-"+rel, k.Vmlinux())
	link("/usr/lib/debug/lib/modules/"+rel+"/kernel/test/"+mod+".ko", k.Module(mod))
	return root, rel
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestKernelLookup: on each kernel, vmlinux and a module found by build id
// in Debian's layout, encoded in one run to the bytes "btfinline encode"
// writes, then read from the cache; "cache fetch --release" gives the same.
func TestKernelLookup(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		t.Run(k.Name, func(t *testing.T) {
			const mod = "tcp_bbr"
			root, rel := kernelRoot(t, k, mod)
			var log logLines
			o := (&fakeKernel{root: root}).options(t, &log)
			objs := []string{"vmlinux", mod}
			fs, err := Find(context.Background(), objs, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) != 2 {
				t.Fatalf("found %d objects", len(fs))
			}
			for i, f := range fs {
				if f.Object != objs[i] || f.From != FromEncoded {
					t.Fatalf("%d: %+v", i, f)
				}
				eo := o.Encode
				src := k.Vmlinux()
				if f.Object == mod {
					eo.Bases, src = []string{k.Vmlinux()}, k.Module(mod)
				}
				r, err := encode.File(src, eo)
				if err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(f.Path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, r.Data) {
					t.Errorf("%s: the cached file (%d bytes) is not what encode writes (%d)", f.Object, len(got), len(r.Data))
				}
			}
			again, err := Find(context.Background(), objs, o)
			if err != nil {
				t.Fatal(err)
			}
			for i, f := range again {
				if f.From != FromCache || f.Path != fs[i].Path {
					t.Errorf("second use of %s: %+v, want the cache", f.Object, f)
				}
			}
			o2 := o
			o2.Cache = Cache{Dir: filepath.Join(root, "cache2")}
			ps, err := Prepare(context.Background(), Request{Release: rel, Modules: []string{mod}}, o2)
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != 2 {
				t.Fatalf("prepared %d objects", len(ps))
			}
			for i, p := range ps {
				a, _ := os.ReadFile(p.Path)
				b, _ := os.ReadFile(fs[i].Path)
				if p.Object != fs[i].Object || p.BuildID != fs[i].BuildID || !bytes.Equal(a, b) {
					t.Errorf("cache fetch --release: %+v differs from %+v", p, fs[i])
				}
			}
			// By build id alone, vmlinux's release comes from its banner.
			link := filepath.Join(root, "/usr/lib/debug/.build-id", fs[0].BuildID[:2], fs[0].BuildID[2:]+".debug")
			os.MkdirAll(filepath.Dir(link), 0o755)
			if err := os.Symlink(k.Vmlinux(), link); err != nil {
				t.Fatal(err)
			}
			o3 := o
			o3.Cache = Cache{Dir: filepath.Join(root, "cache3")}
			if _, err := Prepare(context.Background(), Request{BuildIDs: []string{fs[0].BuildID}}, o3); err != nil {
				t.Fatal(err)
			}
			if l, err := o3.Cache.List(); err != nil || len(l) != 1 || l[0].Release != rel || l[0].Stale != "" {
				t.Errorf("cache fetch --build-id: %+v, %v; want one vmlinux entry of release %s", l, err, rel)
			}
			// Through a fetch: the downloads overlap, and vmlinux is
			// encoded while the module's file still arrives (its fetch
			// returns only once vmlinux is cached; done in turn, it would
			// wait for ever).
			o4 := o
			o4.Cache = Cache{Dir: filepath.Join(root, "cache4")}
			o4.Sys.Root = t.TempDir()
			copyTree(t, filepath.Join(root, "sys"), filepath.Join(o4.Sys.Root, "sys"))
			copyTree(t, filepath.Join(root, "proc"), filepath.Join(o4.Sys.Root, "proc"))
			started := make(chan struct{})
			o4.Fetch = func(ctx context.Context, id string) (string, error) {
				if id == fs[0].BuildID {
					close(started)
					return k.Vmlinux(), nil
				}
				<-started
				for i := 0; i < 1200; i++ {
					if _, err := os.Stat(filepath.Join(o4.Cache.Dir, fs[0].BuildID, "meta.json")); err == nil {
						return k.Module(mod), nil
					}
					time.Sleep(50 * time.Millisecond)
				}
				return "", errors.New("vmlinux was not encoded while the module's fetch was in flight")
			}
			fetched, err := Find(context.Background(), objs, o4)
			if err != nil {
				t.Fatal(err)
			}
			for i, f := range fetched {
				a, _ := os.ReadFile(f.Path)
				b, _ := os.ReadFile(fs[i].Path)
				if f.From != FromEncoded || !bytes.Equal(a, b) {
					t.Errorf("fetched %s: %+v, not the bytes of the local encode", f.Object, f)
				}
			}
			// Prepared entries serve the running kernel.
			o.Cache = o2.Cache
			fs3, err := Find(context.Background(), objs, o)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs3 {
				if f.From != FromCache {
					t.Errorf("%s after cache fetch: %s, want the cache", f.Object, f.From)
				}
			}
		})
	}
}
