package ksym

import (
	"bytes"
	"cmp"
	"debug/elf"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Symbol is a function symbol: from an ELF symbol table (Addr is st_value,
// an address for linked objects and a section offset for ET_REL) or from
// /proc/kallsyms (Addr is the runtime address).
type Symbol struct {
	Name    string
	Addr    uint64
	Size    uint64 // 0 when unknown (kallsyms)
	Section string // ELF section name; "" for kallsyms
	Global  bool
	Module  string // kallsyms "[module]" tag
}

// symEnt is a compact symbol: names stay in the string table until asked
// for, so that opening a vmlinux does not allocate 100,000 strings.
type symEnt struct {
	addr, size uint64
	name       uint32 // offset in strtab, or index in names
	sec        uint16 // index in secs
	global     bool
}

// SymTab finds the function containing an address and the symbols of a
// function name. Relocatable objects are searched per section, since every
// section starts at address 0 there.
type SymTab struct {
	rel    bool
	strtab []byte   // ELF string table (names are offsets into it)
	names  []string // kallsyms names (names are indexes)
	mods   []string // kallsyms module per entry index (parallel to names)
	secs   []string
	ents   []symEnt // sorted by (sec for rel, addr, preference)
	// pad holds the padding symbols (paddingPrefixes), left out of ents,
	// sorted by (sec for rel, addr).
	pad []symEnt

	once   sync.Once
	byHash map[uint64][]int32 // FNV-1a of a name -> entries
}

func (t *SymTab) nameBytes(e *symEnt) []byte {
	if t.strtab == nil {
		return []byte(t.names[e.name])
	}
	if int(e.name) >= len(t.strtab) {
		return nil
	}
	b := t.strtab[e.name:]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return b
}

// hasPrefix reports whether e's name starts with p, without measuring
// the name first.
func (t *SymTab) hasPrefix(e *symEnt, p []byte) bool {
	if t.strtab == nil {
		return strings.HasPrefix(t.names[e.name], string(p))
	}
	o := int(e.name)
	return o+len(p) <= len(t.strtab) && bytes.Equal(t.strtab[o:o+len(p)], p)
}

// nameIs reports whether e is named n.
func (t *SymTab) nameIs(e *symEnt, n []byte) bool {
	if t.strtab == nil {
		return t.names[e.name] == string(n)
	}
	o := int(e.name) + len(n)
	return t.hasPrefix(e, n) && o < len(t.strtab) && t.strtab[o] == 0
}

func (t *SymTab) name(e *symEnt) string {
	if t.strtab == nil {
		return t.names[e.name]
	}
	return string(t.nameBytes(e))
}

func (t *SymTab) symbol(e *symEnt) Symbol {
	s := Symbol{Name: t.name(e), Addr: e.addr, Size: e.size, Global: e.global}
	if int(e.sec) < len(t.secs) {
		s.Section = t.secs[e.sec]
	}
	if t.mods != nil {
		s.Module = t.mods[e.name]
	}
	return s
}

// sortEnts orders entries by address with aliases preferred-first: sized,
// then global, then by name, so that the name chosen is deterministic.
func (t *SymTab) sortEnts() {
	if !t.rel && t.sortPacked() {
		return
	}
	slices.SortFunc(t.ents, t.compare)
}

// sortPacked sorts a linked object's table by packing (address - lowest
// address, index) into one uint64 key, which sorts several times faster
// than a comparison function; ties (aliases) are then ordered by
// preference. It reports false when the keys do not fit.
func (t *SymTab) sortPacked() bool {
	n := len(t.ents)
	if n == 0 || n >= 1<<20 {
		return n == 0
	}
	lo, hi := t.ents[0].addr, t.ents[0].addr
	for i := range t.ents {
		lo, hi = min(lo, t.ents[i].addr), max(hi, t.ents[i].addr)
	}
	if hi-lo >= 1<<44 {
		return false
	}
	keys := make([]uint64, n)
	for i := range t.ents {
		keys[i] = (t.ents[i].addr-lo)<<20 | uint64(i)
	}
	slices.Sort(keys)
	sorted := make([]symEnt, n)
	for i, k := range keys {
		sorted[i] = t.ents[k&(1<<20-1)]
	}
	t.ents = sorted
	for i := 0; i < n; {
		j := i + 1
		for j < n && t.ents[j].addr == t.ents[i].addr {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(t.ents[i:j], t.compare)
		}
		i = j
	}
	return true
}

func (t *SymTab) compare(a, b symEnt) int {
	// Linker markers (_stext, __noinstr_text_start) share addresses with
	// the first function of a region; name the function.
	if ma, mb := isMarker(t.nameBytes(&a)), isMarker(t.nameBytes(&b)); ma != mb && a.addr == b.addr && (!t.rel || a.sec == b.sec) {
		if mb {
			return -1
		}
		return 1
	}
	{
		if t.rel && a.sec != b.sec {
			return cmp.Compare(t.secs[a.sec], t.secs[b.sec])
		}
		if a.addr != b.addr {
			return cmp.Compare(a.addr, b.addr)
		}
		if (a.size > 0) != (b.size > 0) {
			if a.size > 0 {
				return -1
			}
			return 1
		}
		if a.global != b.global {
			if a.global {
				return -1
			}
			return 1
		}
		return bytes.Compare(t.nameBytes(&a), t.nameBytes(&b))
	}
}

// newSymTab builds a table from symbols (kallsyms).
func newSymTab(rel bool, syms []Symbol) *SymTab {
	t := &SymTab{rel: rel}
	secIdx := map[string]uint16{}
	for i, s := range syms {
		si, ok := secIdx[s.Section]
		if !ok {
			si = uint16(len(t.secs))
			secIdx[s.Section] = si
			t.secs = append(t.secs, s.Section)
		}
		t.names = append(t.names, s.Name)
		t.mods = append(t.mods, s.Module)
		t.ents = append(t.ents, symEnt{addr: s.Addr, size: s.Size, name: uint32(i), sec: si, global: s.Global})
	}
	t.sortEnts()
	return t
}

// ELFSymbols is what one pass over an ELF symbol table yields: the function
// symbols and the values of the named marker symbols.
type ELFSymbols struct {
	Funcs   *SymTab
	Markers map[string]uint64
}

// ReadELFSymbols reads f's .symtab once: STT_FUNC symbols into a SymTab and
// the first value of every symbol named in markers.
func ReadELFSymbols(f *elf.File, markers map[string]bool) (*ELFSymbols, error) {
	return ReadELFSymbolsFrom(f, (*elf.Section).Data, markers)
}

// ReadELFSymbolsFrom is ReadELFSymbols with the sections' bytes from data:
// a mapped file's own, which the SymTab then reads as long as it is used,
// instead of debug/elf's copy of the symbol and string tables (a vmlinux's
// are 5 MB).
func ReadELFSymbolsFrom(f *elf.File, data func(*elf.Section) ([]byte, error), markers map[string]bool) (*ELFSymbols, error) {
	st := f.SectionByType(elf.SHT_SYMTAB)
	if st == nil {
		st = f.SectionByType(elf.SHT_DYNSYM)
	}
	if st == nil {
		return nil, errors.New("no symbol table")
	}
	if f.Class != elf.ELFCLASS64 {
		return nil, errors.New("only ELF64 symbol tables are read")
	}
	if int(st.Link) >= len(f.Sections) {
		return nil, fmt.Errorf("%s: bad string table link %d", st.Name, st.Link)
	}
	syms, err := data(st)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", st.Name, err)
	}
	strtab, err := data(f.Sections[st.Link])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Sections[st.Link].Name, err)
	}
	t := &SymTab{rel: f.Type == elf.ET_REL, strtab: strtab}
	for _, s := range f.Sections {
		t.secs = append(t.secs, s.Name)
	}
	out := &ELFSymbols{Funcs: t, Markers: map[string]uint64{}}
	bo := f.ByteOrder
	const symSize = 24
	for off := symSize; off+symSize <= len(syms); off += symSize {
		e := syms[off : off+symSize]
		name := bo.Uint32(e[0:])
		info := e[4]
		shndx := bo.Uint16(e[6:])
		value := bo.Uint64(e[8:])
		size := bo.Uint64(e[16:])
		if shndx == uint16(elf.SHN_UNDEF) {
			continue
		}
		typ := elf.SymType(info & 0xf)
		if typ == elf.STT_FUNC && int(shndx) < len(f.Sections) {
			e := symEnt{addr: value, size: size, name: name, sec: shndx, global: elf.SymBind(info>>4) != elf.STB_LOCAL}
			if isPadding(strtab, name) {
				t.pad = append(t.pad, e)
			} else {
				t.ents = append(t.ents, e)
			}
			continue
		}
		if len(markers) > 0 && typ != elf.STT_FILE && typ != elf.STT_SECTION && int(name) < len(strtab) {
			b := strtab[name:]
			if i := bytes.IndexByte(b, 0); i >= 0 {
				b = b[:i]
			}
			if markers[string(b)] {
				if _, dup := out.Markers[string(b)]; !dup {
					out.Markers[string(b)] = value
				}
			}
		}
	}
	t.sortEnts()
	slices.SortFunc(t.pad, func(a, b symEnt) int {
		if t.rel && a.sec != b.sec {
			return cmp.Compare(t.secs[a.sec], t.secs[b.sec])
		}
		return cmp.Compare(a.addr, b.addr)
	})
	return out, nil
}

