package btf

// Parse is strict where the kernel and libbpf agree that decoding cannot
// continue (bounds, overlap, record sizes, string termination) and leaves
// the rest (tiling gaps, flags, version, names, per-kind rules) to Validate,
// so that odd but decodable blobs can still be dumped and round-tripped.

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// Parse decodes a raw BTF blob on top of base (nil for base BTF). It checks
// what it needs to decode safely (header, section bounds and overlap,
// record sizes, string section termination); the kernel verifier's other
// rules are in Validate. Allocation is bounded by len(data): the number of
// types is counted before the type table is allocated, and all trailing
// words share one backing slice.
func Parse(data []byte, base *Spec) (*Spec, error) { return parse(data, base, false) }

// parse is Parse; owned says data is the caller's to give away (a buffer
// read for this parse), so the string section is kept in place, not
// copied.
func parse(data []byte, base *Spec, owned bool) (*Spec, error) {
	herr := func(off int64, format string, a ...any) error {
		return &FormatError{Section: "header", Offset: off, Msg: fmt.Sprintf(format, a...)}
	}
	if len(data) < hdrLenClassic {
		return nil, herr(0, "blob of %d bytes is shorter than the %d-byte header", len(data), hdrLenClassic)
	}
	var order binary.ByteOrder
	switch {
	case binary.LittleEndian.Uint16(data) == btfMagic:
		order = binary.LittleEndian
	case binary.BigEndian.Uint16(data) == btfMagic:
		order = binary.BigEndian
	default:
		return nil, herr(0, "bad magic %#04x", binary.LittleEndian.Uint16(data))
	}
	if base != nil && base.order != order {
		return nil, herr(0, "byte order %v differs from the base BTF's %v", order, base.order)
	}
	h := header{
		version: data[2],
		flags:   data[3],
		hdrLen:  order.Uint32(data[4:]),
		typeOff: order.Uint32(data[8:]),
		typeLen: order.Uint32(data[12:]),
		strOff:  order.Uint32(data[16:]),
		strLen:  order.Uint32(data[20:]),
	}
	if h.hdrLen < hdrLenClassic {
		return nil, herr(4, "hdr_len %d < %d", h.hdrLen, hdrLenClassic)
	}
	if uint64(h.hdrLen) > uint64(len(data)) {
		return nil, herr(4, "hdr_len %d beyond the end of the %d-byte blob", h.hdrLen, len(data))
	}
	if h.hdrLen >= hdrLenLayout {
		h.layoutOff = order.Uint32(data[24:])
		h.layoutLen = order.Uint32(data[28:])
		if h.hdrLen > hdrLenLayout {
			h.extra = append([]byte(nil), data[hdrLenLayout:h.hdrLen]...)
		}
	} else if h.hdrLen > hdrLenClassic {
		h.extra = append([]byte(nil), data[hdrLenClassic:h.hdrLen]...)
	}
	body := data[h.hdrLen:]
	type sec struct {
		name     string
		off, len uint32
		field    int64
	}
	secs := []sec{{"types", h.typeOff, h.typeLen, 8}, {"strings", h.strOff, h.strLen, 16}}
	if h.layoutLen != 0 || h.layoutOff != 0 {
		secs = append(secs, sec{"layout", h.layoutOff, h.layoutLen, 24})
	}
	for _, sc := range secs {
		if uint64(sc.off)+uint64(sc.len) > uint64(len(body)) {
			return nil, herr(sc.field, "%s section [%#x, %#x) beyond the end of the data (%#x bytes after the header)",
				sc.name, sc.off, uint64(sc.off)+uint64(sc.len), len(body))
		}
	}
	if h.typeOff%4 != 0 {
		return nil, herr(8, "type_off %#x not 4-aligned", h.typeOff)
	}
	sorted := append([]sec(nil), secs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].off < sorted[j].off })
	for i := 1; i < len(sorted); i++ {
		a, b := sorted[i-1], sorted[i]
		if a.len != 0 && b.len != 0 && uint64(a.off)+uint64(a.len) > uint64(b.off) {
			return nil, herr(b.field, "%s section [%#x, %#x) overlaps %s section [%#x, %#x)",
				b.name, b.off, uint64(b.off)+uint64(b.len), a.name, a.off, uint64(a.off)+uint64(a.len))
		}
	}

	end := uint64(0)
	for _, sc := range secs {
		end = max(end, uint64(sc.off)+uint64(sc.len))
	}
	h.trailing = len(body) - int(end)
	s := &Spec{base: base, order: order, parsed: true, hdr: h}
	if base != nil {
		s.firstID = base.NextID()
		s.strStart = base.StrStart() + uint32(len(base.strings))
	} else {
		s.firstID = 1
	}

	// Strings.
	strAt := int64(h.hdrLen) + int64(h.strOff)
	str := body[h.strOff : h.strOff+h.strLen]
	if base == nil {
		if len(str) == 0 {
			return nil, &FormatError{"strings", strAt, "base BTF has an empty string section"}
		}
		if str[0] != 0 {
			return nil, &FormatError{"strings", strAt, "base BTF string section does not start with NUL"}
		}
	}
	if len(str) > 0 && str[len(str)-1] != 0 {
		return nil, &FormatError{"strings", strAt + int64(len(str)) - 1, "string section not NUL-terminated"}
	}
	if uint64(s.strStart)+uint64(len(str)) > 1<<32-1 {
		return nil, &FormatError{"strings", strAt, "string offsets overflow 32 bits"}
	}
	if owned {
		s.strings = str[:len(str):len(str)] // AddString appends to a copy
	} else {
		s.strings = append([]byte(nil), str...)
	}

	// Layout.
	if h.layoutLen != 0 || h.layoutOff != 0 {
		if h.layoutOff%4 != 0 {
			return nil, &FormatError{"layout", 24, fmt.Sprintf("layout_off %#x not 4-aligned", h.layoutOff)}
		}
		if h.layoutLen%4 != 0 {
			return nil, &FormatError{"layout", 28, fmt.Sprintf("layout_len %d not a multiple of 4", h.layoutLen)}
		}
		lb := body[h.layoutOff : h.layoutOff+h.layoutLen]
		s.layout = make([]LayoutRecord, len(lb)/4)
		for i := range s.layout {
			s.layout[i] = LayoutRecord{InfoSz: lb[4*i], ElemSz: lb[4*i+1], Flags: order.Uint16(lb[4*i+2:])}
		}
	}

	// Types: count, then decode into one backing slice.
	tb := body[h.typeOff : h.typeOff+h.typeLen]
	tAt := int64(h.hdrLen) + int64(h.typeOff)
	n, words, err := s.scanTypes(tb, tAt)
	if err != nil {
		return nil, err
	}
	if uint64(s.firstID)+uint64(n)-1 > MaxType && n > 0 {
		return nil, &FormatError{"types", tAt, fmt.Sprintf("%d types exceed the maximum type id %#x", n, MaxType)}
	}
	s.types = make([]Type, n)
	backing := make([]uint32, words)
	off := 0
	for i := range s.types {
		t := &s.types[i]
		t.NameOff = order.Uint32(tb[off:])
		t.Info = order.Uint32(tb[off+4:])
		t.SizeType = order.Uint32(tb[off+8:])
		off += typeHdrSize
		nw := s.recordWords(t.Kind(), t.Vlen())
		if nw > 0 {
			d := backing[:nw:nw]
			backing = backing[nw:]
			decodeWords(order, d, tb[off:off+4*nw])
			off += 4 * nw
			t.Data = d
		}
	}
	s.origNT = len(s.types)
	s.origSL = len(s.strings)
	s.origHasL = s.layout != nil
	return s, nil
}

