//go:build linux

package trace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/cilium/ebpf/ringbuf"
	"golang.org/x/sys/unix"
)

// attachWorkers attach sites concurrently: registering a kprobe takes the
// kernel's kprobe_mutex, but opening the perf event and creating the link
// around it do not.
const attachWorkers = 4

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

func run(ctx context.Context, pl *plan, o Options) error {
	errw := o.Err
	n := len(pl.sites)
	var todo []int
	skips := newSkips(errw, o.Verbose)
	for i, s := range pl.sites {
		if s.refused != "" {
			skips.add(pl.probes[s.probe].probe.Func, placeName(s), s.refused)
			continue
		}
		todo = append(todo, i)
	}
	if len(todo) == 0 {
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
		fmt.Fprintf(errw, "btfinline trace: %v\n", err)
	} else if msg != "" {
		fmt.Fprintf(errw, "btfinline trace: %s\n", msg)
	}
	if err := raiseFileLimit(len(todo)); err != nil {
		return err
	}
	k, err := newKernel(pl, o.RingSize)
	if err != nil {
		return err
	}
	defer k.close()
	pause := len(todo) >= PauseOptprobesAt && !o.KeepOptprobes
	opt := newOptGuard(o.Sys)
	defer func() {
		if err := opt.close(); err != nil {
			fmt.Fprintf(errw, "btfinline trace: %v\n", err)
		}
	}()
	if pause {
		switch paused, err := opt.pause(); {
		case paused:
			fmt.Fprintf(errw, "btfinline trace: kprobe jump optimization paused while attaching %d places (%s)\n", len(todo), optprobesSysctl)
		case err != nil:
			fmt.Fprintf(errw, "btfinline trace: kprobe jump optimization left on: %v\n", err)
		}
	}
	start := time.Now()
	attached := make([]bool, n)
	refusals := make([]error, n)
	var (
		mu    sync.Mutex
		fatal error
	)
	parallel(len(todo), attachWorkers, func(j int) {
		i := todo[j]
		if err := k.attach(pl, i); err != nil {
			if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.EMFILE) {
				mu.Lock()
				fatal = err
				mu.Unlock()
			}
			refusals[i] = err
			return
		}
		attached[i] = true
	})
	took := time.Since(start)
	if err := opt.resume(); err != nil {
		fmt.Fprintf(errw, "btfinline trace: %v\n", err)
	}
	if fatal != nil {
		return explain("attaching a kprobe", fatal)
	}
	natt := 0
	for i, ok := range attached {
		if ok {
			natt++
			continue
		}
		if err := refusals[i]; err != nil {
			s := pl.sites[i]
			skips.add(pl.probes[s.probe].probe.Func, fmt.Sprintf("%s (%#x)", placeName(s), s.place.Addr), "the kernel refused the kprobe: "+err.Error())
		}
	}
	skips.summary()
	if natt == 0 {
		return errors.New("the kernel refused every place")
	}
	fmt.Fprintf(errw, "Attached %d places of %d probe(s) in %.3f s (%d skipped). Tracing... Hit Ctrl-C to end.\n", natt, len(pl.probes), took.Seconds(), n-natt)
	if o.Attached != nil {
		o.Attached(natt, took)
	}
	if o.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Duration)
		defer cancel()
	}
	pr := newPrinter(pl, o, syms)
	pr.header()
	pr.w.Flush()
	var rd *ringbuf.Reader
	if pl.mode == ModeEvents {
		if rd, err = ringbuf.NewReader(k.ring); err != nil {
			return err
		}
		defer rd.Close()
	}
	var tick <-chan time.Time
	if o.Interval > 0 {
		t := time.NewTicker(o.Interval)
		defer t.Stop()
		tick = t.C
	}
	var prevCounts, prevHist []uint64
	interval := func() {
		if pl.mode == ModeEvents {
			fmt.Fprintf(errw, "%s: %d events, %d lost\n", time.Now().Format("15:04:05"), pr.lines, k.lost())
			return
		}
		title := time.Now().Format("15:04:05")
		if pl.mode == ModeCount {
			c := k.counters(n)
			d := append([]uint64(nil), c...)
			for i := range prevCounts {
				d[i] -= prevCounts[i]
			}
			prevCounts = c
			pr.printCounts(d, attached, title)
		} else {
			h := k.histograms(n)
			d := append([]uint64(nil), h...)
			for i := range prevHist {
				d[i] -= prevHist[i]
			}
			prevHist = h
			pr.printHists(d, attached, title+" ")
		}
		pr.w.Flush()
	}
	// A traced module that is removed takes its places with it: they are
	// detached and said, and the rest go on; with none left, the run ends
	// as at its end.
	mods := moduleSites(pl, attached, o.Sys)
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	gone := watchModules(wctx, o.Sys, mods)
	live := natt
	moduleGone := func(m string) bool {
		live -= k.detach(mods[m].sites)
		fmt.Fprintf(errw, "btfinline trace: module %s was removed: its %d places are gone, %d places go on\n", m, len(mods[m].sites), live)
		return live == 0
	}
	var rec ringbuf.Record
	var loopErr error
loop:
	for {
		if rd == nil {
			select {
			case <-ctx.Done():
				break loop
			case <-tick:
				interval()
			case m := <-gone:
				if moduleGone(m) {
					break loop
				}
			}
			continue
		}
		rd.SetDeadline(time.Now().Add(100 * time.Millisecond))
		err := rd.ReadInto(&rec)
		switch {
		case err == nil:
			if err := pr.event(rec.RawSample); err != nil {
				loopErr = err
				break loop
			}
			if rec.Remaining == 0 {
				pr.w.Flush()
			}
			continue
		case errors.Is(err, os.ErrDeadlineExceeded):
			pr.w.Flush()
		default:
			loopErr = err
			break loop
		}
		select {
		case <-ctx.Done():
			break loop
		case <-tick:
			interval()
		case m := <-gone:
			if moduleGone(m) {
				break loop
			}
		default:
		}
	}
	stopWatch()
	// Detach first, so that nothing is sent any more; then drain.
	t0 := time.Now()
	if pause {
		_, _ = opt.pause()
	}
	k.detachAll()
	if err := opt.resume(); err != nil {
		fmt.Fprintf(errw, "btfinline trace: %v\n", err)
	}
	detached := time.Since(t0)
	if rd != nil && loopErr == nil {
		rd.SetDeadline(time.Now())
		for rd.ReadInto(&rec) == nil {
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
		pr.printCounts(c, attached, "total")
	case ModeHist:
		pr.printHists(k.histograms(n), attached, "")
	}
	if err := pr.w.Flush(); err != nil && loopErr == nil {
		loopErr = err
	}
	if pl.mode == ModeEvents {
		fmt.Fprintf(errw, "%d hits, %d events, %d lost; detached %d places in %.3f s\n", hits, pr.lines, k.lost(), natt, detached.Seconds())
	} else {
		fmt.Fprintf(errw, "%d hits; detached %d places in %.3f s\n", hits, natt, detached.Seconds())
	}
	return loopErr
}
