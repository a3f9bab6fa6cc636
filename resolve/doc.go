// Package resolve owns everything between inline sites and a probe that can
// be written: turning section offsets into absolute addresses (ELF section
// addresses or the running kernel's /proc/kallsyms and /sys/module), naming
// the caller+offset of each address from a symbol table, deciding whether a
// kprobe can sit at an address (the kernel's kprobe blacklist rules), and
// turning each parameter location into a fetch argument for kprobe_events,
// bpftrace and perf probe. It also computes the traceability table of
// "btfinline stats".
//
// It reads BTF through package btf only; it decodes the LOCSEC entries it
// needs itself, filtered by function, so that resolving one function does
// not decode every site of the kernel.
package resolve
