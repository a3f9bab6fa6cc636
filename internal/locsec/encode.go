package locsec

import (
	"cmp"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/btfindex"
)

// TypeMapper gives the BTF id, in the chain of the Spec being encoded, of a
// DWARF type. It may hand out ids of types it has not added yet; Commit must
// add them (in id order) before Encode adds anything else.
type TypeMapper interface {
	TypeID(off dwarf.Offset) (btf.TypeID, error)
	Commit() error
}

// Prefetcher is a TypeMapper that can convert many types in parallel ahead
// of the TypeID calls, without changing what they return
// (dedup.Converter).
type Prefetcher interface {
	Prefetch(offs []dwarf.Offset, workers int)
}

// Options tune Encode.
type Options struct {
	// AddrBase is subtracted from LocAddr values (see the package doc);
	// ObjectBase computes it from the ELF file.
	AddrBase uint64
	// PtrSize is the target's pointer size, used to size pointer-typed
	// parameters whose location has no size. Default 8.
	PtrSize uint32
	// Base is the Index of the destination's base chain (dst.Base()),
	// shared by the encodings on one chain; nil: Encode indexes it.
	Base *btfindex.Index
	// Workers is how many goroutines a Prefetcher type mapper may use
	// (0 or 1: none); the output does not depend on it.
	Workers int
}

// Stats counts what Encode did.
type Stats struct {
	Sites       int // sites given
	Duplicates  int // exact duplicates dropped
	Entries     int // LOCSEC entries written
	LocSecs     int
	Funcs       int // FUNCs added
	FuncsReused int // inlined functions whose FUNC was found in the base chain
	FuncProtos  int // FUNC_PROTOs added
	LocParams   int // LOC_PARAMs added
	LocProtos   int // LOC_PROTOs added
	BaseTypes   int // other types added (types the base chain lacks)
	Unavailable int // parameter slots without a location
	Unencodable int // parameter locations the format cannot carry
	// SkippedFuncs counts the inlined functions left out because BTF
	// cannot carry them (a name the kernel refuses, such as Rust's
	// "write<u8>"; a type that does not convert, such as Rust's unit type
	// "()", a base type of size 0); SkippedSites their sites; Skipped
	// says which was first, and why.
	SkippedFuncs int
	SkippedSites int
	Skipped      string
}

// ObjectBase returns the base CONST|ADDR values are relative to: the
// _stext symbol of a linked kernel image, else the lowest non-zero sh_addr
// of its SHF_ALLOC sections (for a vmlinux without _stext: _text, since
// .data..percpu is linked at 0 and would otherwise be the lowest). 0 for
// ET_REL objects, whose addresses are section offsets (arm64 modules give
// __patchable_function_entries an sh_addr of its own, which is no base).
//
// _stext because every kernel's /proc/kallsyms has it, so "--running"
// finds the base without the ELF: on x86-64 it is also _text and the
// lowest allocated address, but arm64's kallsyms has no _text, and _stext
// is _text + 64 KiB there (docs/encoding.md).
func ObjectBase(f *elf.File) uint64 {
	if f.Type == elf.ET_REL {
		return 0
	}
	if v, ok := symbolValue(f, "_stext"); ok {
		return v
	}
	base, found := uint64(0), false
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Type == elf.SHT_NULL || s.Addr == 0 {
			continue
		}
		if !found || s.Addr < base {
			base, found = s.Addr, true
		}
	}
	return base
}

// symbolValue is the value of the first defined symbol name with a
// non-zero value in f's .symtab, found by reading the table in place: a
// vmlinux has 119,000 symbols, and elf.File.Symbols makes a string of
// each name.
func symbolValue(f *elf.File, name string) (uint64, bool) {
	st := f.Section(".symtab")
	if st == nil || st.Link == 0 || int(st.Link) >= len(f.Sections) {
		return 0, false
	}
	syms, err := st.Data()
	if err != nil {
		return 0, false
	}
	strs, err := f.Sections[st.Link].Data()
	if err != nil {
		return 0, false
	}
	size := elf.Sym64Size
	if f.Class == elf.ELFCLASS32 {
		size = elf.Sym32Size
	}
	bo := f.ByteOrder
	for off := size; off+size <= len(syms); off += size {
		e := syms[off : off+size]
		var n uint32
		var shndx uint16
		var value uint64
		if f.Class == elf.ELFCLASS32 {
			n, value, shndx = bo.Uint32(e), uint64(bo.Uint32(e[4:])), bo.Uint16(e[14:])
		} else {
			n, shndx, value = bo.Uint32(e), bo.Uint16(e[6:]), bo.Uint64(e[8:])
		}
		end := uint64(n) + uint64(len(name))
		if end >= uint64(len(strs)) || strs[end] != 0 || string(strs[n:end]) != name {
			continue
		}
		if value != 0 && elf.SectionIndex(shndx) != elf.SHN_UNDEF {
			return value, true
		}
	}
	return 0, false
}

