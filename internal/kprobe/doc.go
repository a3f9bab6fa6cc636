// Package kprobe owns the rules that decide whether a kprobe can be placed
// at an address of a kernel image or module, and why not: the kprobe
// blacklist (NOKPROBE_SYMBOL, noinstr, entry and init text), jump-label,
// static-call and BUG() patch sites, functions without an ftrace location
// (which kprobe events refuse), dead code of an overridden __weak
// definition, on arm64 the instructions kprobes will not single-step and
// exclusive sequences, with .altinstructions applied, and on x86-64 the
// instructions kprobes neither single-step nor emulate, by the kernel
// version the object names (x86insn.go). Rules are built
// from an ELF (ELFRules) or from the running kernel (RunningRules), so
// that stats, resolve and a tracer share them. docs/inspect.md lists each
// rule with its source in the kernel. Rules.Barrier (patch.go) says which
// instructions a probe moved past an inline expansion's entry pc must not
// reach: code the kernel rewrites, and code control enters or leaves
// unseen (docs/encoding.md, "Probe points").
//
// It imports arch, ksym, ksys and the internal ELF and instruction
// packages.
package kprobe
