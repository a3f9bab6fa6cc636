package kprobe

import (
	"cmp"
	"debug/elf"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/elfrel"
	"github.com/btfinline/btfinline/internal/insn"
)

// Barriers: what a probe moved past an inline expansion's entry pc must
// not reach (package dwarfsite asks through Rules.Barrier). The text in
// the ELF is not the text that runs: the kernel rewrites some of it at
// boot or when a feature is switched, and some of it can be left or
// entered in ways no instruction shows. A barrier is an instruction the
// kernel rewrites, or one where control may arrive or leave other than by
// falling through:
//
//   - alternatives (.altinstructions): the whole original region, and the
//     targets of direct jumps in the replacement code (and in x86's
//     .altinstr_aux, which static_cpu_has jumps through);
//   - paravirt patch sites (.parainstructions, x86 up to 6.7);
//   - the x86 retpoline, return-thunk, call-depth and ENDBR-seal sites
//     (.retpoline_sites, .return_sites, .call_sites, .ibt_endbr_seal);
//   - jump labels (the NOP or JMP and the label it jumps to), static calls
//     and BUG()s (the tables Rules.PatchSites reads);
//   - ftrace call sites (__mcount_loc, __patchable_function_entries: two
//     instructions on arm64);
//   - exception-table entries (__ex_table): the instruction that may fault
//     and leave to its fixup, and the fixup, which control reaches from it.
//
// .smp_locks is left out: on a uniprocessor boot the kernel turns LOCK
// prefixes into DS prefixes, which keeps instruction boundaries and what
// the instruction does to registers.

// codeRef is a code address a kernel table names: a section offset in a
// module (sec names the section), an address in a linked image (sec "").
type codeRef struct {
	sec string
	at  uint64
	ok  bool
}

// tableField is a field of a table entry that holds a code address:
// relative to the field's own address (s32) or absolute (a pointer).
type tableField struct {
	off uint64
	abs bool
}

// kernelTable is one array of a kernel image or module.
type kernelTable struct {
	f    *elfobj.File
	idx  int    // section index, -1 when bounded by markers
	addr uint64 // address of data[0] in a linked image
	data []byte
	rels map[uint64]elfrel.Reloc // module: relocations by offset
}

// openTable finds the table named sec (a section of its own) or, in a
// linked image, bounded by the markers start and stop. ok is false when
// the object has no such table.
func openTable(f *elfobj.File, sec, start, stop string, markers map[string]uint64) (*kernelTable, bool, error) {
	t := &kernelTable{f: f, idx: -1}
	for i, s := range f.Sections {
		if s.Name == sec && s.Type == elf.SHT_PROGBITS && sec != "" {
			t.idx = i
		}
	}
	rel := f.Type == elf.ET_REL
	switch {
	case t.idx >= 0:
		s := f.Sections[t.idx]
		d, err := f.Range(s, 0, s.Size)
		if err != nil {
			return nil, false, err
		}
		t.data, t.addr = d, s.Addr
	case !rel && start != "":
		a, ok1 := markers[start]
		b, ok2 := markers[stop]
		if !ok1 || !ok2 || b <= a {
			return nil, false, nil
		}
		d, err := f.AddrRange(a, b)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", start, err)
		}
		t.data, t.addr = d, a
	default:
		return nil, false, nil
	}
	if rel {
		rs, err := elfrel.Read(f.File, t.idx, elfrel.Options{})
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", sec, err)
		}
		t.rels = make(map[uint64]elfrel.Reloc, len(rs))
		for _, r := range rs {
			t.rels[r.Off] = r
		}
	}
	return t, true, nil
}

