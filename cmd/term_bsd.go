//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package cmd

import "golang.org/x/sys/unix"

// ioctlReadTermios reads a terminal's attributes (isTerminal).
const ioctlReadTermios = unix.TIOCGETA