// SectionName returns the LOCSEC name for ELF section sec: "inline.text"
// for ".text".
func SectionName(sec string) string {
	return "inline." + strings.TrimPrefix(sec, ".")
}

// funcInfo is the BTF form of one inlined function.
type funcInfo struct {
	id     btf.TypeID // FUNC
	nparam int        // FUNC_PROTO vlen (varargs slot included)
	ptypes []btf.TypeID
	psizes []uint32 // byte sizes of ptypes
}

type locKey struct {
	size  uint32
	flags btf.LocFlags
	n     int
	v     [3]uint32
}

type encoder struct {
	dst   *btf.Spec
	types TypeMapper
	opts  Options
	st    Stats

	// layers: the tables of the base chain, root first, then of dst's
	// own types before Encode added any (from the type mapper).
	layers []*btfindex.Layer

	ownProto map[string]btf.TypeID
	ownFunc  map[string]btf.TypeID
}

// Encode appends the sites to dst, a split Spec built with btf.NewSpec on
// the object's base chain, as described in the package doc. Types for the
// prototypes come from types; the sites are not modified.
func Encode(sites []site.Site, dst *btf.Spec, types TypeMapper, opts Options) (Stats, error) {
	b := NewBuilder()
	b.Add(0, sites)
	return b.Encode(dst, types, opts)
}

// Encode is Encode of the sites added to b.
func (b *Builder) Encode(dst *btf.Spec, types TypeMapper, opts Options) (Stats, error) {
	if opts.PtrSize == 0 {
		opts.PtrSize = 8
	}
	if opts.Base != nil && opts.Base.Spec() != dst.Base() {
		return Stats{}, fmt.Errorf("locsec: Options.Base is not the Index of the destination's base")
	}
	e := &encoder{dst: dst, types: types, opts: opts,
		ownProto: map[string]btf.TypeID{}, ownFunc: map[string]btf.TypeID{}}
	e.st.Sites = b.nsite
	if b.nilFunc != nil {
		return e.st, fmt.Errorf("locsec: site at %s+%#x has no function", b.nilFunc.sec, b.nilFunc.off)
	}
	funcs, ptypes, err := e.prototypes(b)
	if err != nil {
		return e.st, err
	}
	infos, err := e.addFuncs(b, funcs, ptypes)
	if err != nil {
		return e.st, err
	}
	if err := b.checkOffsets(infos); err != nil {
		return e.st, err
	}
	t := e.collect(b, infos)
	paramID, err := e.addLocParams(t.paramKeys)
	if err != nil {
		return e.st, err
	}
	protoID, err := e.addLocProtos(t.protoParams, paramID)
	if err != nil {
		return e.st, err
	}
	for i := range t.entries {
		t.entries[i].LocProto = protoID[t.siteProto[i]]
	}
	return e.st, e.addLocSecs(b, t.entries)
}

