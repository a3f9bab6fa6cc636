// Package locsec owns the translation between inline sites ([]site.Site)
// and the BTF location kinds LOC_PARAM, LOC_PROTO and LOCSEC
// (include/uapi/linux/btf.h of bpf-next, merge 740eb74b8d2e): Encode appends the sites of one
// object to a split btf.Spec, Decode turns any BTF holding LOCSECs back into
// sites. The DWARF-to-BTF conversion of the prototypes' types is not done
// here but through a TypeMapper (package dedup provides the real one).
//
// Encoding choices (also in docs/encoding.md):
//
//   - Inlined functions: a FUNC that already exists in the base chain with
//     the same name and an equivalent FUNC_PROTO (same return and parameter
//     type ids, same parameter names) is reused, so a partially inlined
//     function has one FUNC. Otherwise a FUNC with linkage static (0) is
//     added; its FUNC_PROTO is reused from the base chain when an identical
//     one exists there. Unnamed parameters get the name "argN" (N counted
//     from 1) because the kernel requires named parameters in a FUNC's
//     prototype.
//   - LOC_PARAM mapping: a register is REG (vlen 1), a register pair REG
//     (vlen 2), an address register+offset REG|OFFSET, a value in memory
//     REG|DEREF|OFFSET, or REG|DEREF when the offset is 0 (4 bytes
//     shorter, same meaning). Offsets and constants take one value word
//     when they fit in 32 bits (constants: when the value size is at most
//     4 bytes) and two words (low, high) otherwise. SIGNED is set exactly
//     when an offset or a constant is negative, so that equal locations
//     have equal records. DW_OP_fbreg is register 0xffffffff.
//   - Sizes: Location.Size, or the parameter type's BTF size when the DWARF
//     reader did not know it. A location the format cannot carry (a value
//     larger than 16 bytes, a constant larger than 8 bytes) is encoded as
//     unavailable (0 in the LOC_PROTO) and counted in Stats.Unencodable.
//   - CONST|ADDR values are relative to the object's base address: its
//     _stext symbol, else the lowest non-zero sh_addr of its SHF_ALLOC
//     sections (Options.AddrBase; ObjectBase computes it), so that a
//     consumer adds the runtime _stext from kallsyms, which every
//     architecture lists (docs/encoding.md). Decode adds base("") back.
//   - LOCSEC: one per ELF section holding sites, named "inline" + the
//     section name without its leading dot ("inline.text" for .text), a
//     single LOCSEC even beyond 65,535 entries (widened vlen), entries
//     sorted by (func id, offset, loc_proto id), exact duplicates dropped.
//   - Order of the added types: prototype types from the TypeMapper first,
//     then FUNC_PROTO/FUNC pairs, LOC_PARAMs, LOC_PROTOs and LOCSECs, each
//     in an order that depends only on the sites, never on scheduling.
//
// It imports btf, internal/btfindex (the base chain's index, shared with
// dedup) and site; the DWARF types come in through the TypeMapper
// interface (package dedup provides it), not an import.
package locsec
