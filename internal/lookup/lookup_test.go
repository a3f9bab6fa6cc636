package lookup

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/btfinline/btfinline/internal/dwarfsite"
	"github.com/btfinline/btfinline/internal/encode"
	"github.com/btfinline/btfinline/internal/ksys"
)

// The demo object stands in for a vmlinux: an executable with DWARF, a
// .BTF made by pahole and a GNU build id.
const demo = "../../cmd/demo/demo"

const release = "6.1.0-test-amd64"

// fakeKernel is a / whose running kernel is the demo object: its .BTF
// served as /sys/kernel/btf/vmlinux, its build id in /sys/kernel/notes.
type fakeKernel struct {
	root, id string
	btf      []byte
}

func newFakeKernel(t *testing.T) *fakeKernel {
	t.Helper()
	f, err := elf.Open(demo)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := f.Section(".BTF").Data()
	if err != nil {
		t.Fatal(err)
	}
	var id []byte
	for _, s := range f.Sections {
		if s.Name == ".note.gnu.build-id" {
			d, _ := s.Data()
			id = d
		}
	}
	if id == nil {
		t.Fatal("demo has no build id note")
	}
	k := &fakeKernel{root: t.TempDir(), btf: b}
	k.id = hex.EncodeToString(id[16:])
	k.write(t, "/sys/kernel/btf/vmlinux", b)
	k.write(t, "/sys/kernel/notes", id)
	k.write(t, "/proc/sys/kernel/osrelease", []byte(release+"\n"))
	k.write(t, "/etc/os-release", []byte("PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n"))
	return k
}

func (k *fakeKernel) write(t *testing.T, p string, b []byte) string {
	t.Helper()
	p = filepath.Join(k.root, p)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (k *fakeKernel) install(t *testing.T, p, from string) string {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	return k.write(t, p, b)
}

// options are the command line's: encode's defaults, a log kept.
func (k *fakeKernel) options(t *testing.T, log *logLines) Options {
	langs, _ := dwarfsite.ParseLanguages("rust")
	return Options{Sys: ksys.System{Root: k.root}, Cache: Cache{Dir: filepath.Join(k.root, "cache")},
		NoFetch: "DEBUGINFOD_URLS is not set", Log: log.add,
		Encode: encode.Options{ExcludeLanguages: langs, ProbePoint: dwarfsite.ProbeBlock}}
}

type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(format string, a ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, a...))
	l.mu.Unlock()
}

func (l *logLines) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

func find1(t *testing.T, o Options) (Found, error) {
	t.Helper()
	fs, err := Find(context.Background(), []string{"vmlinux"}, o)
	if err != nil {
		return Found{}, err
	}
	if len(fs) != 1 {
		t.Fatalf("Find gave %d results", len(fs))
	}
	return fs[0], nil
}

// want is what "btfinline encode demo -o X" writes.
func want(t *testing.T, o Options) []byte {
	t.Helper()
	r, err := encode.File(demo, o.Encode)
	if err != nil {
		t.Fatal(err)
	}
	return r.Data
}

