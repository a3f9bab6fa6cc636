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

// watchModules sends the name of each module of mods that goes away (its
// /sys/module entry gone, or its text moved: removed and loaded again
// between two looks), once, until ctx ends.
func watchModules(ctx context.Context, sys ksys.System, mods map[string]*tracedModule) <-chan string {
	ch := make(chan string, len(mods))
	names := make([]string, 0, len(mods))
	for m := range mods {
		names = append(names, m)
	}
	slices.Sort(names)
	go func() {
		t := time.NewTicker(modulePoll)
		defer t.Stop()
		for len(names) > 0 {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			names = slices.DeleteFunc(names, func(m string) bool {
				a, err := sys.ModuleSection(m, ".text")
				if err == nil && a == mods[m].text {
					return false
				}
				ch <- m
				return true
			})
		}
	}()
	return ch
}
