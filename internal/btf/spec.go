package btf

// Spec keeps a blob's own types in one slice and its own strings verbatim;
// ids and string offsets are global across the base chain, so lookups walk
// up the chain. The string index that AddString needs (vmlinux: ~2 MB of
// strings) is built lazily, once per Spec, and the most basic copy of a
// string in the chain wins, like libbpf's reuse of base strings.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
)

// Header lengths: the classic struct btf_header and the 2026 one with the
// layout fields.
const (
	hdrLenClassic = 24
	hdrLenLayout  = 32
	btfMagic      = 0xeb9f
	typeHdrSize   = 12
)

// LayoutRecord is one struct btf_layout entry of the layout section: the
// sizes that let a reader skip a kind it does not know.
type LayoutRecord struct {
	InfoSz uint8
	ElemSz uint8
	Flags  uint16
}

// header is the struct btf_header as read (or as it will be written).
type header struct {
	version, flags       uint8
	hdrLen               uint32
	typeOff, typeLen     uint32
	strOff, strLen       uint32
	layoutOff, layoutLen uint32
	extra                []byte // header bytes beyond the 32 this package knows
	trailing             int    // blob bytes after the last section
}

// Spec is one BTF blob's own types and strings on top of an optional base
// chain (split BTF: module on vmlinux; multi-split: module.inline on module on
// vmlinux). Type ids and string offsets are global across the chain.
//
// A Spec is not safe for concurrent mutation; a Spec used as the base of
// others must not be mutated, but may be read (TypeByID, StringAt,
// AddString's lookups from children) by many goroutines at once.
type Spec struct {
	base  *Spec
	order binary.ByteOrder

	parsed   bool   // came from Parse: Marshal keeps the header shape
	hdr      header // as read
	origNT   int    // number of types as parsed
	origSL   int    // string bytes as parsed
	origHasL bool

	types   []Type
	strings []byte // own string section
	layout  []LayoutRecord

	firstID  TypeID
	strStart uint32

	idxOnce sync.Once
	idx     strTable // own strings, built lazily
	// dups maps an own string offset to the offset FindString gives its
	// contents, where the two differ (a second copy in s, or a copy in
	// the base chain); built with idx.
	dups map[uint32]uint32
}

// NewSpec returns an empty Spec to build on: base BTF when base is nil (its
// string section starts with the mandatory NUL), split BTF otherwise (no
// own strings yet). The byte order is the base's, little-endian for base BTF.
func NewSpec(base *Spec) *Spec {
	s := &Spec{base: base, order: binary.LittleEndian}
	if base != nil {
		s.order = base.order
		s.firstID = base.NextID()
		s.strStart = base.StrStart() + uint32(len(base.strings))
	} else {
		s.firstID = 1
		s.strings = []byte{0}
	}
	return s
}

// SetByteOrder sets the byte order Marshal writes (e.g. big-endian BTF for
// an s390x or aarch64_be target).
func (s *Spec) SetByteOrder(o binary.ByteOrder) { s.order = o }

// Base returns the BTF this one is split on, or nil.
func (s *Spec) Base() *Spec { return s.base }

// ByteOrder returns the byte order of the blob (from its magic).
func (s *Spec) ByteOrder() binary.ByteOrder { return s.order }

// FirstID returns the id of s's first own type (1 for base BTF).
func (s *Spec) FirstID() TypeID { return s.firstID }

// NumTypes returns the number of own types.
func (s *Spec) NumTypes() int { return len(s.types) }

// NextID returns the id the next added type gets.
func (s *Spec) NextID() TypeID { return s.firstID + TypeID(len(s.types)) }

// Types returns s's own types, indexed by id-FirstID(). The slice is shared.
func (s *Spec) Types() []Type { return s.types }

// StrStart returns the global offset of s's first own string byte.
func (s *Spec) StrStart() uint32 { return s.strStart }

// StringsLen returns the length of s's own string section.
func (s *Spec) StringsLen() int { return len(s.strings) }

// RawStrings returns s's own string section (shared, do not modify).
func (s *Spec) RawStrings() []byte { return s.strings }

// Layout returns the own layout section records (nil if none).
func (s *Spec) Layout() []LayoutRecord { return s.layout }

// HeaderLen returns the header length Marshal writes without layout.
func (s *Spec) HeaderLen() int {
	if s.parsed {
		return int(s.hdr.hdrLen)
	}
	return hdrLenClassic
}

// HasLayout reports whether this blob has its own layout section.
func (s *Spec) HasLayout() bool { return s.layout != nil }

// ChainHasLayout reports whether this blob or any ancestor has a layout.
func (s *Spec) ChainHasLayout() bool {
	for p := s; p != nil; p = p.base {
		if p.layout != nil {
			return true
		}
	}
	return false
}

