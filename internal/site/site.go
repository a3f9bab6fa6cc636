package site

import (
	"strconv"
	"strings"
)

// LocKind classifies where a parameter's value is at a site.
type LocKind uint8

const (
	// LocUnavailable: no location at the site, or one the format cannot
	// express (Location.Reason says which).
	LocUnavailable LocKind = iota
	// LocReg: the value is in register Reg.
	LocReg
	// LocRegPair: the value is split over Reg (low part) and Reg2.
	LocRegPair
	// LocRegOffset: the value is the address Reg + Offset (no load).
	LocRegOffset
	// LocMem: the value is in memory at Reg + Offset; Reg may be FBReg.
	LocMem
	// LocConst: the value is the constant Value.
	LocConst
	// LocAddr: the value is the link-time address Value (of a global).
	LocAddr
)

// FBReg is the register number that stands for the DWARF frame base
// (DW_OP_fbreg): the CFA-relative frame base of the function containing
// the site. (package locsec writes it as LOC_PARAM's btf.LocFBReg.)
const FBReg = 0xffffffff

// Location says where one parameter's value is at one site. Register
// numbers are DWARF register numbers of the object's architecture.
type Location struct {
	Kind   LocKind
	Reg    uint32
	Reg2   uint32
	Offset int64
	Value  uint64
	Size   uint8  // bytes of the value, 1..16; 0 when unknown
	Signed bool   // constant or offset is signed
	Reason string // for LocUnavailable: why (empty = no location at all)
	// Section names the section of a LocAddr Value in an ET_REL object,
	// where Value is relative to that section (sh_addr is 0).
	Section string
}

// Param is one formal parameter of an inlined function.
type Param struct {
	Name    string
	Type    string // C spelling, as bpftool's and pfunct's output shows it
	TypeOff uint64 // offset of the DWARF type entry (0 when the site came from BTF)
	TypeID  uint32 // BTF type id (0 when the site came from DWARF)
}

// Func is an inlined function, shared by all of its sites.
type Func struct {
	Name     string
	DeclFile string
	DeclLine int
	Return   string
	// RetTypeOff / RetTypeID locate the return type in DWARF or BTF.
	RetTypeOff uint64
	RetTypeID  uint32
	// FuncID is the BTF FUNC id when the site came from BTF.
	FuncID   uint32
	Params   []Param
	Variadic bool
}

// Key spells what makes two Func values one function, whichever
// compilation unit each was read from: name, declaration, return type,
// variadic, parameter names and types.
func (f *Func) Key() string {
	var sb strings.Builder
	n := len(f.Name) + len(f.DeclFile) + len(f.Return) + 16
	for _, p := range f.Params {
		n += len(p.Name) + len(p.Type) + 2
	}
	sb.Grow(n) // one allocation: a key is spelled for each function of each unit
	sb.WriteString(f.Name)
	sb.WriteByte(0)
	sb.WriteString(f.DeclFile)
	sb.WriteByte(0)
	sb.WriteString(strconv.Itoa(f.DeclLine))
	sb.WriteByte(0)
	sb.WriteString(f.Return)
	if f.Variadic {
		sb.WriteString("\x00...")
	}
	for _, p := range f.Params {
		sb.WriteString("\x00")
		sb.WriteString(p.Name)
		sb.WriteString("\x01")
		sb.WriteString(p.Type)
	}
	return sb.String()
}

// Site is one inline expansion of Func: what .BTF.inline records of it
// (the function, the probe address as a section and offset, and each
// parameter's location there), where the symbols put it (Caller), and,
// for a site read from DWARF, what only DWARF knows (the embedded DWARF).
type Site struct {
	Func *Func
	// Addr is the address a probe should use: the link-time address for
	// linked objects, the section's sh_addr plus SectionOff for ET_REL.
	Addr       uint64
	Section    string // ELF section holding Addr, e.g. ".text"
	SectionOff uint64 // Addr minus the section's start
	Caller     string // out-of-line function containing Addr (symbol table)
	CallerOff  uint64
	Params     []Location // one per Func.Params (plus varargs slot if any)
	DWARF
}

// DWARF is what only the DWARF reader knows of a site: the zero value for
// a site decoded from BTF, which records the probe address and the
// locations only.
type DWARF struct {
	AddrSource string // "entry_pc", "low_pc" or "ranges": where the entry pc came from
	// Moved is how many bytes Addr lies past the expansion's entry pc,
	// when the probe was moved to a later address of the expansion's
	// first basic block that locates more parameters (dwarfsite's
	// ProbeBlock); 0 at the entry pc.
	Moved  uint64
	Ranges [][2]uint64
	Depth  int // 1 = inlined directly into Caller
	// Outer is the function of the innermost inline expansion that
	// contains this one ("" when Depth is 1).
	Outer    string
	CallFile string
	CallLine int
}
