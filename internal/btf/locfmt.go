package btf

// Text of LOC_PARAM locations as bpftool prints them after the September
// 2026 follow-up (spec 7.3): "reg1", "*(reg2 + 0x10)", "fbreg - 0x10",
// "const 0x..", "address 0x..", and "raw=[0x%08x, ...]" for a flag/vlen
// combination the verifier would not accept.

import (
	"strconv"
	"strings"
)

// LocParamValid reports whether flags and vlen form a combination the
// kernel accepts (spec 3.1 table), given the parameter size.
func LocParamValid(size uint32, flags LocFlags, vlen int) bool {
	return locParamRule(size, flags, false, vlen) == ""
}

// FormatLoc returns the location text of a LOC_PARAM with the given size,
// flags and value words.
func FormatLoc(size uint32, flags LocFlags, values []uint32) string {
	return string(appendLoc(nil, size, flags, values))
}

func appendReg(b []byte, r uint32) []byte {
	if r == LocFBReg {
		return append(b, "fbreg"...)
	}
	b = append(b, "reg"...)
	return strconv.AppendUint(b, uint64(r), 10)
}

func appendSignedHex(b []byte, v int64, neg string) []byte {
	if v < 0 {
		b = append(b, neg...)
		return strconv.AppendUint(b, uint64(-v), 16)
	}
	b = append(b, "0x"...)
	return strconv.AppendUint(b, uint64(v), 16)
}

func appendLoc(b []byte, size uint32, flags LocFlags, v []uint32) []byte {
	if !LocParamValid(size, flags, len(v)) {
		b = append(b, "raw=["...)
		for i, w := range v {
			if i == 8 {
				break
			}
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, "0x"...)
			h := strconv.FormatUint(uint64(w), 16)
			b = append(b, strings.Repeat("0", 8-len(h))...)
			b = append(b, h...)
		}
		return append(b, ']')
	}
	signed := flags&LocSigned != 0
	if flags&LocConst != 0 {
		val := uint64(v[0])
		if len(v) > 1 {
			val |= uint64(v[1]) << 32
		}
		if flags&LocAddr != 0 {
			b = append(b, "address "...)
		} else {
			b = append(b, "const "...)
		}
		if signed {
			sh := 64 - 8*size
			return appendSignedHex(b, int64(val<<sh)>>sh, "-0x")
		}
		b = append(b, "0x"...)
		return strconv.AppendUint(b, val, 16)
	}
	deref := flags&LocDeref != 0
	if deref {
		b = append(b, "*("...)
	}
	b = appendReg(b, v[0])
	if flags&LocOffset != 0 {
		var off int64
		if len(v) == 2 {
			off = int64(v[1])
			if signed {
				off = int64(int32(v[1]))
			}
		} else {
			off = int64(uint64(v[1]) | uint64(v[2])<<32)
		}
		if signed && off < 0 {
			b = append(b, " - 0x"...)
			b = strconv.AppendUint(b, uint64(-off), 16)
		} else {
			b = append(b, " + 0x"...)
			b = strconv.AppendUint(b, uint64(off), 16)
		}
	} else if len(v) == 2 {
		b = append(b, ", "...)
		b = appendReg(b, v[1])
	}
	if deref {
		b = append(b, ')')
	}
	return b
}

// locParamText is the location text of the LOC_PARAM with id, or
// "<unavailable>" for 0 and "<invalid>" for an id that is not a LOC_PARAM.
func (s *Spec) locParamText(b []byte, id TypeID) []byte {
	if id == 0 {
		return append(b, "<unavailable>"...)
	}
	t, err := s.TypeByID(id)
	if err != nil || t.Kind() != KindLocParam {
		return append(b, "<invalid>"...)
	}
	fl, vals := t.LocParam()
	return appendLoc(b, t.SizeType, fl, vals)
}

// LocText returns the location text of LOC_PARAM id (see FormatLoc).
func (s *Spec) LocText(id TypeID) string { return string(s.locParamText(nil, id)) }

