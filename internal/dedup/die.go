package dedup

import (
	"debug/dwarf"
	"fmt"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/dwarftype"
)

const tagAtomic dwarf.Tag = 0x47 // DW_TAG_atomic_type

// DW_ATE_* base type encodings.
const (
	encBoolean      = 0x2
	encFloat        = 0x4
	encSigned       = 0x5
	encSignedChar   = 0x6
	encUnsigned     = 0x7
	encUnsignedChar = 0x8
)

// die is the part of a type DIE (and its children) that conversion and
// comparison need.
type die struct {
	off      dwarf.Offset
	tag      dwarf.Tag
	name     string
	size     int64 // DW_AT_byte_size, -1 when absent
	typ      dwarf.Offset
	decl     bool
	enc      int64
	kids     bool // children read
	children []child
}

type child struct {
	tag     dwarf.Tag
	name    string
	typ     dwarf.Offset
	bitOff  int64 // members: from the start of the struct
	bitSize int64 // members: bitfield width, 0 for none
	value   int64 // enumerators
	count   int64 // subranges: -1 unknown (flexible)
}

// maxDIECache bounds the DIE cache; beyond it the cache starts over.
const maxDIECache = 1 << 14

// kidChunkLen is how many children one allocation holds (64 KiB), and
// dieChunkLen how many DIEs.
const (
	kidChunkLen = 1024
	dieChunkLen = 256
)

func (c *Converter) die(off dwarf.Offset) (*die, error) { return c.load(off, true) }

// dieHead reads a DIE without its children: what a pointer's target
// needs to be matched by name.
func (c *Converter) dieHead(off dwarf.Offset) (*die, error) { return c.load(off, false) }

func (c *Converter) load(off dwarf.Offset, kids bool) (*die, error) {
	if d, ok := c.dies[off]; ok && (d.kids || !kids) {
		return d, nil
	}
	c.r.Seek(off)
	t := &c.entry
	ok, err := c.r.NextType(t)
	if err != nil {
		return nil, &Error{off, err.Error()}
	}
	if !ok || t.Offset != off {
		return nil, &Error{off, "no DIE at this offset"}
	}
	d := c.newDIE()
	*d = die{off: off, tag: t.Tag, name: t.Name, size: -1, typ: t.Type, decl: t.Declaration, enc: t.Encoding.Val}
	if t.ByteSize.OK {
		d.size = t.ByteSize.Val
	}
	d.kids = kids || !t.Children
	if t.Children && kids {
		kidsRead := c.kidScratch[:0]
		for {
			ok, err := c.r.NextType(t)
			if err != nil {
				return nil, &Error{off, fmt.Sprintf("children: %v", err)}
			}
			if !ok || t.Tag == 0 {
				break
			}
			ch := child{tag: t.Tag, name: t.Name, typ: t.Type, count: -1}
			switch t.Tag {
			case dwarf.TagMember:
				ch.bitOff, ch.bitSize = memberBits(t)
			case dwarf.TagEnumerator:
				ch.value = t.ConstValue.Val
			case dwarf.TagSubrangeType:
				if t.Count.OK {
					ch.count = t.Count.Val
				} else if t.UpperBound.OK {
					ch.count = t.UpperBound.Val + 1
					if t.LowerBound.OK {
						ch.count -= t.LowerBound.Val
					}
				}
			}
			kidsRead = append(kidsRead, ch)
			if t.Children {
				c.r.SkipChildren()
			}
		}
		d.children = c.kids.Keep(kidsRead)
		c.kidScratch = kidsRead[:0]
	}
	if len(c.dies) >= maxDIECache {
		// Within one conversion: its DIEs may be in use, so their
		// memory stays taken until trim.
		clear(c.dies)
	}
	c.dies[off] = d
	return d, nil
}

// newDIE returns room for a die, cut from the pool trim frees: a
// vmlinux's types are a million DIEs, each read once per converter.
func (c *Converter) newDIE() *die {
	c.diesKept++
	return c.dieMem.Add(die{})
}

// trim starts the DIE cache over when it is full, and the comparison
// memo, between two conversions: nothing refers to a DIE then, so their
// memory serves the next ones instead of becoming garbage (a vmlinux's
// converters read a million DIEs, of a unit or two at a time), and both
// hold only what would be read or found again the same.
func (c *Converter) trim() {
	if c.diesKept >= maxDIECache {
		clear(c.dies)
		c.dieMem.Reset()
		c.kids.Reset()
		c.diesKept = 0
	}
	if len(c.eqMemo) >= maxEqMemo {
		clear(c.eqMemo)
	}
}

// maxEqMemo bounds the comparison memo between conversions.
const maxEqMemo = 1 << 16

// memberBits returns a member's bit offset from the start of its struct and
// its bitfield width, from DW_AT_data_bit_offset (DWARF 4+) or the older
// DW_AT_data_member_location + DW_AT_bit_offset (little-endian numbering).
func memberBits(t *dwarftype.Entry) (off, size int64) {
	size = t.BitSize.Val
	if t.DataBitOffset.OK {
		return t.DataBitOffset.Val, size
	}
	off = 8 * t.DataMemberLoc.Val
	if t.BitOffset.OK && size != 0 {
		off += 8*t.ByteSize.Val - t.BitOffset.Val - size
	}
	return off, size
}

