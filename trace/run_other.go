//go:build !linux

package trace

import (
	"context"
	"errors"
)

func run(context.Context, *plan, Options) error {
	return errors.New("btfinline trace needs Linux (kprobes and BPF)")
}
