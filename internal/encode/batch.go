package encode

// Batch: many objects on one base chain in one process, the way a build
// system that has linked all of a kernel's modules can ask for them. The
// base (vmlinux) is loaded and indexed once and shared read-only; objects
// are encoded in parallel, the largest first so that a big module does not
// start last; each output is what File gives for that object alone, since
// nothing an encoding reads is written by another.

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"
)

// Job is one object of a batch and where its encoding goes.
type Job struct {
	Path string
	Out  Output
}

// OutputIn is the Output of an object encoded into directory dir: the
// file NAME.inline for NAME.ko (or for any other NAME).
func OutputIn(dir, path string) Output {
	name := strings.TrimSuffix(filepath.Base(path), ".ko")
	return Output{Path: filepath.Join(dir, name+".inline")}
}

// BatchOptions steer Batch.
type BatchOptions struct {
	Options
	// Jobs is how many objects are encoded at once (0: one per CPU).
	// Options.Workers then applies to each (0: 1, the objects being
	// the parallel work).
	Jobs int
}

// Batch encodes every job as File and Write would, on the base chain of
// o (loaded once when o.Base is nil). report is called once per job, in
// the order of jobs, with the result, the note Write gave, and the error
// of that job (r is nil then); an error of one job does not stop the
// others. The Results given to report hold no Specs (a batch
// keeps no more than it writes). Batch returns an error only when the
// base does not load or the jobs clash (two writing one file).
func Batch(jobs []Job, o BatchOptions, report func(j Job, r *Result, note string, err error)) error {
	seen := map[string]string{}
	for _, j := range jobs {
		if err := j.Out.Check(); err != nil {
			return err
		}
		key := j.Out.Path
		if j.Out.ELFSection {
			key = j.Path
		}
		if abs, err := filepath.Abs(key); err == nil {
			key = abs
		}
		if prev, ok := seen[key]; ok {
			return fmt.Errorf("%s and %s would both write %s", prev, j.Path, key)
		}
		seen[key] = j.Path
	}
	if o.Base == nil {
		b, err := LoadBase(o.Bases)
		if err != nil {
			return err
		}
		o.Base = b
	}
	if o.Workers == 0 {
		o.Workers = 1
	}
	parallel := workers(o.Jobs)
	// Largest first.
	order := make([]int, len(jobs))
	size := make([]int64, len(jobs))
	for i, j := range jobs {
		order[i] = i
		if fi, err := os.Stat(j.Path); err == nil {
			size[i] = fi.Size()
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size[b], size[a]) })

	type outcome struct {
		r    *Result
		note string
		err  error
		done bool
	}
	out := make([]outcome, len(jobs))
	var mu sync.Mutex
	next := 0 // first job not yet reported
	var g errgroup.Group
	g.SetLimit(parallel)
	// The largest first: the batch ends when its largest job does.
	for _, i := range order {
		g.Go(func() error {
			r, note, err := one(jobs[i], o.Options)
			mu.Lock()
			defer mu.Unlock()
			out[i] = outcome{r, note, err, true}
			// Report in order, as soon as the jobs before are done.
			for next < len(jobs) && out[next].done {
				x := out[next]
				out[next] = outcome{done: true}
				report(jobs[next], x.r, x.note, x.err)
				next++
			}
			return nil
		})
	}
	_ = g.Wait()
	return nil
}

// one encodes and writes one job of a batch.
func one(j Job, o Options) (*Result, string, error) {
	r, err := File(j.Path, o)
	if err != nil {
		return nil, "", err
	}
	r.Spec, r.Base = nil, nil
	note, err := Write(j.Path, r.Data, j.Out)
	if err != nil {
		return nil, "", err
	}
	return r, note, nil
}
