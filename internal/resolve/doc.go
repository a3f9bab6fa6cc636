// Package resolve owns everything between the inline sites of a .BTF.inline
// and a probe that can be written: a Target (an object's BTF chain, where
// its sections are, its symbols and kprobe rules, from files or the
// running kernel), the places a kprobe for a function fires (inline sites
// and out-of-line copies) with their absolute addresses, caller+offset and
// traceability, the calling convention at a function's entry and the CFA
// rule at a pc, and turning each parameter location into a fetch argument
// for kprobe_events, bpftrace and perf probe. It also computes the
// traceability table of "btfinline stats".
//
// It imports btf, site, locsec, arch, ksym, ksys, kprobe, sframe/cfi and
// the internal ELF packages, not the DWARF reader: nesting, which
// .BTF.inline does not record, is a join the caller makes
// (dwarfsite.Nesting, then Result.MarkNesting).
package resolve
