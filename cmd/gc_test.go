package cmd

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/btfinline/btfinline/internal/hugepage"
	"github.com/btfinline/btfinline/internal/testutil"
)

var sink [][]byte

// TestDeferGC: below the mark no collection runs, past it the collector
// runs and is back to GOGC=100; the same when a collection was forced
// between deferGC and a second call (hugeHeap's: the first call's
// sentinel, finalized after the forced one, must leave the second's
// settings alone). In a child process: the settings are the process's.
func TestDeferGC(t *testing.T) {
	if mode := os.Getenv("BTFI_GC_CHILD"); mode != "" {
		deferGC(32 << 20)
		if mode == "rearm" {
			runtime.GC()
			deferGC(32 << 20)
			// The first sentinel's finalizer, whenever it runs, is
			// stale: run it here too, after the second call.
			gcMu.Lock()
			gen := gcGen
			gcMu.Unlock()
			endDeferral(gen - 1)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.NumGC
		for range 16 { // 16 MiB kept
			sink = append(sink, make([]byte, 1<<20))
		}
		runtime.ReadMemStats(&ms)
		if ms.NumGC != before {
			t.Fatalf("%d collections below the mark", ms.NumGC-before)
		}
		for range 256 { // 256 MiB of garbage
			sink[0] = make([]byte, 1<<20)
		}
		runtime.ReadMemStats(&ms)
		if ms.NumGC == before {
			t.Fatal("no collection past the mark")
		}
		// The finalizer runs on its own goroutine after the first cycle.
		gogc := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
		for i := 0; i < 100 && gogc() != 100; i++ {
			time.Sleep(time.Millisecond)
		}
		if p := gogc(); p != 100 {
			t.Fatalf("GOGC %d after the first collection, want 100", p)
		}
		return
	}
	for _, mode := range []string{"once", "rearm"} {
		t.Run(mode, func(t *testing.T) {
			testutil.InChild(t, "TestDeferGC", "BTFI_GC_CHILD="+mode, "GOGC=", "GOMEMLIMIT=")
		})
	}
}

// TestDeferGCDocumented: docs/encoding.md gives the mark of the code.
func TestDeferGCDocumented(t *testing.T) {
	testutil.DocSays(t, "docs/encoding.md", fmt.Sprintf("no garbage below a %d MiB heap", firstGC>>20))
}

// TestHugeHeapDocumented: docs/encoding.md gives the sizes of the code.
func TestHugeHeapDocumented(t *testing.T) {
	testutil.DocSays(t, "docs/encoding.md",
		fmt.Sprintf("(`internal/hugepage`): %d MiB, what a base chain's BTF", commandHeap>>20),
		fmt.Sprintf("(twice the input files and %d MiB, at most %d GiB)", inputHeap>>20, mostHeap>>30))
}

// TestHugeHeap: hugeHeap advises (and forces Advise's collection) once
// for the largest size asked so far, and never under BTFI_HUGEPAGES=0;
// where the kernel's mode is not "madvise" it advises nothing. In a child
// process: the heap is the process's.
func TestHugeHeap(t *testing.T) {
	if sizes := os.Getenv("BTFI_HUGE_SIZES"); sizes != "" {
		processHeap = true
		for _, f := range strings.Split(sizes, ",") {
			mb, _ := strconv.Atoi(f)
			hugeHeap(int64(mb) << 20)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Printf("forced %d\n", ms.NumForcedGC)
		return
	}
	forced := func(sizes, optOut string) int {
		out := testutil.InChild(t, "TestHugeHeap", "BTFI_HUGE_SIZES="+sizes, "BTFI_HUGEPAGES="+optOut)
		var n int
		if _, err := fmt.Sscanf(out, "forced %d", &n); err != nil {
			t.Fatalf("child said %q: %v", out, err)
		}
		return n
	}
	madvise := hugepage.Mode() == "madvise"
	for _, c := range []struct {
		sizes, optOut string
		want          int // forced collections under "madvise"
	}{
		{"256", "0", 0},
		{"256", "", 1},
		{"256,64", "", 1},
		{"256,256", "", 1},
		{"256,512", "", 2},
		{"2048,4096", "", 1}, // both capped at 1 GiB
	} {
		want := c.want
		if !madvise {
			want = 0
		}
		if n := forced(c.sizes, c.optOut); n != want {
			t.Errorf("sizes %s MiB, BTFI_HUGEPAGES=%q: %d forced collections, want %d", c.sizes, c.optOut, n, want)
		}
	}
}
