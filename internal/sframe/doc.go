// Package sframe reads, writes, dumps and produces SFrame stack trace
// sections (versions 2 and 3; AMD64 and AArch64).
//
// It owns the byte format (decode/encode, with the readelf --sframe text
// form in dump.go), the translation of DWARF call frame information into
// SFrame the way GNU as does it (translate.go), the PLT entries GNU ld
// synthesises (plt.go), the ELF plumbing that feeds them (input.go) and the
// .sframe/.rela.sframe sections that "btfinline sframe emit --elf-section"
// adds through internal/elfwrite (elfwrite.go). Parsing and interpreting
// CFI lives in sframe/cfi. It also owns the unwinding property check
// (unwind.go: Input.CheckFrames, which any table format plugs its lookup
// into; package cframe does) and lookups from an encoded v3 section's
// bytes, as an in-kernel unwinder makes them (table.go), for measuring.
//
// # Where this package differs from GNU as/ld, and why
//
// The translator (translate.go) follows gas's gen-sframe.c rule for rule —
// the "merge candidate" row handling, gas's quirk of taking the CFA offset
// for DW_CFA_def_cfa_register from the last closed row, remember_state
// remembering the last closed row, RA-undefined and mangled-RA being sticky,
// the 65535-FRE limit, the AArch64 "FP saved without RA" rule, data words
// within ±0x7f/±0x7fff, zero-FRE FDEs for untranslatable signal frames — so
// that objects built from gcc output give byte-identical sections (tested
// against binutils 2.47 for every x86-64 fixture). The differences:
//
//   - DW_CFA_restore of FP (and of RA on AArch64) restores the CIE's initial
//     rule. gas restores the value of its first row, which already includes
//     whatever the FDE did before its first advance. For FDEs that begin
//     with registers already saved (gcc's .cold partitions, many vmlinux
//     functions) gas's choice keeps "FP saved" after the register has been
//     popped and unwinds wrongly; the unwinding check found 652 such
//     addresses in the Debian vmlinux before this was changed.
//   - Input is encoded CFI, not assembler directives. gas accepts only
//     certain .cfi_escape byte patterns; an escape cannot be told apart
//     from the same opcode emitted natively, so the patterns are applied to
//     whatever the bytes decode to: DW_CFA_GNU_args_size with a one-byte
//     operand (ignored when zero or with an FP-based CFA), DW_CFA_def_cfa_
//     expression "DW_OP_breg6 off; DW_OP_deref" (AMD64, FLEX), DW_CFA_
//     expression "DW_OP_bregN off" with one-byte operands (FP based on rbp:
//     FLEX; other registers unless SP/FP/RA/CFA register: ignored). Any
//     other expression drops the FDE, as gas does.
//   - DW_CFA_expression for FP with a base other than rbp: gas takes a path
//     that leaves the FP register unset; we drop the FDE.
//   - The _sf, _extended and GNU_negative_offset_extended forms translate
//     like their plain forms (gas never emits them from directives).
//   - Two rows at the same address (a zero advance) keep only the later
//     one; gas would write two FREs with the same start, which libsframe
//     rejects as unsorted.
//   - AMD64 .cfi_offset rip,-8 after an explicit RA rule resets RA to the
//     fixed slot.
//   - Linked inputs: every FDE of .eh_frame is translated, including those
//     of objects that were not assembled with --gsframe (crt1.o's _start,
//     which ld therefore has no SFrame for). The .eh_frame FDE that ld
//     writes for .plt (a DWARF expression) is replaced by the PC-mask FDEs
//     ld synthesises (plt.go), for .plt, .plt.sec and .plt.got alike
//     (sframe/testdata/plt.c, linked with -z ibtplt, has all three and
//     matches ld function for function). FRE blocks keep .eh_frame order with the PLT
//     blocks last, the index is sorted (ld sorts the index likewise; its
//     block order is link order, which is also .eh_frame order for
//     gas-built code).
//   - FDEs whose function start is not inside an executable section are
//     skipped (discarded sections in vmlinux, unresolved relocations in
//     objects).
//   - SFrame v2 (--sframe-version 2) is what 2.45 gas would write: FDEs
//     needing FLEX are dropped, untranslatable signal frames are dropped
//     (v2 has no signal bit), RA-undefined rows are kept as zero-word FREs
//     (v2 erratum 2). binutils 2.47 as cannot write v2, so v2 is checked by
//     readelf reading it and by the unwinding check only.
//   - Relocatable inputs: "emit -o" writes section-relative function
//     starts (every section at 0, the view readelf prints for a relocated
//     object); "--elf-section" writes zero fields plus a .rela.sframe with
//     one R_X86_64_PC64 / R_AARCH64_PREL64 (v2: PC32 / PREL32) relocation
//     per FDE against the function's section symbol, exactly as gas does.
//   - Linked inputs with "--elf-section": the section is added without
//     SHF_ALLOC at an address just past the last PT_LOAD (function starts
//     are PC-relative to that address); no segment maps it and no
//     PT_GNU_SFRAME is added — the command says so.
//   - AArch64: checked like AMD64, against as and ld of the same binutils
//     for aarch64 (Debian sid's binutils-aarch64-linux-gnu, fetched by
//     scripts/a64tools; Debian 12's own aarch64 as is 2.40 and writes
//     SFrame v1): byte-identical to as --gsframe for -O0, -O2, frame
//     pointers and pac-ret objects, and equal to ld's section function for
//     function in linked executables. ld writes no PLT entries on AArch64,
//     and neither do we.
//
// It imports sframe/cfi, golang.org/x/arch (instruction boundaries for
// the unwinding check) and the internal ELF packages.
package sframe
