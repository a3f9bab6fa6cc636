// Package ksys owns reading the running kernel's facts from its files:
// /proc/kallsyms, a loaded module's section addresses (/sys/module), the
// BTF the kernel publishes (/sys/kernel/btf), the kprobe blacklist
// (debugfs), the functions ftrace can trace (tracefs), build ids
// (/sys/kernel/notes, /sys/module/*/notes), the kernel's release, the
// kprobes registered now (debugfs) and the kernel's text as it runs
// (/proc/kcore). System.Root lets tests give a fake tree.
//
// It imports ksym and internal/elfobj.
package ksys
