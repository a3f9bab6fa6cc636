// Package cframe is an experimental compact frame table: the "CFrame"
// design of the SFrame list's review (docs/cframe.md), built to measure
// it against SFrame v3. SFrame stays the default; nothing but the command
// line uses this package.
//
// It owns the byte format (docs/cframe.md is its specification), the
// encoder (Build: chunking, deduplication, the choice of bit widths and of
// the address split per section), the decoder (Decode: every entry
// validated once, typed errors with the byte offset, nothing allocated
// per entry), the lookup from the encoded bytes (Table.Lookup), the text
// dump and the size statistics.
//
// Rows come from the SFrame v3 translation of the object's call frame
// information (package sframe, through emit.go only), so a CFrame table
// answers exactly what the object's SFrame section answers, and the
// unwinding property is checked by the same sframe.Input.CheckFrames.
// It may import sframe, sframe/cfi and internal/*; only cmd imports it.
//
// Finished objects only: executables, shared objects, vmlinux and kernel
// modules (which the module loader places section by section: a section
// map says where). Relocatable objects that are linker input are refused
// (ErrRelocatable; docs/cframe.md says why).
package cframe
