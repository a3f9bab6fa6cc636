package resolve

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Formats are the output formats of "btfinline resolve".
var Formats = []string{"kprobe", "bpftrace", "perf", "json"}

// Write prints r in format.
func (r *Result) Write(w io.Writer, format string) error {
	switch format {
	case "kprobe":
		return r.writeKprobe(w)
	case "bpftrace":
		return r.writeBpftrace(w)
	case "perf":
		return r.writePerf(w)
	case "json":
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(r)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

func (r *Result) summary() string {
	inl, ent := 0, 0
	for _, p := range r.Places {
		if p.Kind == PlaceEntry {
			ent++
		} else {
			inl++
		}
	}
	return fmt.Sprintf("%s: %d inline site(s), %d out-of-line cop%s (%s, %s)", r.Func, inl, ent, plural(ent, "y", "ies"), r.Object, r.Arch)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// where describes a place for comments.
func (p *Place) where() string {
	var b strings.Builder
	if p.Kind == PlaceEntry {
		b.WriteString("entry of " + p.Symbol)
	} else {
		b.WriteString("inline site")
		if p.Caller != "" {
			fmt.Fprintf(&b, " in %s+%#x", p.Caller, p.CallerOff)
		}
	}
	if p.HasAddr {
		fmt.Fprintf(&b, " at %#x", p.Addr)
	}
	if p.Section != "" {
		fmt.Fprintf(&b, " (%s+%#x)", p.Section, p.SectionOff)
	}
	if p.Outer != "" {
		fmt.Fprintf(&b, ", nested in an inlined %s (depth %d)", p.Outer, p.Depth)
	}
	return b.String()
}

// skipped says why a place gets no probe line, or "".
func (p *Place) skipped() string {
	switch {
	case !p.Refusal.OK():
		return "notrace: " + p.Refusal.Detail
	case !p.HasAddr:
		if p.Note != "" {
			return p.Note
		}
		return "no address"
	case p.Target == "":
		return "no unambiguous probe point (caller name not unique, no _text base)"
	}
	return ""
}

func (r *Result) writeComments(w io.Writer, c string) {
	fmt.Fprintf(w, "%s %s\n", c, r.summary())
	for _, n := range r.Notes {
		fmt.Fprintf(w, "%s note: %s\n", c, n)
	}
}

func (p *Place) placeComments(w io.Writer, c string, fn string) {
	fmt.Fprintf(w, "%s %s: %s\n", c, p.Event, p.where())
	switch {
	case fn == "":
	case p.Outer == fn:
		fmt.Fprintf(w, "%s   inside another inlined %s: fires again within one call of the outer instance\n", c, fn)
	case p.Kind == PlaceInline && p.Outer == "" && (p.Caller == fn || strings.HasPrefix(p.Caller, fn+".")):
		fmt.Fprintf(w, "%s   inside the out-of-line %s itself: fires again within one call of it\n", c, p.Caller)
	}
	if p.Note != "" && p.HasAddr {
		fmt.Fprintf(w, "%s   %s\n", c, p.Note)
	}
	for _, f := range p.Fetches {
		if f.Unavailable != "" {
			fmt.Fprintf(w, "%s   %s unavailable: %s\n", c, f.Name, f.Unavailable)
		}
	}
}

func kprobeArgs(p *Place) string {
	var b strings.Builder
	for _, f := range p.Fetches {
		if f.Arg != "" {
			fmt.Fprintf(&b, " %s=%s", f.Name, f.Arg)
		}
	}
	return b.String()
}

func (r *Result) writeKprobe(w io.Writer) error {
	r.writeComments(w, "#")
	for i := range r.Places {
		p := &r.Places[i]
		p.placeComments(w, "#", r.Func)
		line := fmt.Sprintf("p:inline/%s %s%s", p.Event, p.Target, kprobeArgs(p))
		if why := p.skipped(); why != "" {
			fmt.Fprintf(w, "# (%s) %s\n", why, line)
			continue
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

func (r *Result) writePerf(w io.Writer) error {
	r.writeComments(w, "#")
	mod := ""
	for _, p := range r.Places {
		if i := strings.IndexByte(p.Target, ':'); i > 0 {
			mod = p.Target[:i]
		}
	}
	for i := range r.Places {
		p := &r.Places[i]
		p.placeComments(w, "#", r.Func)
		target := p.Target
		if mod != "" {
			target = strings.TrimPrefix(target, mod+":")
		}
		m := ""
		if mod != "" {
			m = "-m " + mod + " "
		}
		// --no-inlines: perf applies FUNC+OFF to every inlined instance
		// of FUNC too; the probe point here is the symbol's.
		line := fmt.Sprintf("perf probe %s--no-inlines -a 'inline:%s=%s%s'", m, p.Event, target, kprobeArgs(p))
		if why := p.skipped(); why != "" {
			fmt.Fprintf(w, "# (%s) %s\n", why, line)
			continue
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

func (r *Result) writeBpftrace(w io.Writer) error {
	r.writeComments(w, "//")
	for i := range r.Places {
		p := &r.Places[i]
		p.placeComments(w, "//", r.Func)
		var verbs, exprs []string
		for _, f := range p.Fetches {
			if f.Expr == "" {
				continue
			}
			verbs = append(verbs, f.Name+"="+f.Verb)
			exprs = append(exprs, f.Expr)
		}
		// bpftrace takes kprobe:func+offset with a decimal offset, and
		// (0.17, Debian 12's) no MODULE: qualifier ("kprobe probe type
		// requires 1 argument"): a module's symbol is looked up in all of
		// kallsyms.
		target := p.Target
		if i := strings.IndexByte(target, ':'); i > 0 {
			target = target[i+1:]
		}
		if j := strings.LastIndex(target, "+0x"); j > 0 {
			var off uint64
			fmt.Sscanf(target[j+3:], "%x", &off)
			target = fmt.Sprintf("%s+%d", target[:j], off)
		}
		fmtStr := strings.TrimSpace(p.Event + " " + strings.Join(verbs, " "))
		args := ""
		if len(exprs) > 0 {
			args = ", " + strings.Join(exprs, ", ")
		}
		line := fmt.Sprintf("kprobe:%s { printf(\"%s\\n\"%s); }", target, fmtStr, args)
		if why := p.skipped(); why != "" {
			fmt.Fprintf(w, "// (%s) %s\n", why, line)
			continue
		}
		fmt.Fprintln(w, line)
	}
	return nil
}
