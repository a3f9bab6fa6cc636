//go:build linux

package trace

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/btfinline/btfinline/internal/kprobelink"
	"github.com/btfinline/btfinline/internal/resolve"
	"github.com/cilium/ebpf/ringbuf"
	"golang.org/x/sys/unix"
)

// fdReserve is what a run needs beside one link fd per site: the maps,
// programs, ring buffer, BTF and the process' own files.
const fdReserve = 256

// raiseFileLimit makes room for one link fd per site: the soft limit is
// raised as far as needed, up to the hard limit. A hard limit too low for
// n sites is an error before anything is attached, rather than EMFILE
// half way through.
func raiseFileLimit(n int) error {
	need := uint64(n + fdReserve)
	var l unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &l); err != nil || l.Cur >= need {
		return nil
	}
	if unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: need, Max: max(l.Max, need)}) == nil {
		return nil
	}
	if l.Max >= need {
		if unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: need, Max: l.Max}) == nil {
			return nil
		}
	}
	return fileLimitError(n, l.Max)
}

func fileLimitError(n int, hard uint64) error {
	return fmt.Errorf("%d places need %d open files (one per place and %d more), and the hard limit is %d: raise it (ulimit -Hn %d as root, or LimitNOFILE= in a systemd unit), or trace fewer places",
		n, n+fdReserve, fdReserve, hard, n+fdReserve)
}

// traceRun is one run on the kernel, in four phases: attach, the event
// loop, detach and drain, and the report.
type traceRun struct {
	pl  *plan
	o   Options
	k   *kernel
	opt *optGuard
	// pause: the run pauses kprobe jump optimization while it attaches
	// and detaches.
	pause    bool
	attached []bool
	natt     int // places attached
	live     int // of those, places not gone with their module
	pr       *printer
	rd       *ringbuf.Reader // ModeEvents only
	mods     map[string]*tracedModule
	// The totals at the last interval, for --interval's differences.
	prevCounts, prevHist []uint64
}

func run(ctx context.Context, pl *plan, o Options) error {
	skips := newSkips(o.Err, o.Verbose)
	var todo []int
	for i, s := range pl.sites {
		if s.refused != "" {
			skips.add(pl.probes[s.probe].probe.Func, placeName(s), s.refused)
			continue
		}
		todo = append(todo, i)
	}
	if len(todo) == 0 && len(pl.pending) == 0 {
		return errors.New("no place of the probes can take a kprobe")
	}
	var syms *ksyms
	if o.Stack {
		var err error
		if syms, err = loadKsyms(o.Sys); err != nil {
			return err
		}
	}
	// A run killed with its watchdog left the sysctl paused: the first
	// run after it puts it back.
	if msg, err := (optStore{o.Sys.Root}).recoverStale(); err != nil {
		fmt.Fprintf(o.Err, "btfinline trace: %v\n", err)
	} else if msg != "" {
		fmt.Fprintf(o.Err, "btfinline trace: %s\n", msg)
	}
	// One fd a place attached now, and room for the followed modules'.
	if err := raiseFileLimit(len(todo) + pl.capacity() - len(pl.sites)); err != nil {
		return err
	}
	k, err := newKernel(pl, o.RingSize)
	if err != nil {
		return err
	}
	defer k.close()
	s := &traceRun{pl: pl, o: o, k: k, opt: newOptGuard(o.Sys),
		pause: len(todo) >= PauseOptprobesAt && !o.KeepOptprobes}
	defer func() {
		if err := s.opt.close(); err != nil {
			fmt.Fprintf(s.o.Err, "btfinline trace: %v\n", err)
		}
	}()
	if err := s.attach(todo, skips); err != nil {
		return err
	}
	if o.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Duration)
		defer cancel()
	}
	s.pr = newPrinter(pl, o, syms)
	s.pr.header()
	s.pr.w.Flush()
	if pl.mode == ModeEvents {
		if s.rd, err = ringbuf.NewReader(k.ring); err != nil {
			return err
		}
		defer s.rd.Close()
	}
	loopErr := s.loop(ctx)
	return s.finish(loopErr)
}