// ref reads the code address in field fl of the entry at offset e.
func (t *kernelTable) ref(e uint64, fl tableField) codeRef {
	p := e + fl.off
	if t.rels != nil {
		r, ok := t.rels[p]
		if !ok || r.Section < 0 {
			return codeRef{}
		}
		return codeRef{sec: t.f.Sections[r.Section].Name, at: r.Value, ok: true}
	}
	bo := t.f.ByteOrder
	if fl.abs {
		if p+8 > uint64(len(t.data)) {
			return codeRef{}
		}
		return codeRef{at: bo.Uint64(t.data[p:]), ok: true}
	}
	if p+4 > uint64(len(t.data)) {
		return codeRef{}
	}
	return codeRef{at: t.addr + p + uint64(int64(int32(bo.Uint32(t.data[p:])))), ok: true}
}

// flow holds the barriers of an object, by section ("" in a linked image).
//
// It is read in two parts, each on first use (the files stay open as long
// as their Rules): the code the kernel rewrites at boot (boot, what the x86
// instruction rules need at the few places resolve checks), and the rest
// (what only a probe moved by the encoder needs, which is most of the
// reading: every return-thunk site of a kernel).
type flow struct {
	bootOnce, restOnce sync.Once
	readBoot, readRest func()

	boot map[string][]Region // alternatives and paravirt sites, sorted by Start
	// marks are the addresses an instruction must not cover (sorted): the
	// one-byte sites the kernel rewrites and the targets control reaches
	// other than by falling through. A site of one byte is a region, but
	// it is kept as an address: a kernel has hundreds of thousands.
	marks  map[string][]uint64
	ftrace uint64 // bytes an ftrace call site spans
	// unknown says why the barriers could not all be read: then every
	// instruction is one (nothing moves). bootUnknown: the same for boot.
	unknown, bootUnknown string
	// alt is .altinstructions with its entry size, read with boot and kept
	// for the jumps of its replacements, which the rest adds.
	alt     *kernelTable
	altSize uint64
	// While reading: code sections, a module's layout and arm64 branch
	// relocations, by section index.
	code    map[int]codeBuf
	layout  []uint64
	a64rels map[int][]elfrel.Reloc
}

// maxSpan bounds a barrier region: alternatives and paravirt sites give
// their length in a byte.
const maxSpan = 256

// addRegion adds a barrier region of at most maxSpan bytes to m.
func addRegion(m map[string][]Region, sec string, start, end uint64, why string) {
	if end > start && end-start <= maxSpan {
		m[sec] = append(m[sec], Region{Section: sec, Start: start, End: end, Reason: why})
	}
}

// sortRegions sorts each section's regions by Start.
func sortRegions(m map[string][]Region) {
	for _, sp := range m {
		slices.SortStableFunc(sp, func(a, b Region) int { return cmp.Compare(a.Start, b.Start) })
	}
}

// bootRegions reads the boot part on first use.
func (fl *flow) bootRegions() {
	fl.bootOnce.Do(func() {
		if fl.readBoot != nil {
			fl.readBoot()
		}
	})
}

// all reads both parts on first use.
func (fl *flow) all() {
	fl.bootRegions()
	fl.restOnce.Do(func() {
		if fl.readRest != nil {
			fl.readRest()
		}
	})
}

// covers reports whether a region of sp (sorted by Start, each at most
// maxSpan bytes) overlaps [start, end).
func covers(sp []Region, start, end uint64) bool {
	i := sort.Search(len(sp), func(i int) bool { return sp[i].Start >= end })
	for j := i - 1; j >= 0 && sp[j].Start+maxSpan > start; j-- {
		if sp[j].End > start {
			return true
		}
	}
	return false
}

func (fl *flow) mark(sec string, at uint64) { fl.marks[sec] = append(fl.marks[sec], at) }