// prototypes is the first phase: the prototypes' types, in the order of
// the functions' first use when the sites are sorted by section, offset
// and function (an order that depends on the sites only). It returns the
// functions whose types converted, in that order, and their types by
// function (nil: skipped).
func (e *encoder) prototypes(b *Builder) ([]uint32, []*protoTypes, error) {
	startTypes := e.dst.NumTypes()
	order := make([]uint32, len(b.funcs))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(x, y uint32) int {
		fx, fy := b.funcs[x], b.funcs[y]
		if c := cmp.Compare(fx.first.sec, fy.first.sec); c != 0 {
			return c
		}
		if c := cmp.Compare(fx.first.off, fy.first.off); c != 0 {
			return c
		}
		return site.Compare(&site.Site{Func: fx.fn}, &site.Site{Func: fy.fn})
	})
	if p, ok := e.types.(Prefetcher); ok && e.opts.Workers > 1 {
		var offs []dwarf.Offset
		for _, id := range order {
			f := b.funcs[id].fn
			if checkNames(f) != nil {
				continue
			}
			offs = append(offs, dwarf.Offset(f.RetTypeOff))
			for _, p := range f.Params {
				offs = append(offs, dwarf.Offset(p.TypeOff))
			}
		}
		p.Prefetch(offs, e.opts.Workers)
	}
	var funcs []uint32
	ptypes := make([]*protoTypes, len(b.funcs))
	for _, id := range order {
		f := b.funcs[id].fn
		pt, err := e.protoTypes(f)
		if err != nil {
			// One function whose types do not convert costs its sites,
			// never the whole object.
			e.st.SkippedFuncs++
			e.st.SkippedSites += b.funcs[id].sites
			if e.st.Skipped == "" {
				e.st.Skipped = err.Error()
			}
			continue
		}
		ptypes[id] = pt
		funcs = append(funcs, id)
	}
	if e.types != nil {
		if err := e.types.Commit(); err != nil {
			return nil, nil, err
		}
	}
	e.st.BaseTypes = e.dst.NumTypes() - startTypes
	e.indexBase()
	return funcs, ptypes, nil
}

// addFuncs is the second phase: a FUNC_PROTO and a FUNC per distinct
// function, by function (nil: skipped).
func (e *encoder) addFuncs(b *Builder, funcs []uint32, ptypes []*protoTypes) ([]*funcInfo, error) {
	infos := make([]*funcInfo, len(b.funcs))
	for _, id := range funcs {
		pt := ptypes[id]
		fi, err := e.addFunc(b.funcs[id].fn, pt.ret, pt.params)
		if err != nil {
			return nil, err
		}
		infos[id] = fi
	}
	return infos, nil
}

// locEntry is a LOCSEC entry of the section b.secs[sec].
type locEntry struct {
	sec uint32
	btf.LocEntry
}

// siteTable is what the third phase collects: one entry per site, the
// distinct locations and location tuples the sites use, each by first
// use.
type siteTable struct {
	entries     []locEntry
	siteProto   []int32  // by entry: index into protoParams
	paramKeys   []locKey // distinct locations
	protoParams [][]int  // distinct tuples: indexes into paramKeys, -1 unavailable
}

// collect is the third phase: every encoded site's entry (LocProto not
// yet set), with its parameters' locations interned.
func (e *encoder) collect(b *Builder, infos []*funcInfo) siteTable {
	n := b.count()
	t := siteTable{entries: make([]locEntry, 0, n), siteProto: make([]int32, 0, n)}
	protoIdx := map[string]int{}
	paramIdx := map[locKey]int{}
	var refs []int
	var keyBuf []byte
	for s := range b.all() {
		fi := infos[s.fn]
		if fi == nil {
			continue // skipped
		}
		params := b.tupleLocs(s.tuple)
		refs = refs[:0] // index into paramKeys, -1 unavailable
		for j := 0; j < fi.nparam; j++ {
			refs = append(refs, -1)
			if j >= len(params) {
				e.st.Unavailable++
				continue
			}
			var tsize uint32
			if j < len(fi.psizes) {
				tsize = fi.psizes[j]
			}
			k, ok := e.locKey(params[j].location(), tsize)
			if !ok {
				e.st.Unavailable++
				continue
			}
			pi, seen := paramIdx[k]
			if !seen {
				pi = len(t.paramKeys)
				paramIdx[k] = pi
				t.paramKeys = append(t.paramKeys, k)
			}
			refs[j] = pi
		}
		keyBuf = keyBuf[:0]
		for _, r := range refs {
			keyBuf = binary.LittleEndian.AppendUint32(keyBuf, uint32(int32(r)))
		}
		pi, seen := protoIdx[string(keyBuf)]
		if !seen {
			pi = len(t.protoParams)
			protoIdx[string(keyBuf)] = pi
			t.protoParams = append(t.protoParams, append([]int(nil), refs...))
		}
		t.siteProto = append(t.siteProto, int32(pi))
		t.entries = append(t.entries, locEntry{sec: s.sec, LocEntry: btf.LocEntry{Func: fi.id, Offset: uint32(s.off)}})
	}
	return t
}