// paddingPrefixes name the symbols kbuild gives the padding in front of
// each function (CONFIG_FUNCTION_PADDING's __pfx_, kCFI's __cfi_): typed
// as functions, but no function of their own (49,126 of them in Debian
// 13's 6.12 vmlinux). available_filter_functions leaves them out, and
// kprobes refuse an address in one (register_kprobe's
// is_cfi_preamble_symbol, in both Debian kernels): Lookup does not find
// them, Padding does.
var paddingPrefixes = [][]byte{[]byte("__pfx_"), []byte("__cfi_")}

// isPadding tells a padding symbol by its name at strtab[off:].
func isPadding(strtab []byte, off uint32) bool {
	if int(off) >= len(strtab) {
		return false
	}
	for _, p := range paddingPrefixes {
		if bytes.HasPrefix(strtab[off:], p) {
			return true
		}
	}
	return false
}

// IsPadding reports whether name is a padding symbol (paddingPrefixes).
func IsPadding(name string) bool {
	for _, p := range paddingPrefixes {
		if strings.HasPrefix(name, string(p)) {
			return true
		}
	}
	return false
}

// ELFSymTab reads the function symbols of f.
func ELFSymTab(f *elf.File) (*SymTab, error) {
	s, err := ReadELFSymbols(f, nil)
	if err != nil {
		return nil, err
	}
	return s.Funcs, nil
}