func TestFind(t *testing.T) {
	t.Run("kernel", func(t *testing.T) {
		k := newFakeKernel(t)
		p := k.write(t, "/sys/kernel/btf/vmlinux.inline", []byte("x"))
		f, err := find1(t, k.options(t, &logLines{}))
		if err != nil || f.From != FromKernel || f.Path != p {
			t.Fatalf("got %+v, %v; want the kernel's file", f, err)
		}
	})
	t.Run("nothing", func(t *testing.T) {
		k := newFakeKernel(t)
		_, err := find1(t, k.options(t, &logLines{}))
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Fatalf("got %v, want a NotFoundError", err)
		}
		msg := err.Error()
		for _, s := range []string{"vmlinux.inline: does not exist", "cache " + filepath.Join(k.root, "cache", k.id, "vmlinux.inline") + ": not there",
			".build-id/" + k.id[:2] + "/" + k.id[2:] + ".debug: does not exist", "/usr/lib/debug/boot/vmlinux-" + release + ": does not exist",
			"debuginfod: DEBUGINFOD_URLS is not set", "install linux-image-" + release + "-dbg", "build id " + k.id} {
			if !strings.Contains(msg, s) {
				t.Errorf("error does not say %q:\n%s", s, msg)
			}
		}
	})
	for _, layout := range []string{"/usr/lib/debug/boot/vmlinux-" + release, "/usr/lib/debug/lib/modules/" + release + "/vmlinux", "build-id"} {
		t.Run("local "+filepath.Base(layout), func(t *testing.T) {
			k := newFakeKernel(t)
			if layout == "build-id" {
				layout = "/usr/lib/debug/.build-id/" + k.id[:2] + "/" + k.id[2:] + ".debug"
			}
			src := k.install(t, layout, demo)
			var log logLines
			o := k.options(t, &log)
			f, err := find1(t, o)
			if err != nil {
				t.Fatal(err)
			}
			if f.From != FromEncoded || f.Source != src || f.BuildID != k.id {
				t.Fatalf("got %+v", f)
			}
			got, _ := os.ReadFile(f.Path)
			if !bytes.Equal(got, want(t, o)) {
				t.Fatal("the cached file is not what encode writes")
			}
			// The second use reads the cache, even with the DWARF gone.
			os.Remove(src)
			f2, err := find1(t, o)
			if err != nil || f2.From != FromCache || f2.Path != f.Path {
				t.Fatalf("second use: %+v, %v; want the cache", f2, err)
			}
		})
	}
	// Several objects: the plan says, before any work, what is ready,
	// what is encoded from which local file (with its size) and what is
	// nowhere; with KeepGoing a module with no DWARF costs that module
	// only, and is named in a MissingError.
	t.Run("plan", func(t *testing.T) {
		k := newFakeKernel(t)
		src := k.install(t, "/usr/lib/debug/boot/vmlinux-"+release, demo)
		k.write(t, "/sys/kernel/btf/ghost", []byte("module BTF"))
		k.write(t, "/sys/module/ghost/notes/.note.gnu.build-id", buildIDNote(t, strings.Repeat("ab", 20)))
		served := k.write(t, "/sys/kernel/btf/served.inline", []byte("x"))
		k.write(t, "/sys/kernel/btf/served", []byte("module BTF"))
		o := k.options(t, &logLines{})
		var plans []Plan
		o.Plan = func(p Plan) { plans = append(plans, p) }
		objs := []string{"vmlinux", "served", "ghost"}
		o.KeepGoing = true
		fs, err := Find(context.Background(), objs, o)
		var me *MissingError
		if !errors.As(err, &me) || len(me.Objects) != 1 || me.Objects[0].Object != "ghost" || !strings.Contains(err.Error(), "no inline BTF for 1 of the objects (ghost)") {
			t.Fatalf("got %v, want ghost missing", err)
		}
		if len(fs) != 2 || fs[0].Object != "vmlinux" || fs[0].From != FromEncoded || fs[1].Path != served {
			t.Fatalf("found %+v", fs)
		}
		st, _ := os.Stat(src)
		if len(plans) != 1 {
			t.Fatalf("%d plans", len(plans))
		}
		p := plans[0]
		if len(p.Ready) != 1 || p.Ready[0].Object != "served" || len(p.Local) != 1 || p.Local[0].Path != src || p.Local[0].Size != st.Size() ||
			len(p.Fetch) != 0 || !slices.Equal(p.Missing, []string{"ghost"}) {
			t.Fatalf("plan %+v", p)
		}
		// With fetching, ghost is in the fetch list with the size asked.
		plans = nil
		o.Fetch = func(context.Context, string) (string, error) { return "", errors.New("404") }
		o.FetchSize = func(_ context.Context, id string) int64 { return int64(len(id)) }
		if _, err := Find(context.Background(), objs, o); !errors.As(err, &me) {
			t.Fatalf("got %v", err)
		}
		if p := plans[0]; len(p.Ready) != 2 || len(p.Local) != 0 || len(p.Fetch) != 1 || p.Fetch[0].Object != "ghost" || p.Fetch[0].Size != 40 {
			t.Fatalf("plan %+v", p)
		}
		o.KeepGoing = false
		var nf *NotFoundError
		if _, err := Find(context.Background(), objs, o); !errors.As(err, &nf) || errors.As(err, &me) {
			t.Fatalf("without KeepGoing: %v, want ghost's NotFoundError", err)
		}
	})
	t.Run("another build", func(t *testing.T) {
		k := newFakeKernel(t)
		k.install(t, "/usr/lib/debug/boot/vmlinux-"+release, "../../e2e/kmod/btfi_e2e.ko")
		_, err := find1(t, k.options(t, &logLines{}))
		if err == nil || !strings.Contains(err.Error(), "is build 2c480b18526a2441e584aa508a89f4fc309416c3, the running object is "+k.id) {
			t.Fatalf("got %v, want the two build ids", err)
		}
	})
	t.Run("other base", func(t *testing.T) {
		// The same build id with another .BTF served: the DWARF's .BTF
		// would not be the base the kernel has.
		k := newFakeKernel(t)
		k.install(t, "/usr/lib/debug/boot/vmlinux-"+release, demo)
		b := bytes.Clone(k.btf)
		b[len(b)-2] ^= 1
		k.write(t, "/sys/kernel/btf/vmlinux", b)
		_, err := find1(t, k.options(t, &logLines{}))
		if err == nil || !strings.Contains(err.Error(), "its .BTF differs from the running kernel's") {
			t.Fatalf("got %v", err)
		}
	})
	for _, bad := range []string{"truncated", "corrupt", "foreign", "other base"} {
		t.Run("cache "+bad, func(t *testing.T) {
			k := newFakeKernel(t)
			src := k.install(t, "/usr/lib/debug/boot/vmlinux-"+release, demo)
			var log logLines
			o := k.options(t, &log)
			f, err := find1(t, o)
			if err != nil {
				t.Fatal(err)
			}
			good, _ := os.ReadFile(f.Path)
			switch bad {
			case "truncated":
				os.WriteFile(f.Path, good[:len(good)/2], 0o644)
			case "corrupt":
				b := bytes.Clone(good)
				b[len(b)/2] ^= 0xff
				os.WriteFile(f.Path, b, 0o644)
			case "foreign":
				os.Remove(filepath.Join(o.Cache.Dir, k.id, "meta.json"))
			case "other base":
				b := bytes.Clone(k.btf)
				b[len(b)-2] ^= 1
				k.write(t, "/sys/kernel/btf/vmlinux", b)
			}
			f2, err := find1(t, o)
			if bad == "other base" {
				// Refused, and not rebuilt from DWARF of another base.
				if err == nil || !strings.Contains(err.Error(), "made on another base BTF") {
					t.Fatalf("got %v", err)
				}
				return
			}
			if err != nil || f2.From != FromEncoded {
				t.Fatalf("got %+v, %v; want it rebuilt", f2, err)
			}
			if log.count("cached file refused") != 1 {
				t.Errorf("the refusal was not said: %q", log.lines)
			}
			if got, _ := os.ReadFile(f2.Path); !bytes.Equal(got, good) {
				t.Error("rebuilt file differs")
			}
			_ = src
		})
	}
	t.Run("fetch", func(t *testing.T) {
		k := newFakeKernel(t)
		var log logLines
		o := k.options(t, &log)
		asked := ""
		o.Fetch = func(_ context.Context, id string) (string, error) { asked = id; return demo, nil }
		f, err := find1(t, o)
		if err != nil || f.From != FromEncoded || f.Source != demo || asked != k.id {
			t.Fatalf("got %+v, %v (asked %q)", f, err, asked)
		}
		o.Fetch = func(context.Context, string) (string, error) {
			return "", errors.New("http://127.0.0.1:1: connection refused")
		}
		os.RemoveAll(o.Cache.Dir)
		_, err = find1(t, o)
		if err == nil || !strings.Contains(err.Error(), "debuginfod: http://127.0.0.1:1: connection refused") {
			t.Fatalf("got %v", err)
		}
		// A fetched file of another build is refused.
		o.Fetch = func(context.Context, string) (string, error) { return "../../e2e/kmod/btfi_e2e.ko", nil }
		_, err = find1(t, o)
		if err == nil || !strings.Contains(err.Error(), "is build 2c480b18") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		k := newFakeKernel(t)
		k.install(t, "/usr/lib/debug/boot/vmlinux-"+release, demo)
		var log logLines
		o := k.options(t, &log)
		var wg sync.WaitGroup
		res := make([]Found, 4)
		errs := make([]error, 4)
		for i := range res {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fs, err := Find(context.Background(), []string{"vmlinux"}, o)
				errs[i] = err
				if err == nil {
					res[i] = fs[0]
				}
			}()
		}
		wg.Wait()
		encoded := 0
		for i := range res {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if res[i].From == FromEncoded {
				encoded++
			}
		}
		if encoded != 1 || log.count("inline sites encoded") != 1 {
			t.Fatalf("%d of 4 encoded (%q); want the work done once", encoded, log.lines)
		}
	})
	t.Run("unwritable cache", func(t *testing.T) {
		k := newFakeKernel(t)
		k.install(t, "/usr/lib/debug/boot/vmlinux-"+release, demo)
		o := k.options(t, &logLines{})
		o.Cache.Dir = k.write(t, "/cache-is-a-file", nil)
		_, err := find1(t, o)
		if err == nil || !strings.Contains(err.Error(), "cache folder "+o.Cache.Dir) {
			t.Fatalf("got %v", err)
		}
	})
}

