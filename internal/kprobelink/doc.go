// Package kprobelink owns the system calls that put a BPF program at a
// kernel address, in two ways. Through the kprobe PMU (PMU.Attach): a
// kprobe perf event opened at the address (no symbol lookup: the address
// is the one package resolve derived), which the kernel registers and
// arms at once. Through a tracefs group (Group): a kprobe event defined
// in kprobe_events, which registers the kprobe disarmed, and armed later
// by a perf event opened on the event's tracepoint id; defining many
// places first and arming them in one pass keeps a hot function's
// already armed places from firing while the rest are registered. Either
// way the program is linked with a cookie (BPF_LINK_CREATE, attach type
// BPF_PERF_EVENT, Linux 5.15), and closing the link disarms the kprobe. A
// PMU kprobe goes with its last file descriptor, so a process that dies
// leaves none behind; a group's events stay until removed, which is the
// owner's task (package trace's watchdog and cleanup). Package trace and
// the public API's Attach share it.
//
// It imports x/sys/unix, errgroup and the standard library.
package kprobelink