func decodeWords(order binary.ByteOrder, dst []uint32, src []byte) {
	if order == binary.LittleEndian {
		for i := range dst {
			dst[i] = binary.LittleEndian.Uint32(src[4*i:])
		}
		return
	}
	for i := range dst {
		dst[i] = binary.BigEndian.Uint32(src[4*i:])
	}
}

// recordWords is the number of trailing words; only valid after scanTypes
// accepted the kind.
func (s *Spec) recordWords(k Kind, vlen int) int {
	info, elem, _ := s.kindSizes(k)
	return int(info/4) + vlen*int(elem/4)
}

// scanTypes walks the type section, checking that every record fits, and
// returns the number of types and of trailing words.
func (s *Spec) scanTypes(tb []byte, at int64) (n, words int, err error) {
	off := 0
	// Per-kind sizes cached: kindSizes walks the chain for unknown kinds.
	var cache [MaxKind + 1]struct {
		info, elem uint32
		ok         bool
	}
	for off < len(tb) {
		if len(tb)-off < typeHdrSize {
			return 0, 0, &FormatError{"types", at + int64(off), fmt.Sprintf("%d trailing bytes, too short for a type record", len(tb)-off)}
		}
		info := s.order.Uint32(tb[off+4:])
		k := Kind((info >> 24) & 0x7f)
		vlen := uint64(info & 0xffffff)
		c := &cache[k]
		if !c.ok {
			i, e, kerr := s.kindSizes(k)
			if kerr != nil {
				return 0, 0, &UnknownKindError{ID: s.firstID + TypeID(n), Kind: k, Offset: at + int64(off), Reason: kerr.Error()}
			}
			c.info, c.elem, c.ok = i, e, true
		}
		size := uint64(typeHdrSize) + uint64(c.info) + vlen*uint64(c.elem)
		if size > uint64(len(tb)-off) {
			return 0, 0, &FormatError{"types", at + int64(off), fmt.Sprintf("type [%d] %s with vlen %d needs %d bytes, only %d left in the type section",
				s.firstID+TypeID(n), k, vlen, size, len(tb)-off)}
		}
		words += int(size-typeHdrSize) / 4
		off += int(size)
		n++
	}
	return n, words, nil
}