// TestCacheFullDisk writes into a 64 KiB tmpfs: a clear error, and no
// partial file left behind.
func TestCacheFullDisk(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := runMount(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mount tmpfs: %v: %s", err, out)
		}
		t.Skipf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { unmount(dir) })
	c := Cache{Dir: dir}
	id := strings.Repeat("ab", 20)
	err := c.Put(&Entry{BuildID: id, Object: "vmlinux"}, make([]byte, 1<<20))
	if err == nil || !strings.Contains(err.Error(), "is on a full disk") {
		t.Fatalf("got %v, want a full-disk error", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, id, "*"))
	tmp, _ := filepath.Glob(filepath.Join(dir, id, ".*tmp*"))
	if len(left)+len(tmp) != 0 {
		t.Fatalf("left behind: %q %q", left, tmp)
	}
}

func TestBuildIDNote(t *testing.T) {
	// The fake kernel's note reads as the demo's build id.
	k := newFakeKernel(t)
	if got := (ksys.System{Root: k.root}).BuildID("vmlinux", binary.LittleEndian); got != k.id {
		t.Fatalf("notes say %q, want %q", got, k.id)
	}
}

// buildIDNote is a GNU build id note of hex id, as
// /sys/module/M/notes/.note.gnu.build-id serves it.
func buildIDNote(t *testing.T, id string) []byte {
	t.Helper()
	desc, err := hex.DecodeString(id)
	if err != nil {
		t.Fatal(err)
	}
	b := binary.NativeEndian.AppendUint32(nil, 4)
	b = binary.NativeEndian.AppendUint32(b, uint32(len(desc)))
	b = binary.NativeEndian.AppendUint32(b, 3) // NT_GNU_BUILD_ID
	b = append(b, "GNU\x00"...)
	return append(b, desc...)
}
