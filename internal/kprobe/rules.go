package kprobe

import (
	"cmp"
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/ksym"
	"github.com/btfinline/btfinline/internal/ksys"

	"github.com/btfinline/btfinline/internal/elfrel"
)

// Region is an address range a kprobe cannot be placed in, with why (the
// rule and its detail). Section is set for relocatable objects (addresses
// are section offsets).
type Region struct {
	Section    string
	Start, End uint64
	Reason     string
	Rule       Rule
}

// Rules decides whether a kprobe can sit at an address: the checks of
// kernel/kprobes.c (6.1) that depend on where the address is, and the
// arch's rules on the instruction there (arm64insn.go, x86insn.go). See
// docs/inspect.md for the list and its sources.
type Rules struct {
	rel bool
	// linked: syms is a linked image's ELF symbol table (with sizes), so
	// an address no function symbol covers is code nothing can reach.
	linked bool
	// text reads the instructions before and at a probe address, for
	// the arm64 instruction rules (arm64insn.go); nil elsewhere.
	text func(section string, addr uint64) (orig, patched []byte)
	// x86 reads the text for the x86-64 instruction rules (x86insn.go),
	// whose verdict depends on kver; nil elsewhere.
	x86     *x86Text
	kver    KernelVersion
	regions []Region
	// points are the many small patch-site regions (jump labels, static
	// calls, BUG()s), by section ("" in a linked object), each sorted by
	// address and searched by bisection.
	points map[string][]Region
	// labelTargets are the jump-label targets, by section as points;
	// flow the barriers of probe moves (patch.go).
	labelTargets map[string][]uint64
	flow         *flow
	syms         *ksym.SymTab
	// ftrace holds the ftrace call sites by section ("" in a linked
	// object), sorted; nil when unknown. ftraceNames, for a running kernel
	// read without its ELF, the names of the functions that have one.
	ftrace      map[string][]uint64
	ftraceNames map[string]bool
	// Notes says which rules could not be applied (e.g. the debugfs
	// blacklist was unreadable); printed once by the commands.
	Notes []string
}

// PatchSites returns the patch-site regions (jump labels, static calls,
// BUG()s) by section ("" in a linked object), each sorted by address.
func (r *Rules) PatchSites() map[string][]Region { return r.points }

func (r *Rules) add(sec string, start, end uint64, rule Rule, why string) {
	if end > start {
		r.regions = append(r.regions, Region{sec, start, end, why, rule})
	}
}

func (r *Rules) sort() {
	slices.SortStableFunc(r.regions, func(a, b Region) int {
		return cmp.Or(cmp.Compare(a.Section, b.Section), cmp.Compare(a.Start, b.Start))
	})
}

// CheckSite is Check for a site at offset off of section, link-time
// address addr: the rules of a relocatable object know it by its offset,
// those of a linked image (or of the running kernel) by its address.
func (r *Rules) CheckSite(section string, off, addr uint64, caller string) Refusal {
	if r != nil && r.rel {
		addr = off
	}
	return r.Check(section, addr, caller)
}

// Check says why a kprobe cannot be placed at addr (in section, for
// relocatable objects) inside function caller; the zero Refusal when it
// can.
func (r *Rules) Check(section string, addr uint64, caller string) Refusal {
	if r == nil {
		return Refusal{}
	}
	if why := r.within(section, addr); !why.OK() {
		return why
	}
	// within_kprobe_blacklist: an address in a suffixed symbol (foo.isra.0,
	// foo.cold) is refused when the unsuffixed foo is.
	if i := strings.IndexByte(caller, '.'); i > 0 && r.syms != nil {
		for _, s := range r.syms.ByName(caller[:i]) {
			if why := r.within(s.Section, s.Addr); !why.OK() {
				why.Detail += " (via " + caller[:i] + ")"
				return why
			}
		}
	}
	// The function around addr, looked up once for the rules below.
	var fn ksym.Symbol
	var fnOff uint64
	found := false
	if r.syms != nil {
		fn, fnOff, found = r.syms.Lookup(section, addr)
	}
	if !found && r.syms != nil {
		if p, ok := r.syms.Padding(section, addr); ok {
			return refuse(Padding, paddingReason(p.Name))
		}
	}
	if r.linked && !found {
		return refuse(DeadCode, DeadCodeReason)
	}
	if why := r.checkNotrace(section, caller, fn, found); why != "" {
		return refuse(Notrace, why)
	}
	if r.x86 != nil {
		return refuse(Instruction, r.checkX86(section, addr))
	}
	if !found {
		fnOff = 4 * ARM64AtomicWindow
	}
	return refuse(Instruction, r.checkInsn(section, addr, fnOff))
}