// secRange returns the entries of section sec (all entries when not rel).
func (t *SymTab) secRange(section string) []symEnt {
	if !t.rel {
		return t.ents
	}
	lo := sort.Search(len(t.ents), func(i int) bool { return t.secs[t.ents[i].sec] >= section })
	hi := sort.Search(len(t.ents), func(i int) bool { return t.secs[t.ents[i].sec] > section })
	return t.ents[lo:hi]
}

// Lookup returns the symbol containing addr (in section, for relocatable
// objects) and the offset into it: the sized symbol that contains addr,
// else the nearest symbol below it when sizes are unknown (kallsyms).
func (t *SymTab) Lookup(section string, addr uint64) (Symbol, uint64, bool) {
	l := t.secRange(section)
	i := sort.Search(len(l), func(i int) bool { return l[i].addr > addr }) - 1
	if i < 0 {
		return Symbol{}, 0, false
	}
	g := groupStart(l, i)
	if e := &l[g]; e.size == 0 || addr < e.addr+e.size {
		return t.symbol(e), addr - e.addr, true
	}
	// The nearest symbol ends below addr: an earlier, larger symbol may
	// still contain it; look a little way back.
	for j := g - 1; j >= 0 && j >= g-64; j-- {
		if e := &l[j]; e.size > 0 && addr < e.addr+e.size {
			e = &l[groupStart(l, j)]
			return t.symbol(e), addr - e.addr, true
		}
	}
	return Symbol{}, 0, false
}

