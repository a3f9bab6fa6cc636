package lookup

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/btfinline/btfinline/internal/elfobj"
)

// Request names kernel objects to cache ahead of time, running or not
// (an image build prepares the kernel it installs).
type Request struct {
	// BuildIDs are found under /usr/lib/debug/.build-id or fetched.
	BuildIDs []string
	// Release: the vmlinux and modules of that release's debug tree
	// (Modules, if given, limits the modules).
	Release string
	Modules []string
}

// Prepare caches the inline BTF of every object req names. The base of
// the modules is the vmlinux among them: its .BTF is what the kernel will
// serve as /sys/kernel/btf/vmlinux, byte for byte.
func Prepare(ctx context.Context, req Request, o Options) ([]Found, error) {
	if o.Sys.Root == "" {
		o.Sys.Root = "/"
	}
	root := o.Sys.Root
	var files []string
	for _, id := range req.BuildIDs {
		id = strings.ToLower(id)
		if !validBuildID(id) {
			return nil, fmt.Errorf("--build-id %q: not a hex build id", id)
		}
		ob := &object{id: id, name: "build id " + id}
		if err := findDWARF(ctx, ob, o); err != nil {
			return nil, err
		}
		files = append(files, ob.dwarf)
	}
	if req.Release != "" {
		vm := &object{name: "vmlinux", rel: req.Release}
		if findLocal(vm, o); vm.dwarf == "" {
			return nil, notFound(vm, root)
		}
		files = append(files, vm.dwarf)
		tree := moduleFiles(root, req.Release)
		names := req.Modules
		if len(names) == 0 {
			for n := range tree {
				names = append(names, n)
			}
			slices.Sort(names)
		}
		for _, n := range names {
			l := tree[normModule(n)]
			if len(l) == 0 {
				return nil, fmt.Errorf("module %s: not in %s", n, filepath.Join(root, debugDir, "lib/modules", req.Release))
			}
			files = append(files, l[0])
		}
	}
	objs, err := describe(files, req.Release)
	if err != nil {
		return nil, err
	}
	return provide(ctx, nil, objs, o)
}

// describe reads what provide needs of each DWARF file: the object it is,
// its build id and its .BTF, the chain below it.
func describe(files []string, rel string) ([]*object, error) {
	type info struct {
		path, name, id, rel string
		own                 []byte
		module              bool
	}
	var infos []info
	vm := -1
	for _, p := range files {
		f, err := elfobj.Open(p)
		if err != nil {
			return nil, err
		}
		in := info{path: p, module: f.Type == elf.ET_REL}
		in.id, err = f.BuildID()
		if err == nil && in.id == "" {
			err = errors.New("no GNU build id")
		}
		if err == nil {
			if s := f.Section(".BTF"); s == nil {
				err = errors.New("no .BTF to split the inline BTF on")
			} else if b, e := f.Data(s); e != nil {
				err = e
			} else {
				in.own = bytes.Clone(b)
			}
		}
		if err == nil && in.module {
			in.name = modinfo(f, "name")
			in.rel, _, _ = strings.Cut(modinfo(f, "vermagic"), " ")
			if in.name == "" {
				in.name = normModule(strings.TrimSuffix(strings.TrimSuffix(filepath.Base(p), ".debug"), ".ko"))
			}
		}
		if !in.module {
			in.rel = bannerRelease(f)
		}
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if !in.module {
			if vm >= 0 && infos[vm].id != in.id {
				return nil, fmt.Errorf("two kernels: %s and %s", infos[vm].path, p)
			}
			in.name = "vmlinux"
			vm = len(infos)
		}
		infos = append(infos, in)
	}
	var objs []*object
	for _, in := range infos {
		ob := &object{name: in.name, id: in.id, rel: in.rel, dwarf: in.path, ownSHA: chainSHA(in.own)}
		if ob.rel == "" {
			ob.rel = rel
		}
		if in.module {
			if vm < 0 {
				return nil, fmt.Errorf("module %s: name its kernel too (its vmlinux's build id or release): a module's inline BTF is split on vmlinux's BTF", in.name)
			}
			ob.bases = []string{infos[vm].path}
			ob.baseSHA = chainSHA(infos[vm].own, in.own)
		} else {
			ob.baseSHA = chainSHA(in.own)
		}
		objs = append(objs, ob)
	}
	// The kernel's release, where only its modules say it.
	for _, ob := range objs {
		if ob.name == "vmlinux" && ob.rel == "" {
			for _, m := range objs {
				if m.rel != "" {
					ob.rel = m.rel
					break
				}
			}
		}
	}
	return objs, nil
}

// progbits is the contents of section name, nil if f has none.
func progbits(f *elfobj.File, name string) []byte {
	s := f.Section(name)
	if s == nil || s.Type != elf.SHT_PROGBITS {
		return nil
	}
	d, err := f.Data(s)
	if err != nil {
		return nil
	}
	return d
}

// modinfo returns the value of key in a module's .modinfo.
func modinfo(f *elfobj.File, key string) string {
	d := progbits(f, ".modinfo")
	for _, kv := range bytes.Split(d, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte(key+"=")); ok {
			return string(v)
		}
	}
	return ""
}

// bannerRelease is the release in a vmlinux's linux_banner ("Linux
// version R (builder) ..." in .rodata), "" if it has none; printk formats
// that contain the words are told apart by their "%".
func bannerRelease(f *elfobj.File) string {
	d := progbits(f, ".rodata")
	const prefix = "Linux version "
	for {
		i := bytes.Index(d, []byte(prefix))
		if i < 0 {
			return ""
		}
		d = d[i+len(prefix):]
		end := bytes.IndexAny(d, " \x00\n")
		if end > 0 && d[0] != '%' {
			return string(d[:end])
		}
	}
}