// addLocParams adds the LOC_PARAMs in a canonical order, reusing the base
// chain's, and returns the id of each of keys.
func (e *encoder) addLocParams(keys []locKey) ([]btf.TypeID, error) {
	own := map[locKey]btf.TypeID{}
	sorted := append([]locKey(nil), keys...)
	slices.SortFunc(sorted, cmpKey)
	for _, k := range sorted {
		if _, ok := own[k]; ok {
			continue
		}
		if id, ok := e.baseParam(k); ok {
			own[k] = id
			continue
		}
		id, err := e.dst.Add(btf.NewLocParam(k.size, k.flags, k.v[:k.n]...))
		if err != nil {
			return nil, err
		}
		e.st.LocParams++
		own[k] = id
	}
	ids := make([]btf.TypeID, len(keys))
	for i, k := range keys {
		ids[i] = own[k]
	}
	return ids, nil
}

// addLocProtos adds the LOC_PROTOs likewise, ordered by their LOC_PARAM
// ids, and returns the id of each tuple.
func (e *encoder) addLocProtos(tuples [][]int, paramID []btf.TypeID) ([]btf.TypeID, error) {
	own := map[string]btf.TypeID{}
	protoIDs := make([][]btf.TypeID, len(tuples))
	order := make([]int, len(tuples))
	for i, refs := range tuples {
		ids := make([]btf.TypeID, len(refs))
		for j, r := range refs {
			if r >= 0 {
				ids[j] = paramID[r]
			}
		}
		protoIDs[i] = ids
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmpIDs(protoIDs[a], protoIDs[b]) })
	out := make([]btf.TypeID, len(tuples))
	for _, i := range order {
		key := btfindex.IDsKey(protoIDs[i])
		if id, ok := own[key]; ok {
			out[i] = id
			continue
		}
		if id, ok := e.baseLProto(key); ok {
			out[i] = id
			own[key] = id
			continue
		}
		id, err := e.dst.Add(btf.NewLocProto(protoIDs[i]))
		if err != nil {
			return nil, err
		}
		e.st.LocProtos++
		out[i] = id
		own[key] = id
	}
	return out, nil
}

// addLocSecs adds one LOCSEC per section, in section name order, its
// entries sorted and duplicates dropped.
func (e *encoder) addLocSecs(b *Builder, entries []locEntry) error {
	bySec := make([][]btf.LocEntry, len(b.secs))
	for _, en := range entries {
		bySec[en.sec] = append(bySec[en.sec], en.LocEntry)
	}
	entries = nil
	secs := make([]uint32, 0, len(b.secs))
	for i := range b.secs {
		if len(bySec[i]) > 0 {
			secs = append(secs, uint32(i))
		}
	}
	slices.SortFunc(secs, func(x, y uint32) int { return cmp.Compare(b.secs[x], b.secs[y]) })
	for _, si := range secs {
		sec, es := b.secs[si], bySec[si]
		slices.SortFunc(es, func(x, y btf.LocEntry) int {
			return cmp.Or(cmp.Compare(x.Func, y.Func), cmp.Compare(x.Offset, y.Offset), cmp.Compare(x.LocProto, y.LocProto))
		})
		out := es[:0]
		for i, en := range es {
			if i > 0 && en == es[i-1] {
				e.st.Duplicates++
				continue
			}
			out = append(out, en)
		}
		if len(out) > btf.MaxVlen {
			return fmt.Errorf("locsec: section %s has %d sites, more than a LOCSEC can hold", sec, len(out))
		}
		if _, err := e.dst.Add(btf.NewLocSec(e.dst.AddString(SectionName(sec)), out)); err != nil {
			return err
		}
		e.st.LocSecs++
		e.st.Entries += len(out)
	}
	return nil
}

// checkOffsets reports the first site (in section, offset and function
// order) whose offset does not fit a LOCSEC entry, among those encoded.
func (b *Builder) checkOffsets(infos []*funcInfo) error {
	var bad *compactSite
	for s := range b.all() {
		if s.off <= math.MaxUint32 || infos[s.fn] == nil {
			continue
		}
		if bad == nil || b.lessSite(s, bad) {
			bad = s
		}
	}
	if bad != nil {
		return fmt.Errorf("locsec: site of %s at %s+%#x: offset does not fit in 32 bits", b.funcs[bad.fn].fn.Name, b.secs[bad.sec], bad.off)
	}
	return nil
}