// Allows reports whether Check allows a kprobe at addr (dwarfsite.Text).
func (r *Rules) Allows(section string, addr uint64, caller string) bool {
	return r.Check(section, addr, caller).OK()
}

// checkInsn applies the arm64 instruction rules to the text at addr, off
// bytes into its function: the backward scan stops at the function's
// start, as the kernel's does at the kallsyms symbol before it. The rules
// see the text as the file has it and as the kernel patches it
// (alternatives, see elfText); a refusal in either counts.
func (r *Rules) checkInsn(section string, addr, off uint64) string {
	if r.text == nil {
		return ""
	}
	orig, patched := r.text(section, addr)
	if len(orig) < 4 {
		return ""
	}
	if why := ARM64Refusal(orig, off); why != "" {
		return why
	}
	if patched != nil {
		if why := ARM64Refusal(patched, off); why != "" {
			return why + " (in the text as alternatives patch it)"
		}
	}
	return ""
}

// altPatch is one arm64 alternative: the instructions at (sec, at) that
// the kernel replaces with repl when the CPU has the feature.
type altPatch struct {
	sec  string // section of the original ("" in a linked image)
	at   uint64 // its address (linked) or offset in sec
	repl []byte
}

// arm64Alternatives reads .altinstructions (struct alt_instr: s32
// orig_offset, s32 alt_offset, both relative to the field; u16 cpufeature;
// u8 orig_len; u8 alt_len). Callback entries (ALTERNATIVE_CB: feature bit
// 15), whose alt_offset names a function that writes the code, and entries
// whose lengths differ are skipped. A module's entries are relocations
// (R_AARCH64_PREL32), applied on elfrel's layout.
func arm64Alternatives(f *elfobj.File) []altPatch {
	idx := -1
	for i, s := range f.Sections {
		if s.Name == ".altinstructions" && s.Type == elf.SHT_PROGBITS {
			idx = i
		}
	}
	if idx < 0 {
		return nil
	}
	s := f.Sections[idx]
	data, err := f.Range(s, 0, s.Size)
	if err != nil {
		return nil
	}
	at := func(i int) uint64 { return f.Sections[i].Addr }
	if f.Type == elf.ET_REL {
		base := elfrel.Layout(f.File, -1)
		at = func(i int) uint64 { return base[i] }
		if data, _, err = f.Relocated(idx, at, false); err != nil {
			return nil
		}
	}
	bo := f.ByteOrder
	self := at(idx)
	var out []altPatch
	for e := 0; e+12 <= len(data); e += 12 {
		orig := self + uint64(e) + uint64(int64(int32(bo.Uint32(data[e:]))))
		alt := self + uint64(e) + 4 + uint64(int64(int32(bo.Uint32(data[e+4:]))))
		feat, olen, alen := bo.Uint16(data[e+8:]), uint64(data[e+10]), uint64(data[e+11])
		if feat&0x8000 != 0 || olen != alen || olen == 0 || olen%4 != 0 {
			continue
		}
		oi, ooff, ok1 := execSectionAt(f.File, at, orig, olen)
		ai, aoff, ok2 := execSectionAt(f.File, at, alt, alen)
		if !ok1 || !ok2 {
			continue
		}
		repl, err := f.Range(f.Sections[ai], aoff, alen)
		if err != nil {
			continue
		}
		p := altPatch{at: orig, repl: repl}
		if f.Type == elf.ET_REL {
			p.sec, p.at = f.Sections[oi].Name, ooff
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].sec != out[j].sec {
			return out[i].sec < out[j].sec
		}
		return out[i].at < out[j].at
	})
	return out
}

