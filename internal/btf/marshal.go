package btf

// Marshal's choices: a Spec that came from Parse keeps its header length,
// the order of its sections, and (while their sizes are unchanged) their
// offsets, so that Parse+Marshal reproduces the input bytes. Anything else
// is written in libbpf's order, header | types | layout | strings, with a
// 32-byte header when a layout section is written and 24 bytes otherwise
// (or the parsed header length, if that was longer). A layout section is
// only added where no ancestor has one (see MarshalOptions.Layout).

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// MarshalOptions controls Marshal.
type MarshalOptions struct {
	// Layout writes a layout section describing all kinds this package
	// knows, for base BTF or split BTF whose chain has none: like pahole,
	// split BTF relies on an ancestor's table when there is one. A Spec
	// that already has its own keeps it.
	Layout bool
}

// Marshal encodes s's own types and strings as a raw BTF blob in s's byte
// order.
func (s *Spec) Marshal(o MarshalOptions) ([]byte, error) {
	order := s.order
	layout := s.layout
	if layout == nil && o.Layout && (s.base == nil || !s.base.ChainHasLayout()) {
		layout = builtinLayout[:]
	}
	typeLen := uint64(0)
	for i := range s.types {
		typeLen += typeHdrSize + 4*uint64(len(s.types[i].Data))
	}
	layoutLen := uint64(4 * len(layout))
	strLen := uint64(len(s.strings))
	if typeLen+layoutLen+strLen > 1<<32-1-hdrLenLayout {
		return nil, fmt.Errorf("btf: marshal: blob larger than 4 GiB")
	}

	h := header{version: 1, hdrLen: hdrLenClassic}
	if s.parsed {
		h.version, h.flags, h.hdrLen, h.extra = s.hdr.version, s.hdr.flags, s.hdr.hdrLen, s.hdr.extra
	}
	if layout != nil && h.hdrLen < hdrLenLayout {
		h.hdrLen = hdrLenLayout
		h.extra = nil
	}
	h.typeLen, h.strLen, h.layoutLen = uint32(typeLen), uint32(strLen), uint32(layoutLen)

	type sec struct {
		off  *uint32
		len  uint64
		rank uint32
	}
	unchanged := s.parsed && len(s.types) == s.origNT && len(s.strings) == s.origSL &&
		(layout != nil) == s.origHasL && typeLen == uint64(s.hdr.typeLen)
	if unchanged {
		h.typeOff, h.strOff, h.layoutOff = s.hdr.typeOff, s.hdr.strOff, s.hdr.layoutOff
	} else {
		// libbpf order, or the parsed order of the sections.
		secs := []sec{{&h.typeOff, typeLen, 0}, {&h.layoutOff, layoutLen, 1}, {&h.strOff, strLen, 2}}
		if s.parsed {
			secs[0].rank, secs[2].rank = s.hdr.typeOff, s.hdr.strOff
			secs[1].rank = s.hdr.layoutOff
			if !s.origHasL {
				secs[1].rank = s.hdr.typeOff // new layout goes right after the types
			}
			sort.SliceStable(secs, func(i, j int) bool { return secs[i].rank < secs[j].rank })
		}
		pos := uint32(0)
		for _, sc := range secs {
			*sc.off = pos
			pos += uint32(sc.len)
		}
		if layout == nil {
			h.layoutOff = 0
		}
	}
	end := uint64(h.hdrLen)
	for _, e := range []uint64{uint64(h.typeOff) + typeLen, uint64(h.strOff) + strLen, uint64(h.layoutOff) + layoutLen} {
		if e+uint64(h.hdrLen) > end {
			end = e + uint64(h.hdrLen)
		}
	}
	out := make([]byte, end)
	order.PutUint16(out[0:], btfMagic)
	out[2], out[3] = h.version, h.flags
	order.PutUint32(out[4:], h.hdrLen)
	order.PutUint32(out[8:], h.typeOff)
	order.PutUint32(out[12:], h.typeLen)
	order.PutUint32(out[16:], h.strOff)
	order.PutUint32(out[20:], h.strLen)
	if h.hdrLen >= hdrLenLayout {
		order.PutUint32(out[24:], h.layoutOff)
		order.PutUint32(out[28:], h.layoutLen)
		copy(out[hdrLenLayout:h.hdrLen], h.extra)
	} else {
		copy(out[hdrLenClassic:h.hdrLen], h.extra)
	}
	body := out[h.hdrLen:]
	tb := body[h.typeOff : uint64(h.typeOff)+typeLen]
	p := 0
	for i := range s.types {
		t := &s.types[i]
		order.PutUint32(tb[p:], t.NameOff)
		order.PutUint32(tb[p+4:], t.Info)
		order.PutUint32(tb[p+8:], t.SizeType)
		p += typeHdrSize
		encodeWords(order, tb[p:], t.Data)
		p += 4 * len(t.Data)
	}
	lb := body[h.layoutOff : uint64(h.layoutOff)+layoutLen]
	for i, r := range layout {
		lb[4*i], lb[4*i+1] = r.InfoSz, r.ElemSz
		order.PutUint16(lb[4*i+2:], r.Flags)
	}
	copy(body[h.strOff:], s.strings)
	return out, nil
}

func encodeWords(order binary.ByteOrder, dst []byte, src []uint32) {
	if order == binary.LittleEndian {
		for i, w := range src {
			binary.LittleEndian.PutUint32(dst[4*i:], w)
		}
		return
	}
	for i, w := range src {
		binary.BigEndian.PutUint32(dst[4*i:], w)
	}
}