// Padding returns the padding symbol (paddingPrefixes) containing addr
// (in section, for relocatable objects): ELF symbol tables only.
func (t *SymTab) Padding(section string, addr uint64) (Symbol, bool) {
	l := t.pad
	if t.rel {
		lo := sort.Search(len(l), func(i int) bool { return t.secs[l[i].sec] >= section })
		hi := sort.Search(len(l), func(i int) bool { return t.secs[l[i].sec] > section })
		l = l[lo:hi]
	}
	i := sort.Search(len(l), func(i int) bool { return l[i].addr > addr }) - 1
	if i < 0 || addr >= l[i].addr+l[i].size {
		return Symbol{}, false
	}
	return t.symbol(&l[i]), true
}

func groupStart(l []symEnt, i int) int {
	for i > 0 && l[i-1].addr == l[i].addr {
		i--
	}
	return i
}

// index hashes every name once (FNV-1a, no allocation per symbol):
// ByName and Unique look names up through it.
func (t *SymTab) index() {
	t.once.Do(func() {
		t.byHash = make(map[uint64][]int32, len(t.ents))
		for i := range t.ents {
			h := fnv1a(t.nameBytes(&t.ents[i]))
			t.byHash[h] = append(t.byHash[h], int32(i))
		}
	})
}

// ByName returns the symbols named name, in table order.
func (t *SymTab) ByName(name string) []Symbol {
	t.index()
	var out []Symbol
	nb := []byte(name)
	for _, i := range t.byHash[fnv1a(nb)] {
		if t.nameIs(&t.ents[i], nb) {
			out = append(out, t.symbol(&t.ents[i]))
		}
	}
	return out
}

// Unique reports whether exactly one symbol is named name.
func (t *SymTab) Unique(name string) bool {
	t.index()
	nb := []byte(name)
	n := 0
	for _, i := range t.byHash[fnv1a(nb)] {
		if t.nameIs(&t.ents[i], nb) {
			n++
		}
	}
	return n == 1
}

func fnv1a(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// Clones returns the out-of-line copies of name: the symbol itself and gcc
// clones name.isra.N, name.constprop.N, name.part.N, name.cold and
// combinations (name.constprop.0.isra.0), sorted by name then address.
func (t *SymTab) Clones(name string) []Symbol {
	var out []Symbol
	nb := []byte(name)
	for i := range t.ents {
		e := &t.ents[i]
		if !t.hasPrefix(e, nb) {
			continue
		}
		b := t.nameBytes(e)
		if len(b) == len(nb) || b[len(nb)] == '.' && isCloneSuffix(string(b[len(nb)+1:])) {
			out = append(out, t.symbol(e))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Addr < out[j].Addr
	})
	return out
}

// isMarker reports linker-script symbols that bound text regions.
func isMarker(n []byte) bool {
	s := string(n)
	switch s {
	case "_text", "_stext", "_etext", "_sinittext", "_einittext":
		return true
	}
	return strings.HasPrefix(s, "__") && (strings.HasSuffix(s, "_text_start") || strings.HasSuffix(s, "_text_end"))
}

// CloneBase returns the function a gcc clone is a copy of (foo for
// foo.isra.0, foo.constprop.0.isra.0, foo.cold) and whether name is one.
func CloneBase(name string) (base string, clone bool) {
	if j := strings.IndexByte(name, '.'); j > 0 && isCloneSuffix(name[j+1:]) {
		return name[:j], true
	}
	return name, false
}

// isCloneSuffix recognises gcc's clone suffixes (after the first dot).
func isCloneSuffix(s string) bool {
	for _, part := range strings.Split(s, ".") {
		switch part {
		case "isra", "constprop", "part", "cold", "lto_priv", "localalias":
			continue
		}
		if part == "" {
			return false
		}
		for _, r := range part {
			if r < '0' || r > '9' {
				return false
			}
		}
	}
	return true
}

// Names returns every symbol name (unsorted, with repeats).
func (t *SymTab) Names() []string {
	out := make([]string, 0, len(t.ents))
	for i := range t.ents {
		out = append(out, t.name(&t.ents[i]))
	}
	return out
}

// Symbols returns every symbol, sorted by address (per section, sections
// by name, for relocatable objects).
func (t *SymTab) Symbols() []Symbol {
	out := make([]Symbol, len(t.ents))
	for i := range t.ents {
		out[i] = t.symbol(&t.ents[i])
	}
	return out
}