func (b *Builder) lessSite(x, y *compactSite) bool {
	if c := cmp.Compare(b.secs[x.sec], b.secs[y.sec]); c != 0 {
		return c < 0
	}
	if x.off != y.off {
		return x.off < y.off
	}
	return site.Compare(&site.Site{Func: b.funcs[x.fn].fn}, &site.Site{Func: b.funcs[y.fn].fn}) < 0
}

// protoTypes are the BTF ids of an inlined function's return and
// parameter types.
type protoTypes struct {
	ret    btf.TypeID
	params []btf.TypeID
}

// checkNames: the kernel refuses a FUNC (or parameter) whose name is no C
// identifier, e.g. Rust's "into<u8, u64>".
func checkNames(f *site.Func) error {
	if !btf.ValidIdentifier(f.Name) {
		return fmt.Errorf("%s: the kernel takes no such FUNC name (not a C identifier)", f.Name)
	}
	for _, p := range f.Params {
		if p.Name != "" && !btf.ValidIdentifier(p.Name) {
			return fmt.Errorf("parameter %q of %s: not a C identifier", p.Name, f.Name)
		}
	}
	return nil
}

func (e *encoder) protoTypes(f *site.Func) (*protoTypes, error) {
	if err := checkNames(f); err != nil {
		return nil, err
	}
	pt := &protoTypes{}
	var err error
	if pt.ret, err = e.typeID(dwarf.Offset(f.RetTypeOff), f.RetTypeID); err != nil {
		return nil, fmt.Errorf("return type of %s: %w", f.Name, err)
	}
	for _, p := range f.Params {
		id, err := e.typeID(dwarf.Offset(p.TypeOff), p.TypeID)
		if err != nil {
			return nil, fmt.Errorf("type of parameter %s of %s: %w", p.Name, f.Name, err)
		}
		pt.params = append(pt.params, id)
	}
	return pt, nil
}

func (e *encoder) typeID(off dwarf.Offset, id uint32) (btf.TypeID, error) {
	if off != 0 {
		if e.types == nil {
			return 0, fmt.Errorf("DWARF type at %#x but no type mapper", off)
		}
		return e.types.TypeID(off)
	}
	return btf.TypeID(id), nil
}

// indexBase gathers the tables of the base chain's FUNCs, FUNC_PROTOs,
// LOC_PARAMs and LOC_PROTOs, and of dst's own types (e.g. from the type
// mapper), so that equal records are reused rather than added. Lowest ids
// win.
func (e *encoder) indexBase() {
	base := e.opts.Base
	if base == nil && e.dst.Base() != nil {
		base = btfindex.Chain(e.dst.Base())
	}
	e.layers = base.Layers()
	own := btfindex.NewLayer(e.dst)
	own.AddOwn(e.dst)
	e.layers = append(e.layers, own)
}

func (e *encoder) baseParam(k locKey) (btf.TypeID, bool) {
	pk := btfindex.ParamKey{Size: k.size, Flags: k.flags, N: k.n, V: k.v}
	for _, l := range e.layers {
		if id, ok := l.Param(pk); ok {
			return id, true
		}
	}
	return 0, false
}

func (e *encoder) baseLProto(k string) (btf.TypeID, bool) {
	for _, l := range e.layers {
		if id, ok := l.LocProto(k); ok {
			return id, true
		}
	}
	return 0, false
}

// baseFuncs returns the FUNCs of the base chain named name, ascending.
func (e *encoder) baseFuncs(name string) []btf.TypeID {
	off, ok := e.dst.FindString(name)
	if !ok {
		return nil
	}
	var out []btf.TypeID
	for _, l := range e.layers {
		l.Named(btfindex.NamedKey(btf.KindFunc, off), func(id btf.TypeID) bool {
			if t, err := e.dst.TypeByID(id); err == nil && t.Kind() == btf.KindFunc && e.dst.CanonicalString(t.NameOff) == off {
				out = append(out, id)
			}
			return true
		})
	}
	return out
}