// execSectionAt maps address a of a layout (at gives each section's
// address) to the executable section holding n bytes there and the offset
// in it.
func execSectionAt(f *elf.File, at func(int) uint64, a, n uint64) (int, uint64, bool) {
	for i, x := range f.Sections {
		if x.Flags&elf.SHF_EXECINSTR == 0 || x.Type != elf.SHT_PROGBITS {
			continue
		}
		if b := at(i); a >= b && a-b <= x.Size && n <= x.Size-(a-b) {
			return i, a - b, true
		}
	}
	return 0, 0, false
}

// elfText returns Rules.text for f: up to ARM64AtomicWindow instructions
// before addr and the one at addr, from the executable section holding it
// (sectionText), as the file has them and, when alternatives overlap
// them, as the kernel patches them (nil otherwise). Which alternatives
// apply depends on the CPU; taking both versions can only refuse more.
func elfText(f *elfobj.File) func(section string, addr uint64) (orig, patched []byte) {
	text := sectionText(f)
	var (
		altOnce sync.Once
		alts    []altPatch
	)
	return func(section string, addr uint64) ([]byte, []byte) {
		d, off, ok := text(section, addr)
		if !ok || off+4 > uint64(len(d)) {
			return nil, nil
		}
		start := uint64(0)
		if off > 4*ARM64AtomicWindow {
			start = off - 4*ARM64AtomicWindow
		}
		start += (off - start) % 4
		orig := d[start : off+4]

		altOnce.Do(func() { alts = arm64Alternatives(f) })
		key, lo, hi := "", addr-(off-start), addr+4 // window in the alternatives' terms
		if f.Type == elf.ET_REL {
			key, lo, hi = section, start, off+4
		}
		// alt_len is a u8: an alternative starting 256 bytes before the
		// window cannot reach into it.
		i := sort.Search(len(alts), func(i int) bool {
			return alts[i].sec > key || alts[i].sec == key && alts[i].at+256 > lo
		})
		var patched []byte
		for ; i < len(alts) && alts[i].sec == key && alts[i].at < hi; i++ {
			a := alts[i]
			if a.at+uint64(len(a.repl)) <= lo {
				continue
			}
			if patched == nil {
				patched = append([]byte(nil), orig...)
			}
			for j := range a.repl {
				if p := a.at + uint64(j); p >= lo && p < hi {
					patched[p-lo] = a.repl[j]
				}
			}
		}
		return orig, patched
	}
}

// DeadCodeReason: in a linked kernel image every C function has a sized
// symbol, except a __weak definition another object overrides: the linker
// drops its symbol but keeps its code (on the Debian 6.1 vmlinux, 91 sites
// in pcpu_populate_pte, bpf_jit_free, free_initmem and others). The kernel
// accepts a kprobe there (kallsyms attributes the address to the function
// before it), but nothing calls the code: the probe never fires.
const DeadCodeReason = "dead code: no function symbol covers it (an overridden __weak definition), a kprobe here never fires"

// paddingReason: the padding kbuild puts before each function (6.12's
// __pfx_, kCFI's __cfi_) is a symbol of its own in kallsyms, and
// register_kprobe refuses an address in one (is_cfi_preamble_symbol, in
// both Debian kernels: 6.1 has it from the stable series, though it has
// no padding). Without this rule the address would read as dead code.
func paddingReason(sym string) string {
	return "function padding (" + sym + "): kprobes refuse the padding and CFI preamble (is_cfi_preamble_symbol)"
}

func (r *Rules) within(section string, addr uint64) Refusal {
	key := ""
	if r.rel {
		key = section
	}
	if pts := r.points[key]; len(pts) > 0 {
		i := sort.Search(len(pts), func(i int) bool { return pts[i].Start > addr }) - 1
		// Patch sites are a few bytes long and do not nest: the nearest
		// ones below addr are the only candidates.
		for j := i; j >= 0 && j > i-4; j-- {
			if p := pts[j]; addr >= p.Start && addr < p.End {
				return Refusal{p.Rule, p.Reason}
			}
		}
	}
	for _, g := range r.regions {
		if r.rel && g.Section != section {
			continue
		}
		if addr >= g.Start && addr < g.End {
			return Refusal{g.Rule, g.Reason}
		}
	}
	return Refusal{}
}