// Barrier reports whether the instruction at [start, end) of section (a
// section offset in a module, an address in a linked image) is one a
// probe moved past an inline expansion's entry pc must not reach (see
// above): the kernel rewrites a byte of it, or control may arrive at or
// leave it other than by falling through from the instruction before.
func (r *Rules) Barrier(section string, start, end uint64) bool {
	if r == nil || r.flow == nil {
		return false
	}
	fl := r.flow
	fl.all()
	if fl.unknown != "" || fl.bootUnknown != "" {
		return true
	}
	key := ""
	if r.rel {
		key = section
	}
	if covers(fl.boot[key], start, end) {
		return true
	}
	if l := fl.marks[key]; len(l) > 0 {
		i := sort.Search(len(l), func(i int) bool { return l[i] >= start })
		if i < len(l) && l[i] < end {
			return true
		}
	}
	if pts := r.points[key]; len(pts) > 0 {
		i := sort.Search(len(pts), func(i int) bool { return pts[i].Start >= end })
		for j := i - 1; j >= 0 && j > i-4; j-- {
			if pts[j].End > start {
				return true
			}
		}
	}
	if fl.ftrace > 0 && r.HasFtrace(section, start-min(start, fl.ftrace-1), end) {
		return true
	}
	return false
}

// readFlow prepares the barriers of f (ELFRules calls it once), read on
// first use.
func (r *Rules) readFlow(f *elfobj.File, a arch.Arch, markers map[string]uint64) {
	fl := &flow{boot: map[string][]Region{}, marks: map[string][]uint64{}}
	r.flow = fl
	switch a {
	case arch.X86_64:
		fl.ftrace = 5
	case arch.ARM64:
		fl.ftrace = 8
	}
	fl.readBoot = func() {
		if err := fl.readBootRegions(f, a, markers); err != nil {
			fl.bootUnknown = err.Error()
		}
		sortRegions(fl.boot)
	}
	fl.readRest = func() {
		err := fl.read(f, a, markers)
		fl.code, fl.layout, fl.a64rels, fl.alt = nil, nil, nil, nil
		if err != nil {
			fl.unknown = err.Error()
		}
		// Jump-label targets, read with the patch sites.
		for sec, l := range r.labelTargets {
			for _, t := range l {
				fl.mark(sec, t)
			}
		}
		for _, l := range fl.marks {
			slices.Sort(l)
		}
	}
}

// readBootRegions reads the code the kernel rewrites at boot:
// .parainstructions (x86 up to 6.7: struct paravirt_patch_site { u8
// *instr; u8 type; u8 len; }, 16 bytes) and the originals of
// .altinstructions.
func (fl *flow) readBootRegions(f *elfobj.File, a arch.Arch, markers map[string]uint64) error {
	if t, ok, err := openTable(f, ".parainstructions", "", "", markers); err != nil {
		return err
	} else if ok {
		if len(t.data)%16 != 0 {
			return fmt.Errorf(".parainstructions: %d bytes is not a whole number of 16-byte entries", len(t.data))
		}
		for e := uint64(0); e < uint64(len(t.data)); e += 16 {
			if c := t.ref(e, tableField{abs: true}); c.ok {
				addRegion(fl.boot, c.sec, c.at, c.at+uint64(t.data[e+9]), "paravirt patch site")
			}
		}
	}
	return fl.alternatives(f, a, markers)
}