// members and enumerators are the children of one tag, not to be
// changed: the children themselves when all are of it (a struct without
// nested types, every enum), which spares comparison a copy each time.
func (d *die) members() []child { return d.childrenOf(dwarf.TagMember) }

func (d *die) enumerators() []child { return d.childrenOf(dwarf.TagEnumerator) }

func (d *die) childrenOf(tag dwarf.Tag) []child {
	n := 0
	for i := range d.children {
		if d.children[i].tag == tag {
			n++
		}
	}
	if n == len(d.children) {
		return d.children
	}
	out := make([]child, 0, n)
	for _, ch := range d.children {
		if ch.tag == tag {
			out = append(out, ch)
		}
	}
	return out
}

func (d *die) firstMemberName() string {
	if m := d.members(); len(m) > 0 {
		return m[0].name
	}
	return ""
}

func (d *die) firstEnumName() string {
	if m := d.enumerators(); len(m) > 0 {
		return m[0].name
	}
	return ""
}

// dims returns an array's dimensions, outermost first; an unknown bound
// (flexible array) is 0.
func (d *die) dims() []uint32 {
	var out []uint32
	for _, ch := range d.children {
		if ch.tag == dwarf.TagSubrangeType || ch.tag == dwarf.TagEnumerationType {
			n := ch.count
			if n < 0 || n > 1<<32-1 {
				n = 0
			}
			out = append(out, uint32(n))
		}
	}
	if len(out) == 0 {
		out = []uint32{0}
	}
	return out
}

// equiv reports whether the DWARF type at off and BTF type id describe the
// same C type. Top-level results are memoized; within one comparison,
// pairs under comparison are assumed equal, which ends cycles.
func (c *Converter) equiv(off dwarf.Offset, id btf.TypeID) bool {
	p := pair{off, id}
	if r, ok := c.eqMemo[p]; ok {
		return r
	}
	if c.visited == nil || len(c.visited) > maxVisited {
		c.visited = map[pair]bool{}
	} else {
		clear(c.visited)
	}
	r := c.eq(off, id, c.visited, 0)
	c.eqMemo[p] = r
	return r
}

// maxVisited bounds the set equiv keeps for the next call: clearing a map
// costs its capacity, and a comparison that entered more pairs is rare.
const maxVisited = 4096

// skipTags follows TYPE_TAGs, which have no DWARF counterpart here.
func (c *Converter) skipTags(id btf.TypeID) (btf.TypeID, *btf.Type) {
	for range maxDepth {
		if id == 0 {
			return 0, nil
		}
		t, err := c.typeByID(id)
		if err != nil {
			return id, nil
		}
		if t.Kind() != btf.KindTypeTag {
			return id, t
		}
		id = btf.TypeID(t.SizeType)
	}
	return id, nil
}

