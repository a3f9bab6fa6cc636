package cmd

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
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
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(limit)
	// The first cycle is the limit's; the sentinel, unreachable from the
	// start, is finalized after it.
	runtime.SetFinalizer(new([32]byte), func(*[32]byte) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}
