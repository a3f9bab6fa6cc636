//go:build linux

package btfinline

import (
	"errors"
	"fmt"

	"github.com/btfinline/btfinline/internal/kprobelink"
	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

func attachAll(l *Links, prog *ebpf.Program, places []Place, todo []int) error {
	pmu, err := kprobelink.OpenPMU()
	if err != nil {
		return err
	}
	fatal := kprobelink.Parallel(len(todo), kprobelink.AttachWorkers, func(j int) error {
		i := todo[j]
		fd, err := pmu.Attach(prog.FD(), places[i].Address, uint64(i))
		l.mu.Lock()
		defer l.mu.Unlock()
		switch {
		case err == nil:
			l.fds[i] = fd
		case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES), errors.Is(err, unix.EMFILE):
			// Every other place would fail the same way.
			return fmt.Errorf("btfinline.Attach: %s: %w", places[i].Probe, err)
		default:
			l.failed[i] = err
		}
		return nil
	})
	return fatal
}

func closeLinks(fds []int) { kprobelink.CloseAll(fds) }