func (c *Converter) eq(off dwarf.Offset, id btf.TypeID, visited map[pair]bool, depth int) bool {
	if depth > maxDepth {
		return false
	}
	id, t := c.skipTags(id)
	if off == 0 {
		return id == 0
	}
	d, err := c.die(off)
	if err != nil {
		return false
	}
	if d.tag == tagAtomic {
		return c.eq(d.typ, id, visited, depth+1)
	}
	if d.tag == dwarf.TagUnspecifiedType {
		return id == 0
	}
	if id == 0 || t == nil {
		return false
	}
	k := t.Kind()
	// A base type is a leaf and a pointer's target is compared on its
	// own: neither closes a cycle, and neither is a pair equiv memoizes,
	// so both pass the memo and the visited set, whose lookups would be
	// most of what they cost (a struct's members are mostly these).
	switch d.tag {
	case dwarf.TagBaseType:
		want := btf.KindInt
		if d.enc == encFloat {
			want = btf.KindFloat
		}
		return (k == want || want == btf.KindFloat && k == btf.KindInt) && c.dst.StringIs(t.NameOff, d.name) && int64(t.SizeType) == d.size
	case dwarf.TagPointerType:
		return k == btf.KindPtr && c.eqPointee(d.typ, btf.TypeID(t.SizeType), visited, depth+1)
	}
	if r, ok := c.eqMemo[pair{off, id}]; ok {
		return r
	}
	p := pair{off, id}
	if visited[p] {
		return true
	}
	visited[p] = true
	switch d.tag {
	case dwarf.TagConstType, dwarf.TagVolatileType, dwarf.TagRestrictType:
		return k == refKind(d.tag) && c.eq(d.typ, btf.TypeID(t.SizeType), visited, depth+1)
	case dwarf.TagTypedef:
		return k == btf.KindTypedef && c.dst.StringIs(t.NameOff, d.name) && c.eq(d.typ, btf.TypeID(t.SizeType), visited, depth+1)
	case dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagClassType:
		sk := structKind(d.tag)
		if !c.dst.StringIs(t.NameOff, d.name) {
			return false
		}
		if k == btf.KindFwd {
			return d.name != "" && t.KindFlag() == (sk == btf.KindUnion)
		}
		if k != sk {
			return false
		}
		if d.decl {
			return d.name != ""
		}
		if int64(t.SizeType) != d.size {
			return false
		}
		ms := d.members()
		if nb := t.NumMembers(); len(ms) != nb || nb != t.Vlen() {
			return false
		}
		for i, m := range ms {
			bm := t.Member(i)
			bo, bs := t.MemberBitOffset(bm)
			if !c.dst.StringIs(bm.NameOff, m.name) || int64(bo) != m.bitOff || int64(bs) != m.bitSize {
				return false
			}
		}
		for i, m := range ms {
			if !c.eqPointee0(m.typ, t.Member(i).Type, visited, depth+1, false) {
				return false
			}
		}
		return true
	case dwarf.TagEnumerationType:
		if (k != btf.KindEnum && k != btf.KindEnum64) || !c.dst.StringIs(t.NameOff, d.name) {
			return false
		}
		es := d.enumerators()
		if d.decl || len(es) == 0 {
			// Declared, not defined (gcc 14 writes linux/irq.h's enum
			// irqchip_irq_state so into the units that only name it):
			// libbpf's "enum fwd", which matches the enum of that name
			// whatever its values, of its own size where it has one.
			return d.name != "" && (d.size < 0 || int64(t.SizeType) == d.size)
		}
		if t.Vlen() == 0 {
			return false
		}
		if int64(t.SizeType) != d.size {
			return false
		}
		vs := t.EnumValues()
		if len(vs) != len(es) {
			return false
		}
		for i, e := range es {
			if !c.dst.StringIs(vs[i].NameOff, e.name) || uint64(vs[i].Value)&mask(d.size) != uint64(e.value)&mask(d.size) {
				return false
			}
		}
		return true
	case dwarf.TagArrayType:
		dims := d.dims()
		if len(dims) > 1 && k == btf.KindArray {
			// pahole writes a multi-dimensional array as one ARRAY of
			// all the elements.
			if elem, _, bn := t.Array(); uint64(bn) == product(dims) && c.eq(d.typ, elem, visited, depth+1) {
				return true
			}
		}
		cur, ct := id, t
		for _, n := range dims {
			if ct == nil || ct.Kind() != btf.KindArray {
				return false
			}
			elem, _, bn := ct.Array()
			if bn != n {
				return false
			}
			cur, ct = c.skipTags(elem)
		}
		return c.eq(d.typ, cur, visited, depth+1)
	case dwarf.TagSubroutineType:
		if k != btf.KindFuncProto || !c.eq(d.typ, btf.TypeID(t.SizeType), visited, depth+1) {
			return false
		}
		ps := t.Params()
		i := 0
		for _, ch := range d.children {
			switch ch.tag {
			case dwarf.TagFormalParameter:
				if i >= len(ps) || !c.eq(ch.typ, ps[i].Type, visited, depth+1) {
					return false
				}
				i++
			case dwarf.TagUnspecifiedParameters:
				if i >= len(ps) || ps[i].Type != 0 {
					return false
				}
				i++
			}
		}
		return i == len(ps)
	}
	return false
}

func mask(size int64) uint64 {
	if size <= 0 || size >= 8 {
		return ^uint64(0)
	}
	return 1<<(8*size) - 1
}

// eqPointee compares what a pointer points to: a named struct or union
// (through qualifiers) matches by name, kind and FWD-ness only.
func (c *Converter) eqPointee(off dwarf.Offset, id btf.TypeID, visited map[pair]bool, depth int) bool {
	return c.eqPointee0(off, id, visited, depth, true)
}

func (c *Converter) eqPointee0(off dwarf.Offset, id btf.TypeID, visited map[pair]bool, depth int, shallow bool) bool {
	if !shallow || off == 0 {
		return c.eq(off, id, visited, depth)
	}
	d, err := c.dieHead(off)
	if err != nil {
		return false
	}
	id, t := c.skipTags(id)
	if t == nil {
		return false
	}
	switch d.tag {
	case dwarf.TagConstType, dwarf.TagVolatileType, dwarf.TagRestrictType:
		if t.Kind() != refKind(d.tag) {
			return false
		}
		return c.eqPointee0(d.typ, btf.TypeID(t.SizeType), visited, depth+1, true)
	case dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagClassType:
		if d.name == "" {
			break
		}
		k := t.Kind()
		union := d.tag == dwarf.TagUnionType
		if k == btf.KindFwd {
			return t.KindFlag() == union && c.dst.StringIs(t.NameOff, d.name)
		}
		return k == structKind(d.tag) && c.dst.StringIs(t.NameOff, d.name)
	}
	return c.eq(off, id, visited, depth)
}

func product(dims []uint32) uint64 {
	p := uint64(1)
	for _, n := range dims {
		p *= uint64(n)
		if p > 1<<32-1 {
			return 1 << 32
		}
	}
	return p
}
