package trace

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/btfinline/btfinline/internal/resolve"
)

// plan is every probe of a run and every site they attach to; the index
// of a site in sites is its cookie.
type plan struct {
	probes []*probePlan
	sites  []*site
	filter *Filter
	mode   Mode
	tgid   uint32
}

// Object names the object a probe refers to: its module, else vmlinux.
func (p Probe) Object() string {
	if p.Module == "" {
		return "vmlinux"
	}
	return p.Module
}

// InlineObject names the object an --inline file holds, by its name:
// vmlinux.inline, fuse.inline.
func InlineObject(file string) string { return strings.TrimSuffix(filepath.Base(file), ".inline") }

// openTargets opens the object of every probe: FILE (on the running
// kernel's addresses) or the running kernel's BTF.
func openTargets(o Options) (map[string]*resolve.Target, error) {
	out := map[string]*resolve.Target{}
	if o.File != "" {
		if len(o.Inline) > 0 {
			return nil, errors.New("--inline is for --running; with FILE the inline BTF is FILE")
		}
		t, err := resolve.Open(resolve.Options{File: o.File, Bases: o.Bases, Running: true, Sys: o.Sys})
		if err != nil {
			return nil, err
		}
		for _, p := range o.Probes {
			if p.Module != "" && p.Module != t.Name {
				return nil, fmt.Errorf("probe %s: FILE is %s, not module %s (trace one object per FILE, or use --running)", p, t.Name, p.Module)
			}
		}
		out[""] = t
		return out, nil
	}
	if len(o.Bases) > 0 {
		return nil, errors.New("-B needs a FILE")
	}
	inline := map[string]string{}
	for _, f := range o.Inline {
		obj := InlineObject(f)
		if _, dup := inline[obj]; dup {
			return nil, fmt.Errorf("--inline: two files for %s", obj)
		}
		inline[obj] = f
	}
	for _, p := range o.Probes {
		obj := p.Object()
		if _, ok := out[obj]; ok {
			continue
		}
		t, err := resolve.Open(resolve.Options{Running: true, Module: obj, Inline: inline[obj], Sys: o.Sys})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", obj, err)
		}
		out[obj] = t
	}
	return out, nil
}

// makePlan resolves every probe and lays out its events and sites.
func makePlan(o Options) (*plan, error) {
	if len(o.Probes) == 0 {
		return nil, errors.New("no probe given")
	}
	var filter *Filter
	var extra []string
	if o.Filter != "" {
		f, err := ParseFilter(o.Filter)
		if err != nil {
			return nil, err
		}
		filter, extra = f, f.Names()
	}
	if o.Hist != "" {
		if o.Count {
			return nil, errors.New("--count and --hist: choose one")
		}
		extra = append(extra, o.Hist)
	}
	switch o.By {
	case "", "function", "caller", "site":
	default:
		return nil, fmt.Errorf("--by %q: want function, caller or site", o.By)
	}
	targets, err := openTargets(o)
	if err != nil {
		return nil, err
	}
	if o.PID < 0 || o.PID > 1<<31-1 {
		return nil, fmt.Errorf("--pid %d: out of range", o.PID)
	}
	pl := &plan{mode: o.mode(), tgid: uint32(o.PID)}
	for _, p := range o.Probes {
		t := targets[""]
		if t == nil {
			t = targets[p.Object()]
		}
		r, err := t.Resolve(p.Func, nil)
		if err != nil {
			return nil, err
		}
		pp, err := planProbe(p, t, r, extra, o)
		if err != nil {
			return nil, err
		}
		if filter != nil {
			bf, err := filter.Bind(pp.binding())
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			pp.filter = bf
		}
		if o.Hist != "" {
			f := pp.fieldByName(o.Hist)
			if f == nil || !f.scalar || f.words != 1 || f.str >= 0 {
				return nil, fmt.Errorf("--hist %s: %s is not an integer or pointer argument of %s", o.Hist, o.Hist, p)
			}
			pp.hist = f.word
		}
		for i := range pp.sites {
			pp.sites[i].probe = len(pl.probes)
			pl.sites = append(pl.sites, &pp.sites[i])
		}
		pl.probes = append(pl.probes, pp)
	}
	pl.filter = filter
	return pl, nil
}

// binding resolves the names of a filter against the probe's fields and
// the BTF's enumerators.
func (pp *probePlan) binding() Binding {
	var enums map[string]uint64
	return Binding{
		Word: func(name string) (int, bool, bool, error) {
			f := pp.fieldByName(name)
			if f == nil {
				return 0, false, false, nil
			}
			if !f.scalar || f.words != 1 || f.str >= 0 {
				return 0, false, false, fmt.Errorf("%s is a %s: filter on an integer or pointer (a member through ->)", name, f.typeName)
			}
			return f.word, f.signed, true, nil
		},
		Const: func(name string) (uint64, bool) {
			if enums == nil {
				enums = enumerators(pp.spec)
			}
			v, ok := enums[name]
			return v, ok
		},
	}
}

// Run traces until ctx is done (Ctrl-C, SIGTERM), o.Duration has passed
// since every place was attached, or an error; every kprobe and program
// is released before it returns.
func Run(ctx context.Context, o Options) error {
	pl, err := makePlan(o)
	if err != nil {
		return err
	}
	return run(ctx, pl, o)
}
