package trace

import (
	"fmt"
	"strings"
)

// Probe is one PROBE of the command line: [MODULE:]FUNC[(ARG, ...)].
type Probe struct {
	Module string // "" = vmlinux, or the object of FILE
	Func   string
	Args   []Arg // nil: every parameter
}

// Arg is one argument to show: a parameter, or a member reached from a
// pointer parameter (p->a, p->b.c, skb->dev->name), with modifiers
// ":str" (the NUL-terminated string a char pointer or char array holds)
// and ":x" (integers in hex).
type Arg struct {
	Path []string // parameter, then members
	Sep  []string // Sep[i] joins Path[i] and Path[i+1]: "->" or "."
	Str  bool
	Hex  bool
}

// Name spells the argument as the output names it (without modifiers).
func (a Arg) Name() string {
	var b strings.Builder
	for i, p := range a.Path {
		if i > 0 {
			b.WriteString(a.Sep[i-1])
		}
		b.WriteString(p)
	}
	return b.String()
}

func (p Probe) String() string {
	s := p.Func
	if p.Module != "" {
		s = p.Module + ":" + s
	}
	if p.Args != nil {
		var as []string
		for _, a := range p.Args {
			n := a.Name()
			if a.Str {
				n += ":str"
			}
			if a.Hex {
				n += ":x"
			}
			as = append(as, n)
		}
		s += "(" + strings.Join(as, ", ") + ")"
	}
	return s
}

// ProbeError is a malformed PROBE.
type ProbeError struct {
	Probe string
	Msg   string
}

func (e *ProbeError) Error() string { return fmt.Sprintf("probe %q: %s", e.Probe, e.Msg) }

func isIdent(s string, extra string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || strings.ContainsRune(extra, c)):
		default:
			return false
		}
	}
	return true
}

// ParseProbe parses [MODULE:]FUNC[(ARG, ...)].
func ParseProbe(s string) (Probe, error) {
	bad := func(f string, a ...any) (Probe, error) { return Probe{}, &ProbeError{s, fmt.Sprintf(f, a...)} }
	head, args, hasArgs := strings.Cut(strings.TrimSpace(s), "(")
	var p Probe
	if mod, fn, ok := strings.Cut(head, ":"); ok {
		p.Module, p.Func = strings.TrimSpace(mod), strings.TrimSpace(fn)
		if !isIdent(p.Module, "-") {
			return bad("bad module name %q", p.Module)
		}
	} else {
		p.Func = strings.TrimSpace(head)
	}
	if !isIdent(p.Func, ".") {
		return bad("bad function name %q (want [MODULE:]FUNC[(ARG, ...)])", p.Func)
	}
	if !hasArgs {
		return p, nil
	}
	body, ok := strings.CutSuffix(strings.TrimSpace(args), ")")
	if !ok {
		return bad("missing \")\"")
	}
	p.Args = []Arg{}
	if strings.TrimSpace(body) == "" {
		return p, nil
	}
	for _, f := range strings.Split(body, ",") {
		a, err := parseArg(strings.TrimSpace(f))
		if err != nil {
			return bad("%v", err)
		}
		p.Args = append(p.Args, a)
	}
	return p, nil
}

func parseArg(s string) (Arg, error) {
	var a Arg
	path, mods, _ := strings.Cut(s, ":")
	if mods != "" {
		for _, m := range strings.Split(mods, ":") {
			switch m {
			case "str":
				a.Str = true
			case "x":
				a.Hex = true
			default:
				return a, fmt.Errorf("argument %q: unknown modifier %q (str, x)", s, m)
			}
		}
	}
	rest := strings.TrimSpace(path)
	for {
		i := strings.IndexAny(rest, "-.")
		name := rest
		if i >= 0 {
			name = rest[:i]
		}
		name = strings.TrimSpace(name)
		if !isIdent(name, "") {
			return a, fmt.Errorf("argument %q: bad name %q", s, name)
		}
		a.Path = append(a.Path, name)
		if i < 0 {
			return a, nil
		}
		sep := "."
		if rest[i] == '-' {
			if !strings.HasPrefix(rest[i:], "->") {
				return a, fmt.Errorf("argument %q: want \"->\" or \".\"", s)
			}
			sep = "->"
		}
		a.Sep = append(a.Sep, sep)
		rest = rest[i+len(sep):]
	}
}
