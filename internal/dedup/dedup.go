// Package dedup owns the conversion of DWARF types to BTF against a base
// chain: given the DWARF type of an inlined function's parameter or return
// value, it finds the equivalent type already present in the base BTF (the
// object's .BTF, built by pahole from the same DWARF, so nearly every type
// is there) and adds to the split BTF only what the base lacks.
//
// Equivalence follows libbpf's dedup rules, checked structurally rather
// than trusted by name: integers and floats by name and size; typedefs,
// pointers and qualifiers by name and the equivalence of what they refer
// to; arrays by element count and element; enums (ENUM or ENUM64, either
// signedness) by size and enumerators; function prototypes by return and
// parameter types; structs and unions by name, size, member names, bit
// offsets and bitfield sizes, and the member types, with a DWARF
// declaration matching the full type or a FWD of the same name. Named
// structs and unions reached through a pointer are matched by name only
// (what matters for a prototype is which struct is pointed to, and
// following every pointer would compare most of the kernel for every
// parameter); anonymous ones are compared in full. A visited set ends the
// recursion on cyclic type graphs.
//
// DIEs are read lazily with a dwarf.Reader, not through dwarf.Data.Type,
// whose eager conversion of whole type graphs would cost gigabytes on a
// vmlinux, each into a dwarftype.Entry: the attributes it reads, typed. A
// reader that is a TypeReader fills the Entry itself, without a
// dwarf.Entry and its boxed values. Results are cached per DWARF offset, and
// candidates are tried in id order, so the output is deterministic.
//
// It imports btf, internal/btfindex (the base chain's index, which it
// shares with locsec), internal/chunk, internal/dwarftype and
// debug/dwarf; package encode
// hands it readers of package dwarfsite's own decoder (SetReaders), as
// TypeReaders.
package dedup

import (
	"debug/dwarf"
	"fmt"
	"slices"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/btfindex"
	"github.com/btfinline/btfinline/internal/chunk"
	"github.com/btfinline/btfinline/internal/dwarftype"
)

// Error is a DWARF type that could not be converted.
type Error struct {
	Offset dwarf.Offset // of the DIE
	Msg    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("dedup: DWARF type at %#x: %s", uint64(e.Offset), e.Msg)
}

// Converter maps DWARF types of one object to BTF ids in the chain of dst.
// It is not safe for concurrent use; the Index of the base chain it reads
// may be shared.
type Converter struct {
	d *dwarf.Data
	r TypeReader
	// entry is what load reads an entry into, here so that it need not
	// escape to the heap for each through the interface.
	entry dwarftype.Entry
	dst   *btf.Spec
	// newReader makes the readers of c and of its probes (SetReaders).
	newReader func() Reader

	cache  map[dwarf.Offset]btf.TypeID
	busy   map[dwarf.Offset]bool // being converted
	failed map[dwarf.Offset]error
	dies   map[dwarf.Offset]*die
	// load's children: read into kidScratch, then kept in kids, from
	// which the DIEs' child slices are cut (one allocation for many).
	// The DIEs are cut from dieMem; trim makes both free again.
	kidScratch []child
	kids       chunk.Pool[child]
	dieMem     chunk.Pool[die]
	diesKept   int // DIEs in dieMem
	eqMemo     map[pair]bool
	pending    []btf.Type // ids first .. first+len-1, added by Commit
	first      btf.TypeID

	// visited is equiv's set of the pairs its comparison entered, reused
	// from call to call (equiv never runs inside another).
	visited map[pair]bool

	// layers are the tables of the base chain, root first, and last own:
	// those of dst's own types and of the pending ones.
	layers   []*btfindex.Layer
	own      *btfindex.Layer
	intName  uint32
	sizeName uint32
	index    btf.TypeID // array index type

	added       int
	unsupported int

	// probe: a Converter of Prefetch's, which finds and never adds (nor
	// adds strings): a type that would need a new one fails with
	// errNeedsNew, and nothing is cached for it or what contains it.
	probe bool
	// asked: the offsets TypeID converted, and whether each needed a new
	// type (Asked).
	asked  map[dwarf.Offset]bool
	voided map[dwarf.Offset]bool // probe: offsets mapped to void
}

