package trace

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/btfinline/btfinline/internal/btf"
)

// valueKind is what a decoded value is.
type valueKind int

const (
	vRaw valueKind = iota // bytes of a type we do not decode, shown in hex
	vInt
	vUint
	vPtr
	vBool
	vEnum
	vString
	vFloat
	vStruct
	vArray
	vUnavailable
	vFault
)

// Value is an argument decoded by its BTF type.
type Value struct {
	Kind   valueKind
	I      int64
	U      uint64
	F      float64
	S      string // enumerator, string, raw hex, or why unavailable
	Fields []NamedValue
	Elems  []Value
}

// NamedValue is a struct member.
type NamedValue struct {
	Name  string
	Value Value
}

// maxElems bounds the array elements decoded from one value.
const maxElems = 64

// decodeValue decodes the little-endian bytes b as type id.
func decodeValue(spec *btf.Spec, id btf.TypeID, b []byte) Value {
	return decodeAt(spec, id, b, 0)
}

func decodeAt(spec *btf.Spec, id btf.TypeID, b []byte, depth int) Value {
	raw := Value{Kind: vRaw, S: rawHex(b)}
	t, _, err := strip(spec, id)
	if err != nil || t == nil || depth > maxTypeDepth {
		return raw
	}
	size := sizeOf(spec, id)
	if size > 0 && size < len(b) {
		b = b[:size]
	}
	switch t.Kind() {
	case btf.KindInt:
		enc, _, _ := t.IntEncoding()
		if len(b) > 8 || len(b) == 0 {
			return raw
		}
		u := le(b)
		switch {
		case enc&4 != 0: // BTF_INT_BOOL
			return Value{Kind: vBool, U: u}
		case enc&1 != 0:
			return Value{Kind: vInt, I: signExtend(u, len(b))}
		}
		return Value{Kind: vUint, U: u}
	case btf.KindPtr:
		if len(b) != 8 {
			return raw
		}
		return Value{Kind: vPtr, U: le(b)}
	case btf.KindEnum, btf.KindEnum64:
		if len(b) > 8 || len(b) == 0 {
			return raw
		}
		u := le(b)
		v := Value{Kind: vUint, U: u}
		if t.KindFlag() {
			v = Value{Kind: vInt, I: signExtend(u, len(b))}
			u = uint64(v.I)
		}
		for _, e := range t.EnumValues() {
			if uint64(e.Value) == u || t.Kind() == btf.KindEnum && uint32(e.Value) == uint32(u) && len(b) <= 4 {
				n, _ := spec.StringAt(e.NameOff)
				if n != "" {
					v.Kind, v.S = vEnum, n
				}
				break
			}
		}
		return v
	case btf.KindFloat:
		switch len(b) {
		case 4:
			return Value{Kind: vFloat, F: float64(math.Float32frombits(uint32(le(b))))}
		case 8:
			return Value{Kind: vFloat, F: math.Float64frombits(le(b))}
		}
		return raw
	case btf.KindArray:
		elem, _, n := t.Array()
		es := sizeOf(spec, elem)
		if isCharType(spec, elem) {
			return Value{Kind: vString, S: cString(b)}
		}
		if es <= 0 {
			return raw
		}
		v := Value{Kind: vArray}
		for i := 0; i < int(n) && i < maxElems && (i+1)*es <= len(b); i++ {
			v.Elems = append(v.Elems, decodeAt(spec, elem, b[i*es:(i+1)*es], depth+1))
		}
		return v
	case btf.KindStruct, btf.KindUnion:
		v := Value{Kind: vStruct}
		for _, m := range t.Members() {
			name, _ := spec.StringAt(m.NameOff)
			bitOff, bitSize := t.MemberBitOffset(m)
			var mv Value
			switch {
			case bitSize != 0:
				if (bitOff+bitSize+7)/8 > uint32(len(b)) || bitSize > 64 {
					continue
				}
				mv = bitfield(spec, m.Type, b, bitOff, bitSize)
			default:
				off, ms := int(bitOff/8), sizeOf(spec, m.Type)
				if bitOff%8 != 0 || ms <= 0 || off+ms > len(b) {
					continue
				}
				mv = decodeAt(spec, m.Type, b[off:off+ms], depth+1)
			}
			if name == "" && mv.Kind == vStruct {
				v.Fields = append(v.Fields, mv.Fields...) // anonymous member
				continue
			}
			v.Fields = append(v.Fields, NamedValue{name, mv})
		}
		return v
	}
	return raw
}