func (fl *flow) read(f *elfobj.File, a arch.Arch, markers map[string]uint64) error {
	rel32 := tableField{}
	// Sites of one instruction each, an s32 to it per entry: a byte at its
	// start is a barrier for any instruction decoded over it.
	for _, sec := range []string{
		".retpoline_sites", // indirect calls and jumps through a retpoline
		".return_sites",    // returns through the return thunk
		".call_sites",      // calls the call-depth accounting pads
		".ibt_endbr_seal",  // ENDBRs sealed to NOPs
	} {
		t, ok, err := openTable(f, sec, "", "", markers)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if len(t.data)%4 != 0 {
			return fmt.Errorf("%s: %d bytes is not a whole number of 4-byte entries", sec, len(t.data))
		}
		for e := uint64(0); e < uint64(len(t.data)); e += 4 {
			if c := t.ref(e, rel32); c.ok {
				fl.mark(c.sec, c.at)
			}
		}
	}
	// __ex_table: s32 insn, s32 fixup, then 4 bytes of type and data (x86
	// and arm64 alike).
	if t, ok, err := openTable(f, "__ex_table", "__start___ex_table", "__stop___ex_table", markers); err != nil {
		return err
	} else if ok {
		if len(t.data)%12 != 0 {
			return fmt.Errorf("__ex_table: %d bytes is not a whole number of 12-byte entries", len(t.data))
		}
		for e := uint64(0); e < uint64(len(t.data)); e += 12 {
			if c := t.ref(e, rel32); c.ok {
				fl.mark(c.sec, c.at)
			}
			if c := t.ref(e, tableField{off: 4}); c.ok {
				fl.mark(c.sec, c.at)
			}
		}
	}
	fl.altTargets(f)
	// x86's .altinstr_aux holds the slow paths static_cpu_has jumps to
	// until alternatives are applied; they jump back into functions.
	if s := f.Section(".altinstr_aux"); s != nil && s.Flags&elf.SHF_EXECINSTR != 0 {
		fl.codeTargets(f, f.Index(s), 0, s.Size)
	}
	return nil
}

// alternatives reads .altinstructions: struct alt_instr { s32 instr_offset;
// s32 repl_offset; cpuid/feature (u16 up to x86 6.x's u32 ft_flags);
// u8 instrlen; u8 replacementlen; }: 12 bytes (arm64, x86 up to 6.2) or
// 14 (x86 ft_flags). The size is the one under which every entry names
// code (a module: whose fields all have relocations).
//
// It adds the originals to the boot regions and keeps the table for
// altTargets.
func (fl *flow) alternatives(f *elfobj.File, a arch.Arch, markers map[string]uint64) error {
	t, ok, err := openTable(f, ".altinstructions", "__alt_instructions", "__alt_instructions_end", markers)
	if err != nil || !ok {
		return err
	}
	sizes := []uint64{12}
	if a == arch.X86_64 {
		sizes = []uint64{12, 14}
	}
	var good []uint64
	for _, sz := range sizes {
		if uint64(len(t.data))%sz == 0 && fl.altValid(f, t, sz) {
			good = append(good, sz)
		}
	}
	if len(good) != 1 {
		return fmt.Errorf(".altinstructions: %d bytes fit %d of the entry sizes %v", len(t.data), len(good), sizes)
	}
	sz := good[0]
	for e := uint64(0); e < uint64(len(t.data)); e += sz {
		orig, olen := t.ref(e, tableField{}), uint64(t.data[e+sz-2])
		addRegion(fl.boot, orig.sec, orig.at, orig.at+olen, "alternative")
	}
	fl.alt, fl.altSize = t, sz
	return nil
}

// altTargets adds the jumps out of the alternatives' replacement code
// (the table alternatives read with the boot part; none when it failed,
// and then every instruction is a barrier).
func (fl *flow) altTargets(f *elfobj.File) {
	t, sz := fl.alt, fl.altSize
	if t == nil {
		return
	}
	for e := uint64(0); e < uint64(len(t.data)); e += sz {
		repl, rlen := t.ref(e, tableField{off: 4}), uint64(t.data[e+sz-1])
		if rlen == 0 {
			continue
		}
		if idx, off, ok := codeSection(f, repl); ok {
			fl.codeTargets(f, idx, off, rlen)
		}
	}
}

// altValid reports whether every entry of t read with entry size sz names
// code for both instructions, with a replacement no longer than the
// original where x86 requires it.
func (fl *flow) altValid(f *elfobj.File, t *kernelTable, sz uint64) bool {
	for e := uint64(0); e < uint64(len(t.data)); e += sz {
		orig, repl := t.ref(e, tableField{}), t.ref(e, tableField{off: 4})
		olen, rlen := uint64(t.data[e+sz-2]), uint64(t.data[e+sz-1])
		if _, _, ok := codeSection(f, orig); !ok || olen == 0 {
			return false
		}
		if f.Machine == elf.EM_X86_64 && rlen > olen {
			return false
		}
		if rlen > 0 {
			if _, _, ok := codeSection(f, repl); !ok {
				return false
			}
		}
	}
	return true
}

