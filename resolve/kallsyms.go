package resolve

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrRestricted is returned when /proc/kallsyms or /sys/module/*/sections
// show all-zero addresses: the reader lacks CAP_SYSLOG (or
// kernel.kptr_restrict hides them), so no address can be derived.
var ErrRestricted = errors.New("kernel addresses are hidden (all zero): run as root or lower kernel.kptr_restrict")

// KallsymsError reports a malformed /proc/kallsyms line.
type KallsymsError struct {
	Path string
	Line int
	Msg  string
}

func (e *KallsymsError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
}

// Kallsyms is a parsed /proc/kallsyms.
type Kallsyms struct {
	// Text holds the text symbols (types t, T, w, W) with their modules.
	Text []Symbol
	// vars holds every symbol's address by name for vmlinux (first wins),
	// for _text, _stext, _sinittext and the section markers.
	vars map[string]uint64
}

// ParseKallsyms reads /proc/kallsyms text: "ADDR TYPE NAME [MODULE]".
// A file whose addresses are all zero gives ErrRestricted.
func ParseKallsyms(r io.Reader, path string) (*Kallsyms, error) {
	k := &Kallsyms{vars: map[string]uint64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n, nonzero := 0, false
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 || len(f) > 4 || len(f[1]) != 1 {
			return nil, &KallsymsError{path, n, fmt.Sprintf("want \"ADDR TYPE NAME [MODULE]\", got %q", line)}
		}
		addr, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil {
			return nil, &KallsymsError{path, n, fmt.Sprintf("bad address %q", f[0])}
		}
		if addr != 0 {
			nonzero = true
		}
		mod := ""
		if len(f) == 4 {
			if !strings.HasPrefix(f[3], "[") || !strings.HasSuffix(f[3], "]") {
				return nil, &KallsymsError{path, n, fmt.Sprintf("bad module tag %q", f[3])}
			}
			mod = f[3][1 : len(f[3])-1]
		}
		name := f[2]
		switch f[1][0] {
		case 't', 'T', 'w', 'W':
			k.Text = append(k.Text, Symbol{Name: name, Addr: addr, Global: f[1][0] == 'T' || f[1][0] == 'W', Module: mod})
		}
		if mod == "" {
			if _, dup := k.vars[name]; !dup {
				k.vars[name] = addr
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if n == 0 {
		return nil, &KallsymsError{path, 0, "empty"}
	}
	if !nonzero {
		return nil, fmt.Errorf("%s: %w", path, ErrRestricted)
	}
	return k, nil
}

// Addr returns the address of a vmlinux symbol.
func (k *Kallsyms) Addr(name string) (uint64, bool) {
	a, ok := k.vars[name]
	return a, ok
}

// TextBase returns the runtime address of the kernel image's anchor:
// _stext, which every architecture's kallsyms lists (arm64's has no
// _text), else _text. It is the base of CONST|ADDR values
// (locsec.ObjectBase) and of "_stext+0xoff" probe points.
func (k *Kallsyms) TextBase() (uint64, error) {
	for _, n := range []string{"_stext", "_text"} {
		if a, ok := k.vars[n]; ok && a != 0 {
			return a, nil
		}
	}
	return 0, errors.New("kallsyms has neither _text nor _stext")
}

// SymTab returns the text symbols of module mod ("" or "vmlinux" for the
// kernel image) as a symbol table.
func (k *Kallsyms) SymTab(mod string) *SymTab {
	if mod == "vmlinux" {
		mod = ""
	}
	var l []Symbol
	for _, s := range k.Text {
		if s.Module == mod {
			l = append(l, s)
		}
	}
	return newSymTab(false, l)
}

// System is where the running kernel's files are: "/" normally, a fake
// tree in tests.
type System struct {
	Root string
}

func (s System) path(p string) string { return filepath.Join(s.Root, p) }

// Kallsyms reads /proc/kallsyms.
func (s System) Kallsyms() (*Kallsyms, error) {
	p := s.path("/proc/kallsyms")
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("kallsyms unreadable: %w", err)
	}
	defer f.Close()
	return ParseKallsyms(f, p)
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
		return 0, fmt.Errorf("%s: %w", p, ErrRestricted)
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
			return nil, &KallsymsError{path, n, fmt.Sprintf("want \"0xSTART-0xEND SYMBOL\", got %q", sc.Text())}
		}
		a, err1 := strconv.ParseUint(strings.TrimPrefix(lo, "0x"), 16, 64)
		b, err2 := strconv.ParseUint(strings.TrimPrefix(hi, "0x"), 16, 64)
		if err1 != nil || err2 != nil {
			return nil, &KallsymsError{path, n, fmt.Sprintf("bad range %q", f[0])}
		}
		if a != 0 || b != 0 {
			nonzero = true
		}
		out = append(out, Blacklist{a, b, f[1]})
	}
	if n > 0 && !nonzero {
		return nil, fmt.Errorf("%s: %w", path, ErrRestricted)
	}
	return out, sc.Err()
}