// Reader is what the converter reads DIEs with: a *dwarf.Reader of its
// dwarf.Data, or a reader that gives the same entries (an entry need stay
// valid only until the next call). One that is a TypeReader too is read
// with NextType only.
type Reader interface {
	Seek(dwarf.Offset)
	Next() (*dwarf.Entry, error)
	SkipChildren()
}

// Attrs are the attributes the converter reads of a DIE (a Reader may
// leave the others out of its entries).
var Attrs = dwarftype.Attrs

// SetReaders makes c (and the probes of its Prefetch) read DIEs with
// readers from newReader instead of dwarf.Readers; each is used by one
// goroutine. Nothing converted changes.
func (c *Converter) SetReaders(newReader func() Reader) {
	c.newReader = newReader
	c.r = typed(newReader())
}

type pair struct {
	off dwarf.Offset
	id  btf.TypeID
}

// New returns a Converter for the DWARF d adding to dst (a split Spec whose
// base chain holds the object's BTF). The base chain is indexed for it;
// NewOn shares an Index among Converters.
func New(d *dwarf.Data, dst *btf.Spec) *Converter {
	var base *btfindex.Index
	if dst.Base() != nil {
		base = btfindex.Chain(dst.Base())
	}
	return NewOn(d, dst, base)
}

// NewOn is New with base, the Index of dst.Base() (nil when dst has no
// base), built once and shared. d may be nil when SetReaders gives the
// readers before the first conversion.
func NewOn(d *dwarf.Data, dst *btf.Spec, base *btfindex.Index) *Converter {
	if (base == nil) != (dst.Base() == nil) || base != nil && base.Spec() != dst.Base() {
		panic("dedup: NewOn: the Index is not of the Spec's base")
	}
	c := &Converter{d: d, dst: dst,
		cache: map[dwarf.Offset]btf.TypeID{}, busy: map[dwarf.Offset]bool{}, failed: map[dwarf.Offset]error{}, dies: map[dwarf.Offset]*die{}, eqMemo: map[pair]bool{},
		first: dst.NextID(), kids: chunk.Pool[child]{Min: kidChunkLen}, dieMem: chunk.Pool[die]{Min: dieChunkLen}}
	if d != nil {
		c.r = typed(d.Reader())
	}
	c.layers = base.Layers()
	c.own = btfindex.NewLayer(dst)
	c.layers = append(c.layers, c.own)
	c.intName, _ = dst.FindString("int")
	c.sizeName, _ = dst.FindString("__ARRAY_SIZE_TYPE__")
	for _, l := range c.layers[:len(c.layers)-1] {
		if l.ArraySize() != 0 {
			c.index = l.ArraySize()
		} else if c.index == 0 && l.FirstInt() != 0 {
			c.index = l.FirstInt()
		}
	}
	id := dst.FirstID()
	for i := range dst.Types() {
		c.register(id+btf.TypeID(i), &dst.Types()[i])
	}
	return c
}

// Added returns the number of types the Converter added (or will add on
// Commit) because the base chain has no equivalent.
func (c *Converter) Added() int { return c.added }

// Commit adds the new types to dst, in the ids TypeID handed out.
func (c *Converter) Commit() error {
	for i, t := range c.pending {
		want := c.first + btf.TypeID(i)
		id, err := c.dst.Add(t)
		if err != nil {
			return err
		}
		if id != want {
			return fmt.Errorf("dedup: type added as [%d], expected [%d]: something else added types to the Spec", id, want)
		}
	}
	c.first += btf.TypeID(len(c.pending))
	c.pending = c.pending[:0]
	return nil
}

// register adds one of dst's own types, or a pending one, to the own
// tables.
func (c *Converter) register(id btf.TypeID, t *btf.Type) {
	c.own.Add(id, t, c.dst)
	if t.Kind() == btf.KindInt {
		n := c.dst.CanonicalString(t.NameOff)
		if n != 0 && (n == c.intName && c.index == 0 || n == c.sizeName) {
			c.index = id
		}
	}
}

