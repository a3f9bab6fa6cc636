//go:build linux

package kprobelink

import (
	"errors"
	"sync/atomic"
	"testing"
)

// TestParallel: every call is made once, inline on one worker and on
// goroutines on more, and the first error is returned, with the calls
// after it on one worker not made.
func TestParallel(t *testing.T) {
	for _, workers := range []int{1, 4} {
		var calls [100]atomic.Int32
		if err := Parallel(len(calls), workers, func(i int) error { calls[i].Add(1); return nil }); err != nil {
			t.Fatalf("%d workers: %v", workers, err)
		}
		for i := range calls {
			if n := calls[i].Load(); n != 1 {
				t.Fatalf("%d workers: call %d made %d times", workers, i, n)
			}
		}
	}
	bad := errors.New("refused")
	var made atomic.Int32
	err := Parallel(100, 1, func(i int) error {
		made.Add(1)
		if i == 10 {
			return bad
		}
		return nil
	})
	if !errors.Is(err, bad) || made.Load() != 11 {
		t.Errorf("one worker, call 10 failing: %v after %d calls, want %v after 11", err, made.Load(), bad)
	}
}
