// Package site owns the model every part of btfinline shares when it talks
// about inline sites: a Site is one inline expansion of a Func, at an
// address a probe should use, with a Location per parameter classified
// into the LOC_PARAM taxonomy of the BTF uapi (include/uapi/linux/btf.h of
// bpf-next, merge 740eb74b8d2e);
// CType spells parameter types in C. It also owns the one text and JSON
// form of a list of sites (WriteSites, WriteJSON, with the marks an
// inspector adds), their one order (Sort, Less, LessInSection) and their
// counts (Count).
//
// The same Site values come out of DWARF (package dwarfsite) and out of
// .BTF.inline (package locsec), so "sites --dwarf" and "sites" print
// through one formatter and their outputs can be diffed. A Site's own
// fields are what .BTF.inline records and the symbols add; its embedded
// DWARF holds what only the DWARF reader knows (where the entry pc came
// from, how far the probe moved, ranges, nesting, the call's line), zero
// for a site decoded from BTF.
//
// It imports the standard library only: code that works from BTF alone
// does not link a DWARF reader.
package site