// attach attaches the places todo, says which the kernel refused, and
// fails when it refused all, or when a missing permission or file
// descriptor would refuse every place.
func (s *traceRun) attach(todo []int, skips *skips) error {
	pl, n := s.pl, len(s.pl.sites)
	if s.pause {
		switch paused, err := s.opt.pause(); {
		case paused:
			fmt.Fprintf(s.o.Err, "btfinline trace: kprobe jump optimization paused while attaching %d places (%s)\n", len(todo), optprobesSysctl)
		case err != nil:
			fmt.Fprintf(s.o.Err, "btfinline trace: kprobe jump optimization left on: %v\n", err)
		}
	}
	var ru0 unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru0)
	start := time.Now()
	s.attached = make([]bool, n)
	refusals := make([]error, n)
	at := make([]time.Time, n)
	some := func(sites []int) error {
		return kprobelink.Parallel(len(sites), kprobelink.AttachWorkers, func(j int) error {
			i := sites[j]
			if err := s.k.attach(pl, i); err != nil {
				if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.EMFILE) {
					return err
				}
				refusals[i] = err
				return nil
			}
			s.attached[i], at[i] = true, time.Now()
			return nil
		})
	}
	// A kprobe fires from the moment it is armed, and there is no
	// disarmed open: on a hot function the places attached first fire
	// while the rest are registered, each hit a breakpoint trap. Between
	// batches, the places that fire often are detached and attached again
	// last (docs/trace.md, "What attaching costs").
	var fatal error
	var hot []int
	hotCallers := map[string]bool{}
	todo = slices.Clone(todo) // the places not yet attached are reordered
	for b := 0; b < len(todo) && fatal == nil; b += attachBatch {
		end := min(b+attachBatch, len(todo))
		fatal = some(todo[b:end])
		if end == len(todo) {
			break
		}
		now := time.Now()
		left := now.Sub(start).Seconds() / float64(end) * float64(len(todo)-end)
		found := hotPlaces(todo[:end], s.attached, s.k.counters(n), at, now, left)
		for _, i := range found {
			hotCallers[pl.sites[i].place.Caller] = true
		}
		if d := found[:min(len(found), max(0, maxHot-len(hot)))]; len(d) > 0 {
			s.detachHot(d)
			hot = append(hot, d...)
		}
		lastOfCallers(todo[end:], pl.sites, hotCallers)
	}
	if fatal == nil && len(hot) > 0 {
		fatal = some(hot)
		fmt.Fprintf(s.o.Err, "btfinline trace: %d places fired often while the others were attached: attached last\n", len(hot))
	}
	took := time.Since(start)
	if s.o.Verbose {
		s.attachHits(n)
		var ru unix.Rusage
		if unix.Getrusage(unix.RUSAGE_SELF, &ru) == nil {
			v, iv := ru.Nvcsw-ru0.Nvcsw, ru.Nivcsw-ru0.Nivcsw
			fmt.Fprintf(s.o.Err, "btfinline trace: %d context switches of its threads while attaching (%d voluntary)\n", v+iv, v)
		}
	}
	if err := s.opt.resume(); err != nil {
		fmt.Fprintf(s.o.Err, "btfinline trace: %v\n", err)
	}
	if fatal != nil {
		return explain("attaching a kprobe", fatal)
	}
	for i, ok := range s.attached {
		if ok {
			s.natt++
			continue
		}
		if err := refusals[i]; err != nil {
			site := pl.sites[i]
			skips.add(pl.probes[site.probe].probe.Func, fmt.Sprintf("%s (%#x)", placeName(site), site.place.Addr), "the kernel refused the kprobe: "+err.Error())
		}
	}
	skips.summary()
	if s.natt == 0 && len(pl.pending) == 0 {
		return errors.New("the kernel refused every place")
	}
	s.live = s.natt
	if len(pl.pending) > 0 {
		fmt.Fprintf(s.o.Err, "btfinline trace: waiting for module(s) %s to be loaded\n", strings.Join(modulesOf(pl.pending), ", "))
	}
	fmt.Fprintf(s.o.Err, "Attached %d places of %d probe(s) in %.3f s (%d skipped). Tracing... Hit Ctrl-C to end.\n", s.natt, len(pl.probes), took.Seconds(), n-s.natt)
	if s.o.Attached != nil {
		s.o.Attached(s.natt, took)
	}
	return nil
}

