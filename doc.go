// Package btfinline tells a Go tracer where a kprobe for a Linux kernel
// function fires, and where the function's arguments are at each place,
// from inline BTF (a .BTF.inline section) instead of DWARF.
//
// About 40% of a kernel's functions have no out-of-line copy: they exist
// only as inline expansions inside their callers, which fentry and a
// kprobe on the function's name cannot reach. A kernel built with
// CONFIG_DEBUG_INFO_BTF_INLINE (or encoded by "btfinline encode") records
// every expansion in a few megabytes of BTF: the address where a probe
// sees the arguments, and each argument's location there.
//
// A caller opens a Target, from files (Open) or from the running kernel
// (OpenRunning, which finds the inline BTF of a stock distribution kernel
// by build id in the local debug packages, the cache or debuginfod), asks
// it for the Places of a function, and attaches its own cilium/ebpf
// kprobe program at every place with Attach. Each place carries the
// fetches of the function's arguments (Arg, Fetch): a register, a
// constant, or a load from memory relative to either, with the register's
// offset in struct pt_regs, so that one program can read the arguments of
// every place from a map keyed by the place's cookie.
//
//	t, err := btfinline.OpenRunning(ctx, "vmlinux", nil)
//	places, err := t.Places("__list_del_entry")
//	links, err := btfinline.Attach(prog, places) // cookie i at places[i]
//	defer links.Close()
//
// What a caller may rely on: the names and meanings of this package's
// exported identifiers, and that a Place's fetches are the ones
// "btfinline resolve --format json" prints for the same place. Everything
// else of the module is internal and may change. The kernel decides in
// the end: a place that the kprobe rules of the kernel allow (Refusal is
// nil) can still be refused by Attach on a kernel with other rules, and
// Attach says so per place.
//
// The package imports cilium/ebpf for the program type, and the module's
// internal packages: the resolver, the lookup chain and the kprobe link.
package btfinline
