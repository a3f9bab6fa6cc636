package lookup

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/btfinline/btfinline/internal/elfobj"
)

// debugDir is where distributions install debug files.
const debugDir = "/usr/lib/debug"

// localCandidates are the paths, below root, where the DWARF of obj of
// kernel release rel may be: by build id first (every distribution's
// debug packages, and elfutils' own lookup), then by each distribution's
// layout. modFiles are a module's files in the debug tree of rel.
func localCandidates(root, obj, id, rel string, modFiles []string) []string {
	var c []string
	if len(id) > 2 {
		c = append(c, filepath.Join(root, debugDir, ".build-id", id[:2], id[2:]+".debug"))
	}
	if rel == "" {
		return c
	}
	if obj == "vmlinux" {
		return append(c,
			filepath.Join(root, debugDir, "boot", "vmlinux-"+rel),        // Debian, Ubuntu
			filepath.Join(root, debugDir, "lib/modules", rel, "vmlinux"), // Fedora, SUSE
			filepath.Join(root, "/boot", "vmlinux-"+rel),                 // a kernel built and installed by hand
			filepath.Join(root, "/lib/modules", rel, "build", "vmlinux"), // its build tree
		)
	}
	return append(c, modFiles...)
}

// normModule is a module's name as the kernel spells it: '-' in file
// names is '_' in /sys/module.
func normModule(name string) string { return strings.ReplaceAll(name, "-", "_") }

// moduleFiles walks the debug tree of release rel once: module name to
// its files (NAME.ko as Debian and Ubuntu ship them, NAME.ko.debug as
// Fedora does).
func moduleFiles(root, rel string) map[string][]string {
	out := map[string][]string{}
	if rel == "" {
		return out
	}
	top := filepath.Join(root, debugDir, "lib/modules", rel)
	filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		n := d.Name()
		for _, ext := range []string{".ko.debug", ".ko"} {
			if base, ok := strings.CutSuffix(n, ext); ok {
				out[normModule(base)] = append(out[normModule(base)], p)
				break
			}
		}
		return nil
	})
	return out
}

// checkDWARF opens a candidate once and says whether it is the object's
// DWARF: its build id must be id (any, for id "") and it must carry
// .debug_info and, for ownSHA other than "", the .BTF the kernel serves
// for the object (the inline BTF is split on it, and would not load on
// the running base otherwise). why is what to tell the user about a
// candidate that exists and is refused; "" with ok false means it does
// not exist.
func checkDWARF(path, id, ownSHA string) (ok bool, why string) {
	f, err := elfobj.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, ""
		}
		return false, err.Error()
	}
	defer f.Close()
	got, err := f.BuildID()
	switch {
	case id == "":
	case err != nil:
		return false, "build id unreadable: " + err.Error()
	case got == "":
		return false, "has no build id"
	case got != id:
		return false, fmt.Sprintf("is build %s, the running object is %s (another build of the same release?)", got, id)
	}
	if s := f.Section(".debug_info"); s == nil || s.Size == 0 {
		return false, "has no DWARF (.debug_info)"
	}
	if ownSHA == "" {
		return true, "" // Prepare: no running object to match; describe reads it
	}
	s := f.Section(".BTF")
	if s == nil {
		return false, "has no .BTF to split the inline BTF on (a debug-only file: give the object with its .BTF)"
	}
	b, err := f.Data(s)
	if err != nil {
		return false, ".BTF unreadable: " + err.Error()
	}
	if got := chainSHA(b); got != ownSHA {
		return false, "its .BTF differs from the running kernel's (" + short(got) + " vs " + short(ownSHA) + ")"
	}
	return true, ""
}

// osRelease reads ID and ID_LIKE of /etc/os-release below root.
func osRelease(root string) (id string, like []string) {
	f, err := os.Open(filepath.Join(root, "/etc/os-release"))
	if err != nil {
		return "", nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"'`)
		switch k {
		case "ID":
			id = v
		case "ID_LIKE":
			like = strings.Fields(v)
		}
	}
	return id, like
}

// installHint names the package that holds the DWARF of release rel on
// the distribution of root.
func installHint(root, rel string) string {
	if rel == "" {
		rel = "$(uname -r)"
	}
	id, like := osRelease(root)
	is := func(n string) bool { return id == n || strings.Contains(" "+strings.Join(like, " ")+" ", " "+n+" ") }
	switch {
	case id == "ubuntu":
		return "install linux-image-unsigned-" + rel + "-dbgsym (Ubuntu's ddebs archive), or set DEBUGINFOD_URLS (Ubuntu sets it to its server by default)"
	case is("debian"):
		return "install linux-image-" + rel + "-dbg (apt install linux-image-" + rel + "-dbg), or install libdebuginfod-common, which sets DEBUGINFOD_URLS to Debian's server in login shells"
	case is("fedora") || is("rhel"):
		return "install kernel-debuginfo (dnf debuginfo-install kernel-" + rel + "), or set DEBUGINFOD_URLS (Fedora sets it to its server by default)"
	}
	return "install the kernel's debug package (the DWARF of vmlinux and its modules, under " + debugDir + "), or set DEBUGINFOD_URLS to a debuginfod server that has it"
}