// markerPairs are the linker-script symbols bounding text the kernel
// refuses to probe (kernel/kprobes.c populate_kprobe_blacklist and the
// arch's arch_populate_kprobe_blacklist), or that is gone after boot.
var markerPairs = []struct {
	start, end string
	why        string
	arch       arch.Arch // ArchUnknown = all
}{
	{"__kprobes_text_start", "__kprobes_text_end", "__kprobes (.kprobes.text)", arch.Unknown},
	{"__noinstr_text_start", "__noinstr_text_end", "noinstr (.noinstr.text)", arch.Unknown},
	{"__entry_text_start", "__entry_text_end", "entry text (arch kprobe blacklist)", arch.Unknown},
	{"__irqentry_text_start", "__irqentry_text_end", "irqentry text (arm64 kprobe blacklist)", arch.ARM64},
	{"__idmap_text_start", "__idmap_text_end", "idmap text (arm64 kprobe blacklist)", arch.ARM64},
	{"__hyp_text_start", "__hyp_text_end", "hyp text (arm64 kprobe blacklist)", arch.ARM64},
	{"__hibernate_exit_text_start", "__hibernate_exit_text_end", "hibernate exit text (arm64 kprobe blacklist)", arch.ARM64},
	{"_sinittext", "_einittext", "init text (freed after boot)", arch.Unknown},
}

// ELFRules derives the rules from an ELF file: for vmlinux the marker
// symbols and the _kprobe_blacklist array (NOKPROBE_SYMBOL); for a module
// (ET_REL) its .kprobes.text, .noinstr.text, init/exit sections and its
// relocated _kprobe_blacklist section. funcs is f's function symbol table.
func ELFRules(f *elfobj.File, a arch.Arch, funcs *ksym.SymTab, markers map[string]uint64) (*Rules, error) {
	r := &Rules{rel: f.Type == elf.ET_REL, linked: f.Type != elf.ET_REL && funcs != nil, syms: funcs}
	if a == arch.ARM64 {
		r.text = elfText(f)
	}
	if a == arch.X86_64 {
		r.setX86(f, markers)
	}
	if r.rel {
		for _, s := range f.Sections {
			if s.Flags&elf.SHF_EXECINSTR == 0 {
				continue
			}
			if why := ModuleSection(s.Name); why != "" {
				r.add(s.Name, 0, s.Size, Section, why)
			}
		}
		if err := r.relBlacklist(f, funcs); err != nil {
			return nil, err
		}
		if err := r.relPatchSites(f.File); err != nil {
			return nil, err
		}
		r.readFlow(f, a, nil)
		ft, err := relFtraceLocations(f.File, a)
		if err != nil {
			return nil, err
		}
		if ft != nil {
			if a == arch.ARM64 {
				adjustCallOps(ft, sectionText(f))
			}
			r.setFtrace(ft)
		} else {
			r.Notes = append(r.Notes, "no __mcount_loc table: notrace functions not checked")
		}
		r.sort()
		return r, nil
	}
	addr := markers
	for _, m := range markerPairs {
		if m.arch != arch.Unknown && m.arch != a {
			continue
		}
		s, ok1 := addr[m.start]
		e, ok2 := addr[m.end]
		if ok1 && ok2 {
			r.add("", s, e, Section, m.why)
		}
	}
	if s := f.Section(".exit.text"); s != nil && s.Addr != 0 {
		r.add("", s.Addr, s.Addr+s.Size, Section, "exit text (freed after boot)")
	}
	start, ok1 := addr["__start_kprobe_blacklist"]
	stop, ok2 := addr["__stop_kprobe_blacklist"]
	if sec := f.Section("_kprobe_blacklist"); sec != nil && !(ok1 && ok2) {
		start, stop, ok1, ok2 = sec.Addr, sec.Addr+sec.Size, true, true
	}
	if ok1 && ok2 && stop > start {
		words, err := f.Pointers(start, stop)
		if err != nil {
			return nil, fmt.Errorf("_kprobe_blacklist: %w", err)
		}
		for _, w := range words {
			if s, _, ok := funcs.Lookup("", w); ok && s.Size > 0 {
				r.add("", s.Addr, s.Addr+s.Size, Blacklist, "NOKPROBE_SYMBOL("+s.Name+")")
			}
		}
	}
	if err := r.patchSites(f, markers); err != nil {
		return nil, err
	}
	r.readFlow(f, a, markers)
	ft, err := ftraceLocations(f, a, markers)
	if err != nil {
		return nil, err
	}
	if ft != nil {
		sites := map[string][]uint64{"": ft}
		if a == arch.ARM64 {
			adjustCallOps(sites, sectionText(f))
		}
		r.setFtrace(sites)
	} else {
		r.Notes = append(r.Notes, "no "+FtraceTables(a)+" table: notrace functions not checked")
	}
	r.sort()
	return r, nil
}

