package ksys

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/ksym"
)

// System is where the running kernel's files are: "/" normally, a fake
// tree in tests.
type System struct {
	Root string
}

func (s System) path(p string) string { return filepath.Join(s.Root, p) }

// Kallsyms reads /proc/kallsyms.
func (s System) Kallsyms() (*ksym.Kallsyms, error) {
	p := s.path("/proc/kallsyms")
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("kallsyms unreadable: %w", err)
	}
	defer f.Close()
	return ksym.ParseKallsyms(f, p)
}

// ModuleSection returns the runtime address of section sec of a loaded
// module from /sys/module/<mod>/sections/<sec>.
func (s System) ModuleSection(mod, sec string) (uint64, error) {
	p := s.path(filepath.Join("/sys/module", mod, "sections", sec))
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, fmt.Errorf("module %s section %s: %w", mod, sec, err)
	}
	t := strings.TrimSpace(string(b))
	v, err := strconv.ParseUint(strings.TrimPrefix(t, "0x"), 16, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: bad address %q", p, t)
	}
	if v == 0 {
		return 0, fmt.Errorf("%s: %w", p, ksym.ErrRestricted)
	}
	return v, nil
}

// BTFPath returns /sys/kernel/btf/<obj>.
func (s System) BTFPath(obj string) string { return s.path(filepath.Join("/sys/kernel/btf", obj)) }

// Blacklist is one entry of /sys/kernel/debug/kprobes/blacklist.
type Blacklist struct {
	Start, End uint64
	Name       string
}

// KprobeBlacklist reads /sys/kernel/debug/kprobes/blacklist
// ("0xSTART-0xEND\tSYMBOL" per line). ok is false when it is unreadable
// (debugfs not mounted, not root); the caller then falls back on the
// rules it can derive from symbols and says so.
func (s System) KprobeBlacklist() ([]Blacklist, bool, error) {
	p := s.path("/sys/kernel/debug/kprobes/blacklist")
	f, err := os.Open(p)
	if err != nil {
		return nil, false, nil
	}
	defer f.Close()
	bl, err := ParseKprobeBlacklist(f, p)
	if err != nil {
		return nil, false, err
	}
	return bl, true, nil
}

// ParseKprobeBlacklist parses the debugfs kprobe blacklist.
func ParseKprobeBlacklist(r io.Reader, path string) ([]Blacklist, error) {
	var out []Blacklist
	sc := bufio.NewScanner(r)
	n, nonzero := 0, false
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok || len(f) < 2 {
			return nil, &ksym.LineError{Path: path, Line: n, Msg: fmt.Sprintf("want \"0xSTART-0xEND SYMBOL\", got %q", sc.Text())}
		}
		a, err1 := strconv.ParseUint(strings.TrimPrefix(lo, "0x"), 16, 64)
		b, err2 := strconv.ParseUint(strings.TrimPrefix(hi, "0x"), 16, 64)
		if err1 != nil || err2 != nil {
			return nil, &ksym.LineError{Path: path, Line: n, Msg: fmt.Sprintf("bad range %q", f[0])}
		}
		if a != 0 || b != 0 {
			nonzero = true
		}
		out = append(out, Blacklist{a, b, f[1]})
	}
	if n > 0 && !nonzero {
		return nil, fmt.Errorf("%s: %w", path, ksym.ErrRestricted)
	}
	return out, sc.Err()
}

// FtraceFunctions reads available_filter_functions from tracefs (or its
// debugfs mount): the functions with an ftrace location, "name" or
// "name [module]" per line. ok is false when it is unreadable.
func (s System) FtraceFunctions() (map[string]bool, bool, error) {
	for _, p := range []string{"/sys/kernel/tracing/available_filter_functions", "/sys/kernel/debug/tracing/available_filter_functions"} {
		f, err := os.Open(s.path(p))
		if err != nil {
			continue
		}
		defer f.Close()
		names := map[string]bool{}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if fs := strings.Fields(sc.Text()); len(fs) > 0 {
				names[fs[0]] = true
			}
		}
		if err := sc.Err(); err != nil {
			return nil, false, fmt.Errorf("%s: %w", p, err)
		}
		return names, true, nil
	}
	return nil, false, nil
}

// BuildID returns the GNU build id the running kernel publishes for mod
// ("vmlinux": /sys/kernel/notes; a module: its notes in /sys/module), ""
// when it publishes none or it cannot be read. bo is the kernel's byte
// order.
func (s System) BuildID(mod string, bo binary.ByteOrder) string {
	p := "/sys/kernel/notes"
	if mod != "vmlinux" {
		p = filepath.Join("/sys/module", mod, "notes", ".note.gnu.build-id")
	}
	b, err := os.ReadFile(s.path(p))
	if err != nil {
		return ""
	}
	id, _ := elfobj.ParseBuildIDNote(b, bo)
	return id
}
