//go:build !linux

package btfinline

import (
	"errors"

	"github.com/cilium/ebpf"
)

func attachAll(*Links, *ebpf.Program, []Place, []int) error {
	return errors.New("btfinline.Attach: kprobes are Linux's")
}

func closeLinks([]int) {}
