package resolve

import (
	"errors"
	"fmt"
)

// Space is a target's address space, made once when the target opens. A
// site is stored as a (section, offset) pair; Space says at which address
// that is shown (the running kernel's, when the target is placed on it;
// else the ELF's link-time one), what the object's symbols know it by,
// and what the address constants of its parameters are relative to. The
// kind of object (spaceKind) decides each; the kprobe rules make the one
// choice they need themselves (kprobe.Rules.CheckSite), from the same ELF.
type Space struct {
	kind spaceKind
	// slide is the shown address minus the symbols' (link-time) one: the
	// KASLR slide of a linked ELF placed on the running kernel, else 0
	// (an ELF alone; the running kernel alone, whose symbols are its own).
	slide uint64
	// section is the shown start of a text section.
	section func(name string) (uint64, error)
	// consts is what CONST|ADDR values are relative to (locsec.ObjectBase)
	// and stext the _stext (else _text, else .text) that vmlinux probe
	// points may be spelled from, both shown addresses; each is used only
	// by the kinds that have it (Const, FromStext).
	consts, stext uint64
}

// spaceKind is what a target's addresses are.
type spaceKind uint8

const (
	// noAddresses: inline BTF without an ELF that has symbols: sites are
	// section+offset only.
	noAddresses spaceKind = iota
	// elfLinked: a vmlinux from its ELF, at link time or, placed on the
	// running kernel, moved by the slide; address constants and _stext
	// known.
	elfLinked
	// elfLinkedNoText: the same without _stext, _text or .text: no
	// _stext+0xoff probe points.
	elfLinkedNoText
	// kernelOnly: the running vmlinux from kallsyms alone; the slide is
	// unknown, so per-CPU constants (not moved by KASLR) cannot be told.
	kernelOnly
	// elfModule: a module from its ELF: symbols and rules by section
	// offset, sections where its headers put them (0 in a .ko) or,
	// placed, where the running kernel has them.
	elfModule
	// kernelModule: a module from the running kernel alone: symbols and
	// rules at run-time addresses.
	kernelModule
)

// Rel reports whether the object is a relocatable ELF (a module's .ko):
// its symbols and rules key a site by its section offset.
func (s *Space) Rel() bool { return s.kind == elfModule }

// Module reports whether the object is a module, from its ELF or from
// the running kernel: its probe points are MODULE:symbol+off.
func (s *Space) Module() bool { return s.kind == elfModule || s.kind == kernelModule }

// FromKernel reports whether the object's symbols are the running
// kernel's (kallsyms: no sizes, a module's freed init symbols gone) and
// its rules the running kernel's, by address, without the ELF.
func (s *Space) FromKernel() bool { return s.kind == kernelOnly || s.kind == kernelModule }

// SectionAddr is the shown start of a text section.
func (s *Space) SectionAddr(name string) (uint64, error) {
	if s.section == nil {
		return 0, errors.New("no section addresses")
	}
	return s.section(name)
}

// Key is what the object's symbols know the site at section offset off,
// shown address addr, by: its section offset in a relocatable ELF, else
// the address the symbols have (LinkTime).
func (s *Space) Key(off, addr uint64) uint64 {
	if s.kind == elfModule {
		return off
	}
	return s.LinkTime(addr)
}

// LinkTime takes the slide back out of a shown address: the ELF's
// link-time address (the CFI's, the rules'), or for the running kernel
// alone the address itself.
func (s *Space) LinkTime(addr uint64) uint64 { return addr - s.slide }

// Symbol places a function symbol of the object (its value: a section
// offset in a relocatable ELF, else an address of the symbol table) in
// section: its shown address and section offset. Only a relocatable
// ELF's section is needed for the address (the error); elsewhere a
// section without an address leaves the offset 0.
func (s *Space) Symbol(section string, value uint64) (addr, off uint64, err error) {
	if s.kind == elfModule {
		b, err := s.SectionAddr(section)
		return b + value, value, err
	}
	addr = value + s.slide
	if b, err := s.SectionAddr(section); err == nil && section != "" {
		off = addr - b
	}
	return addr, off, nil
}

// Const turns a CONST|ADDR value (relative to the object's base) into a
// shown address, or says why it cannot.
func (s *Space) Const(v uint64) (uint64, string) {
	switch s.kind {
	case noAddresses, elfModule, kernelModule:
		return 0, fmt.Sprintf("address constant base+%#x: object base address unknown", v)
	}
	a := s.consts + v
	if a < s.consts {
		// Below the base: a per-CPU offset (x86-64 .data..percpu is
		// linked at 0), which KASLR does not move.
		if s.kind == kernelOnly {
			return 0, fmt.Sprintf("per-CPU address constant base%+#x: the KASLR slide is unknown without the ELF", int64(v))
		}
		a -= s.slide
	}
	return a, ""
}

// FromStext is addr's offset from _stext, for a vmlinux probe point
// spelled "_stext+0xoff"; false when the object has no such spelling.
func (s *Space) FromStext(addr uint64) (uint64, bool) {
	switch s.kind {
	case elfLinked, kernelOnly:
		if addr >= s.stext {
			return addr - s.stext, true
		}
	}
	return 0, false
}

// placed is a linked ELF's space moved by slide onto the running kernel.
func (s *Space) placed(slide uint64) *Space {
	linked := s.section
	return &Space{kind: s.kind, slide: slide, consts: s.consts + slide, stext: s.stext + slide,
		section: func(name string) (uint64, error) {
			a, err := linked(name)
			return a + slide, err
		}}
}
