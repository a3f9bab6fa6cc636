package hugepage

import (
	"testing"

	"golang.org/x/sys/unix"
)

// setDataLimit bounds the process's data at 64 GiB: finite, and far above
// what the test allocates.
func setDataLimit(t *testing.T) {
	if err := unix.Setrlimit(unix.RLIMIT_DATA, &unix.Rlimit{Cur: 64 << 30, Max: unix.RLIM_INFINITY}); err != nil {
		t.Fatal(err)
	}
}
