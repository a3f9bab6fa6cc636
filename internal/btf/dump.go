package btf

// Dump reproduces "bpftool btf dump file F" (format raw) byte for byte for
// kinds 1-19, and prints the LOC kinds in the format of bpftool after the
// September 2026 follow-up (spec 7.3). With JSON it mirrors "bpftool -j":
// {"types":[{"id":..,"kind":..,"name":.., ...}]}. Output is assembled in a
// reused byte buffer with strconv appends and written through bufio: dumping
// vmlinux is dominated by formatting, not by I/O calls.

import (
	"bufio"
	"io"
	"strconv"
)

// DumpOptions selects the dump format.
type DumpOptions struct {
	JSON bool
}

// Dump writes s's own types (not the base's, like bpftool with -B).
func (s *Spec) Dump(w io.Writer, o DumpOptions) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	d := dumper{s: s, json: o.JSON}
	if d.json {
		bw.WriteString(`{"types":[`)
	}
	for i := range s.types {
		d.b = d.b[:0]
		if d.json && i > 0 {
			d.b = append(d.b, ',')
		}
		d.typ(s.firstID+TypeID(i), &s.types[i])
		if _, err := bw.Write(d.b); err != nil {
			return err
		}
	}
	if d.json {
		bw.WriteString("]}\n")
	}
	return bw.Flush()
}

type dumper struct {
	s    *Spec
	json bool
	b    []byte
	n    int // fields written in the current JSON object
}

// name appends bpftool's btf_str(): "(anon)" for offset 0, "(invalid)" for
// an offset outside the chain's strings.
func (d *dumper) nameBytes(off uint32) []byte {
	if off == 0 {
		return anon
	}
	b, ok := d.s.stringBytes(off)
	if !ok {
		return invalid
	}
	return b
}

var (
	anon    = []byte("(anon)")
	invalid = []byte("(invalid)")
)

func (d *dumper) str(s string) { d.b = append(d.b, s...) }

func (d *dumper) u(v uint64) { d.b = strconv.AppendUint(d.b, v, 10) }

func (d *dumper) i(v int64) { d.b = strconv.AppendInt(d.b, v, 10) }

// JSON helpers.
func (d *dumper) key(k string) {
	if d.n > 0 {
		d.b = append(d.b, ',')
	}
	d.n++
	d.b = append(d.b, '"')
	d.b = append(d.b, k...)
	d.b = append(d.b, '"', ':')
}

func (d *dumper) jstr(k string, v []byte) {
	d.key(k)
	d.b = appendJSONString(d.b, v)
}

func (d *dumper) ju(k string, v uint64) {
	d.key(k)
	d.u(v)
}

func (d *dumper) ji(k string, v int64) {
	d.key(k)
	d.i(v)
}

func (d *dumper) open() {
	d.b = append(d.b, '{')
	d.n = 0
}

func (d *dumper) close() {
	d.b = append(d.b, '}')
	d.n = 1
}

func (d *dumper) arr(k string) {
	d.key(k)
	d.b = append(d.b, '[')
}

