package hugepage

import (
	"math"
	"runtime"
	"runtime/debug"
	"unsafe"

	"golang.org/x/sys/unix"
)

// limited reports whether the process's address space or data is
// bounded (RLIMIT_AS, RLIMIT_DATA, which since Linux 4.7 counts private
// writable mappings): a large reservation could pass the bound, and the
// runtime dies of a failed mapping instead of returning an error.
func limited() bool {
	for _, res := range []int{unix.RLIMIT_AS, unix.RLIMIT_DATA} {
		var l unix.Rlimit
		if unix.Getrlimit(res, &l) == nil && l.Cur != unix.RLIM_INFINITY {
			return true
		}
	}
	return false
}

// Advise makes about n bytes of the heap the program allocates next
// huge-page backed, when the kernel's mode is "madvise" (elsewhere it
// does nothing: "always" needs no request, "never" refuses it), the
// kernel does not account commit strictly and no resource limit bounds
// the process's mappings. It returns the bytes advised,
// 0 when it did nothing.
//
// It costs a garbage collection and about 5 ms per GiB of address space
// for the runtime's page tables, before anything is touched: call it
// once, early, sized to the work. The collector's settings are as they
// were when it returns, but the collection it forces counts as one.
func Advise(n int) int {
	if n < 2*Size || Mode() != "madvise" || strictOvercommit() || limited() {
		return 0
	}
	// Neither the allocation nor the release may start a collection of
	// its own; the one FreeOSMemory forces frees the object.
	pct := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	advised := adviseRange(n)
	// The freed range goes back to the kernel untouched: the runtime
	// counts it as released, not as memory in use against a limit.
	debug.FreeOSMemory()
	debug.SetMemoryLimit(limit)
	debug.SetGCPercent(pct)
	return advised
}

// adviseRange allocates n bytes and advises the huge pages wholly inside
// them; the object is garbage when it returns.
func adviseRange(n int) int {
	b := make([]byte, n)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	beg := (p + Size - 1) &^ (Size - 1)
	end := (p + uintptr(n)) &^ (Size - 1)
	if beg >= end {
		return 0
	}
	r := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), beg-p)), end-beg)
	err := unix.Madvise(r, unix.MADV_HUGEPAGE)
	runtime.KeepAlive(b)
	if err != nil {
		return 0
	}
	return int(end - beg)
}
