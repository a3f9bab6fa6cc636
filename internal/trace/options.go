package trace

import (
	"context"
	"io"
	"time"

	"github.com/btfinline/btfinline/internal/ksys"
)

// Options is one "btfinline trace" run.
type Options struct {
	Probes []Probe
	// Sources: FILE and its -B chain, on the running kernel's addresses;
	// else the running kernel's /sys/kernel/btf, with Inline naming
	// .BTF.inline files for objects it has none for (the object is the
	// file's name without ".inline": vmlinux.inline, fuse.inline).
	File   string
	Bases  []string
	Inline []string
	Sys    ksys.System

	JSON     bool
	Filter   string
	Count    bool
	Hist     string // argument to histogram
	By       string // aggregation key: "function" (default), "caller" or "site"
	Interval time.Duration
	Duration time.Duration
	PID      int
	Stack    bool
	Hex      bool // integers in hex
	// RingSize is the ring buffer's size in bytes (a power of 2 of at
	// least a page); 0: 8 MiB.
	RingSize int
	// Verbose lists every place that is not attached, with its reason,
	// and says how often the places fired while the others were attached
	// and how often the process's threads were switched meanwhile.
	Verbose  bool
	Out, Err io.Writer
	// KeepOptprobes leaves kprobe jump optimization on while attaching
	// and detaching PauseOptprobesAt or more places (see pauseOptprobes).
	KeepOptprobes bool
	// Attached, if set, is called once every site is attached, with the
	// time attaching took (tests and the e2e harness).
	Attached func(sites int, took time.Duration)
	// FollowModules: a probe of a module that is not loaded waits for
	// it, and a traced module that is removed is waited for again; each
	// time the module is loaded its places are found and attached. Only
	// with the running kernel's BTF (no FILE).
	FollowModules bool
	// FindInline gives the .BTF.inline file of a module that was loaded
	// after the run started ("" for the kernel's own
	// /sys/kernel/btf/MOD.inline): the command line's lookup chain. nil
	// is the kernel's file only.
	FindInline func(ctx context.Context, module string) (string, error)
}

// PauseOptprobesAt is the number of places from which attaching pauses
// kprobe jump optimization.
const PauseOptprobesAt = 64

func (o *Options) mode() Mode {
	switch {
	case o.Hist != "":
		return ModeHist
	case o.Count:
		return ModeCount
	}
	return ModeEvents
}
