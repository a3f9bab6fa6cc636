// Package lookup owns where the inline BTF of a running kernel object
// (vmlinux or a loaded module) comes from when the command line names no
// file: the kernel's own /sys/kernel/btf/NAME.inline; else a cache keyed by
// the object's GNU build id; else encoding the object's DWARF, found on
// this machine by build id or by the distribution's layout of its debug
// packages, or fetched from debuginfod; else an error that names every
// place looked at and what to install.
//
// Build ids decide, never names: a DWARF file or a cached file is used
// only for the build id the running kernel reports for the object, and
// only on the base BTF it was made on (the SHA-256 of /sys/kernel/btf's
// files, recorded beside each cached file).
//
// It imports btf, encode, ksys, internal/elfobj and internal/atomicfile;
// Find takes fetching as a function the caller gives, so that tests and
// other transports plug in, and Standard gives it internal/debuginfod.
package lookup
