package ksym

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrRestricted is returned when /proc/kallsyms or /sys/module/*/sections
// show all-zero addresses: the reader lacks CAP_SYSLOG (or
// kernel.kptr_restrict hides them), so no address can be derived.
var ErrRestricted = errors.New("kernel addresses are hidden (all zero): run as root or lower kernel.kptr_restrict")

// LineError reports a malformed line of a kernel text file (/proc/kallsyms,
// the kprobe blacklist).
type LineError struct {
	Path string
	Line int
	Msg  string
}

func (e *LineError) Error() string {
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
			return nil, &LineError{path, n, fmt.Sprintf("want \"ADDR TYPE NAME [MODULE]\", got %q", line)}
		}
		addr, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil {
			return nil, &LineError{path, n, fmt.Sprintf("bad address %q", f[0])}
		}
		if addr != 0 {
			nonzero = true
		}
		mod := ""
		if len(f) == 4 {
			if !strings.HasPrefix(f[3], "[") || !strings.HasSuffix(f[3], "]") {
				return nil, &LineError{path, n, fmt.Sprintf("bad module tag %q", f[3])}
			}
			mod = f[3][1 : len(f[3])-1]
		}
		name := f[2]
		switch f[1][0] {
		case 't', 'T', 'w', 'W':
			if !IsPadding(name) {
				k.Text = append(k.Text, Symbol{Name: name, Addr: addr, Global: f[1][0] == 'T' || f[1][0] == 'W', Module: mod})
			}
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
		return nil, &LineError{path, 0, "empty"}
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