func bitfield(spec *btf.Spec, id btf.TypeID, b []byte, off, n uint32) Value {
	var buf [16]byte
	copy(buf[:], b)
	lo, hi := binary.LittleEndian.Uint64(buf[:]), binary.LittleEndian.Uint64(buf[8:])
	var u uint64
	if off >= 64 {
		u = hi >> (off - 64)
	} else {
		u = lo >> off
		if off > 0 {
			u |= hi << (64 - off)
		}
	}
	if n < 64 {
		u &= 1<<n - 1
	}
	_, signed, _ := scalarInfo(spec, id)
	if signed && n < 64 {
		return Value{Kind: vInt, I: int64(u<<(64-n)) >> (64 - n)}
	}
	return Value{Kind: vUint, U: u}
}

func le(b []byte) uint64 {
	var buf [8]byte
	copy(buf[:], b)
	return binary.LittleEndian.Uint64(buf[:])
}

func signExtend(u uint64, size int) int64 {
	if size >= 8 {
		return int64(u)
	}
	sh := 64 - 8*uint(size)
	return int64(u<<sh) >> sh
}

func rawHex(b []byte) string {
	var s strings.Builder
	s.WriteString("0x")
	for i := len(b) - 1; i >= 0; i-- {
		fmt.Fprintf(&s, "%02x", b[i])
	}
	return s.String()
}

// Text spells v for the line output; hex prints integers in hex.
func (v Value) Text(hex bool) string {
	var b strings.Builder
	v.text(&b, hex)
	return b.String()
}

func (v Value) text(b *strings.Builder, hex bool) {
	switch v.Kind {
	case vInt:
		if hex {
			if v.I < 0 {
				fmt.Fprintf(b, "-%#x", -uint64(v.I))
			} else {
				fmt.Fprintf(b, "%#x", v.I)
			}
			return
		}
		b.WriteString(strconv.FormatInt(v.I, 10))
	case vUint:
		if hex {
			fmt.Fprintf(b, "%#x", v.U)
			return
		}
		b.WriteString(strconv.FormatUint(v.U, 10))
	case vPtr:
		fmt.Fprintf(b, "%#x", v.U)
	case vBool:
		b.WriteString(strconv.FormatBool(v.U != 0))
	case vEnum, vRaw:
		b.WriteString(v.S)
	case vString:
		b.WriteString(strconv.Quote(v.S))
	case vFloat:
		b.WriteString(strconv.FormatFloat(v.F, 'g', -1, 64))
	case vStruct:
		b.WriteByte('{')
		for i, f := range v.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			if f.Name != "" {
				b.WriteString(f.Name + "=")
			}
			f.Value.text(b, hex)
		}
		b.WriteByte('}')
	case vArray:
		b.WriteByte('[')
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.text(b, hex)
		}
		b.WriteByte(']')
	case vUnavailable:
		b.WriteString("(unavailable)")
	case vFault:
		b.WriteString("(fault)")
	}
}

// MarshalJSON writes v as JSON: integers as numbers, pointers as hex
// strings, enumerators and strings as strings, structs as objects in
// member order, an unavailable value or a fault as null.
func (v Value) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	v.json(&b)
	return b.Bytes(), nil
}

func (v Value) json(b *bytes.Buffer) {
	switch v.Kind {
	case vInt:
		b.WriteString(strconv.FormatInt(v.I, 10))
	case vUint:
		b.WriteString(strconv.FormatUint(v.U, 10))
	case vBool:
		b.WriteString(strconv.FormatBool(v.U != 0))
	case vFloat:
		if math.IsInf(v.F, 0) || math.IsNaN(v.F) {
			writeJSONString(b, strconv.FormatFloat(v.F, 'g', -1, 64))
			return
		}
		b.WriteString(strconv.FormatFloat(v.F, 'g', -1, 64))
	case vPtr:
		writeJSONString(b, fmt.Sprintf("%#x", v.U))
	case vEnum, vString, vRaw:
		writeJSONString(b, v.S)
	case vStruct:
		b.WriteByte('{')
		for i, f := range v.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, f.Name)
			b.WriteByte(':')
			f.Value.json(b)
		}
		b.WriteByte('}')
	case vArray:
		b.WriteByte('[')
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.json(b)
		}
		b.WriteByte(']')
	default:
		b.WriteString("null")
	}
}

func writeJSONString(b *bytes.Buffer, s string) {
	j, _ := json.Marshal(s)
	b.Write(j)
}
