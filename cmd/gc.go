package cmd

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/btfinline/btfinline/internal/hugepage"
)

// firstGC is the heap size below which a command never collects garbage.
// A module's encode, a resolve or a site listing allocates 10-60 MB and
// exits: the collector's first cycles, at heaps of 4, 8 and 16 MB, cost
// it a sixth of its time, most of it in the page faults of memory that
// a scan read before the program first wrote it (each a second fault and
// a TLB flush on every core the process ran on). A vmlinux encode
// passes the mark at once and collects as before, its peak unchanged.
const firstGC = 64 << 20

// deferGC turns the collector off until the heap reaches limit bytes,
// then back to its defaults (GOGC=100, no memory limit). A GOGC or
// GOMEMLIMIT in the environment is left to rule.
func deferGC(limit int64) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	gcMu.Lock()
	defer gcMu.Unlock()
	gcGen++
	gen := gcGen
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(limit)
	// The first cycle is the limit's; the sentinel, unreachable from the
	// start, is finalized after it. A sentinel of an earlier call (a cycle
	// forced since, by hugeHeap) finds itself stale and leaves the
	// settings alone.
	runtime.SetFinalizer(new([32]byte), func(*[32]byte) { endDeferral(gen) })
}

// endDeferral puts the collector back to its defaults, unless a later
// deferGC than the gen-th rules.
func endDeferral(gen int) {
	gcMu.Lock()
	defer gcMu.Unlock()
	if gcGen == gen {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// gcGen counts deferGC's calls, under gcMu.
var (
	gcMu  sync.Mutex
	gcGen int
)

// processHeap is true when the process is the command's (Main, not a
// test calling run): only then is its heap the command's to shape.
var processHeap bool

// hugeHeapFor asks for huge pages for the heap a command that reads the
// files of paths is about to build: twice their size and inputHeap more.
func hugeHeapFor(paths ...string) {
	n := int64(inputHeap)
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			n += 2 * fi.Size()
		}
	}
	hugeHeap(n)
}

// inputHeap is what hugeHeapFor adds to twice the inputs.
const inputHeap = 64 << 20

// commandHeap is what every command asks for (hugeHeap): a vmlinux's
// BTF and its inline BTF, loaded and indexed, are about 100 MiB of heap.
const commandHeap = 256 << 20

// mostHeap bounds what hugeHeap asks for.
const mostHeap = 1 << 30

// advisedHeap is the most a hugeHeap call has asked for.
var advisedHeap int64

// hugeHeap asks for huge pages for the next n bytes of heap, at most
// mostHeap (package hugepage), unless an earlier call asked for as much or
// BTFI_HUGEPAGES=0 says not to (where memory is too fragmented for huge
// pages, the kernel compacts it on the faults of an advised range). The
// collection that costs is not the one deferGC waits for: deferGC
// starts over.
func hugeHeap(n int64) {
	n = min(n, mostHeap)
	if !processHeap || n <= advisedHeap || os.Getenv("BTFI_HUGEPAGES") == "0" {
		return
	}
	if hugepage.Advise(int(n)) > 0 {
		advisedHeap = n
		deferGC(firstGC)
	}
}