// attachHits says how often the places fired while the others were
// attached (--verbose): every hit then is a trap the attach waited for.
func (s *traceRun) attachHits(n int) {
	counts := s.k.counters(n)
	var sum uint64
	fired, top := 0, -1
	for i, c := range counts {
		if c == 0 {
			continue
		}
		sum += c
		fired++
		if top < 0 || c > counts[top] {
			top = i
		}
	}
	if top < 0 {
		fmt.Fprintf(s.o.Err, "btfinline trace: no place fired while attaching\n")
		return
	}
	fmt.Fprintf(s.o.Err, "btfinline trace: %d hits at %d places while attaching, the most %d at %s\n", sum, fired, counts[top], placeName(s.pl.sites[top]))
}

// attachBatch is how many places are attached between two looks at
// which fire often; maxHot bounds how many are attached again last
// (detaching a kprobe costs grace periods in the kernel, about as long
// under qemu as hotHits hits); a place is hot when, at the rate it fired
// since it was attached, it would fire hotHits times or more before the
// others are attached, and it has fired hotMin times (a rate from fewer
// is noise).
const (
	attachBatch = 64
	maxHot      = 64
	hotHits     = 500
	hotMin      = 32
)

// detachHot detaches the places hotPlaces picked, to be attached again
// after the others.
func (s *traceRun) detachHot(sites []int) {
	for _, i := range sites {
		s.attached[i] = false
	}
	s.k.detach(sites)
}

// hotPlaces returns the attached places of sites that, at the rate they
// fired since they were attached (at), would fire hotHits times or more
// in the left seconds the attach still takes, the hottest first: a trace
// attaches them again after the others (traceRun.attach). A place that
// fires rarely on a long attach costs more hits than its detach; the
// same place near the end of a short one does not.
func hotPlaces(sites []int, attached []bool, counts []uint64, at []time.Time, now time.Time, left float64) []int {
	type rated struct {
		i    int
		rate float64
	}
	var hot []rated
	for _, i := range sites {
		if !attached[i] || counts[i] < hotMin {
			continue
		}
		if d := now.Sub(at[i]).Seconds(); d > 0 {
			if r := float64(counts[i]) / d; r*left >= hotHits {
				hot = append(hot, rated{i, r})
			}
		}
	}
	slices.SortStableFunc(hot, func(a, b rated) int { return cmp.Compare(b.rate, a.rate) })
	out := make([]int, len(hot))
	for k, h := range hot {
		out[k] = h.i
	}
	return out
}

// lastOfCallers moves the places of todo whose caller holds a hot place
// to its end, keeping the order otherwise: the path that runs one place
// of a function often runs its other places too, and a place not yet
// attached costs nothing to put last, where a hot one attached costs a
// detach.
func lastOfCallers(todo []int, sites []*site, hot map[string]bool) {
	if len(hot) == 0 {
		return
	}
	var rest, last []int
	for _, i := range todo {
		if hot[sites[i].place.Caller] {
			last = append(last, i)
		} else {
			rest = append(rest, i)
		}
	}
	copy(todo[copy(todo, rest):], last)
}

// interval prints what --interval prints: the event and loss totals, or
// the counts or histograms since the last interval.
func (s *traceRun) interval() {
	pl, k, pr, n := s.pl, s.k, s.pr, len(s.pl.sites)
	if pl.mode == ModeEvents {
		fmt.Fprintf(s.o.Err, "%s: %d events, %d lost\n", time.Now().Format("15:04:05"), pr.lines, k.lost())
		return
	}
	title := time.Now().Format("15:04:05")
	if pl.mode == ModeCount {
		pr.printCounts(since(&s.prevCounts, k.counters(n)), s.attached, title)
	} else {
		pr.printHists(since(&s.prevHist, k.histograms(n)), s.attached, title+" ")
	}
	pr.w.Flush()
}

// since returns the totals cur less those of the last interval, *prev,
// and keeps cur there for the next.
func since(prev *[]uint64, cur []uint64) []uint64 {
	d := slices.Clone(cur)
	for i, p := range *prev {
		d[i] -= p
	}
	*prev = cur
	return d
}

