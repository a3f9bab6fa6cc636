package lookup

import (
	"os/exec"
	"syscall"
)

func runMount(dir string) ([]byte, error) {
	return exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput()
}

func unmount(dir string) { syscall.Unmount(dir, 0) }
