//go:build !linux

package trace

import (
	"context"
	"errors"
	"io"

	"github.com/btfinline/btfinline/internal/ksys"
)

func run(context.Context, *plan, Options) error {
	return errors.New("btfinline trace needs Linux (kprobes and BPF)")
}

// HelperMain: no hidden helpers but on Linux.
func HelperMain([]string) (code int, ok bool) { return 0, false }

// Cleanup: nothing to restore but on Linux.
func Cleanup(ksys.System, io.Writer) error {
	return errors.New("btfinline trace needs Linux (kprobes and BPF)")
}