// patchSites adds the instruction-level refusals of check_kprobe_address_safe
// that a linked image records in tables: jump-label patch sites
// (jump_label_text_reserved), inline static-call sites
// (static_call_text_reserved) and BUG() traps (find_bug). All three tables
// hold 32-bit offsets relative to the entry's own address.
func (r *Rules) patchSites(f *elfobj.File, markers map[string]uint64) error {
	// The kernel refuses addresses inside the patched instruction (2 or 5
	// bytes on x86-64, decoded at run time). Probe addresses are
	// instruction starts, so only the first byte can match: a one-byte
	// region is exact without reading the text.
	const nop = patchSiteLen
	tables := []struct {
		start, stop string
		entSize     uint64
		size        uint64
		why         string
	}{
		{"__start___jump_table", "__stop___jump_table", 16, nop, "jump label patch site"},
		{"__start_static_call_sites", "__stop_static_call_sites", 8, nop, "static call site"},
		{"__start___bug_table", "__stop___bug_table", 12, 1, "BUG() trap"},
	}
	for _, tb := range tables {
		start, ok1 := markers[tb.start]
		stop, ok2 := markers[tb.stop]
		if !ok1 || !ok2 || stop <= start {
			continue
		}
		data, err := f.AddrRange(start, stop)
		if err != nil {
			return fmt.Errorf("%s: %w", tb.start, err)
		}
		if tb.start == "__start___bug_table" && uint64(len(data))%12 != 0 {
			// Without CONFIG_DEBUG_BUGVERBOSE entries are 8 bytes (x86-64
			// relative form); with it 12. Pick the size that divides.
			tb.entSize = 8
		}
		if uint64(len(data))%tb.entSize != 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: %d bytes is not a whole number of %d-byte entries: not checked", tb.start, len(data), tb.entSize))
			continue
		}
		for off := uint64(0); off+tb.entSize <= uint64(len(data)); off += tb.entSize {
			rel := int32(f.ByteOrder.Uint32(data[off:]))
			addr := uint64(int64(start+off) + int64(rel))
			r.addPoint(Region{"", addr, addr + tb.size, tb.why, PatchSite})
			if tb.start == "__start___jump_table" {
				// struct jump_entry { s32 code; s32 target; long key; }
				t := int32(f.ByteOrder.Uint32(data[off+4:]))
				r.addLabelTarget("", uint64(int64(start+off+4)+int64(t)))
			}
		}
	}
	r.sortPoints()
	return nil
}

// The kernel refuses addresses inside the patched instruction; probe
// addresses are instruction starts, so a one-byte region at the patch
// site's first byte is exact (see patchSites).
const patchSiteLen = 1

// addLabelTarget records where an enabled jump label jumps to: code that
// control may reach with no jump in the ELF's text (see Barrier).
func (r *Rules) addLabelTarget(sec string, at uint64) {
	if r.labelTargets == nil {
		r.labelTargets = map[string][]uint64{}
	}
	r.labelTargets[sec] = append(r.labelTargets[sec], at)
}