// specFor returns the Spec of the chain that owns id.
func (s *Spec) specFor(id TypeID) *Spec {
	for p := s; p != nil; p = p.base {
		if id >= p.firstID {
			if id < p.firstID+TypeID(len(p.types)) {
				return p
			}
			return nil
		}
	}
	return nil
}

// TypeByID returns the type with the given id anywhere in the chain. The
// pointer stays valid while no type is added to the owning Spec.
func (s *Spec) TypeByID(id TypeID) (*Type, error) {
	if id == 0 {
		return nil, fmt.Errorf("btf: type id 0 is void")
	}
	p := s.specFor(id)
	if p == nil {
		return nil, fmt.Errorf("btf: type id %d out of range [1, %d)", id, s.NextID())
	}
	return &p.types[id-p.firstID], nil
}

// StringAt returns the NUL-terminated string at the global offset off.
func (s *Spec) StringAt(off uint32) (string, error) {
	p := s
	for p != nil && off < p.strStart {
		p = p.base
	}
	if p == nil {
		return "", fmt.Errorf("btf: string offset %#x out of range", off)
	}
	rel := uint64(off) - uint64(p.strStart)
	if rel >= uint64(len(p.strings)) {
		if off == 0 && len(p.strings) == 0 {
			return "", nil
		}
		return "", fmt.Errorf("btf: string offset %#x out of range [%#x, %#x)", off, p.strStart, uint64(p.strStart)+uint64(len(p.strings)))
	}
	b := p.strings[rel:]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b), nil
}

// StringIs reports whether the string at off is str (a bad offset reads
// as "", as StringAt gives it), without the allocation of StringAt: the
// type converter compares a name this way for every candidate.
func (s *Spec) StringIs(off uint32, str string) bool {
	b, _ := s.stringBytes(off)
	return string(b) == str
}

// stringBytes is StringAt without the allocation; ok is false for a bad
// offset.
func (s *Spec) stringBytes(off uint32) ([]byte, bool) {
	p := s
	for p != nil && off < p.strStart {
		p = p.base
	}
	if p == nil {
		return nil, false
	}
	rel := uint64(off) - uint64(p.strStart)
	if rel >= uint64(len(p.strings)) {
		return nil, off == 0
	}
	b := p.strings[rel:]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return b, true
}

// Name returns t's name, "" for an anonymous type or a bad offset.
func (s *Spec) Name(t *Type) string {
	n, _ := s.StringAt(t.NameOff)
	return n
}

func (s *Spec) buildIndex() {
	s.idxOnce.Do(func() {
		// Roughly one string per 20 bytes in kernel BTF.
		s.idx = newStrTable(len(s.strings)/20 + 1)
		sec := s.strings
		for i := 0; i < len(sec); {
			j := bytes.IndexByte(sec[i:], 0)
			if j < 0 {
				break
			}
			b := sec[i : i+j]
			off := s.strStart + uint32(i)
			if s.base != nil {
				// Split BTF has few own strings: the copy is cheap.
				if c, ok := s.base.FindString(string(b)); ok {
					s.addDup(off, c)
				}
			}
			if first, dup := s.idx.insert(sec, uint32(i), b); dup {
				if _, inBase := s.dups[s.strStart+first]; !inBase {
					s.addDup(off, s.strStart+first)
				}
			}
			i += j + 1
		}
	})
}

func (s *Spec) addDup(off, canon uint32) {
	if off == canon {
		return
	}
	if s.dups == nil {
		s.dups = map[uint32]uint32{}
	}
	if _, ok := s.dups[off]; !ok {
		s.dups[off] = canon
	}
}

// CanonicalString returns the offset FindString returns for the string at
// the global offset off (the most basic copy in the chain): two offsets
// name equal strings exactly when their canonical offsets are equal, so
// indexes can key names by a number. A bad offset gives 0, the empty
// string, as Name reads it; an offset into the middle of a string (a
// suffix) gives the canonical offset of an equal whole string, else itself.
func (s *Spec) CanonicalString(off uint32) uint32 {
	p := s
	for p != nil && off < p.strStart {
		p = p.base
	}
	if p == nil {
		return 0
	}
	if uint64(off)-uint64(p.strStart) >= uint64(len(p.strings)) {
		return 0
	}
	p.buildIndex()
	if c, ok := p.dups[off]; ok {
		return c
	}
	if off > p.strStart && p.strings[off-p.strStart-1] != 0 {
		// Inside a string: a suffix, which FindString may find
		// elsewhere; rare, so look it up.
		// One not found as a whole string stands for itself.
		str, _ := p.StringAt(off)
		if c, ok := s.FindString(str); ok {
			return c
		}
		return off
	}
	return off
}

