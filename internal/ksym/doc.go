// Package ksym owns the symbol tables of a kernel image or module, from
// its ELF symbol table (with the linker's marker symbols) or from the
// running kernel's /proc/kallsyms text: function symbols by address, with
// the lookup of the function around an address (caller+offset), by name,
// and the out-of-line copies of a function (gcc clones).
//
// It imports debug/elf and the standard library only.
package ksym
