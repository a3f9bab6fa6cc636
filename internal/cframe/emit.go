package cframe

import (
	"debug/elf"
	"errors"
	"fmt"

	"github.com/btfinline/btfinline/internal/elfwrite"
	"github.com/btfinline/btfinline/internal/sframe"
)

// This file is the seam to package sframe: the object's CFI is read and
// translated into rows exactly as for SFrame v3 (sframe.Input.Emit), and
// the SFrame FDEs become Funcs. Nothing else here knows sframe's types.

// ErrRelocatable refuses an object that is linker input: a CFrame table
// cannot be merged by a linker (docs/cframe.md, "Finished objects only").
var ErrRelocatable = errors.New("CFrame describes finished objects: a relocatable object other than a kernel module is linker input, and a linker cannot merge CFrame tables (docs/cframe.md)")

// Emitted is a table built from an object, with what it was built from.
type Emitted struct {
	SFrame *sframe.Emitted // the SFrame v3 translation the rows come from
	Built  *Built
	Funcs  []Func
	// Section map of a kernel module: synthetic start of each section.
	Sections []SectionRange
	secStart map[int]uint64
}

// Emit translates the object's call frame information into a CFrame
// table. Funcs[i] is FDE i of the SFrame v3 translation.
func Emit(in *sframe.Input, opt Options) (*Emitted, error) {
	if in.Rel && !isKernelModule(in.File) {
		return nil, ErrRelocatable
	}
	em, err := in.Emit(sframe.EmitOptions{Version: sframe.Version3})
	if err != nil {
		return nil, err
	}
	e := &Emitted{SFrame: em}
	s := em.Section
	if in.Rel {
		e.layOutSections(in.File, em)
	}
	e.Funcs = make([]Func, len(s.FDEs))
	for i := range s.FDEs {
		f := &s.FDEs[i]
		fn := Func{Addr: uint64(f.Start), Size: uint64(f.Size)}
		if in.Rel {
			fn.Addr = e.secStart[em.FuncSection[i]] + em.FuncOffset[i]
		}
		if f.PCType() == sframe.PCTypeMask {
			fn.Rep = uint32(f.RepSize)
		}
		fn.Rows = make([]FuncRow, len(f.FREs))
		for j := range f.FREs {
			fn.Rows[j] = FuncRow{Start: f.FREs[j].Start, State: State{Frame: s.FrameOf(f, &f.FREs[j]), Signal: f.Signal(), KeyB: f.PAuthKeyB()}}
		}
		e.Funcs[i] = fn
	}
	opt.ABI = s.ABI
	opt.Sections = e.Sections
	if err := e.Rebuild(opt); err != nil {
		return nil, err
	}
	return e, nil
}

// Rebuild lays the table out again with other options.
func (e *Emitted) Rebuild(opt Options) error {
	opt.ABI = e.SFrame.Section.ABI
	opt.Sections = e.Sections
	bt, err := Build(e.Funcs, opt)
	if err != nil {
		return err
	}
	e.Built = bt
	return nil
}

func isKernelModule(f *elf.File) bool {
	return f.Section(".modinfo") != nil || f.Section(".gnu.linkonce.this_module") != nil
}

// layOutSections places the executable sections holding functions one
// after another, at their alignment, from 0: the address space of a
// module's table.
func (e *Emitted) layOutSections(f *elf.File, em *sframe.Emitted) {
	used := map[int]bool{}
	for _, s := range em.FuncSection {
		used[s] = true
	}
	e.secStart = map[int]uint64{}
	cur := uint64(0)
	for i, s := range f.Sections {
		if !used[i] {
			continue
		}
		al := max(s.Addralign, 1)
		cur = (cur + al - 1) &^ (al - 1)
		e.secStart[i] = cur
		e.Sections = append(e.Sections, SectionRange{Index: uint32(i), Start: cur, Size: uint32(s.Size)})
		cur += s.Size
	}
}

// Encode writes the table for a section at sectionAddr (ignored for
// modules, whose tables are not placed by address).
func (e *Emitted) Encode(sectionAddr uint64) ([]byte, error) {
	if len(e.Sections) > 0 {
		sectionAddr = 0
	}
	return e.Built.Encode(sectionAddr)
}

// Finder is the table's lookup in the form of sframe's unwinding check.
func (e *Emitted) Finder(t *Table) sframe.FrameFinder {
	return func(l sframe.Loc) (sframe.Frame, bool) {
		var st State
		var ok bool
		if l.Sec >= 0 {
			st, ok = t.LookupSection(uint32(l.Sec), l.Addr)
		} else {
			st, ok = t.Lookup(l.Addr)
		}
		return st.Frame, ok
	}
}

// Verify decodes the encoded table b (at sectionAddr) and runs the
// unwinding check on it: every instruction boundary of every function
// kept, and the gaps.
func (e *Emitted) Verify(in *sframe.Input, b []byte, sectionAddr uint64, maxReport int) (sframe.VerifyResult, error) {
	if len(e.Sections) > 0 {
		sectionAddr = 0
	}
	t, err := Decode(b, sectionAddr, ".cframe")
	if err != nil {
		return sframe.VerifyResult{}, fmt.Errorf("our table does not decode: %w", err)
	}
	return in.CheckFrames(e.SFrame, e.Finder(t), sframe.CheckOptions{
		MaxReport: maxReport, Insns: true, Gaps: true,
		Keep: func(i int) bool { return e.Built.Kept[i] },
	}), nil
}

// SectionName is where "sframe emit --format cframe --elf-section" puts
// the table.
const SectionName = ".cframe"

// AddToELF returns the ELF image of in with the table added as a
// non-allocated .cframe section: in a linked file at an address just past
// the last segment (the table's text base is relative to it; no segment
// maps it), in a module at address 0 with its section map.
func (e *Emitted) AddToELF(in *sframe.Input) ([]byte, string, error) {
	if in.File.Section(SectionName) != nil {
		return nil, "", fmt.Errorf("the file already has a %s section", SectionName)
	}
	sec := elfwrite.Section{Name: SectionName, Addralign: 8}
	if in.Rel {
		b, err := e.Encode(0)
		if err != nil {
			return nil, "", err
		}
		sec.Data = b
		out, _, err := elfwrite.BuildSections(in.Raw, []elfwrite.Section{sec})
		return out, "", err
	}
	out, addr, off, err := in.AddUnmapped(sec, e.Encode)
	if err != nil {
		return nil, "", err
	}
	return out, fmt.Sprintf("note: %s (experimental) added at file offset %#x with address %#x; no segment maps it", SectionName, off, addr), nil
}