func appendJSONString(b, s []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// intEncString is bpftool's spelling of an INT encoding: "(none)", a
// flag's name, or "UNKN" for a combination or an unknown value.
func intEncString(e IntEncoding) string {
	switch e {
	case 0:
		return "(none)"
	case IntSigned, IntChar, IntBool:
		return e.String()
	}
	return "UNKN"
}

// linkageString is bpftool's spelling of a FUNC or VAR linkage.
func linkageString(l Linkage) string {
	if l <= LinkageExtern {
		return l.String()
	}
	return "(unknown)"
}

// kindString is bpftool's spelling of a kind: "UNKNOWN" for one it does
// not know (Kind.String gives Kind(N)).
func kindString(k Kind) string {
	if k > KindUnknown && k < NumKinds {
		return k.String()
	}
	return "UNKNOWN"
}

func (d *dumper) typ(id TypeID, t *Type) {
	k := t.Kind()
	name := d.nameBytes(t.NameOff)
	if d.json {
		d.open()
		d.ju("id", uint64(id))
		d.jstr("kind", []byte(kindString(k)))
		d.jstr("name", name)
	} else {
		d.b = append(d.b, '[')
		d.u(uint64(id))
		d.b = append(d.b, "] "...)
		d.str(kindString(k))
		d.b = append(d.b, " '"...)
		d.b = append(d.b, name...)
		d.b = append(d.b, '\'')
	}
	switch k {
	case KindInt:
		enc, off, bits := t.IntEncoding()
		if d.json {
			d.ju("size", uint64(t.SizeType))
			d.ju("bits_offset", uint64(off))
			d.ju("nr_bits", uint64(bits))
			d.jstr("encoding", []byte(intEncString(enc)))
			break
		}
		d.str(" size=")
		d.u(uint64(t.SizeType))
		d.str(" bits_offset=")
		d.u(uint64(off))
		d.str(" nr_bits=")
		d.u(uint64(bits))
		d.str(" encoding=")
		d.str(intEncString(enc))
	case KindPtr, KindConst, KindVolatile, KindRestrict, KindTypedef, KindTypeTag:
		d.typeID(" type_id=", "type_id", uint32(t.SizeType))
	case KindArray:
		e, idx, n := t.Array()
		d.typeID(" type_id=", "type_id", uint32(e))
		d.typeID(" index_type_id=", "index_type_id", uint32(idx))
		d.typeID(" nr_elems=", "nr_elems", n)
	case KindStruct, KindUnion:
		d.typeID(" size=", "size", t.SizeType)
		d.typeID(" vlen=", "vlen", uint32(t.Vlen()))
		if d.json {
			d.arr("members")
		}
		md := t.elems(0, 3)
		for i := 0; 3*i+2 < len(md); i++ {
			m := Member{md[3*i], TypeID(md[3*i+1]), md[3*i+2]}
			off, sz := t.MemberBitOffset(m)
			if d.json {
				if i > 0 {
					d.b = append(d.b, ',')
				}
				d.open()
				d.jstr("name", d.nameBytes(m.NameOff))
				d.ju("type_id", uint64(m.Type))
				d.ju("bits_offset", uint64(off))
				if sz != 0 {
					d.ju("bitfield_size", uint64(sz))
				}
				d.close()
				continue
			}
			d.str("\n\t'")
			d.b = append(d.b, d.nameBytes(m.NameOff)...)
			d.str("' type_id=")
			d.u(uint64(m.Type))
			d.str(" bits_offset=")
			d.u(uint64(off))
			if sz != 0 {
				d.str(" bitfield_size=")
				d.u(uint64(sz))
			}
		}
		if d.json {
			d.b = append(d.b, ']')
		}
	case KindEnum, KindEnum64:
		enc := "UNSIGNED"
		if t.KindFlag() {
			enc = "SIGNED"
		}
		if d.json {
			d.jstr("encoding", []byte(enc))
		} else {
			d.str(" encoding=")
			d.str(enc)
		}
		d.typeID(" size=", "size", t.SizeType)
		d.typeID(" vlen=", "vlen", uint32(t.Vlen()))
		if d.json {
			d.arr("values")
		}
		ew := 2
		if k == KindEnum64 {
			ew = 3
		}
		ed := t.elems(0, ew)
		for i := 0; ew*i < len(ed); i++ {
			v := enumValue(t, ed[ew*i:ew*i+ew])
			if d.json {
				if i > 0 {
					d.b = append(d.b, ',')
				}
				d.open()
				d.jstr("name", d.nameBytes(v.NameOff))
				switch {
				case t.KindFlag():
					d.ji("val", v.Value)
				case k == KindEnum:
					// bpftool passes the __s32 val to jsonw_uint_field:
					// values >= 1<<31 come out sign-extended to 64 bits.
					d.ju("val", uint64(int64(int32(v.Value))))
				default:
					d.ju("val", uint64(v.Value))
				}
				d.close()
				continue
			}
			d.str("\n\t'")
			d.b = append(d.b, d.nameBytes(v.NameOff)...)
			d.str("' val=")
			if t.KindFlag() {
				d.i(v.Value)
				if k == KindEnum64 {
					d.str("LL")
				}
			} else {
				d.u(uint64(v.Value))
				if k == KindEnum64 {
					d.str("ULL")
				}
			}
		}
		if d.json {
			d.b = append(d.b, ']')
		}
	case KindFwd:
		fk := "struct"
		if t.KindFlag() {
			fk = "union"
		}
		if d.json {
			d.jstr("fwd_kind", []byte(fk))
		} else {
			d.str(" fwd_kind=")
			d.str(fk)
		}
	case KindFunc:
		d.typeID(" type_id=", "type_id", t.SizeType)
		l := linkageString(Linkage(t.Vlen()))
		if d.json {
			d.jstr("linkage", []byte(l))
		} else {
			d.str(" linkage=")
			d.str(l)
		}
	case KindFuncProto:
		d.typeID(" ret_type_id=", "ret_type_id", t.SizeType)
		d.typeID(" vlen=", "vlen", uint32(t.Vlen()))
		if d.json {
			d.arr("params")
		}
		pd := t.elems(0, 2)
		for i := 0; 2*i+1 < len(pd); i++ {
			p := Param{pd[2*i], TypeID(pd[2*i+1])}
			if d.json {
				if i > 0 {
					d.b = append(d.b, ',')
				}
				d.open()
				d.jstr("name", d.nameBytes(p.NameOff))
				d.ju("type_id", uint64(p.Type))
				d.close()
				continue
			}
			d.str("\n\t'")
			d.b = append(d.b, d.nameBytes(p.NameOff)...)
			d.str("' type_id=")
			d.u(uint64(p.Type))
		}
		if d.json {
			d.b = append(d.b, ']')
		}
	case KindVar:
		l := linkageString(t.Linkage())
		if d.json {
			d.ju("type_id", uint64(t.SizeType))
			d.jstr("linkage", []byte(l))
			break
		}
		d.str(" type_id=")
		d.u(uint64(t.SizeType))
		d.str(", linkage=")
		d.str(l)
	case KindDatasec:
		d.typeID(" size=", "size", t.SizeType)
		d.typeID(" vlen=", "vlen", uint32(t.Vlen()))
		if d.json {
			d.arr("vars")
		}
		sd := t.elems(0, 3)
		for i := 0; 3*i+2 < len(sd); i++ {
			v := VarSecinfo{TypeID(sd[3*i]), sd[3*i+1], sd[3*i+2]}
			if d.json {
				if i > 0 {
					d.b = append(d.b, ',')
				}
				d.open()
				d.ju("type_id", uint64(v.Type))
				d.ju("offset", uint64(v.Offset))
				d.ju("size", uint64(v.Size))
				d.close()
				continue
			}
			d.str("\n\ttype_id=")
			d.u(uint64(v.Type))
			d.str(" offset=")
			d.u(uint64(v.Offset))
			d.str(" size=")
			d.u(uint64(v.Size))
			if vt, err := d.s.TypeByID(v.Type); err == nil {
				d.str(" (")
				d.str(kindString(vt.Kind()))
				d.str(" '")
				d.b = append(d.b, d.nameBytes(vt.NameOff)...)
				d.str("')")
			}
		}
		if d.json {
			d.b = append(d.b, ']')
		}
	case KindFloat:
		d.typeID(" size=", "size", t.SizeType)
	case KindDeclTag:
		d.typeID(" type_id=", "type_id", t.SizeType)
		if d.json {
			d.ji("component_idx", int64(t.ComponentIdx()))
		} else {
			d.str(" component_idx=")
			d.i(int64(t.ComponentIdx()))
		}
	case KindLocParam:
		d.locParam(t)
	case KindLocProto:
		d.locProto(t)
	case KindLocSec:
		d.locSec(t)
	}
	if d.json {
		d.close()
	} else {
		d.b = append(d.b, '\n')
	}
}

// typeID appends " text=<v>" or a JSON number field.
func (d *dumper) typeID(text, key string, v uint32) {
	if d.json {
		d.ju(key, uint64(v))
		return
	}
	d.str(text)
	d.u(uint64(v))
}