// moduleGone detaches the places of a traced module that was removed,
// says so, and reports whether the run is over: no place left, and no
// module followed.
func (s *traceRun) moduleGone(m string) bool {
	tm := s.mods[m]
	if tm == nil {
		return false
	}
	delete(s.mods, m)
	s.live -= s.k.detach(tm.sites)
	msg := ""
	if len(s.pl.followOf(m)) > 0 {
		msg = "; waiting for it to be loaded again"
	}
	fmt.Fprintf(s.o.Err, "btfinline trace: module %s was removed: its %d places are gone, %d places go on%s\n", m, len(tm.sites), s.live, msg)
	return s.live == 0 && len(s.pl.follow) == 0
}

// moduleLoaded plans the followed probes of module m, which was just
// loaded, loads their programs and attaches their places, and says so;
// what fails costs that module only, and is said.
func (s *traceRun) moduleLoaded(ctx context.Context, m string) {
	pl, k := s.pl, s.k
	warn := func(format string, a ...any) {
		fmt.Fprintf(s.o.Err, "btfinline trace: module %s was loaded, but "+format+"\n", append([]any{m}, a...)...)
	}
	inline := ""
	if s.o.FindInline != nil {
		var err error
		if inline, err = s.o.FindInline(ctx, m); err != nil {
			warn("its inline BTF: %v", err)
			return
		}
	}
	t, err := resolve.Open(resolve.Options{Running: true, Module: m, Inline: inline, Sys: s.o.Sys})
	if err != nil {
		warn("%v", err)
		return
	}
	probe0, site0 := len(pl.probes), len(pl.sites)
	undo := func() {
		pl.probes, pl.sites = pl.probes[:probe0], pl.sites[:site0]
	}
	for _, p := range pl.followOf(m) {
		if err := pl.addProbe(p, t, s.o); err != nil {
			warn("%s: %v", p, err)
			undo()
			return
		}
	}
	for _, pp := range pl.probes[probe0:] {
		if pp.layout.specSize() > k.specSize || pp.layout.eventSize() > k.eventSize {
			warn("%s needs larger maps than the run made", pp.probe)
			undo()
			return
		}
	}
	if len(pl.sites) > k.room {
		warn("its %d places do not fit in the room left (%d): start a new run", len(pl.sites)-site0, k.room-site0)
		undo()
		return
	}
	if err := k.addProbes(pl, probe0, site0); err != nil {
		warn("%v", err)
		undo()
		return
	}
	s.attached = append(s.attached, make([]bool, len(pl.sites)-site0)...)
	tm := &tracedModule{}
	skipped := 0
	for i := site0; i < len(pl.sites); i++ {
		if pl.sites[i].refused != "" {
			skipped++
			continue
		}
		if err := k.attach(pl, i); err != nil {
			skipped++
			if s.o.Verbose {
				warn("the kernel refused %s: %v", placeName(pl.sites[i]), err)
			}
			continue
		}
		s.attached[i] = true
		tm.sites = append(tm.sites, i)
	}
	tm.text, _ = s.o.Sys.ModuleSection(m, ".text")
	s.mods[m] = tm
	s.live += len(tm.sites)
	s.natt += len(tm.sites)
	fmt.Fprintf(s.o.Err, "btfinline trace: module %s was loaded: %d places of %d probe(s) attached (%d skipped)\n", m, len(tm.sites), len(pl.probes)-probe0, skipped)
}

// pend is what the event loop finds pending besides events.
type pend int

const (
	pendNone   pend = iota
	pendEnd         // the run's context is done
	pendTick        // an --interval is due
	pendModule      // a traced or followed module came or went
)

// otherEvery is how many events the loop prints between looks at the
// rest: a look is a select over three channels, an event about 250 ns.
const otherEvery = 256