// baseProto finds the first FUNC_PROTO of the base chain with content c.
func (e *encoder) baseProto(c protoContent) (btf.TypeID, bool) {
	h := c.key()
	var found btf.TypeID
	for _, l := range e.layers {
		l.Other(h, func(id btf.TypeID) bool {
			if t, err := e.dst.TypeByID(id); err == nil && t.Kind() == btf.KindFuncProto && c.matches(e.dst, t) {
				found = id
			}
			return found == 0
		})
		if found != 0 {
			return found, true
		}
	}
	return 0, false
}

func (e *encoder) addFunc(f *site.Func, ret btf.TypeID, ptypes []btf.TypeID) (*funcInfo, error) {
	names := make([]string, len(f.Params))
	for i, p := range f.Params {
		names[i] = p.Name
		if names[i] == "" {
			names[i] = "arg" + strconv.Itoa(i+1)
		}
	}
	var kb strings.Builder
	kb.WriteString(strconv.FormatUint(uint64(ret), 10))
	for i := range names {
		kb.WriteByte('|')
		kb.WriteString(strconv.FormatUint(uint64(ptypes[i]), 10))
		kb.WriteByte(':')
		kb.WriteString(names[i])
	}
	if f.Variadic {
		kb.WriteString("|0:")
	}
	pkey := kb.String()
	n := len(names)
	if f.Variadic {
		n++
	}
	fi := &funcInfo{nparam: n, ptypes: ptypes, psizes: make([]uint32, len(ptypes))}
	for i, t := range ptypes {
		fi.psizes[i] = e.typeSize(t)
	}

	fkey := f.Name + "\x00" + pkey
	if id, ok := e.ownFunc[fkey]; ok {
		fi.id = id
		return fi, nil
	}
	// The prototype as the base chain would hold it: names by their
	// canonical offsets; a name the chain lacks matches nothing there.
	inBase := true
	content := protoContent{ret: ret, pairs: make([]uint32, 0, 2*n)}
	for i := range names {
		off, ok := e.dst.FindString(names[i])
		inBase = inBase && ok
		content.pairs = append(content.pairs, uint32(ptypes[i]), off)
	}
	if f.Variadic {
		content.pairs = append(content.pairs, 0, 0)
	}
	// A FUNC of the base chain with this name and prototype: the function
	// also exists out of line (or another object inlined it already).
	if inBase {
		for _, id := range e.baseFuncs(f.Name) {
			t, err := e.dst.TypeByID(id)
			if err != nil {
				continue
			}
			pt, err := e.dst.TypeByID(btf.TypeID(t.SizeType))
			if err != nil || pt.Kind() != btf.KindFuncProto {
				continue
			}
			if content.matches(e.dst, pt) {
				e.st.FuncsReused++
				e.ownFunc[fkey] = id
				fi.id = id
				return fi, nil
			}
		}
	}
	proto, ok := e.ownProto[pkey]
	if !ok && inBase {
		proto, ok = e.baseProto(content)
	}
	if !ok {
		params := make([]btf.Param, 0, n)
		for i := range names {
			params = append(params, btf.Param{NameOff: e.dst.AddString(names[i]), Type: ptypes[i]})
		}
		if f.Variadic {
			params = append(params, btf.Param{})
		}
		var err error
		if proto, err = e.dst.Add(btf.NewFuncProto(ret, params)); err != nil {
			return nil, err
		}
		e.st.FuncProtos++
		e.ownProto[pkey] = proto
	}
	if f.Name == "" {
		return nil, fmt.Errorf("locsec: inlined function without a name")
	}
	id, err := e.dst.Add(btf.NewFunc(e.dst.AddString(f.Name), proto, 0))
	if err != nil {
		return nil, err
	}
	e.st.Funcs++
	e.ownFunc[fkey] = id
	fi.id = id
	return fi, nil
}

func (e *encoder) typeSize(id btf.TypeID) uint32 {
	return e.dst.Size(id, e.opts.PtrSize)
}