// lookupString finds str in s's own strings.
func (s *Spec) lookupString(str string) (uint32, bool) {
	s.buildIndex()
	rel, ok := s.idx.lookup(s.strings, str)
	return s.strStart + rel, ok
}

// FindString returns the offset of str if it is present anywhere in the
// chain (the most basic copy wins).
func (s *Spec) FindString(str string) (uint32, bool) {
	if str == "" {
		return 0, true
	}
	var chain []*Spec
	for p := s; p != nil; p = p.base {
		chain = append(chain, p)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		if off, ok := chain[i].lookupString(str); ok {
			return off, true
		}
	}
	return 0, false
}

// AddString returns the offset of str, reusing a copy present anywhere in
// the chain (like libbpf), else appending it to s's own strings.
func (s *Spec) AddString(str string) uint32 {
	if off, ok := s.FindString(str); ok {
		return off
	}
	rel := uint32(len(s.strings))
	s.strings = append(s.strings, str...)
	s.strings = append(s.strings, 0)
	s.idx.insert(s.strings, rel, s.strings[rel:len(s.strings)-1]) // FindString built s.idx
	return s.strStart + rel
}

// Grow makes room for n more own types, for a caller that knows how many
// it will Add.
func (s *Spec) Grow(n int) { s.types = slices.Grow(s.types, n) }

// Add appends t as an own type and returns its id. Data is copied. The
// record's size must match its kind (for kinds this package does not know,
// a layout section somewhere in the chain must describe it).
func (s *Spec) Add(t Type) (TypeID, error) {
	id := s.NextID()
	if id > MaxType {
		return 0, fmt.Errorf("btf: too many types (max id %#x)", MaxType)
	}
	info, elem, err := s.kindSizes(t.Kind())
	if err != nil {
		return 0, fmt.Errorf("btf: add type [%d]: %w", id, err)
	}
	want := uint64(info)/4 + uint64(t.Vlen())*uint64(elem)/4
	if uint64(len(t.Data)) != want {
		return 0, fmt.Errorf("btf: add type [%d] %s: %d data words, kind and vlen %d need %d", id, t.Kind(), len(t.Data), t.Vlen(), want)
	}
	if len(t.Data) > 0 {
		t.Data = append([]uint32(nil), t.Data...)
	} else {
		t.Data = nil
	}
	s.types = append(s.types, t)
	return id, nil
}

// builtinLayout is libbpf's layout table for the kinds this package knows.
var builtinLayout = [NumKinds]LayoutRecord{
	KindInt:       {InfoSz: 4},
	KindArray:     {InfoSz: 12},
	KindStruct:    {ElemSz: 12},
	KindUnion:     {ElemSz: 12},
	KindEnum:      {ElemSz: 8},
	KindFuncProto: {ElemSz: 8},
	KindVar:       {InfoSz: 4},
	KindDatasec:   {ElemSz: 12},
	KindDeclTag:   {InfoSz: 4},
	KindEnum64:    {ElemSz: 12},
	KindLocParam:  {InfoSz: 4, ElemSz: 4},
	KindLocProto:  {ElemSz: 4},
	KindLocSec:    {ElemSz: 12},
}

// BuiltinLayout returns the layout table Marshal writes (23 records).
func BuiltinLayout() []LayoutRecord {
	return append([]LayoutRecord(nil), builtinLayout[:]...)
}

// kindSizes returns info_sz and elem_sz for kind k: built in for known
// kinds, else from the first layout section found walking up the chain.
func (s *Spec) kindSizes(k Kind) (info, elem uint32, err error) {
	if k != KindUnknown && k < NumKinds {
		r := builtinLayout[k]
		return uint32(r.InfoSz), uint32(r.ElemSz), nil
	}
	if k == KindUnknown {
		return 0, 0, fmt.Errorf("kind 0 (UNKN) is not a valid type")
	}
	for p := s; p != nil; p = p.base {
		if p.layout == nil {
			continue
		}
		if int(k) >= len(p.layout) {
			return 0, 0, fmt.Errorf("kind %d not described by the layout section (%d kinds)", k, len(p.layout))
		}
		r := p.layout[k]
		if r.InfoSz%4 != 0 || r.ElemSz%4 != 0 {
			return 0, 0, fmt.Errorf("layout of kind %d has sizes %d/%d, not multiples of 4", k, r.InfoSz, r.ElemSz)
		}
		return uint32(r.InfoSz), uint32(r.ElemSz), nil
	}
	return 0, 0, fmt.Errorf("kind %d is unknown and no layout section in the base chain describes it", k)
}

// KindLayout returns the info/elem sizes used to size records of kind k.
func (s *Spec) KindLayout(k Kind) (infoSz, elemSz int, err error) {
	i, e, err := s.kindSizes(k)
	return int(i), int(e), err
}
