package cmd

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/btfinline/btfinline/internal/ksys"

	"github.com/btfinline/btfinline/internal/resolve"
	"github.com/btfinline/btfinline/internal/trace"
	"github.com/spf13/cobra"
)

type traceOptions struct {
	bases    []string
	running  bool
	inline   []string
	json     bool
	filter   string
	count    bool
	hist     string
	by       string
	interval time.Duration
	duration time.Duration
	pid      int
	stack    bool
	hex      bool
	ringSize int
	keepOpt  bool
	verbose  bool
	follow   bool
	cleanup  bool
	sysRoot  string
	lookup   lookupFlags
}

func newTraceCmd() *cobra.Command {
	o := &traceOptions{}
	c := &cobra.Command{
		Use:   "trace PROBE... [--running | FILE [-B BASE]...] [flags]",
		Short: "watch an inlined kernel function's arguments live, with BPF",
		Long: `Trace every call of FUNC: a kprobe at each of its inline sites and at the
entry of each out-of-line copy (the places "btfinline resolve" lists), one
BPF program per probe that fetches the arguments from the site's LOC_PARAM
locations (registers, memory at register+offset, frame-base stack slots
through the CFA, constants) and sends them through a ring buffer. Needs root
(or CAP_BPF, CAP_PERFMON and CAP_SYSLOG) and a kernel with kprobes, BPF and
BPF links with cookies (Linux 5.15 or later).

PROBE:
    FUNC                  every parameter of FUNC in vmlinux
    MODULE:FUNC           FUNC in a loaded module (--follow-modules: in a
                          module loaded later, and again each time the
                          module is removed and loaded; bpftrace and perf
                          cannot)
    FUNC(a, p->len)       these arguments: a parameter, or a member reached
                          from a pointer parameter (->, then . inside it)
    FUNC(name:str)        the string a char pointer (or char array) holds
    FUNC(flags:x)         integers in hex

SOURCES:
    --running (default)   BTF from /sys/kernel/btf/vmlinux and
                          /sys/kernel/btf/{vmlinux,MODULE}.inline, addresses
                          from /proc/kallsyms and /sys/module/MODULE/sections;
                          where the kernel serves no .inline, from the cache
                          by build id or encoded from the object's DWARF
                          (local debug files, or debuginfod): see below
    --inline FILE         the .BTF.inline of one object from a file (named
                          after the file: vmlinux.inline, fuse.inline),
                          repeatable
    FILE [-B BASE]...     an object's .BTF.inline and symbols as for
                          "resolve" (frame-base arguments need its CFI: give
                          the .ko or vmlinux as the last -B), placed at the
                          running kernel's addresses after checking that it
                          is the same build

Places the kernel will not probe (kprobe blacklist, notrace, jump labels, init
text, ...) are skipped with the reason on stderr (up to ten one by one, else
one line per reason with a count; -v lists each); the rest are traced.
Nothing is attached at an address that was not derived from matching BTF and
symbols. While 64 or more places are attached or detached, kprobe jump
optimization (/proc/sys/debug/kprobes-optimization) is paused: the kernel
would otherwise run an optimizer round, which holds the kprobe mutex across
an RCU grace period, after every single kprobe (--keep-optprobes: do not).

OUTPUT:
    one line per hit:  TIME CPU PID COMM PLACE FUNC(name=value, ...)
    TIME is CLOCK_MONOTONIC (as trace_pipe and dmesg), PLACE caller+0xoff;
    values are formatted by their BTF type: signed and unsigned decimal,
    pointers in hex, bool, enumerators by name, structs as {member=value},
    char arrays as strings; "(unavailable)" where the argument has no
    location at that site, "(fault)" where reading it failed. Lost events
    (ring buffer full) are counted and printed at the end.
    --json                one JSON object per event (or per count/histogram)
    --count               hits per place and per caller, no events
    --hist ARG            log2 histogram of ARG per --by key
    --stack               the kernel stack of each hit, through kallsyms
                          (the kernel's unwinder: on x86-64 it stops after
                          the first frame where the probed instruction is a
                          one-byte push or pop; see docs/trace.md)

FILTER (evaluated in the kernel: a filtered hit costs no copy):
    comparisons == != < <= > >=, & with constants, && || ! and parentheses;
    names are arguments (p->len too) or BTF enumerators. A comparison that
    reads an unavailable argument is false.

Exit: Ctrl-C, SIGTERM, --duration or an error detach every kprobe and unload
every program (the kernel also releases them if the process dies); no
kprobe event or trace instance is created in tracefs. The pause of jump
optimization is recorded in /run/btfinline/optprobes before the sysctl is
written and undone by a watchdog process when trace dies (even of SIGKILL),
else by the next trace or --cleanup; with two traces at once it is undone
when the last ends. So nothing is left behind.

    --cleanup             restore what a trace killed with its watchdog
                          left (the sysctl), then exit; no PROBE

` + lookupHelp,
		Example: `  btfinline trace tcp_snd_cwnd_set
        every call of tcp_snd_cwnd_set, inlined or not, with its arguments
  btfinline trace 'tcp_snd_cwnd_set(tp, val)' --filter 'val < 10'
        only the calls that set a congestion window below 10
  btfinline trace 'skb_has_frag_list(skb, skb->len)' --stack --duration 5s
        with a member behind the pointer and the kernel stack, for 5 s
  btfinline trace __list_del_entry --count --interval 1s
        hits per place and per caller, every second
  btfinline trace 'kmalloc(size)' --hist size --by caller
        a log2 histogram of kmalloc sizes per calling function
  btfinline trace fuse:fuse_request_init --inline /usr/lib/debug/fuse.inline --json
        a module's inline BTF from a file, one JSON object per call
  btfinline trace 'btfi_e2e:btfi_frame' btfi_e2e.inline -B /sys/kernel/btf/vmlinux -B btfi_e2e.ko
        the files of a module (its CFI gives the frame-base arguments)`,
		Args: func(c *cobra.Command, args []string) error {
			if o.cleanup {
				if len(args) > 0 {
					return errors.New("--cleanup takes no PROBE")
				}
				return nil
			}
			return cobra.MinimumNArgs(1)(c, args)
		},
		RunE: func(c *cobra.Command, args []string) error {
			if o.cleanup {
				return trace.Cleanup(ksys.System{Root: o.sysRoot}, c.OutOrStdout())
			}
			file := ""
			if last := args[len(args)-1]; len(args) > 1 && isFileArg(last, len(o.bases) > 0) {
				file, args = last, args[:len(args)-1]
			}
			if o.running && file != "" {
				return errors.New("--running reads the running kernel's BTF: give FILE or --running, not both")
			}
			var probes []trace.Probe
			for _, a := range args {
				p, err := trace.ParseProbe(a)
				if err != nil {
					return err
				}
				probes = append(probes, p)
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			sys := ksys.System{Root: o.sysRoot}
			var findInline func(context.Context, string) (string, error)
			if file == "" {
				inl, err := o.lookupInline(c, ctx, sys, probes)
				if err != nil {
					return err
				}
				o.inline = inl
				findInline = func(ctx context.Context, m string) (string, error) {
					f, err := o.lookup.find(ctx, c.ErrOrStderr(), sys, []string{m})
					if err != nil {
						return "", err
					}
					return inlineFile(sys, m, f[m]), nil
				}
			} else if o.follow {
				return errors.New("--follow-modules follows the running kernel's modules: not with FILE")
			}
			err := trace.Run(ctx, trace.Options{
				Probes: probes, File: file, Bases: o.bases, Inline: o.inline, Sys: sys,
				JSON: o.json, Filter: o.filter, Count: o.count, Hist: o.hist, By: o.by, Interval: o.interval,
				Duration: o.duration, PID: o.pid, Stack: o.stack, Hex: o.hex, RingSize: o.ringSize, KeepOptprobes: o.keepOpt, Verbose: o.verbose,
				FollowModules: o.follow, FindInline: findInline,
				Out: c.OutOrStdout(), Err: c.ErrOrStderr(),
			})
			var nf *resolve.NotFoundError
			if errors.As(err, &nf) {
				return &exitError{code: 2, msg: err.Error()}
			}
			return err
		},
	}
	f := c.Flags()
	f.StringArrayVarP(&o.bases, "base-btf", "B", nil, "base BTF of FILE (repeatable: first is the root, vmlinux)")
	f.BoolVar(&o.running, "running", false, "use the running kernel's BTF and addresses (the default without FILE)")
	f.StringArrayVar(&o.inline, "inline", nil, "an object's .BTF.inline file, for kernels that do not publish one (repeatable)")
	f.BoolVar(&o.json, "json", false, "one JSON object per event, count table or histogram")
	f.StringVar(&o.filter, "filter", "", "only hits for which EXPR is true, evaluated in the kernel")
	f.BoolVar(&o.count, "count", false, "count hits per place and per caller instead of printing them")
	f.StringVar(&o.hist, "hist", "", "log2 histogram of the argument ARG instead of printing hits")
	f.StringVar(&o.by, "by", "function", "histogram key: function, caller or site")
	f.DurationVar(&o.interval, "interval", 0, "print counts or histograms (or the event and loss totals) every DURATION")
	f.DurationVar(&o.duration, "duration", 0, "stop DURATION after attaching (default: until Ctrl-C or SIGTERM)")
	f.IntVarP(&o.pid, "pid", "p", 0, "only hits in process PID (a thread group id)")
	f.BoolVar(&o.stack, "stack", false, "print the kernel stack of each hit")
	f.BoolVar(&o.hex, "hex", false, "print every integer in hex")
	f.IntVar(&o.ringSize, "ring-size", 8<<20, "ring buffer size in bytes (a power of 2)")
	f.BoolVar(&o.keepOpt, "keep-optprobes", false, "do not pause kprobe jump optimization while attaching or detaching 64 or more places")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "list every place that is not attached, with its reason, and say how often the places fired and how often its threads were switched while attaching")
	f.BoolVar(&o.follow, "follow-modules", false, "a probe of a module that is not loaded waits for it, and a traced module that is removed is waited for again: its places are attached each time it is loaded")
	f.BoolVar(&o.cleanup, "cleanup", false, "restore the kprobe jump optimization a killed trace left paused, and exit")
	f.StringVar(&o.sysRoot, "sys-root", "", "root of /proc and /sys (testing)")
	o.lookup.add(f)
	_ = f.MarkHidden("sys-root")
	return c
}