// Canonical returns loc as Decode gives it back after Encode: the size
// filled in from typeSize when unknown, constants cut to their size, and
// Signed set exactly when an offset or constant is negative. ok is false
// when the location is unavailable or cannot be encoded.
//
// It is written independently of the encoder and the decoder so that tests
// comparing DWARF sites with decoded ones check both.
func Canonical(loc site.Location, typeSize uint32) (site.Location, bool) {
	size := uint32(loc.Size)
	if size == 0 {
		size = typeSize
	}
	if size == 0 {
		size = 8
	}
	if size > 16 || loc.Kind == site.LocUnavailable {
		return site.Location{}, false
	}
	out := site.Location{Kind: loc.Kind, Size: uint8(size)}
	switch loc.Kind {
	case site.LocReg:
		out.Reg = loc.Reg
	case site.LocRegPair:
		out.Reg, out.Reg2 = loc.Reg, loc.Reg2
	case site.LocRegOffset, site.LocMem:
		out.Reg, out.Offset, out.Signed = loc.Reg, loc.Offset, loc.Offset < 0
	case site.LocConst, site.LocAddr:
		if size > 8 {
			return site.Location{}, false
		}
		v := loc.Value
		if size < 8 {
			sign := uint64(1) << (8*size - 1)
			v &= sign<<1 - 1
			if loc.Signed && v&sign != 0 {
				v |= ^(sign<<1 - 1)
			}
		}
		out.Value, out.Signed = v, loc.Signed && int64(v) < 0
	default:
		return site.Location{}, false
	}
	return out, true
}

func (e *encoder) locKey(loc site.Location, typeSize uint32) (locKey, bool) {
	if loc.Kind == site.LocUnavailable {
		return locKey{}, false
	}
	k, ok := canonKey(loc, typeSize, e.opts.AddrBase)
	if !ok {
		e.st.Unencodable++
	}
	return k, ok
}

func canonKey(loc site.Location, typeSize uint32, addrBase uint64) (locKey, bool) {
	size := uint32(loc.Size)
	if size == 0 {
		size = typeSize
	}
	if size == 0 {
		size = 8
	}
	if size > 16 {
		return locKey{}, false
	}
	k := locKey{size: size}
	put := func(v ...uint32) { k.n = copy(k.v[:], v) }
	if loc.Reg == site.FBReg {
		loc.Reg = btf.LocFBReg
	}
	offset := func(flags btf.LocFlags, off int64) {
		switch {
		case off < 0 && off >= math.MinInt32:
			k.flags = flags | btf.LocSigned
			put(loc.Reg, uint32(off))
		case off < 0:
			k.flags = flags | btf.LocSigned
			put(loc.Reg, uint32(off), uint32(uint64(off)>>32))
		case off <= math.MaxUint32:
			k.flags = flags
			put(loc.Reg, uint32(off))
		default:
			k.flags = flags
			put(loc.Reg, uint32(off), uint32(uint64(off)>>32))
		}
	}
	switch loc.Kind {
	case site.LocReg:
		k.flags = btf.LocReg
		put(loc.Reg)
	case site.LocRegPair:
		k.flags = btf.LocReg
		put(loc.Reg, loc.Reg2)
	case site.LocRegOffset:
		offset(btf.LocReg|btf.LocOffset, loc.Offset)
	case site.LocMem:
		if loc.Offset == 0 {
			k.flags = btf.LocReg | btf.LocDeref
			put(loc.Reg)
		} else {
			offset(btf.LocReg|btf.LocDeref|btf.LocOffset, loc.Offset)
		}
	case site.LocConst, site.LocAddr:
		if size > 8 {
			return locKey{}, false
		}
		v := loc.Value
		k.flags = btf.LocConst
		if loc.Kind == site.LocAddr {
			v -= addrBase
			k.flags |= btf.LocAddr
		}
		if bits := 8 * size; bits < 64 {
			if loc.Signed && v&(1<<(bits-1)) != 0 {
				v |= ^uint64(0) << bits
			} else {
				v &= 1<<bits - 1
			}
		}
		if loc.Signed && int64(v) < 0 {
			k.flags |= btf.LocSigned
		}
		if size <= 4 {
			put(uint32(v))
		} else {
			put(uint32(v), uint32(v>>32))
		}
	default:
		return locKey{}, false
	}
	return k, true
}

func cmpKey(a, b locKey) int {
	if c := cmp.Or(cmp.Compare(a.flags, b.flags), cmp.Compare(a.size, b.size), cmp.Compare(a.n, b.n)); c != 0 {
		return c
	}
	return slices.Compare(a.v[:a.n], b.v[:b.n])
}

// cmpIDs orders id lists by length, then id by id.
func cmpIDs(a, b []btf.TypeID) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return slices.Compare(a, b)
}