// lookup returns the ids under key (of the named map, or the other) that
// ok accepts, layer by layer, in the order they were registered.
//
// The layers' methods are called directly, not through a method value,
// and lookupFirst keeps no slice: so the callbacks stay on the stack,
// where they were three allocations a lookup, and a converter of a
// vmlinux makes hundreds of thousands.
func (c *Converter) lookup(named bool, key uint64, ok func(*btf.Type) bool) []btf.TypeID {
	var out []btf.TypeID
	f := func(id btf.TypeID) bool {
		if t, err := c.typeByID(id); err == nil && ok(t) {
			out = append(out, id)
		}
		return true
	}
	for _, l := range c.layers {
		if named {
			l.Named(key, f)
		} else {
			l.Other(key, f)
		}
	}
	return out
}

// lookupFirst is the first id of the other tables under key that ok
// accepts.
func (c *Converter) lookupFirst(key uint64, ok func(*btf.Type) bool) (btf.TypeID, bool) {
	var found btf.TypeID
	f := func(id btf.TypeID) bool {
		if t, err := c.typeByID(id); err == nil && ok(t) {
			found = id
			return false
		}
		return true
	}
	for _, l := range c.layers {
		if l.Other(key, f); found != 0 {
			return found, true
		}
	}
	return 0, false
}

// named returns the ids of the types of kind k named name, ascending.
func (c *Converter) named(k btf.Kind, name string) []btf.TypeID {
	off, ok := c.dst.FindString(name)
	if !ok {
		return nil
	}
	return c.lookup(true, btfindex.NamedKey(k, off), func(t *btf.Type) bool {
		tk := t.Kind()
		if tk == btf.KindEnum64 {
			tk = btf.KindEnum
		}
		return tk == k && c.dst.CanonicalString(t.NameOff) == off
	})
}

// anonymous returns the ids of the anonymous structs, unions or enums of
// kind k with this size, member count and first member name, ascending.
func (c *Converter) anonymous(k btf.Kind, size uint32, vlen int, first string) []btf.TypeID {
	off, ok := c.dst.FindString(first)
	if !ok {
		return nil
	}
	return c.lookup(false, btfindex.AnonKey(k, size, vlen, off), func(t *btf.Type) bool {
		tk := t.Kind()
		if tk == btf.KindEnum64 {
			tk = btf.KindEnum
		}
		return tk == k && c.dst.CanonicalString(t.NameOff) == 0 && t.SizeType == size && t.Vlen() == vlen && btfindex.FirstName(c.dst, t) == off
	})
}

// ref finds the first PTR, CONST, VOLATILE, RESTRICT or TYPEDEF to target
// with this name ("" for all but TYPEDEF).
func (c *Converter) ref(k btf.Kind, target btf.TypeID, name string) (btf.TypeID, bool) {
	off, ok := c.dst.FindString(name)
	if !ok {
		return 0, false
	}
	return c.lookupFirst(btfindex.RefKey(k, target, off), func(t *btf.Type) bool {
		return t.Kind() == k && btf.TypeID(t.SizeType) == target && c.dst.CanonicalString(t.NameOff) == off
	})
}

func (c *Converter) array(elem btf.TypeID, n uint32) (btf.TypeID, bool) {
	return c.lookupFirst(btfindex.ArrayKey(elem, n), func(t *btf.Type) bool {
		if t.Kind() != btf.KindArray {
			return false
		}
		e, _, tn := t.Array()
		return e == elem && tn == n
	})
}

// proto finds the first FUNC_PROTO of t's return and parameter types,
// with named or unnamed parameters.
func (c *Converter) proto(t *btf.Type, named bool) (btf.TypeID, bool) {
	sh := btfindex.ShapeOf(t)
	sh.Named = named
	return c.lookupFirst(sh.Key(), func(o *btf.Type) bool {
		return o.Kind() == btf.KindFuncProto && btfindex.ShapeOf(o).Equal(sh)
	})
}

// typeByID sees pending types as well as the chain's.
func (c *Converter) typeByID(id btf.TypeID) (*btf.Type, error) {
	if id >= c.first && int(id-c.first) < len(c.pending) {
		return &c.pending[id-c.first], nil
	}
	return c.dst.TypeByID(id)
}