func (r *Rules) addPoint(g Region) {
	if r.points == nil {
		r.points = map[string][]Region{}
	}
	r.points[g.Section] = append(r.points[g.Section], g)
}

func (r *Rules) sortPoints() {
	for _, pts := range r.points {
		sort.SliceStable(pts, func(i, j int) bool { return pts[i].Start < pts[j].Start })
	}
}

// relPatchSites reads the patch-site tables of a relocatable object (a
// module): the same three tables as patchSites, whose relative fields are
// zero in the .ko and filled by the module loader from RELA relocations.
// The relocation of an entry's first field (jump_entry.code,
// static_call_site.addr, bug_entry.bug_addr_disp) names the patched
// instruction as section + offset.
func (r *Rules) relPatchSites(f *elf.File) error {
	tables := []struct {
		name    string
		entSize uint64
		why     string
	}{
		{"__jump_table", 16, "jump label patch site"},
		{".static_call_sites", 8, "static call site"},
		{"__bug_table", 12, "BUG() trap"},
	}
	for _, tb := range tables {
		idx := -1
		for i, s := range f.Sections {
			if s.Name == tb.name && s.Type == elf.SHT_PROGBITS {
				idx = i
			}
		}
		if idx < 0 {
			continue
		}
		size := f.Sections[idx].Size
		if tb.name == "__bug_table" && size%12 != 0 && size%8 == 0 {
			tb.entSize = 8 // no CONFIG_DEBUG_BUGVERBOSE
		}
		if size%tb.entSize != 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: %d bytes is not a whole number of %d-byte entries: not checked", tb.name, size, tb.entSize))
			continue
		}
		rels, err := elfrel.Read(f, idx, elfrel.Options{})
		if err != nil {
			return fmt.Errorf("%s: %w", tb.name, err)
		}
		for _, rl := range rels {
			if tb.name == "__jump_table" && rl.Off%tb.entSize == 4 && rl.Off < size && rl.Section >= 0 {
				r.addLabelTarget(f.Sections[rl.Section].Name, rl.Value)
				continue
			}
			if rl.Off%tb.entSize != 0 || rl.Off >= size {
				continue // another field of the entry
			}
			if n, _, _ := elfrel.Kind(f.Machine, rl.Type); n == 0 {
				return fmt.Errorf("%s: entry at %#x: unexpected relocation type %d", tb.name, rl.Off, rl.Type)
			}
			if rl.Section < 0 || f.Sections[rl.Section].Flags&elf.SHF_EXECINSTR == 0 {
				continue
			}
			sec := f.Sections[rl.Section].Name
			r.addPoint(Region{sec, rl.Value, rl.Value + patchSiteLen, tb.why, PatchSite})
		}
	}
	r.sortPoints()
	return nil
}

// ForELF reads f's symbol table and returns its rules (ELFRules on them).
// The rules read the table where f holds it: f must stay open while they
// are used.
func ForELF(f *elfobj.File) (*Rules, error) {
	a, err := arch.FromELF(f.Machine)
	if err != nil {
		return nil, err
	}
	es, err := ksym.ReadELFSymbolsFrom(f.File, f.Data, MarkerNames())
	if err != nil {
		return nil, fmt.Errorf("symbol table: %w", err)
	}
	return ELFRules(f, a, es.Funcs, es.Markers)
}

// MarkerNames are the symbols ELFRules needs from a linked object.
func MarkerNames() map[string]bool {
	m := map[string]bool{"__start___jump_table": true, "__stop___jump_table": true,
		"__start_static_call_sites": true, "__stop_static_call_sites": true,
		"__start___bug_table": true, "__stop___bug_table": true,
		"__start_kprobe_blacklist": true, "__stop_kprobe_blacklist": true, "_text": true, "_stext": true,
		"__start_mcount_loc": true, "__stop_mcount_loc": true, "__start_patchable_function_entries": true, "__stop_patchable_function_entries": true,
		"linux_banner": true}
	for _, p := range markerPairs {
		m[p.start], m[p.end] = true, true
	}
	return m
}

