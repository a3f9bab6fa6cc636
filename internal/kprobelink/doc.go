// Package kprobelink owns the two system calls that put a BPF program at
// a kernel address: a kprobe perf event opened at the address through the
// kprobe PMU (no symbol lookup: the address is the one package resolve
// derived), and a BPF link with a cookie on that event
// (BPF_LINK_CREATE, attach type BPF_PERF_EVENT, Linux 5.15). Closing the
// link releases the event, and the kprobe goes with it, so a process
// that dies leaves no kprobe behind. Package trace and the public API's
// Attach share it.
//
// It imports x/sys/unix, errgroup and the standard library.
package kprobelink