// pending returns what of the end, the ticks and the module events is
// ready, waiting for one if wait. A ticker's channel cannot be asked with
// len (since Go 1.23 it has no buffer, and len is always 0), so the look
// without waiting is a select with a default.
func pending(ctx context.Context, tick <-chan time.Time, gone <-chan modEvent, wait bool) (pend, modEvent) {
	if !wait {
		select {
		case <-ctx.Done():
			return pendEnd, modEvent{}
		case <-tick:
			return pendTick, modEvent{}
		case e := <-gone:
			return pendModule, e
		default:
			return pendNone, modEvent{}
		}
	}
	select {
	case <-ctx.Done():
		return pendEnd, modEvent{}
	case <-tick:
		return pendTick, modEvent{}
	case e := <-gone:
		return pendModule, e
	}
}

// loop prints events (or waits, for counts and histograms) until ctx
// ends, every traced place is gone with its module, or output fails.
func (s *traceRun) loop(ctx context.Context) error {
	var tick <-chan time.Time
	if s.o.Interval > 0 {
		t := time.NewTicker(s.o.Interval)
		defer t.Stop()
		tick = t.C
	}
	// A traced module that is removed takes its places with it: they are
	// detached and said, and the rest go on; with none left, the run ends
	// as at its end.
	s.mods = moduleSites(s.pl, s.attached, s.o.Sys)
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	gone := watchModules(wctx, s.o.Sys, s.mods, s.pl.followed())
	// other handles what is not an event: the end, an interval, a module
	// gone; true ends the loop. Without wait it returns at once when none
	// is pending.
	other := func(wait bool) bool {
		switch p, e := pending(ctx, tick, gone, wait); p {
		case pendEnd:
			return true
		case pendTick:
			s.interval()
		case pendModule:
			if e.loaded {
				s.moduleLoaded(ctx, e.name)
				return false
			}
			return s.moduleGone(e.name)
		}
		return false
	}
	if s.rd == nil {
		for !other(true) {
		}
		return nil
	}
	var rec ringbuf.Record
	for n := 0; ; n++ {
		s.rd.SetDeadline(time.Now().Add(100 * time.Millisecond))
		err := s.rd.ReadInto(&rec)
		switch {
		case err == nil:
			if err := s.pr.event(rec.RawSample); err != nil {
				return err
			}
			if rec.Remaining == 0 {
				s.pr.w.Flush()
			}
			// Events that never pause must not hold off the end, the
			// intervals and the modules: they are looked at between
			// records too.
			if n%otherEvery == 0 && other(false) {
				return nil
			}
			continue
		case errors.Is(err, os.ErrDeadlineExceeded):
			s.pr.w.Flush()
		default:
			return err
		}
		if other(false) {
			return nil
		}
	}
}

// finish detaches every place first, so that nothing is sent any more,
// then drains the ring buffer and prints the totals; loopErr is the
// loop's error, which a drain does not follow.
func (s *traceRun) finish(loopErr error) error {
	pl, k, pr, n := s.pl, s.k, s.pr, len(s.pl.sites)
	t0 := time.Now()
	if s.pause {
		_, _ = s.opt.pause()
	}
	k.detachAll()
	if err := s.opt.resume(); err != nil {
		fmt.Fprintf(s.o.Err, "btfinline trace: %v\n", err)
	}
	detached := time.Since(t0)
	if s.rd != nil && loopErr == nil {
		var rec ringbuf.Record
		s.rd.SetDeadline(time.Now())
		for s.rd.ReadInto(&rec) == nil {
			if err := pr.event(rec.RawSample); err != nil {
				loopErr = err
				break
			}
		}
	}
	c := k.counters(n)
	var hits uint64
	for _, x := range c {
		hits += x
	}
	switch pl.mode {
	case ModeCount:
		pr.printCounts(c, s.attached, "total")
	case ModeHist:
		pr.printHists(k.histograms(n), s.attached, "")
	}
	if err := pr.w.Flush(); err != nil && loopErr == nil {
		loopErr = err
	}
	if pl.mode == ModeEvents {
		fmt.Fprintf(s.o.Err, "%d hits, %d events, %d lost; detached %d places in %.3f s\n", hits, pr.lines, k.lost(), s.natt, detached.Seconds())
	} else {
		fmt.Fprintf(s.o.Err, "%d hits; detached %d places in %.3f s\n", hits, s.natt, detached.Seconds())
	}
	return loopErr
}