// relBlacklist reads a module's _kprobe_blacklist: its words are zero in
// the .ko and become addresses through relocations against symbols.
func (r *Rules) relBlacklist(f *elfobj.File, funcs *ksym.SymTab) error {
	var target int = -1
	for i, s := range f.Sections {
		if s.Name == "_kprobe_blacklist" {
			target = i
		}
	}
	if target < 0 {
		return nil
	}
	rels, err := elfrel.Read(f.File, target, elfrel.Options{})
	if err != nil {
		return err
	}
	for _, rl := range rels {
		if rl.Section < 0 {
			continue
		}
		sec := f.Sections[rl.Section].Name
		if fs, _, ok := funcs.Lookup(sec, rl.Value); ok && fs.Size > 0 {
			r.add(sec, fs.Addr, fs.Addr+fs.Size, Blacklist, "NOKPROBE_SYMBOL("+fs.Name+")")
		}
	}
	return nil
}

// ModuleSection says why no kprobe can sit in a module's section of this
// name ("" when it may): the kernel refuses __kprobes and noinstr text,
// frees init text after the module's init ran, and runs exit text only at
// unload.
func ModuleSection(name string) string {
	switch {
	case name == ".kprobes.text":
		return "__kprobes (.kprobes.text)"
	case name == ".noinstr.text":
		return "noinstr (.noinstr.text)"
	case strings.HasPrefix(name, ".init.text"):
		return "module init text (freed after load)"
	case strings.HasPrefix(name, ".exit.text"):
		return "module exit text (runs only at unload)"
	}
	return ""
}

// ForSyms returns r for the object whose function symbols are funcs: the
// running kernel's rules are read once and shared by its objects.
func (r *Rules) ForSyms(funcs *ksym.SymTab) *Rules {
	c := *r
	c.syms = funcs
	c.Notes = slices.Clone(r.Notes)
	return &c
}

// RunningRules derives the rules for the running kernel: the debugfs
// blacklist when readable (it already holds NOKPROBE_SYMBOL functions, the
// __kprobes, noinstr and entry text), plus init text from kallsyms;
// otherwise the marker symbols of kallsyms, with a note that
// NOKPROBE_SYMBOL functions could not be checked.
func RunningRules(sys ksys.System, k *ksym.Kallsyms, a arch.Arch, funcs *ksym.SymTab) (*Rules, error) {
	r := &Rules{syms: funcs}
	mem, err := sys.OpenKcore()
	var armed []uint64
	if err == nil {
		armed, err = kcoreUsable(sys, k, mem)
	}
	if err == nil {
		r.setKcoreText(mem, a, armed)
		if a == arch.X86_64 {
			rel, _ := sys.Release()
			var ok bool
			if r.kver, ok = ParseKernelRelease(rel); !ok {
				r.Notes = append(r.Notes, "kernel version unknown (/proc/sys/kernel/osrelease): the x86 INT/UD rule of Linux 6.9 and later not checked")
			}
		}
	} else if rules := insnRules[a]; rules != "" {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		r.Notes = append(r.Notes, rules+" not checked: they need the kernel's text through /proc/kcore ("+err.Error()+"); run as root, or give the vmlinux as FILE")
	}
	bl, ok, err := sys.KprobeBlacklist()
	if err != nil {
		return nil, err
	}
	if ok {
		for _, b := range bl {
			why := "kprobe blacklist (" + b.Name + ")"
			if strings.HasPrefix(b.Name, "__") && strings.HasSuffix(b.Name, "_text_start") {
				why = "kprobe blacklist (" + strings.TrimSuffix(strings.TrimPrefix(b.Name, "__"), "_start") + ")"
			}
			r.add("", b.Start, b.End, Blacklist, why)
		}
	}
	for _, m := range markerPairs {
		if m.arch != arch.Unknown && m.arch != a {
			continue
		}
		if ok && m.start != "_sinittext" {
			continue
		}
		s, ok1 := k.Addr(m.start)
		e, ok2 := k.Addr(m.end)
		if ok1 && ok2 {
			r.add("", s, e, Section, m.why)
		}
	}
	if !ok {
		r.Notes = append(r.Notes, "/sys/kernel/debug/kprobes/blacklist unreadable: NOKPROBE_SYMBOL functions not checked (mount debugfs and run as root)")
	}
	if names, ok, err := sys.FtraceFunctions(); err != nil {
		return nil, err
	} else if ok {
		r.ftraceNames = names
	} else {
		r.Notes = append(r.Notes, "available_filter_functions unreadable: notrace functions not checked (mount tracefs and run as root)")
	}
	// The jump-label, static-call and BUG() tables are in kernel memory
	// only; the ELF has them (FILE --running).
	r.Notes = append(r.Notes, "jump-label, static-call and BUG() patch sites not checked without the ELF (give it as FILE with --running)")
	r.sort()
	return r, nil
}

