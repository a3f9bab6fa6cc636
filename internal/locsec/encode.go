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
	"sync"
	"sync/atomic"

	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/btfindex"
	"github.com/btfinline/btfinline/internal/chunk"
	"github.com/btfinline/btfinline/internal/elfobj"
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
func ObjectBase(f *elf.File) uint64 { return objectBase(f, (*elf.Section).Data) }

// ObjectBaseOf is ObjectBase of an elfobj.File, whose symbols it reads in
// place where the file is mapped: a vmlinux's table and names are 8 MB, of
// which one symbol is wanted.
func ObjectBaseOf(f *elfobj.File) uint64 { return objectBase(f.File, f.Data) }

func objectBase(f *elf.File, data func(*elf.Section) ([]byte, error)) uint64 {
	if f.Type == elf.ET_REL {
		return 0
	}
	if v, ok := symbolValue(f, data, "_stext"); ok {
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
func symbolValue(f *elf.File, data func(*elf.Section) ([]byte, error), name string) (uint64, bool) {
	st := f.Section(".symtab")
	if st == nil || st.Link == 0 || int(st.Link) >= len(f.Sections) {
		return 0, false
	}
	syms, err := data(st)
	if err != nil {
		return 0, false
	}
	strs, err := data(f.Sections[st.Link])
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
	// The maps are sized to their final size, which growing would pass
	// through rehash after rehash: a vmlinux has 30,000 functions.
	e := &encoder{dst: dst, types: types, opts: opts,
		ownProto: make(map[string]btf.TypeID, len(b.funcs)), ownFunc: make(map[string]btf.TypeID, len(b.funcs))}
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
	shards := e.collect(b, infos)
	if err := b.checkOffsets(shards); err != nil {
		return e.st, err
	}
	keys, tuples := mergeShards(shards)
	paramID, err := e.addLocParams(keys)
	if err != nil {
		return e.st, err
	}
	protoID, err := e.addLocProtos(tuples, paramID)
	if err != nil {
		return e.st, err
	}
	return e.st, e.addLocSecs(b, shards, protoID)
}

// each runs f(0) to f(n-1) on up to Options.Workers goroutines: the
// phases after the types are converted split their work by site and by
// function, and put it together in an order that does not depend on the
// split.
func (e *encoder) each(n int, f func(i int)) {
	if w := min(e.opts.Workers, n); w > 1 {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range w {
			wg.Go(func() {
				for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
					f(i)
				}
			})
		}
		wg.Wait()
		return
	}
	for i := range n {
		f(i)
	}
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
	// Names are checked once per function; the check reads every
	// function's strings, scattered over the heap.
	badName := make([]error, len(b.funcs))
	e.each(len(b.funcs), func(i int) { badName[i] = checkNames(b.funcs[i].fn) })
	if p, ok := e.types.(Prefetcher); ok && e.opts.Workers > 1 {
		var offs []dwarf.Offset
		for _, id := range order {
			if badName[id] == nil {
				offs = AppendTypeOffs(offs, b.funcs[id].fn)
			}
		}
		p.Prefetch(offs, e.opts.Workers)
	}
	var funcs []uint32
	ptypes := make([]*protoTypes, len(b.funcs))
	for _, id := range order {
		var pt *protoTypes
		err := badName[id]
		if err == nil {
			pt, err = e.protoTypes(b.funcs[id].fn)
		}
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
// function, by function (nil: skipped). What each function needs is
// looked up in parallel (planFunc), then added in order.
func (e *encoder) addFuncs(b *Builder, funcs []uint32, ptypes []*protoTypes) ([]*funcInfo, error) {
	e.dst.Grow(2 * len(funcs))
	plans := make([]funcPlan, len(funcs))
	e.each(len(funcs), func(i int) {
		id := funcs[i]
		pt := ptypes[id]
		e.planFunc(&plans[i], b.funcs[id].fn, pt.ret, pt.params)
	})
	infos := make([]*funcInfo, len(b.funcs))
	for i, id := range funcs {
		fi, err := e.addFunc(b.funcs[id].fn, &plans[i])
		if err != nil {
			return nil, err
		}
		infos[id] = fi
	}
	return infos, nil
}

// shard is one part of the sites, collected on its own (third phase):
// its LOCSEC entries by section, and the distinct locations and location
// tuples its sites use, each by first use. Until addLocSecs, an entry's
// LocProto is the index of its tuple in protoParams.
type shard struct {
	chunks      [][]compactSite
	bySec       [][]btf.LocEntry
	paramKeys   []locKey // distinct locations
	protoParams [][]int  // distinct tuples: indexes into paramKeys, -1 unavailable
	unavailable int
	unencodable int
	bad         *compactSite // first site whose offset does not fit (lessSite)

	protoMap []int32 // tuple index -> index in mergeShards' tuples
}

// collect is the third phase: every encoded site's entry, with its
// parameters' locations interned, in one shard per worker.
func (e *encoder) collect(b *Builder, infos []*funcInfo) []*shard {
	total := b.count()
	n := max(1, min(e.opts.Workers, total))
	shards := make([]*shard, n)
	for i := range shards {
		shards[i] = &shard{chunks: b.span(i*total/n, (i+1)*total/n)}
	}
	e.each(n, func(i int) { e.collectShard(b, shards[i], infos) })
	for _, s := range shards {
		e.st.Unavailable += s.unavailable
		e.st.Unencodable += s.unencodable
	}
	return shards
}

func (e *encoder) collectShard(b *Builder, s *shard, infos []*funcInfo) {
	count := make([]int, len(b.secs))
	for _, c := range s.chunks {
		for i := range c {
			if infos[c[i].fn] != nil {
				count[c[i].sec]++
			}
		}
	}
	s.bySec = make([][]btf.LocEntry, len(b.secs))
	for i, n := range count {
		if n > 0 {
			s.bySec[i] = make([]btf.LocEntry, 0, n)
		}
	}
	protoIdx := map[string]int{}
	paramIdx := map[locKey]int{}
	var refs, kept []int // kept: a chunk the distinct tuples are cut from
	var keyBuf []byte
	for _, c := range s.chunks {
		for i := range c {
			cs := &c[i]
			fi := infos[cs.fn]
			if fi == nil {
				continue // skipped
			}
			if cs.off > math.MaxUint32 && (s.bad == nil || b.lessSite(cs, s.bad)) {
				s.bad = cs
			}
			params := b.tupleLocs[cs.tuple]
			refs = refs[:0] // index into paramKeys, -1 unavailable
			for j := 0; j < fi.nparam; j++ {
				refs = append(refs, -1)
				if j >= len(params) || params[j].kind == site.LocUnavailable {
					s.unavailable++
					continue
				}
				var tsize uint32
				if j < len(fi.psizes) {
					tsize = fi.psizes[j]
				}
				k, ok := canonKey(params[j].location(), tsize, e.opts.AddrBase)
				if !ok {
					s.unencodable++
					s.unavailable++
					continue
				}
				pi, seen := paramIdx[k]
				if !seen {
					pi = len(s.paramKeys)
					paramIdx[k] = pi
					s.paramKeys = append(s.paramKeys, k)
				}
				refs[j] = pi
			}
			keyBuf = appendRefs(keyBuf[:0], refs)
			pi, seen := protoIdx[string(keyBuf)]
			if !seen {
				pi = len(s.protoParams)
				protoIdx[string(keyBuf)] = pi
				s.protoParams = append(s.protoParams, chunk.Keep(&kept, refs, 1024))
			}
			s.bySec[cs.sec] = append(s.bySec[cs.sec], btf.LocEntry{Func: fi.id, Offset: uint32(cs.off), LocProto: btf.TypeID(pi)})
		}
	}
}

func appendRefs(b []byte, refs []int) []byte {
	for _, r := range refs {
		b = binary.LittleEndian.AppendUint32(b, uint32(int32(r)))
	}
	return b
}

// mergeShards puts the shards' locations and tuples together: the
// distinct locations, and the distinct tuples as indexes into them. The
// shards' tuples are rewritten in place, and each shard learns where its
// tuples went (protoMap). The order is the shards' order, which the
// later phases sort away.
func mergeShards(shards []*shard) (keys []locKey, tuples [][]int) {
	nk, nt := 0, 0
	for _, s := range shards {
		nk, nt = nk+len(s.paramKeys), nt+len(s.protoParams)
	}
	paramIdx := make(map[locKey]int, nk)
	protoIdx := make(map[string]int, nt)
	var keyBuf []byte
	for _, s := range shards {
		paramMap := make([]int, len(s.paramKeys))
		for i, k := range s.paramKeys {
			g, ok := paramIdx[k]
			if !ok {
				g = len(keys)
				paramIdx[k] = g
				keys = append(keys, k)
			}
			paramMap[i] = g
		}
		s.protoMap = make([]int32, len(s.protoParams))
		for i, refs := range s.protoParams {
			for j, r := range refs {
				if r >= 0 {
					refs[j] = paramMap[r]
				}
			}
			keyBuf = appendRefs(keyBuf[:0], refs)
			g, ok := protoIdx[string(keyBuf)]
			if !ok {
				g = len(tuples)
				protoIdx[string(keyBuf)] = g
				tuples = append(tuples, refs)
			}
			s.protoMap[i] = int32(g)
		}
	}
	return keys, tuples
}

// addLocParams adds the LOC_PARAMs in a canonical order, reusing the base
// chain's, and returns the id of each of keys.
func (e *encoder) addLocParams(keys []locKey) ([]btf.TypeID, error) {
	e.dst.Grow(len(keys))
	own := make(map[locKey]btf.TypeID, len(keys))
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
// ids, and returns the id of each tuple. Each tuple's ids, key and copy in
// the base chain are found in parallel.
func (e *encoder) addLocProtos(tuples [][]int, paramID []btf.TypeID) ([]btf.TypeID, error) {
	type plan struct {
		ids  []btf.TypeID
		key  string
		base btf.TypeID
	}
	plans := make([]plan, len(tuples))
	e.each(len(tuples), func(i int) {
		refs := tuples[i]
		ids := make([]btf.TypeID, len(refs))
		for j, r := range refs {
			if r >= 0 {
				ids[j] = paramID[r]
			}
		}
		key := btfindex.IDsKey(ids)
		base, _ := e.baseLProto(key)
		plans[i] = plan{ids, key, base}
	})
	order := make([]int, len(tuples))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmpIDs(plans[a].ids, plans[b].ids) })
	e.dst.Grow(len(tuples))
	own := make(map[string]btf.TypeID, len(tuples))
	out := make([]btf.TypeID, len(tuples))
	for _, i := range order {
		p := &plans[i]
		if id, ok := own[p.key]; ok {
			out[i] = id
			continue
		}
		if p.base != 0 {
			out[i] = p.base
			own[p.key] = p.base
			continue
		}
		id, err := e.dst.Add(btf.NewLocProto(p.ids))
		if err != nil {
			return nil, err
		}
		e.st.LocProtos++
		out[i] = id
		own[p.key] = id
	}
	return out, nil
}

// addLocSecs adds one LOCSEC per section, in section name order, its
// entries sorted and duplicates dropped: each shard's entries get their
// LOC_PROTO and are sorted in parallel, then merged section by section.
func (e *encoder) addLocSecs(b *Builder, shards []*shard, protoID []btf.TypeID) error {
	type part struct {
		s   *shard
		sec int
	}
	var parts []part
	for _, s := range shards {
		for sec, es := range s.bySec {
			if len(es) > 0 {
				parts = append(parts, part{s, sec})
			}
		}
	}
	e.each(len(parts), func(i int) {
		s := parts[i].s
		es := s.bySec[parts[i].sec]
		for j := range es {
			es[j].LocProto = protoID[s.protoMap[es[j].LocProto]]
		}
		sortEntries(es)
	})
	secs := make([]uint32, 0, len(b.secs))
	for i := range b.secs {
		secs = append(secs, uint32(i))
	}
	slices.SortFunc(secs, func(x, y uint32) int { return cmp.Compare(b.secs[x], b.secs[y]) })
	var lists [][]btf.LocEntry
	for _, si := range secs {
		lists = lists[:0]
		for _, s := range shards {
			if len(s.bySec[si]) > 0 {
				lists = append(lists, s.bySec[si])
			}
			s.bySec[si] = nil
		}
		if len(lists) == 0 {
			continue
		}
		out, dups := mergeEntries(lists)
		e.st.Duplicates += dups
		sec := b.secs[si]
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

// cmpEntry orders LOCSEC entries by function, offset and LOC_PROTO.
func cmpEntry(x, y btf.LocEntry) int {
	if x.Func != y.Func {
		return cmp.Compare(x.Func, y.Func)
	}
	if x.Offset != y.Offset {
		return cmp.Compare(x.Offset, y.Offset)
	}
	return cmp.Compare(x.LocProto, y.LocProto)
}

// mergeEntries merges sorted lists into one, dropping duplicates (and
// counting them). A single list is merged in place: the result never
// runs ahead of what is left to read.
func mergeEntries(lists [][]btf.LocEntry) (out []btf.LocEntry, dups int) {
	if len(lists) == 1 {
		out = lists[0][:0]
	} else {
		n := 0
		for _, l := range lists {
			n += len(l)
		}
		out = make([]btf.LocEntry, 0, n)
	}
	for {
		best := -1
		for i, l := range lists {
			if len(l) > 0 && (best < 0 || cmpEntry(l[0], lists[best][0]) < 0) {
				best = i
			}
		}
		if best < 0 {
			return out, dups
		}
		en := lists[best][0]
		lists[best] = lists[best][1:]
		if len(out) > 0 && out[len(out)-1] == en {
			dups++
			continue
		}
		out = append(out, en)
	}
}

// checkOffsets reports the first site (in section, offset and function
// order) whose offset does not fit a LOCSEC entry, among those encoded.
func (b *Builder) checkOffsets(shards []*shard) error {
	var bad *compactSite
	for _, s := range shards {
		if s.bad != nil && (bad == nil || b.lessSite(s.bad, bad)) {
			bad = s.bad
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

// AppendTypeOffs appends the DWARF offsets of f's return and parameter
// types: what Encode asks its TypeMapper for.
func AppendTypeOffs(offs []dwarf.Offset, f *site.Func) []dwarf.Offset {
	offs = append(offs, dwarf.Offset(f.RetTypeOff))
	for _, p := range f.Params {
		offs = append(offs, dwarf.Offset(p.TypeOff))
	}
	return offs
}

// protoTypes converts the types of f, whose names checkNames passed.
func (e *encoder) protoTypes(f *site.Func) (*protoTypes, error) {
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

// baseFuncs returns the FUNCs of the base chain whose name is at the
// canonical offset off (0: a name the chain lacks), ascending.
func (e *encoder) baseFuncs(off uint32) []btf.TypeID {
	if off == 0 {
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

// funcPlan is what addFunc needs of a function that reading alone gives:
// its keys, its parameters' sizes, and the FUNC or FUNC_PROTO of the base
// chain it can reuse. The base chain and the types Encode found in dst
// do not change while the plans are made, so they are made in parallel.
type funcPlan struct {
	names      []string
	nameOffs   []uint32 // of names in the chain as Encode found it; 0: not there
	fnameOff   uint32   // likewise of the function's name
	ret        btf.TypeID
	pkey, fkey string
	fi         funcInfo // all but id
	baseFunc   btf.TypeID
	baseProto  btf.TypeID
}

// planFunc fills in p, the plan of f.
func (e *encoder) planFunc(p *funcPlan, f *site.Func, ret btf.TypeID, ptypes []btf.TypeID) {
	names := make([]string, len(f.Params))
	for i, p := range f.Params {
		names[i] = p.Name
		if names[i] == "" {
			names[i] = "arg" + strconv.Itoa(i+1)
		}
	}
	// The prototype's key is the tail of the function's: one string.
	kb := make([]byte, 0, len(f.Name)+16+24*len(names))
	kb = append(append(kb, f.Name...), 0)
	kb = strconv.AppendUint(kb, uint64(ret), 10)
	for i := range names {
		kb = strconv.AppendUint(append(kb, '|'), uint64(ptypes[i]), 10)
		kb = append(append(kb, ':'), names[i]...)
	}
	if f.Variadic {
		kb = append(kb, "|0:"...)
	}
	fkey := string(kb)
	n := len(names)
	if f.Variadic {
		n++
	}
	*p = funcPlan{names: names, ret: ret, pkey: fkey[len(f.Name)+1:], fkey: fkey,
		fi: funcInfo{nparam: n, ptypes: ptypes, psizes: make([]uint32, len(ptypes))}}
	for i, t := range ptypes {
		p.fi.psizes[i] = e.typeSize(t)
	}
	// The prototype as the base chain would hold it: names by their
	// canonical offsets; a name the chain lacks matches nothing there
	// (nor does one added while Encode runs: no type of the chain as it
	// was uses it).
	p.fnameOff, _ = e.dst.FindString(f.Name)
	p.nameOffs = make([]uint32, len(names))
	content := protoContent{ret: ret, pairs: make([]uint32, 0, 2*n)}
	inBase := true
	for i := range names {
		off, ok := e.dst.FindString(names[i])
		inBase = inBase && ok
		p.nameOffs[i] = off
		content.pairs = append(content.pairs, uint32(ptypes[i]), off)
	}
	if !inBase {
		return
	}
	if f.Variadic {
		content.pairs = append(content.pairs, 0, 0)
	}
	// A FUNC of the base chain with this name and prototype: the function
	// also exists out of line (or another object inlined it already).
	for _, id := range e.baseFuncs(p.fnameOff) {
		t, err := e.dst.TypeByID(id)
		if err != nil {
			continue
		}
		pt, err := e.dst.TypeByID(btf.TypeID(t.SizeType))
		if err != nil || pt.Kind() != btf.KindFuncProto {
			continue
		}
		if content.matches(e.dst, pt) {
			p.baseFunc = id
			return
		}
	}
	p.baseProto, _ = e.baseProto(content)
}

// addFunc adds f's FUNC and FUNC_PROTO as its plan says, unless an
// earlier function of the same key added or found them.
func (e *encoder) addFunc(f *site.Func, p *funcPlan) (*funcInfo, error) {
	fi := p.fi
	if id, ok := e.ownFunc[p.fkey]; ok {
		fi.id = id
		return &fi, nil
	}
	if p.baseFunc != 0 {
		e.st.FuncsReused++
		e.ownFunc[p.fkey] = p.baseFunc
		fi.id = p.baseFunc
		return &fi, nil
	}
	proto, ok := e.ownProto[p.pkey]
	if !ok && p.baseProto != 0 {
		proto, ok = p.baseProto, true
	}
	if !ok {
		params := make([]btf.Param, 0, fi.nparam)
		for i := range p.names {
			params = append(params, btf.Param{NameOff: e.addString(p.names[i], p.nameOffs[i]), Type: fi.ptypes[i]})
		}
		if f.Variadic {
			params = append(params, btf.Param{})
		}
		var err error
		if proto, err = e.dst.Add(btf.NewFuncProto(p.ret, params)); err != nil {
			return nil, err
		}
		e.st.FuncProtos++
		e.ownProto[p.pkey] = proto
	}
	if f.Name == "" {
		return nil, fmt.Errorf("locsec: inlined function without a name")
	}
	id, err := e.dst.Add(btf.NewFunc(e.addString(f.Name, p.fnameOff), proto, 0))
	if err != nil {
		return nil, err
	}
	e.st.Funcs++
	e.ownFunc[p.fkey] = id
	fi.id = id
	return &fi, nil
}

// addString is dst.AddString(str), given the offset at which the chain
// held str when Encode started (0: nowhere): the chain's copy wins.
func (e *encoder) addString(str string, off uint32) uint32 {
	if off != 0 {
		return off
	}
	return e.dst.AddString(str)
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