// isFileArg tells FILE from a PROBE: a path, an object's file name, or
// anything after -B.
func isFileArg(s string, haveBases bool) bool {
	if haveBases || strings.ContainsRune(s, '/') {
		return true
	}
	switch filepath.Ext(s) {
	case ".ko", ".inline", ".o", ".elf":
		return true
	}
	return false
}

// lookupInline adds to --inline the inline BTF of every object a probe
// names that --inline does not give, from the lookup chain.
func (o *traceOptions) lookupInline(c *cobra.Command, ctx context.Context, sys ksys.System, probes []trace.Probe) ([]string, error) {
	given := map[string]bool{}
	for _, f := range o.inline {
		given[trace.InlineObject(f)] = true
	}
	var objs []string
	for _, p := range probes {
		if o.follow && !p.Loaded(sys) {
			continue // looked up when it is loaded
		}
		if obj := p.Object(); !given[obj] {
			given[obj] = true
			objs = append(objs, obj)
		}
	}
	out := slices.Clone(o.inline)
	if len(objs) == 0 {
		return out, nil
	}
	m, err := o.lookup.find(ctx, c.ErrOrStderr(), sys, objs)
	if err != nil {
		return nil, err
	}
	for _, obj := range objs {
		if p := inlineFile(sys, obj, m[obj]); p != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// inlineFile is the file trace is given for obj's inline BTF, which the
// lookup chain found at path: "" for the kernel's own, which trace reads
// by itself.
func inlineFile(sys ksys.System, obj, path string) string {
	if path == sys.BTFPath(obj+".inline") {
		return ""
	}
	return path
}