// reserve hands out the id of a new type whose record is filled in later
// (set), so that cycles through it resolve to it.
func (c *Converter) reserve() btf.TypeID {
	c.pending = append(c.pending, btf.Type{})
	c.added++
	return c.first + btf.TypeID(len(c.pending)-1)
}

func (c *Converter) set(id btf.TypeID, t btf.Type) {
	c.pending[id-c.first] = t
	c.register(id, &c.pending[id-c.first])
}

func (c *Converter) newType(t btf.Type) btf.TypeID {
	id := c.reserve()
	c.set(id, t)
	return id
}

// TypeID returns the id of the BTF type equivalent to the DWARF type at
// off, reserving new types for what the base chain lacks. Offset 0 is void.
func (c *Converter) TypeID(off dwarf.Offset) (btf.TypeID, error) {
	c.trim()
	id, err := c.convert(off, 0)
	if err == nil && off != 0 {
		if c.asked == nil {
			c.asked = map[dwarf.Offset]bool{}
		}
		c.asked[off] = id >= c.first
	}
	return id, err
}

// Asked returns how many distinct DWARF types TypeID converted, and how
// many of them the base chain has no equivalent of. Unlike Resolved, it
// counts what was asked for only: what Prefetch and the probes convert
// ahead depends on how the work was split, what is asked does not.
func (c *Converter) Asked() (types, added int) {
	for _, isNew := range c.asked {
		if isNew {
			added++
		}
	}
	return len(c.asked), added
}

const maxDepth = 256

func (c *Converter) convert(off dwarf.Offset, depth int) (btf.TypeID, error) {
	if off == 0 {
		return 0, nil
	}
	if id, ok := c.cache[off]; ok {
		return id, nil
	}
	if err, ok := c.failed[off]; ok {
		return 0, err
	}
	if depth > maxDepth {
		return 0, &Error{off, "type nesting too deep"}
	}
	// Only structs and unions may be reached again while being
	// converted (they reserve their id first); anything else coming
	// back is a cycle that no C type has.
	if c.busy[off] {
		// A pointer reached again through its own pointee: gcc 14 gives
		// struct sdw_bus one pointer DIE for its users and for the
		// parameter of its member int (*compute_params)(struct sdw_bus *).
		// The struct has its id reserved by now: point at it.
		if d, err := c.die(off); err == nil && d.tag == dwarf.TagPointerType {
			if tgt, ok := c.cache[d.typ]; ok {
				if c.probe {
					return 0, errNeedsNew
				}
				return c.newType(btf.NewPtr(tgt)), nil
			}
		}
		return 0, &Error{off, "type refers to itself"}
	}
	c.busy[off] = true
	defer delete(c.busy, off)
	d, err := c.die(off)
	if err == nil {
		var id btf.TypeID
		if id, err = c.convertDIE(d, depth); err == nil {
			c.cache[off] = id
			return id, nil
		}
	}
	c.failed[off] = err
	return 0, err
}

