//go:build linux

package trace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/btfinline/btfinline/internal/ksys"
	"github.com/btfinline/btfinline/internal/resolve"
	"github.com/btfinline/btfinline/internal/testutil"
)

// TestWatchModules: a module whose /sys/module entry goes, or whose text
// moves (removed and loaded again between two looks), is sent once; one
// that stays is not.
func TestWatchModules(t *testing.T) {
	root := t.TempDir()
	text := func(m, addr string) string {
		p := filepath.Join(root, "sys/module", m, "sections/.text")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(addr+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	text("gone", "0xffffffffc0100000")
	moved := text("moved", "0xffffffffc0200000")
	text("stays", "0xffffffffc0300000")
	sys := ksys.System{Root: root}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := watchModules(ctx, sys, map[string]*tracedModule{
		"gone": {[]int{0}, 0xffffffffc0100000}, "moved": {[]int{1}, 0xffffffffc0200000}, "stays": {[]int{2}, 0xffffffffc0300000}}, nil)
	os.RemoveAll(filepath.Join(root, "sys/module/gone"))
	os.WriteFile(moved, []byte("0xffffffffc0400000\n"), 0o644)
	got := map[string]int{}
	deadline := time.After(10 * modulePoll)
	for len(got) < 2 {
		select {
		case e := <-ch:
			if e.loaded {
				t.Fatalf("%s sent as loaded, following nothing", e.name)
			}
			got[e.name]++
		case <-deadline:
			t.Fatalf("sent %v, want gone and moved", got)
		}
	}
	select {
	case e := <-ch:
		t.Fatalf("%+v sent again (got %v)", e, got)
	case <-time.After(4 * modulePoll):
	}
	if got["gone"] != 1 || got["moved"] != 1 {
		t.Fatalf("sent %v", got)
	}
}

// TestWatchFollowed: a followed module that is not loaded is sent as
// loaded when it comes, as gone when it goes, and as loaded again when it
// comes back; one loaded at the start is sent when it goes and then when
// it comes back.
func TestWatchFollowed(t *testing.T) {
	root := t.TempDir()
	sys := ksys.System{Root: root}
	load := func(m, addr string) {
		p := filepath.Join(root, "sys/module", m, "sections/.text")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(addr+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	unload := func(m string) { os.RemoveAll(filepath.Join(root, "sys/module", m)) }
	load("early", "0xffffffffc0100000")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := watchModules(ctx, sys, map[string]*tracedModule{"early": {[]int{0}, 0xffffffffc0100000}}, []string{"early", "late"})
	next := func(want modEvent) {
		t.Helper()
		select {
		case e := <-ch:
			if e != want {
				t.Fatalf("sent %+v, want %+v", e, want)
			}
		case <-time.After(10 * modulePoll):
			t.Fatalf("nothing sent, want %+v", want)
		}
	}
	load("late", "0xffffffffc0200000")
	next(modEvent{"late", true})
	unload("late")
	next(modEvent{"late", false})
	load("late", "0xffffffffc0300000")
	next(modEvent{"late", true})
	unload("early")
	next(modEvent{"early", false})
	load("early", "0xffffffffc0400000")
	next(modEvent{"early", true})
	select {
	case e := <-ch:
		t.Fatalf("%+v sent, nothing changed", e)
	case <-time.After(4 * modulePoll):
	}
}

// thousands spells n as the docs do: 1,024.
func thousands(n int) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%d,%03d", n/1000, n%1000)
}

// TestModulePollDocumented: docs/trace.md says how often trace looks
// for modules, how much room it keeps for followed ones, and how it
// attaches hot places last, with the constants of the code.
func TestModulePollDocumented(t *testing.T) {
	testutil.DocSays(t, "docs/trace.md",
		fmt.Sprintf("every %d ms", modulePoll.Milliseconds()),
		fmt.Sprintf("room for %s places per followed probe", thousands(followRoom)),
		fmt.Sprintf("attaches %d places at a time", attachBatch),
		fmt.Sprintf("would fire %d times or more", hotHits),
		fmt.Sprintf("fired %d times at least", hotMin),
		fmt.Sprintf("at most %d such places", maxHot))
}

// TestPlanFollow: with FollowModules a probe of a module that is not
// loaded waits (the run's maps keep room for it) while the others are
// planned; without it, the probe fails the run.
func TestPlanFollow(t *testing.T) {
	root := t.TempDir()
	for src, dst := range map[string]string{
		"x86_64.kallsyms":   "proc/kallsyms",
		"x86_64.btf":        "sys/kernel/btf/vmlinux",
		"x86_64.inline.btf": "sys/kernel/btf/vmlinux.inline",
	} {
		b, err := os.ReadFile(filepath.Join("..", "resolve", "testdata", src))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, dst)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sys := ksys.System{Root: root}
	probes := []Probe{{Func: "cwnd_set"}, {Module: "later", Func: "later_fn"}}
	if _, err := makePlan(Options{Probes: probes, Sys: sys}); err == nil {
		t.Fatal("a probe of a module that is not loaded planned without FollowModules")
	}
	pl, err := makePlan(Options{Probes: probes, Sys: sys, FollowModules: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.probes) != 1 || len(pl.pending) != 1 || pl.pending[0].Module != "later" || len(pl.follow) != 1 {
		t.Fatalf("planned %d probes, pending %v, following %v", len(pl.probes), pl.pending, pl.follow)
	}
	if got, want := pl.capacity(), len(pl.sites)+followRoom; got != want || len(pl.sites) == 0 {
		t.Errorf("capacity %d for %d sites, want %d", got, len(pl.sites), want)
	}
	if got := pl.followed(); len(got) != 1 || got[0] != "later" {
		t.Errorf("followed %v", got)
	}
}

// TestHotPlaces: the attached places that, at their rate since they were
// attached, would fire hotHits times or more in the seconds left, hottest
// first; a place with fewer than hotMin hits has no rate yet.
func TestHotPlaces(t *testing.T) {
	now := time.Now()
	ago := func(s float64) time.Time { return now.Add(-time.Duration(s * float64(time.Second))) }
	at := []time.Time{ago(1), ago(2), ago(0.5), ago(1), ago(1), ago(0.001)}
	counts := []uint64{hotHits - 1, 3 * hotHits, 2 * hotHits, 10 * hotHits, 5 * hotHits, hotMin - 1}
	attached := []bool{true, true, true, false, true, true}
	all := []int{0, 1, 2, 3, 4, 5}
	if got, want := hotPlaces(all, attached, counts, at, now, 1), []int{4, 2, 1}; !slices.Equal(got, want) {
		t.Errorf("1 s left: hot places %v, want %v (4 at 5x, 2 at 4x, 1 at 1.5x; 3 detached; 0 below; 5 too few hits)", got, want)
	}
	if got, want := hotPlaces(all, attached, counts, at, now, 0.25), []int{4, 2}; !slices.Equal(got, want) {
		t.Errorf("0.25 s left: hot places %v, want %v (1 at 1.5x would fire 0.375x)", got, want)
	}
}

// TestLastOfCallers: the places not yet attached in a function that
// holds a hot place go last, the order otherwise kept.
func TestLastOfCallers(t *testing.T) {
	sites := make([]*site, 6)
	for i, c := range []string{"a", "hot", "b", "hot", "c", "other"} {
		sites[i] = &site{place: resolve.Place{Caller: c}}
	}
	todo := []int{5, 1, 0, 3, 2, 4}
	lastOfCallers(todo, sites, map[string]bool{"hot": true})
	if want := []int{5, 0, 2, 4, 1, 3}; !slices.Equal(todo, want) {
		t.Errorf("order %v, want %v", todo, want)
	}
}