// insnRules names each architecture's instruction rules in the note
// that says they were not checked.
var insnRules = map[arch.Arch]string{
	arch.ARM64:  "arm64 instruction rules (exclusive sequences, MSR, BRK, ...)",
	arch.X86_64: "x86 instruction rules (INT3, UD2 from 6.9, far and memory-indirect CALL/JMP, ...)",
}

// kcoreUsable returns the addresses of the kprobes registered now, or
// why kcore cannot serve the instruction rules: the kernel's text at its
// base must read, and those kprobes must be known (debugfs), or another
// tool's breakpoint would pass for the instruction it replaced.
func kcoreUsable(sys ksys.System, k *ksym.Kallsyms, mem *ksys.Kcore) ([]uint64, error) {
	base, err := k.TextBase()
	if err != nil {
		return nil, err
	}
	if _, ok := mem.Read(base, 4); !ok {
		return nil, fmt.Errorf("the text at %#x does not read", base)
	}
	armed, ok := sys.KprobeAddrs()
	if !ok {
		return nil, errors.New("/sys/kernel/debug/kprobes/list, which says where other kprobes' breakpoints are, is unreadable")
	}
	return armed, nil
}

// setKcoreText makes the instruction rules read the running kernel's
// text through /proc/kcore, as the kernel patched it at boot (so the
// alternatives and boot-time rewrites of the ELF rules do not apply).
// The text stays open for as long as the rules are used. Where a kprobe
// is registered now (armed), the text shows its breakpoint, or its jump
// when optimized, instead of the instruction, and the kernel decodes the
// original it keeps: the rules say nothing about an instruction (or the
// bytes before it that the x86 rules read) a kprobe's bytes cover. On
// arm64 a breakpoint inside the backward scan does not matter: the
// instruction it replaced cannot be of the exclusive class, which
// kprobes refuse.
func (r *Rules) setKcoreText(mem *ksys.Kcore, a arch.Arch, armed []uint64) {
	slices.Sort(armed)
	covered := func(lo, hi uint64) bool {
		i, _ := slices.BinarySearch(armed, lo)
		return i < len(armed) && armed[i] < hi
	}
	switch a {
	case arch.ARM64:
		r.text = func(_ string, addr uint64) (orig, patched []byte) {
			if covered(addr, addr+4) {
				return nil, nil
			}
			const back = 4 * ARM64AtomicWindow
			lo := addr - back
			if _, ok := mem.Read(lo, 4); !ok {
				lo = max(lo, addr&^0xfff) // the text's first page
			}
			b, _ := mem.Read(lo, int(addr+4-lo))
			return b, nil
		}
	case arch.X86_64:
		r.x86 = &x86Text{at: func(_ string, addr uint64) ([]byte, uint64, bool) {
			// An INT3 at or before addr, or an optimized kprobe's
			// 5-byte jump, over the instruction or the bytes before it.
			// A kprobe after addr starts at a later instruction.
			if covered(addr-emulatePrefixLen-4, addr+1) {
				return nil, 0, false
			}
			if b, ok := mem.Read(addr-emulatePrefixLen, emulatePrefixLen+maxX86Insn); ok {
				return b, emulatePrefixLen, true
			}
			b, ok := mem.Read(addr, maxX86Insn)
			return b, 0, ok
		}}
	}
}
