// Package dwarfsite reads inline sites from DWARF: every
// DW_TAG_inlined_subroutine of a vmlinux or kernel module (DWARF 4 and 5,
// linked or ET_REL), the inlined function behind it, the address a probe
// should use and where each parameter's value is there, as site.Site
// values. It owns the DWARF expression and location-list decoder (with
// gcc's location views) that no library provides; debug/dwarf decodes the
// entries its own decoders leave (clang's strx and addrx forms, DWARF 2
// and 3), its view made on the first such entry and shared with the type
// converter (Object.Data): on gcc's DWARF it is never made, and the file
// tables of DW_AT_decl_file are read here too (linefiles.go).
//
// It imports site, the internal ELF, byte-cursor, instruction
// (internal/insn), chunk and dwarftype packages and the standard library.
//
// # How the DWARF reader decides (the choices a reviewer should check)
//
// Units and entries. Compilation units are read in parallel (Options.Workers
// goroutines take units in turn; results are kept per unit and merged in
// unit order, then sorted, so the output is the same for any worker count).
// A small scanner of our own walks each unit's entries by abbreviation and
// form without decoding them (scan.go), passing over a type's children
// to its DW_AT_sibling; only DW_TAG_inlined_subroutine entries and the
// DW_TAG_formal_parameter entries directly under them are decoded, the
// few attributes used into typed values (entry.go). Abstract origins and
// types are looked up by offset with a second reader (look.go) and cached
// per unit (gcc keeps them in the unit; a reference into another unit is
// followed the same way). Both decode as debug/dwarf does and leave to it
// any entry whose forms they do not decode (strx, addrx, DWARF 2 and 3,
// forms debug/dwarf lacks) or that does not decode, so every entry reads
// alike either way (TestDecodersMatchDebugDWARF). EntryReader gives the
// type converter the same, as Entries or, without one, as dwarftype.Entries
// (TestTypeEntriesMatchDebugDWARF).
//
// ET_REL. Go's debug/elf relocates only what File.DWARF loads, and a
// module's sections all start at address 0. The reader lays out the
// SHF_ALLOC sections one after another from 0x10000 (like a linker) and
// applies the RELA relocations of every DWARF section it reads
// (.debug_info, .debug_loclists/.debug_loc, .debug_rnglists/.debug_ranges,
// .debug_addr, .debug_str_offsets, .debug_line) against that layout:
// R_X86_64_64/32/32S/PC32/DTPOFF32/DTPOFF64, R_AARCH64_ABS64/ABS32/PREL32.
// Addresses are then unique, and a Site is given its section and section
// offset; Site.Addr is sh_addr (0) plus the offset. A LocAddr value of an
// ET_REL object is likewise relative to Location.Section.
//
// Site address. DW_AT_entry_pc (an address, or in DWARF 5 a constant
// offset from DW_AT_low_pc), else DW_AT_low_pc, else the lowest start of
// DW_AT_ranges, an empty range included (gcc 14 opens an expansion with
// an empty range at its entry view); Site.AddrSource says which. This is
// what perf probe uses
// (checked in TestKernelVmlinux/perf) and what Options.ProbePoint
// ProbeEntry, the zero value, gives. ProbeBlock (probe.go) reads the
// entry pc at the view that binds the parameters and may move the site
// into the expansion's first basic block, to an address where more
// parameters provably hold their arguments (Site.Moved bytes further);
// docs/encoding.md, "Probe points", says how and why. The instructions are
// decoded with golang.org/x/arch (internal/insn); what the bytes do not
// show (patched code, exception tables) comes from Options.Text, which
// package kprobe's rules implement, so this package does not import it.
//
// Location views. gcc numbers the states at one address with "views"
// (DW_AT_GNU_locviews gives a (begin view, end view) pair for every bounded
// location list entry, either as a block of ULEB128 pairs in front of the
// list or, with -gvariable-location-views=incompat5, as DW_LLE_GNU_view_pair
// entries; DW_AT_GNU_entry_view gives the view at the site's entry pc). An
// entry [B:vb, E:ve) holds at (pc, view) when (B, vb) <= (pc, view) <
// (E, ve) in lexicographic order, so an empty address range B == E holds
// at B for views vb..ve-1. All views at one address describe the same
// machine state, so a probe at the entry pc reads whatever the entry that
// holds at the entry view says: the argument as passed, not the value a
// later statement at the same address already gave the parameter (c_dbl
// in dwarfsite/testdata/sites.c is such a case; ignoring views would report a
// register holding the doubled value). Without DW_AT_GNU_entry_view the
// site is at view 0. The first bounded entry that holds wins; else a
// DW_LLE_default_location.
//
// entry_value. DW_OP_entry_value(DW_OP_regN) is the value regN had when
// the out-of-line function containing the site was entered. A kprobe reads
// the current register, which is that value only at the function's first
// instruction: at a site whose Caller offset is 0 the reader uses regN
// (and folds arithmetic around it, e.g. entry_value(reg5)+1 is "reg5 +
// 0x1"); anywhere else the parameter is unavailable with the reason
// "entry_value away from function entry". Entry values of anything but a
// single register are "entry_value of an expression".
//
// Expressions are evaluated symbolically: the stack holds constants,
// link-time addresses, register+offset values and loads from
// register+offset. The result maps onto the LOC_PARAM taxonomy (spec 3.1):
// DW_OP_regN -> LocReg; two register pieces -> LocRegPair; bregN/fbreg
// with DW_OP_stack_value -> LocRegOffset (LocReg at offset 0); a memory
// location (no stack_value) at bregN/fbreg + off, or an explicit deref
// with stack_value -> LocMem (Reg = FBReg for the frame base); literals,
// DW_OP_const*, DW_OP_implicit_value and DW_AT_const_value -> LocConst;
// DW_OP_addr with stack_value -> LocAddr. Constant arithmetic is folded;
// plus/minus of a constant onto a register or address is folded. Anything
// else is LocUnavailable with a Reason (the Reason* constants), counted by
// --stats and shown by --reasons / JSON: e.g. DW_OP_addr without
// stack_value is "memory at absolute address" (the value is in a global,
// which a LOC_PARAM cannot point at), reg & mask is "multi-op arithmetic".
// A parameter with no location at the site has an empty Reason.
package dwarfsite
