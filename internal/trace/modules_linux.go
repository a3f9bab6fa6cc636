//go:build linux

package trace

import (
	"context"
	"slices"
	"time"

	"github.com/btfinline/btfinline/internal/ksys"
)

// modulePoll is how often trace looks whether a traced module is still
// loaded: rmmod frees its text and the kernel marks the kprobes there
// gone (they never fire again), with no event a process could wait for.
const modulePoll = 250 * time.Millisecond

// tracedModule is a loaded module with places attached: their sites,
// and where its text was when the run attached them.
type tracedModule struct {
	sites []int
	text  uint64
}

// moduleSites groups the attached sites by the loaded module they are in,
// keyed by module name; vmlinux's, and those of an object that is not a
// loaded module, are left out.
func moduleSites(pl *plan, attached []bool, sys ksys.System) map[string]*tracedModule {
	out := map[string]*tracedModule{}
	for i, s := range pl.sites {
		m := pl.probes[s.probe].probe.Module
		if m == "" || !attached[i] {
			continue
		}
		tm := out[m]
		if tm == nil {
			tm = &tracedModule{}
			out[m] = tm
		}
		tm.sites = append(tm.sites, i)
	}
	for m, tm := range out {
		a, err := sys.ModuleSection(m, ".text")
		if err != nil {
			delete(out, m)
			continue
		}
		tm.text = a
	}
	return out
}

// modEvent is a module that went away (its /sys/module entry gone, or its
// text moved: removed and loaded again between two looks), or, followed,
// that was loaded.
type modEvent struct {
	name   string
	loaded bool
}

// watchModules sends an event when a module of mods goes away, once, and
// when a module of follow that is not loaded is loaded; a followed module
// that goes away is waited for again. It ends with ctx, or when it has
// nothing left to watch.
func watchModules(ctx context.Context, sys ksys.System, mods map[string]*tracedModule, follow []string) <-chan modEvent {
	ch := make(chan modEvent, len(mods)+len(follow)+1)
	text := map[string]uint64{} // loaded and watched, at this address
	for m, tm := range mods {
		text[m] = tm.text
	}
	waiting := map[string]bool{}
	for _, m := range follow {
		if _, ok := text[m]; !ok {
			waiting[m] = true
		}
	}
	followed := func(m string) bool { return slices.Contains(follow, m) }
	go func() {
		t := time.NewTicker(modulePoll)
		defer t.Stop()
		for len(text)+len(waiting) > 0 {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			for _, m := range sortedKeys(text) {
				if a, err := sys.ModuleSection(m, ".text"); err == nil && a == text[m] {
					continue
				}
				delete(text, m)
				if !send(ctx, ch, modEvent{name: m}) {
					return
				}
				if followed(m) {
					waiting[m] = true
				}
			}
			for _, m := range sortedKeys(waiting) {
				a, err := sys.ModuleSection(m, ".text")
				if err != nil {
					continue
				}
				delete(waiting, m)
				text[m] = a
				if !send(ctx, ch, modEvent{name: m, loaded: true}) {
					return
				}
			}
		}
	}()
	return ch
}

func send(ctx context.Context, ch chan<- modEvent, e modEvent) bool {
	select {
	case ch <- e:
		return true
	case <-ctx.Done():
		return false
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