// codeSection maps a code reference to its executable section and the
// offset in it.
func codeSection(f *elfobj.File, c codeRef) (int, uint64, bool) {
	if !c.ok {
		return 0, 0, false
	}
	if c.sec != "" {
		for i, s := range f.Sections {
			if s.Name == c.sec && s.Flags&elf.SHF_EXECINSTR != 0 && c.at < s.Size {
				return i, c.at, true
			}
		}
		return 0, 0, false
	}
	return execSectionAt(f.File, func(i int) uint64 { return f.Sections[i].Addr }, c.at, 1)
}

// codeBuf is the bytes of an executable section and the address they
// are read at (a module's are relocated on elfrel's layout, so that x86
// jumps to other sections decode to their targets).
type codeBuf struct {
	code []byte
	base uint64
}

// codeOf returns section idx as codeBuf, cached.
func (fl *flow) codeOf(f *elfobj.File, idx int) (codeBuf, bool) {
	if c, ok := fl.code[idx]; ok {
		return c, c.code != nil
	}
	var c codeBuf
	s := f.Sections[idx]
	if f.Type == elf.ET_REL {
		if fl.layout == nil {
			fl.layout = elfrel.Layout(f.File, -1)
		}
		if d, _, err := f.Relocated(idx, func(i int) uint64 { return fl.layout[i] }, false); err == nil {
			c = codeBuf{d, fl.layout[idx]}
		}
	} else if d, err := f.Range(s, 0, s.Size); err == nil {
		c = codeBuf{d, s.Addr}
	}
	if fl.code == nil {
		fl.code = map[int]codeBuf{}
	}
	fl.code[idx] = c
	return c, c.code != nil
}

// codeTargets adds the targets of the direct jumps and branches in
// [off, off+n) of section idx that lead out of that range. arm64 branch
// relocations of a module, which elfrel does not apply, are taken from
// the relocations themselves.
func (fl *flow) codeTargets(f *elfobj.File, idx int, off, n uint64) {
	c, ok := fl.codeOf(f, idx)
	if !ok || off > uint64(len(c.code)) || n > uint64(len(c.code))-off {
		return
	}
	rel := f.Type == elf.ET_REL
	lo, hi := c.base+off, c.base+off+n
	for p := off; p < off+n; {
		in, err := insn.Decode(f.Machine, c.code[p:off+n], c.base+p)
		if err != nil {
			p++
			continue
		}
		if (in.Kind == insn.Jump || in.Kind == insn.Branch) && (in.Target < lo || in.Target >= hi) {
			if !rel {
				fl.mark("", in.Target)
			} else if i, o, ok := execSectionAt(f.File, func(i int) uint64 { return fl.layout[i] }, in.Target, 1); ok {
				fl.mark(f.Sections[i].Name, o)
			}
		}
		p += uint64(in.Len)
	}
	if rel && f.Machine == elf.EM_AARCH64 {
		if fl.a64rels == nil {
			fl.a64rels = map[int][]elfrel.Reloc{}
		}
		rs, ok := fl.a64rels[idx]
		if !ok {
			rs, _ = elfrel.Read(f.File, idx, elfrel.Options{})
			fl.a64rels[idx] = rs
		}
		for _, r := range rs {
			if r.Off < off || r.Off >= off+n || r.Section < 0 || f.Sections[r.Section].Flags&elf.SHF_EXECINSTR == 0 {
				continue
			}
			switch elf.R_AARCH64(r.Type) {
			case elf.R_AARCH64_JUMP26, elf.R_AARCH64_CONDBR19, elf.R_AARCH64_TSTBR14:
				if r.Section != idx || r.Value < off || r.Value >= off+n {
					fl.mark(f.Sections[r.Section].Name, r.Value)
				}
			}
		}
	}
}
