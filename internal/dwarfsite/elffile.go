package dwarfsite

import (
	"cmp"
	"debug/elf"
	"encoding/binary"
	"slices"
	"sort"

	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/elfrel"
	"golang.org/x/sync/errgroup"
)

// object is an opened ELF file with the DWARF sections this package
// reads, relocated for ET_REL, plus the address tables that place a site:
// executable sections and FUNC symbols.
//
// For ET_REL every section has sh_addr 0, so a bare address does not say
// which section it is in. The reader therefore lays the SHF_ALLOC sections
// out one after another, like a linker would, and applies the relocations
// of the debug sections against that layout ("layout addresses"): every
// address in the relocated DWARF is then unique, and a Site is converted
// back to its section and section offset at the end.
type object struct {
	ef      *elfobj.File
	f       *elf.File // ef.File
	order   binary.ByteOrder
	rel     bool     // ET_REL
	base    []uint64 // layout address of each section (ET_REL), else sh_addr
	secs    []secRange
	funcs   []funcSym
	debug   map[string][]byte // ".debug_info" -> relocated contents
	relWarn int               // relocations skipped (unknown type)
	// goAbbrev is .debug_abbrev as debug/dwarf gets it; foreign says it
	// differs from debug[".debug_abbrev"] (badform.go).
	goAbbrev []byte
	foreign  bool
	probe    probeText // ProbeBlock's view of the text (probe.go)
	// str and lineStr are .debug_str and .debug_line_str copied into
	// strings once, so that the names read (readValue) are cut from them
	// rather than each allocated: a vmlinux's 3.4 MB of .debug_str give
	// millions of names.
	str, lineStr string
}

type secRange struct {
	lo, hi uint64
	name   string
	addr   uint64 // sh_addr
}

type funcSym struct {
	addr, size uint64
	name       string
	global     bool
}

// debugSections are the DWARF sections the reader uses.
var debugSections = []string{
	".debug_info", ".debug_abbrev", ".debug_str", ".debug_line", ".debug_line_str",
	".debug_ranges", ".debug_rnglists", ".debug_loc", ".debug_loclists",
	".debug_addr", ".debug_str_offsets",
}

// newObject reads the DWARF sections and address tables of an opened ELF
// file; the file stays the caller's. The FUNC symbols are read on a
// goroutine of their own (a vmlinux has 150,000 to sort), while the
// caller goes on with the debug sections: wait returns their error, and
// o.funcs may be read only after it.
func newObject(f *elfobj.File) (o *object, wait func() error, err error) {
	o = &object{ef: f, f: f.File}
	o.layout()
	var syms errgroup.Group
	syms.Go(o.loadFuncs)
	if err := o.loadDebug(); err != nil {
		if serr := syms.Wait(); serr != nil {
			return nil, nil, serr
		}
		return nil, nil, err
	}
	return o, syms.Wait, nil
}

// layout places the sections: their layout addresses, and the
// executable ones in address order.
func (o *object) layout() {
	f := o.f
	o.order = f.ByteOrder
	o.rel = f.Type == elf.ET_REL
	o.base = make([]uint64, len(f.Sections))
	if o.rel {
		next := uint64(0x10000)
		for i, s := range f.Sections {
			if s.Flags&elf.SHF_ALLOC == 0 {
				continue
			}
			if a := s.Addralign; a > 1 && a&(a-1) == 0 {
				next = (next + a - 1) &^ (a - 1)
			}
			o.base[i] = next
			next += s.Size
		}
	} else {
		for i, s := range f.Sections {
			o.base[i] = s.Addr
		}
	}
	for i, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && s.Flags&elf.SHF_EXECINSTR != 0 && s.Size > 0 {
			o.secs = append(o.secs, secRange{lo: o.base[i], hi: o.base[i] + s.Size, name: s.Name, addr: s.Addr})
		}
	}
	sort.Slice(o.secs, func(i, j int) bool { return o.secs[i].lo < o.secs[j].lo })
}

