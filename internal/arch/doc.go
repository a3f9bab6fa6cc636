// Package arch owns the facts of the two target architectures, x86-64 and
// arm64, that every consumer of a location needs: which ELF machine is
// which, the pt_regs names of DWARF registers (as kprobe_events, perf and
// bpftrace spell them), the argument registers of the calling convention
// and the stack pointer.
//
// It imports debug/elf and the standard library only.
package arch
