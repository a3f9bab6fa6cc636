package trace

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/btfinline/btfinline/internal/ksys"
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
	// pending are the probes of modules not loaded (FollowModules), and
	// extra the names the filter and --hist read, for planning them when
	// their module comes.
	pending []Probe
	extra   []string
	hist    string
	// follow are the probes of modules (FollowModules), planned again
	// each time their module is loaded.
	follow []Probe
}

// followOf returns the followed probes of module m.
func (pl *plan) followOf(m string) []Probe {
	var out []Probe
	for _, p := range pl.follow {
		if p.Module == m {
			out = append(out, p)
		}
	}
	return out
}

// followed lists the modules the run follows.
func (pl *plan) followed() []string { return modulesOf(pl.follow) }

// modulesOf lists the modules probes name, each once, in their order.
func modulesOf(probes []Probe) []string {
	var out []string
	for _, p := range probes {
		if !slices.Contains(out, p.Module) {
			out = append(out, p.Module)
		}
	}
	return out
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
		if _, ok := out[obj]; ok || waits(o, p) {
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

// followRoom is how many places the maps keep for each probe that waits
// for its module, over every time the module is loaded.
const followRoom = 1024

// capacity is how many sites the run's maps hold.
func (pl *plan) capacity() int { return len(pl.sites) + followRoom*len(pl.follow) }

// Loaded reports whether the object of p is in the running kernel:
// vmlinux, or a module whose text /sys/module shows.
func (p Probe) Loaded(sys ksys.System) bool {
	if p.Module == "" {
		return true
	}
	_, err := sys.ModuleSection(p.Module, ".text")
	return err == nil
}

// waits reports whether probe p waits for its module (FollowModules, and
// the module is not loaded now).
func waits(o Options, p Probe) bool {
	return o.FollowModules && o.File == "" && !p.Loaded(o.Sys)
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
	pl := &plan{mode: o.mode(), tgid: uint32(o.PID), filter: filter, extra: extra, hist: o.Hist}
	for _, p := range o.Probes {
		if o.FollowModules && o.File == "" && p.Module != "" {
			pl.follow = append(pl.follow, p)
		}
		if waits(o, p) {
			pl.pending = append(pl.pending, p)
			continue
		}
		t := targets[""]
		if t == nil {
			t = targets[p.Object()]
		}
		if err := pl.addProbe(p, t, o); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// addProbe resolves probe p on target t and adds it and its sites.
func (pl *plan) addProbe(p Probe, t *resolve.Target, o Options) error {
	r, err := t.Resolve(p.Func, nil)
	if err != nil {
		return err
	}
	pp, err := planProbe(p, t, r, pl.extra, o)
	if err != nil {
		return err
	}
	if pl.filter != nil {
		bf, err := pl.filter.Bind(pp.binding())
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		pp.filter = bf
	}
	if pl.hist != "" {
		f := pp.fieldByName(pl.hist)
		if f == nil || !f.scalar || f.words != 1 || f.str >= 0 {
			return fmt.Errorf("--hist %s: %s is not an integer or pointer argument of %s", pl.hist, pl.hist, p)
		}
		pp.hist = f.word
	}
	for i := range pp.sites {
		pp.sites[i].probe = len(pl.probes)
		pl.sites = append(pl.sites, &pp.sites[i])
	}
	pl.probes = append(pl.probes, pp)
	return nil
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