func (c *Converter) convertDIE(d *die, depth int) (btf.TypeID, error) {
	switch d.tag {
	case dwarf.TagBaseType:
		k := btf.KindInt
		if d.enc == encFloat {
			k = btf.KindFloat
		}
		// pahole without the "float" feature writes floats as INTs
		// without encoding: both stand for the DWARF float.
		cands := c.named(k, d.name)
		if k == btf.KindFloat {
			cands = append(slices.Clone(cands), c.named(btf.KindInt, d.name)...)
		}
		for _, id := range cands {
			if t, err := c.typeByID(id); err == nil && int64(t.SizeType) == d.size {
				return id, nil
			}
		}
		if d.size <= 0 || d.size > 16 {
			return 0, &Error{d.off, fmt.Sprintf("base type %q has size %d", d.name, d.size)}
		}
		if c.probe {
			return 0, errNeedsNew
		}
		if k == btf.KindFloat {
			return c.newType(btf.NewFloat(c.dst.AddString(d.name), uint32(d.size))), nil
		}
		var enc btf.IntEncoding
		switch d.enc {
		case encSigned:
			enc = btf.IntSigned
		case encSignedChar:
			enc = btf.IntSigned // like pahole; the kernel allows one encoding bit
		case encBoolean:
			enc = btf.IntBool
		}
		return c.newType(btf.NewInt(c.dst.AddString(d.name), uint32(d.size), enc, 0, uint8(8*d.size))), nil

	case dwarf.TagUnspecifiedType:
		return 0, nil

	case tagAtomic:
		return c.convert(d.typ, depth+1)

	case dwarf.TagPointerType, dwarf.TagConstType, dwarf.TagVolatileType, dwarf.TagRestrictType, dwarf.TagTypedef:
		k := refKind(d.tag)
		tgt, err := c.convert(d.typ, depth+1)
		if err != nil {
			return 0, err
		}
		name := ""
		if k == btf.KindTypedef {
			name = d.name
		}
		if id, ok := c.ref(k, tgt, name); ok {
			return id, nil
		}
		if k == btf.KindTypedef {
			// A typedef of another copy of an equivalent type.
			for _, id := range c.named(btf.KindTypedef, name) {
				if c.equiv(d.off, id) {
					return id, nil
				}
			}
		}
		if c.probe {
			return 0, errNeedsNew
		}
		var t btf.Type
		switch k {
		case btf.KindPtr:
			t = btf.NewPtr(tgt)
		case btf.KindConst:
			t = btf.NewConst(tgt)
		case btf.KindVolatile:
			t = btf.NewVolatile(tgt)
		case btf.KindRestrict:
			t = btf.NewRestrict(tgt)
		default:
			t = btf.NewTypedef(c.dst.AddString(name), tgt)
		}
		return c.newType(t), nil

	case dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagClassType:
		return c.convertStruct(d, depth)

	case dwarf.TagEnumerationType:
		return c.convertEnum(d)

	case dwarf.TagArrayType:
		elem, err := c.convert(d.typ, depth+1)
		if err != nil {
			return 0, err
		}
		dims := d.dims()
		if n := product(dims); len(dims) > 1 && n <= 1<<32-1 {
			if id, ok := c.array(elem, uint32(n)); ok {
				return id, nil // pahole's flattened form
			}
		}
		for i := len(dims) - 1; i >= 0; i-- {
			if id, ok := c.array(elem, dims[i]); ok {
				elem = id
				continue
			}
			if c.probe {
				return 0, errNeedsNew
			}
			elem = c.newType(btf.NewArray(elem, c.indexType(), dims[i]))
		}
		return elem, nil

	case dwarf.TagSubroutineType:
		ret, err := c.convert(d.typ, depth+1)
		if err != nil {
			return 0, err
		}
		var params []btf.Param
		for _, ch := range d.children {
			switch ch.tag {
			case dwarf.TagFormalParameter:
				pt, err := c.convert(ch.typ, depth+1)
				if err != nil {
					return 0, err
				}
				params = append(params, btf.Param{Type: pt})
			case dwarf.TagUnspecifiedParameters:
				params = append(params, btf.Param{})
			}
		}
		t := btf.NewFuncProto(ret, params)
		if id, ok := c.proto(&t, false); ok {
			return id, nil
		}
		if id, ok := c.proto(&t, true); ok {
			return id, nil
		}
		if c.probe {
			return 0, errNeedsNew
		}
		return c.newType(t), nil
	}
	// A type BTF cannot describe (C++ or Rust constructs, GNU
	// extensions): void, as pahole does for types it does not know.
	c.unsupported++
	if c.probe {
		c.voided[d.off] = true
	}
	return 0, nil
}

// Unsupported returns the number of DWARF types that BTF cannot describe
// and that were mapped to void.
func (c *Converter) Unsupported() int { return c.unsupported }

func refKind(tag dwarf.Tag) btf.Kind {
	switch tag {
	case dwarf.TagPointerType:
		return btf.KindPtr
	case dwarf.TagConstType:
		return btf.KindConst
	case dwarf.TagVolatileType:
		return btf.KindVolatile
	case dwarf.TagRestrictType:
		return btf.KindRestrict
	}
	return btf.KindTypedef
}