// SiteText returns "foo(arg1 [reg1], ...)" for a LOCSEC entry, or
// "<invalid>" when the ids do not resolve to a FUNC -> FUNC_PROTO and a
// LOC_PROTO of the same vlen.
func (s *Spec) SiteText(e LocEntry) string { return string(s.appendSite(nil, e)) }

func (s *Spec) appendSite(b []byte, e LocEntry) []byte {
	fn, err1 := s.TypeByID(e.Func)
	lp, err2 := s.TypeByID(e.LocProto)
	if err1 != nil || err2 != nil || fn.Kind() != KindFunc || lp.Kind() != KindLocProto {
		return append(b, "<invalid>"...)
	}
	proto, err := s.TypeByID(TypeID(fn.SizeType))
	if err != nil || proto.Kind() != KindFuncProto || proto.Vlen() != lp.Vlen() {
		return append(b, "<invalid>"...)
	}
	d := dumper{s: s}
	b = append(b, d.nameBytes(fn.NameOff)...)
	b = append(b, '(')
	locs := lp.LocProtoParams()
	for i, p := range proto.Params() {
		if i > 0 {
			b = append(b, ", "...)
		}
		if p.NameOff == 0 && p.Type == 0 && i == proto.Vlen()-1 {
			b = append(b, "..."...)
			continue
		}
		b = append(b, d.nameBytes(p.NameOff)...)
		b = append(b, " ["...)
		if i < len(locs) {
			b = s.locParamText(b, locs[i])
		}
		b = append(b, ']')
	}
	return append(b, ')')
}

func (d *dumper) locParam(t *Type) {
	fl, vals := t.LocParam()
	if d.json {
		d.ju("size", uint64(t.SizeType))
		d.ju("flags", uint64(fl))
		d.ju("vlen", uint64(t.Vlen()))
		d.key("values")
		d.b = appendJSONString(d.b, appendLoc(nil, t.SizeType, fl, vals))
		return
	}
	d.str(" size=")
	d.u(uint64(t.SizeType))
	d.str(" flags=0x")
	d.b = strconv.AppendUint(d.b, uint64(fl), 16)
	d.str(" vlen=")
	d.u(uint64(t.Vlen()))
	d.str(" values='")
	d.b = appendLoc(d.b, t.SizeType, fl, vals)
	d.b = append(d.b, '\'')
}

func (d *dumper) locProto(t *Type) {
	d.typeID(" vlen=", "vlen", uint32(t.Vlen()))
	if d.json {
		d.arr("params")
	}
	for i, id := range t.LocProtoParams() {
		if d.json {
			if i > 0 {
				d.b = append(d.b, ',')
			}
			d.open()
			d.ju("type_id", uint64(id))
			d.key("value")
			d.b = appendJSONString(d.b, d.s.locParamText(nil, id))
			d.close()
			continue
		}
		d.str("\n\ttype_id=")
		d.u(uint64(id))
		d.str(" value='")
		d.b = d.s.locParamText(d.b, id)
		d.b = append(d.b, '\'')
	}
	if d.json {
		d.b = append(d.b, ']')
	}
}

func (d *dumper) locSec(t *Type) {
	d.typeID(" vlen=", "vlen", uint32(t.Vlen()))
	if d.json {
		d.arr("locs")
	}
	for i, e := range t.LocSecEntries() {
		if d.json {
			if i > 0 {
				d.b = append(d.b, ',')
			}
			d.open()
			d.ju("func_type_id", uint64(e.Func))
			name := []byte("<invalid>")
			if fn, err := d.s.TypeByID(e.Func); err == nil {
				name = d.nameBytes(fn.NameOff)
			}
			d.jstr("name", name)
			d.jstr("func", d.s.appendSite(nil, e))
			d.ju("loc_proto_type_id", uint64(e.LocProto))
			d.ju("offset", uint64(e.Offset))
			d.close()
			continue
		}
		d.str("\n\tfunc='")
		d.b = d.s.appendSite(d.b, e)
		d.str("' func_type_id=")
		d.u(uint64(e.Func))
		d.str(" loc_proto_type_id=")
		d.u(uint64(e.LocProto))
		d.str(" offset=")
		d.u(uint64(e.Offset))
	}
	if d.json {
		d.b = append(d.b, ']')
	}
}
