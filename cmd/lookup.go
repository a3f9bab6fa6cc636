package cmd

// Where --running finds inline BTF when the kernel serves none: the
// lookup package's chain (cache by build id, local debug files,
// debuginfod), with the flags resolve, sites and trace share.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/btfinline/btfinline/internal/debuginfod"
	"github.com/btfinline/btfinline/internal/ksys"
	"github.com/btfinline/btfinline/internal/lookup"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"
)

// lookupFlags are the flags of the lookup chain.
type lookupFlags struct {
	cacheDir string
	noFetch  bool
	quiet    bool
}

func (l *lookupFlags) add(f *pflag.FlagSet) {
	f.StringVar(&l.cacheDir, "cache-dir", "", "where inline BTF built on this machine is kept (default $XDG_CACHE_HOME/btfinline, else ~/.cache/btfinline)")
	f.BoolVar(&l.noFetch, "no-fetch", false, "never download DWARF from debuginfod (local debug files and the cache only)")
	f.BoolVarP(&l.quiet, "quiet", "q", false, "no progress or notes on stderr")
}

// lookupHelp is the help text of the chain, for the commands' Long.
const lookupHelp = `Without FILE, the inline BTF of vmlinux and of each module a command needs
comes from the first of: /sys/kernel/btf/NAME.inline; the cache
(--cache-dir, by the object's GNU build id); encoding the object's DWARF
found on this machine (/usr/lib/debug/.build-id/, or the distribution's
debug package layout); encoding DWARF fetched from the debuginfod servers
in DEBUGINFOD_URLS (--no-fetch: never). The first use of a kernel is one
download and one encode, later ones are read from the cache. --inline
FILE wins over all of them.`

// options builds the lookup.Options of the flags; stderr gets progress
// unless quiet.
func (l *lookupFlags) options(stderr io.Writer, sys ksys.System) (lookup.Options, error) {
	o, c, err := lookup.Standard(sys, l.cacheDir, l.noFetch)
	if err != nil || l.quiet {
		return o, err
	}
	o.Log = func(format string, a ...any) { fmt.Fprintf(stderr, "btfinline: "+format+"\n", a...) }
	if c != nil {
		c.Progress = progress(stderr)
	}
	return o, nil
}

// findAll is find for a command over many objects (sites --running): it
// says first what it will do when there is work (how many objects, and
// how many bytes of DWARF to read and to download), and an object whose
// inline BTF is nowhere is returned as missing rather than failing the
// rest.
func (l *lookupFlags) findAll(ctx context.Context, stderr io.Writer, sys ksys.System, objs []string) ([]lookup.Found, []*lookup.NotFoundError, error) {
	o, err := l.options(stderr, sys)
	if err != nil {
		return nil, nil, err
	}
	o.KeepGoing = true
	if !l.quiet {
		o.Plan = func(p lookup.Plan) {
			if line := planLine(len(objs), p); line != "" {
				fmt.Fprintln(stderr, line)
			}
		}
	}
	found, err := lookup.Find(ctx, objs, o)
	var me *lookup.MissingError
	if errors.As(err, &me) {
		return found, me.Objects, nil
	}
	return found, nil, err
}

// planLine says what a lookup over n objects is about to do, "" when it
// has nothing to build.
func planLine(n int, p lookup.Plan) string {
	if len(p.Local)+len(p.Fetch)+len(p.Missing) == 0 {
		return ""
	}
	parts := []string{fmt.Sprintf("%d ready", len(p.Ready))}
	mb := func(ps []lookup.Pending) string {
		b, known := lookup.Bytes(ps)
		s := fmt.Sprintf("%.1f MB", float64(b)/1e6)
		if !known {
			s += ", some of unknown size"
		}
		return s
	}
	if len(p.Local) > 0 {
		parts = append(parts, fmt.Sprintf("%d to encode from this machine's debug files (%s)", len(p.Local), mb(p.Local)))
	}
	if len(p.Fetch) > 0 {
		parts = append(parts, fmt.Sprintf("%d to download from debuginfod (%s) and encode", len(p.Fetch), mb(p.Fetch)))
	}
	if len(p.Missing) > 0 {
		parts = append(parts, fmt.Sprintf("%d with no debug files here", len(p.Missing)))
	}
	return fmt.Sprintf("btfinline: inline BTF of %d objects: %s", n, strings.Join(parts, ", "))
}

// find returns the inline BTF file of each of objs on the running kernel.
func (l *lookupFlags) find(ctx context.Context, stderr io.Writer, sys ksys.System, objs []string) (map[string]string, error) {
	o, err := l.options(stderr, sys)
	if err != nil {
		return nil, err
	}
	found, err := lookup.Find(ctx, objs, o)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, f := range found {
		out[f.Object] = f.Path
	}
	return out, nil
}

// isTerminal reports whether w is a terminal (progress redraws a line
// there; elsewhere it says one line when done).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlReadTermios)
	return err == nil
}

// progress shows downloads: bytes and rate, redrawn on a terminal at
// most every 200 ms, else one line when each ends. Downloads run at once,
// so the state is per URL.
func progress(w io.Writer) func(debuginfod.Progress) {
	tty := isTerminal(w)
	var mu sync.Mutex
	start := map[string]time.Time{}
	var last time.Time
	return func(p debuginfod.Progress) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		t0, ok := start[p.URL]
		if !ok {
			t0 = now
			start[p.URL] = now
		}
		secs := now.Sub(t0).Seconds()
		rate := 0.0
		if secs > 0 {
			rate = float64(p.Done) / secs / 1e6
		}
		total := ""
		if p.Total > 0 {
			total = fmt.Sprintf(" of %.1f", float64(p.Total)/1e6)
		}
		switch {
		case p.Finished:
			if tty {
				fmt.Fprint(w, "\r\033[K")
			}
			fmt.Fprintf(w, "btfinline: fetched %.1f MB from %s in %.1f s (%.1f MB/s)\n", float64(p.Done)/1e6, p.URL, secs, rate)
			delete(start, p.URL)
		case tty && now.Sub(last) >= 200*time.Millisecond:
			last = now
			fmt.Fprintf(w, "\r\033[Kbtfinline: fetching %s: %.1f%s MB, %.1f MB/s", p.URL, float64(p.Done)/1e6, total, rate)
		}
	}
}

// runningInline is the inline BTF file of the running object module
// (vmlinux when ""): given, or from the chain; "" when running is false.
func runningInline(c *cobra.Command, l *lookupFlags, sys ksys.System, running bool, module, given string) (string, error) {
	if !running || given != "" {
		return given, nil
	}
	if module == "" {
		module = "vmlinux"
	}
	m, err := l.find(c.Context(), c.ErrOrStderr(), sys, []string{module})
	if err != nil {
		return "", err
	}
	return m[module], nil
}