func (c *Converter) indexType() btf.TypeID {
	if c.index == 0 {
		c.index = c.newType(btf.NewInt(c.dst.AddString("__ARRAY_SIZE_TYPE__"), 4, 0, 0, 32))
	}
	return c.index
}

func structKind(tag dwarf.Tag) btf.Kind {
	if tag == dwarf.TagUnionType {
		return btf.KindUnion
	}
	return btf.KindStruct
}

func (c *Converter) convertStruct(d *die, depth int) (btf.TypeID, error) {
	k := structKind(d.tag)
	union := k == btf.KindUnion
	if d.decl {
		for _, id := range c.named(k, d.name) {
			return id, nil
		}
		for _, id := range c.named(btf.KindFwd, d.name) {
			if t, err := c.typeByID(id); err == nil && t.KindFlag() == union {
				return id, nil
			}
		}
		if c.probe {
			return 0, errNeedsNew
		}
		return c.newType(btf.NewFwd(c.dst.AddString(d.name), union)), nil
	}
	var cands []btf.TypeID
	if d.name != "" {
		cands = c.named(k, d.name)
	} else {
		cands = c.anonymous(k, uint32(d.size), len(d.members()), d.firstMemberName())
	}
	for _, id := range cands {
		if c.equiv(d.off, id) {
			return id, nil
		}
	}
	if c.probe {
		return 0, errNeedsNew
	}
	// New: reserve first, members may point back here.
	id := c.reserve()
	c.cache[d.off] = id
	// A member that cannot be converted fails the struct, but its id is
	// handed out and may be referred to already (a cycle): it becomes an
	// empty struct of the same kind, a valid type nothing else takes for
	// this one (equiv compares members), so that the rest still commits.
	abandon := func(err error) (btf.TypeID, error) {
		size := uint32(0)
		if d.size > 0 && d.size <= 1<<32-1 {
			size = uint32(d.size)
		}
		c.set(id, btf.NewStruct(c.dst.AddString(d.name), size, nil, union))
		delete(c.cache, d.off)
		return 0, err
	}
	var ms []btf.Member
	for _, m := range d.members() {
		mt, err := c.convert(m.typ, depth+1)
		if err != nil {
			return abandon(err)
		}
		off := uint32(m.bitOff)
		if m.bitSize != 0 {
			off = uint32(m.bitSize)<<24 | uint32(m.bitOff)&0xffffff
		}
		ms = append(ms, btf.Member{NameOff: c.dst.AddString(m.name), Type: mt, Offset: off})
	}
	if d.size < 0 || d.size > 1<<32-1 {
		return abandon(&Error{d.off, "struct without a valid size"})
	}
	t := btf.NewStruct(c.dst.AddString(d.name), uint32(d.size), ms, union)
	c.set(id, t)
	return id, nil
}

func (c *Converter) convertEnum(d *die) (btf.TypeID, error) {
	var cands []btf.TypeID
	if d.name != "" {
		cands = c.named(btf.KindEnum, d.name)
	} else {
		cands = c.anonymous(btf.KindEnum, uint32(d.size), len(d.enumerators()), d.firstEnumName())
	}
	for _, id := range cands {
		if c.equiv(d.off, id) {
			return id, nil
		}
	}
	if c.probe {
		return 0, errNeedsNew
	}
	signed := false
	if d.typ != 0 {
		if u, err := c.die(d.typ); err == nil {
			for u.tag == dwarf.TagTypedef || u.tag == dwarf.TagConstType {
				if u, err = c.die(u.typ); err != nil || u == nil {
					break
				}
			}
			signed = u != nil && (u.enc == encSigned || u.enc == encSignedChar)
		}
	}
	size := d.size
	if size <= 0 {
		size = 4
	}
	var vals []btf.EnumValue
	for _, e := range d.enumerators() {
		vals = append(vals, btf.EnumValue{NameOff: c.dst.AddString(e.name), Value: e.value})
	}
	return c.newType(btf.NewEnum(c.dst.AddString(d.name), uint32(size), vals, signed)), nil
}

// Resolved returns the number of distinct DWARF types converted so far.
func (c *Converter) Resolved() int { return len(c.cache) }