// loadFuncs reads the FUNC symbols, sorted by address. It reads the
// symbol table where it lies (a vmlinux's is mapped) and makes a string of
// the functions' names alone: debug/elf's Symbols copies the table and
// names each of a vmlinux's 119,000 symbols, a tenth of a second.
func (o *object) loadFuncs() error {
	f := o.f
	syms, err := elfrel.ReadSymtab(f, o.ef.Data)
	if err != nil || syms == nil {
		return err // none: as debug/elf's ErrNoSymbols
	}
	// Entry 0 is the null symbol, which debug/elf leaves out too.
	for i := 1; i < syms.Len(); i++ {
		s := syms.At(i)
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Section == elf.SHN_UNDEF || int(s.Section) >= len(f.Sections) {
			continue
		}
		addr := s.Value
		if o.rel {
			addr += o.base[s.Section]
		}
		o.funcs = append(o.funcs, funcSym{addr: addr, size: s.Size, name: syms.Name(s), global: elf.ST_BIND(s.Info) != elf.STB_LOCAL})
	}
	o.sortFuncs()
	return nil
}

// loadDebug reads the DWARF sections, relocated for ET_REL.
func (o *object) loadDebug() error {
	f := o.f
	o.debug = make(map[string][]byte)
	want := make(map[string]bool)
	for _, n := range debugSections {
		want[n] = true
	}
	for i, s := range f.Sections {
		if !want[s.Name] || o.debug[s.Name] != nil {
			continue
		}
		var b []byte
		var err error
		if o.rel {
			b, err = o.relocate(i)
		} else {
			b, err = o.ef.Data(s)
		}
		if err != nil {
			return err
		}
		o.debug[s.Name] = b
	}
	o.str, o.lineStr = string(o.debug[".debug_str"]), string(o.debug[".debug_line_str"])
	return nil
}

// relocate returns a copy of section idx with the RELA sections that
// target it applied against the layout addresses of o.base. Relocation
// types that debug sections should not hold are counted in o.relWarn.
func (o *object) relocate(idx int) ([]byte, error) {
	out, res, err := o.ef.Relocated(idx, func(i int) uint64 { return o.base[i] }, false)
	if err != nil {
		return nil, err
	}
	o.relWarn += res.Unsupported
	return out, nil
}

// section returns the executable section holding addr.
func (o *object) section(addr uint64) *secRange {
	i := sort.Search(len(o.secs), func(i int) bool { return o.secs[i].hi > addr })
	if i < len(o.secs) && o.secs[i].lo <= addr {
		return &o.secs[i]
	}
	return nil
}

// caller returns the FUNC symbol containing addr: the nearest at or below
// it whose size covers it (a zero-size symbol only covers its address).
func (o *object) caller(addr uint64) *funcSym {
	i := sort.Search(len(o.funcs), func(i int) bool { return o.funcs[i].addr > addr })
	// Walk back over symbols at lower addresses: a small symbol right
	// below addr must not hide a larger one that contains it.
	for j := i - 1; j >= 0 && i-j <= 64; j-- {
		s := &o.funcs[j]
		if addr < s.addr+s.size || addr == s.addr {
			// Prefer the first (preferred alias) of symbols at that address.
			for j > 0 && o.funcs[j-1].addr == s.addr && (addr < o.funcs[j-1].addr+o.funcs[j-1].size || addr == s.addr) {
				j--
				s = &o.funcs[j]
			}
			return s
		}
	}
	return nil
}

// allocSection returns the SHF_ALLOC section holding a layout address.
func (o *object) allocSection(addr uint64) *secRange {
	for i, s := range o.f.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && o.base[i] <= addr && addr < o.base[i]+s.Size {
			return &secRange{lo: o.base[i], hi: o.base[i] + s.Size, name: s.Name, addr: s.Addr}
		}
	}
	return nil
}

// sortFuncs sorts o.funcs by address, a global symbol first, then the
// larger, then by name.
func (o *object) sortFuncs() {
	slices.SortFunc(o.funcs, func(a, b funcSym) int {
		if c := cmp.Compare(a.addr, b.addr); c != 0 {
			return c
		}
		if a.global != b.global {
			if a.global {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.size, a.size), cmp.Compare(a.name, b.name))
	})
}
