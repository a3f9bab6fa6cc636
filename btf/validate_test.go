package btf

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// validBase is a small base BTF that validates cleanly: [1] int, [2]
// FUNC_PROTO int(arg1..arg6), [3] FUNC foo, [4]-[9] LOC_PARAM, [10]
// LOC_PROTO, [11] LOCSEC; plus [12] struct s {int a; int b:3;}, [13] VAR v
// of int, [14] unsigned char.
func validBase(t *testing.T) *Spec {
	s := goldenLoc(t)
	mustAdd(t, s, NewStruct(s.AddString("s"), 8, []Member{{s.AddString("a"), 1, 0}, {s.AddString("b"), 1, 3<<24 | 32}}, false))
	mustAdd(t, s, NewVar(s.AddString("v"), 1, 0))
	mustAdd(t, s, NewInt(s.AddString("unsigned char"), 1, 0, 0, 8))
	if errs := s.Validate(); len(errs) != 0 {
		t.Fatal(errs)
	}
	return s
}

// TestValidateRules violates each rule once and expects exactly that one
// violation, naming the type id, kind and rule.
func TestValidateRules(t *testing.T) {
	raw := func(k Kind, vlen int, kflag bool, name, st uint32, data ...uint32) Type {
		return Type{NameOff: name, Info: MakeInfo(k, vlen, kflag), SizeType: st, Data: data}
	}
	cases := []struct {
		name string
		ty   func(s *Spec) Type
		kind Kind
		rule string
	}{
		{"int kflag", func(s *Spec) Type { ty := NewInt(s.AddString("i"), 4, 0, 0, 32); ty.Info |= 1 << 31; return ty }, KindInt, "kind_flag"},
		{"int anon", func(s *Spec) Type { return NewInt(0, 4, 0, 0, 32) }, KindInt, "must be named"},
		{"int data", func(s *Spec) Type { ty := NewInt(s.AddString("i"), 4, 0, 0, 32); ty.Data[0] |= 0x100; return ty }, KindInt, "Invalid int_data"},
		{"int bits>size", func(s *Spec) Type { return NewInt(s.AddString("i"), 2, 0, 0, 32) }, KindInt, "nr_bits exceeds type_size"},
		{"int bits>128", func(s *Spec) Type { return NewInt(s.AddString("i"), 16, 0, 0, 129) }, KindInt, "nr_bits exceeds 128"},
		{"int offset", func(s *Spec) Type { return NewInt(s.AddString("i"), 16, 0, 100, 64) }, KindInt, "bits_offset + nr_bits"},
		{"int size", func(s *Spec) Type { return NewInt(s.AddString("i"), 3, 0, 0, 8) }, KindInt, "Invalid int size"},
		{"int encoding", func(s *Spec) Type { return NewInt(s.AddString("i"), 4, 3, 0, 32) }, KindInt, "Unsupported encoding"},
		{"ptr named", func(s *Spec) Type { ty := NewPtr(1); ty.NameOff = s.AddString("p"); return ty }, KindPtr, "must be anonymous"},
		{"ptr vlen", func(s *Spec) Type { ty := NewPtr(1); ty.Info |= 1; return ty }, KindPtr, "vlen != 0"},
		{"ptr dangling", func(s *Spec) Type { return NewPtr(9999) }, KindPtr, "no such type"},
		{"name offset", func(s *Spec) Type { return NewTypedef(0xfffff, 1) }, KindTypedef, "Invalid name_offset"},
		{"typedef name", func(s *Spec) Type { return NewTypedef(s.AddString("a b"), 1) }, KindTypedef, "Invalid name"},
		{"typedef anon", func(s *Spec) Type { return NewTypedef(0, 1) }, KindTypedef, "must be named"},
		{"type_tag dangling", func(s *Spec) Type { return NewTypeTag(s.AddString("user"), 500) }, KindTypeTag, "no such type"},
		{"type_tag anon", func(s *Spec) Type { return NewTypeTag(0, 1) }, KindTypeTag, "tag value"},
		{"array size", func(s *Spec) Type { ty := NewArray(1, 1, 4); ty.SizeType = 16; return ty }, KindArray, "size != 0"},
		{"array elem", func(s *Spec) Type { return NewArray(0, 1, 4) }, KindArray, "Invalid elem"},
		{"array index", func(s *Spec) Type { return NewArray(1, 12, 4) }, KindArray, "not an int"},
		{"member name", func(s *Spec) Type {
			return NewStruct(0, 4, []Member{{s.AddString("1x"), 1, 0}}, false)
		}, KindStruct, "member 0"},
		{"member void", func(s *Spec) Type { return NewStruct(0, 4, []Member{{0, 0, 0}}, false) }, KindStruct, "void"},
		{"bitfield size 129", func(s *Spec) Type { return NewStruct(0, 64, []Member{{0, 14, 129 << 24}}, false) }, KindStruct, "bitfield_size"},
		{"union offset", func(s *Spec) Type { return NewStruct(0, 8, []Member{{0, 1, 32}}, true) }, KindUnion, "bits_offset"},
		{"struct order", func(s *Spec) Type {
			return NewStruct(0, 8, []Member{{0, 1, 32}, {0, 1, 0}}, false)
		}, KindStruct, "decreasing"},
		{"member offset", func(s *Spec) Type { return NewStruct(0, 4, []Member{{0, 1, 40}}, false) }, KindStruct, "bits_offset exceeds its struct size"},
		{"struct size", func(s *Spec) Type { return NewStruct(0, 4, []Member{{0, 1, 8}}, false) }, KindStruct, "exceeds struct_size"},
		{"bitfield size", func(s *Spec) Type { return NewStruct(0, 4, []Member{{0, 1, 30<<24 | 8}}, false) }, KindStruct, "exceeds struct_size"},
		{"bitfield struct", func(s *Spec) Type { return NewStruct(0, 16, []Member{{0, 12, 3<<24 | 8}}, false) }, KindStruct, "not an int or enum"},
		{"member align", func(s *Spec) Type { return NewStruct(0, 16, []Member{{0, 12, 4}}, false) }, KindStruct, "not byte aligned"},
		{"array overflow", func(s *Spec) Type { return NewArray(12, 1, 1<<30) }, KindArray, "overflows U32_MAX"},
		{"enum size", func(s *Spec) Type {
			return NewEnum(0, 3, []EnumValue{{s.AddString("A"), 1}}, false)
		}, KindEnum, "Unexpected size"},
		{"enumerator anon", func(s *Spec) Type { return NewEnum(0, 4, []EnumValue{{0, 1}}, false) }, KindEnum, "enumerator 0"},
		{"enum64 size", func(s *Spec) Type {
			ty := NewEnum(0, 8, []EnumValue{{s.AddString("A"), 1}}, false)
			ty.SizeType = 5
			return ty
		}, KindEnum64, "Unexpected size"},
		{"fwd anon", func(s *Spec) Type { return NewFwd(0, false) }, KindFwd, "must be named"},
		{"fwd type", func(s *Spec) Type { ty := NewFwd(s.AddString("f"), false); ty.SizeType = 1; return ty }, KindFwd, "type != 0"},
		{"func linkage", func(s *Spec) Type { return NewFunc(s.AddString("f"), 2, 2) }, KindFunc, "linkage"},
		{"func type", func(s *Spec) Type { return NewFunc(s.AddString("f"), 1, 0) }, KindFunc, "not a FUNC_PROTO"},
		{"func kflag", func(s *Spec) Type { ty := NewFunc(s.AddString("f"), 2, 0); ty.Info |= 1 << 31; return ty }, KindFunc, "kind_flag"},
		{"proto named", func(s *Spec) Type { ty := NewFuncProto(1, nil); ty.NameOff = s.AddString("p"); return ty }, KindFuncProto, "anonymous"},
		{"proto void arg", func(s *Spec) Type { return NewFuncProto(1, []Param{{0, 0}, {0, 1}}) }, KindFuncProto, "arg#1"},
		{"var linkage", func(s *Spec) Type { return NewVar(s.AddString("x"), 1, 2) }, KindVar, "Linkage"},
		{"var void", func(s *Spec) Type { return NewVar(s.AddString("x"), 0, 0) }, KindVar, "void"},
		{"datasec vlen", func(s *Spec) Type { return NewDatasec(s.AddString(".data"), 4, nil) }, KindDatasec, "vlen == 0"},
		{"datasec size", func(s *Spec) Type {
			return NewDatasec(s.AddString(".data"), 0, []VarSecinfo{{13, 0, 4}})
		}, KindDatasec, "size == 0"},
		{"datasec var", func(s *Spec) Type {
			return NewDatasec(s.AddString(".data"), 4, []VarSecinfo{{1, 0, 4}})
		}, KindDatasec, "Not a VAR"},
		{"datasec overlap", func(s *Spec) Type {
			return NewDatasec(s.AddString(".data"), 8, []VarSecinfo{{13, 0, 4}, {13, 2, 4}})
		}, KindDatasec, "offset+size"},
		{"datasec name", func(s *Spec) Type {
			return NewDatasec(s.AddString("a b"), 4, []VarSecinfo{{13, 0, 4}})
		}, KindDatasec, "section name"},
		{"float size", func(s *Spec) Type { return NewFloat(s.AddString("f"), 3) }, KindFloat, "type_size"},
		{"decl_tag idx", func(s *Spec) Type { return NewDeclTag(s.AddString("t"), 12, -2, false) }, KindDeclTag, "component_idx"},
		{"decl_tag member", func(s *Spec) Type { return NewDeclTag(s.AddString("t"), 12, 2, false) }, KindDeclTag, "component_idx"},
		{"decl_tag arg", func(s *Spec) Type { return NewDeclTag(s.AddString("t"), 3, 6, false) }, KindDeclTag, "component_idx"},
		{"loc_param name", func(s *Spec) Type { ty := NewLocParam(4, LocReg, 1); ty.NameOff = s.AddString("x"); return ty }, KindLocParam, "anonymous"},
		{"loc_param kflag", func(s *Spec) Type { ty := NewLocParam(4, LocReg, 1); ty.Info |= 1 << 31; return ty }, KindLocParam, "kind_flag"},
		{"loc_param size 0", func(s *Spec) Type { return NewLocParam(0, LocReg, 1) }, KindLocParam, "size"},
		{"loc_param size 17", func(s *Spec) Type { return NewLocParam(17, LocReg, 1) }, KindLocParam, "size"},
		{"loc_param deref", func(s *Spec) Type { return NewLocParam(8, LocDeref, 1) }, KindLocParam, "Invalid flags"},
		{"loc_param const vlen", func(s *Spec) Type { return NewLocParam(8, LocConst, 1) }, KindLocParam, "Invalid flags"},
		{"loc_param const size", func(s *Spec) Type { return NewLocParam(16, LocConst, 1, 2) }, KindLocParam, "Invalid flags"},
		{"loc_param const vlen 3", func(s *Spec) Type { return NewLocParam(4, LocConst|LocSigned, 1, 2, 3) }, KindLocParam, "Invalid flags"},
		{"loc_param reg vlen", func(s *Spec) Type { return NewLocParam(8, LocReg, 1, 2, 3) }, KindLocParam, "Invalid flags"},
		{"loc_param deref vlen", func(s *Spec) Type { return NewLocParam(8, LocReg|LocDeref, 1, 2) }, KindLocParam, "Invalid flags"},
		{"loc_param offset vlen", func(s *Spec) Type { return NewLocParam(8, LocReg|LocOffset, 1) }, KindLocParam, "Invalid flags"},
		{"loc_param vlen 0", func(s *Spec) Type { return NewLocParam(8, LocReg) }, KindLocParam, "Invalid flags"},
		{"loc_param addr", func(s *Spec) Type { return NewLocParam(8, LocAddr|LocReg, 1) }, KindLocParam, "Invalid flags"},
		{"loc_proto type", func(s *Spec) Type { ty := NewLocProto([]TypeID{4}); ty.SizeType = 1; return ty }, KindLocProto, "loc_proto type"},
		{"loc_proto param", func(s *Spec) Type { return NewLocProto([]TypeID{1}) }, KindLocProto, "not a LOC_PARAM"},
		{"loc_proto dangling", func(s *Spec) Type { return NewLocProto([]TypeID{4000}) }, KindLocProto, "no such type"},
		{"loc_proto kflag", func(s *Spec) Type { ty := NewLocProto(nil); ty.Info |= 1 << 31; return ty }, KindLocProto, "kind_flag"},
		{"locsec anon", func(s *Spec) Type { return NewLocSec(0, []LocEntry{{3, 10, 0}}) }, KindLocSec, "section name"},
		{"locsec name", func(s *Spec) Type { return NewLocSec(s.AddString("in line"), []LocEntry{{3, 10, 0}}) }, KindLocSec, "section name"},
		{"locsec size", func(s *Spec) Type {
			ty := NewLocSec(s.AddString(".text"), []LocEntry{{3, 10, 0}})
			ty.SizeType = 8
			return ty
		}, KindLocSec, "locsec type"},
		{"locsec kflag", func(s *Spec) Type { ty := NewLocSec(s.AddString(".text"), nil); ty.Info |= 1 << 31; return ty }, KindLocSec, "kind_flag"},
		{"locsec func 0", func(s *Spec) Type { return NewLocSec(s.AddString(".text"), []LocEntry{{0, 10, 0}}) }, KindLocSec, "func: void"},
		{"locsec func kind", func(s *Spec) Type { return NewLocSec(s.AddString(".text"), []LocEntry{{2, 10, 0}}) }, KindLocSec, "not a FUNC"},
		{"locsec loc_proto 0", func(s *Spec) Type { return NewLocSec(s.AddString(".text"), []LocEntry{{3, 0, 0}}) }, KindLocSec, "loc_proto: void"},
		{"locsec loc_proto kind", func(s *Spec) Type { return NewLocSec(s.AddString(".text"), []LocEntry{{3, 4, 0}}) }, KindLocSec, "not a LOC_PROTO"},
		{"unknown kind", func(s *Spec) Type { return raw(23, 0, false, 0, 0) }, 23, "Invalid kind"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := validBase(t)
			ty := c.ty(s)
			if ty.Kind() >= NumKinds {
				s.layout = append(BuiltinLayout(), LayoutRecord{})
			}
			id := mustAdd(t, s, ty)
			errs := s.Validate()
			if len(errs) != 1 {
				t.Fatalf("%d violations: %v", len(errs), errs)
			}
			var ve *ValidationError
			if !errors.As(errs[0], &ve) || ve.ID != id || ve.Kind != c.kind || !strings.Contains(ve.Rule, c.rule) {
				t.Fatalf("got %v, want [%d] %s: ...%s...", errs[0], id, c.kind, c.rule)
			}
			// The violation survives Marshal+Parse (ids and strings are
			// global, so the check does not depend on how s was built).
			b := mustMarshal(t, s, MarshalOptions{Layout: s.HasLayout()})
			ps, err := Parse(b, nil)
			if err != nil {
				t.Fatal(err)
			}
			if errs := ps.Validate(); len(errs) != 1 || errs[0].Error() != ve.Error() {
				t.Fatalf("after round trip: %v", errs)
			}
		})
	}
}

// TestValidateLocSec covers the LOCSEC rules that need extra types: a FUNC
// whose type is not a FUNC_PROTO, mismatched vlen, unnamed params.
func TestValidateLocSec(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(s *Spec) Type
		want  []string
	}{
		{"vlen mismatch", func(s *Spec) Type {
			lp := mustAdd(t, s, NewLocProto([]TypeID{4, 5}))
			return NewLocSec(s.AddString("inline.text"), []LocEntry{{3, lp, 0}})
		}, []string{"Mismatched vlen for loc_proto#0"}},
		{"func not proto", func(s *Spec) Type {
			fn := mustAdd(t, s, NewFunc(s.AddString("g"), 1, 0))
			return NewLocSec(s.AddString("inline.text"), []LocEntry{{fn, 10, 0}})
		}, []string{"not a FUNC_PROTO", "not a FUNC_PROTO"}}, // FUNC and LOCSEC
		{"unnamed param", func(s *Spec) Type {
			fp := mustAdd(t, s, NewFuncProto(1, []Param{{0, 1}}))
			fn := mustAdd(t, s, NewFunc(s.AddString("g"), fp, 0))
			lp := mustAdd(t, s, NewLocProto([]TypeID{0}))
			return NewLocSec(s.AddString("inline.text"), []LocEntry{{fn, lp, 0}})
		}, []string{"Invalid arg#1"}},
		{"extern func", func(s *Spec) Type {
			fn := mustAdd(t, s, NewFunc(s.AddString("g"), 2, 2))
			return NewLocSec(s.AddString("inline.text"), []LocEntry{{fn, 10, 0}})
		}, []string{"Invalid func linkage"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := validBase(t)
			mustAdd(t, s, c.build(s))
			errs := s.Validate()
			if len(errs) != len(c.want) {
				t.Fatalf("%d violations: %v", len(errs), errs)
			}
			for i, e := range errs {
				if !strings.Contains(e.Error(), c.want[i]) {
					t.Errorf("violation %d: %v, want %q", i, e, c.want[i])
				}
			}
		})
	}
}

// TestValidateLoops: reference loops are reported, and resolving does not
// hang.
func TestValidateLoops(t *testing.T) {
	s := validBase(t)
	n := s.NextID()
	mustAdd(t, s, NewTypedef(s.AddString("a"), n+1))                              // n   -> n+1
	mustAdd(t, s, NewConst(n+2))                                                  // n+1 -> n+2
	mustAdd(t, s, NewTypedef(s.AddString("b"), n))                                // n+2 -> n
	mustAdd(t, s, NewVolatile(n+3))                                               // self loop
	mustAdd(t, s, NewStruct(s.AddString("r"), 8, []Member{{0, n + 5, 0}}, false)) // struct -> array -> struct
	mustAdd(t, s, NewArray(n+4, 1, 1))
	mustAdd(t, s, NewPtr(n+6)) // pointers break loops: fine
	errs := s.Validate()
	if len(errs) != 3 {
		t.Fatalf("%d violations: %v", len(errs), errs)
	}
	for _, e := range errs {
		if !strings.Contains(e.Error(), "Loop detected") {
			t.Fatal(e)
		}
	}
	// strip() on the loop terminates.
	ty, _ := s.TypeByID(n + 6)
	v := &validator{s: s}
	if v.strip(ty) != ty {
		t.Fatal("strip of a pointer")
	}
	ty, _ = s.TypeByID(n)
	if v.strip(ty) != nil {
		t.Fatal("strip of a loop")
	}
}

// TestValidateHeader: rules of the header and the string section, on
// blobs patched after Marshal.
func TestValidateHeader(t *testing.T) {
	good := mustMarshal(t, validBase(t), MarshalOptions{})
	bo := binary.LittleEndian
	for _, c := range []struct {
		name  string
		patch func(b []byte) []byte
		rule  string
	}{
		{"version", func(b []byte) []byte { b[2] = 2; return b }, "Unsupported version"},
		{"flags", func(b []byte) []byte { b[3] = 1; return b }, "Unsupported flags"},
		{"extra header", func(b []byte) []byte {
			nb := append(append(append([]byte(nil), b[:24]...), make([]byte, 12)...), b[24:]...)
			bo.PutUint32(nb[4:], 36)
			nb[35] = 1
			return nb
		}, "Unsupported btf_header"},
		{"gap", func(b []byte) []byte {
			// move the strings 4 bytes up
			so := bo.Uint32(b[16:])
			nb := append(append(append([]byte(nil), b[:24+so]...), 0, 0, 0, 0), b[24+so:]...)
			bo.PutUint32(nb[16:], so+4)
			return nb
		}, "Unsupported section found"},
		{"trailing", func(b []byte) []byte { return append(b, 0, 0, 0, 0) }, "Total section length too long"},
		{"layout_off without len", func(b []byte) []byte {
			nb := append(append(append([]byte(nil), b[:24]...), make([]byte, 8)...), b[24:]...)
			bo.PutUint32(nb[4:], 32)
			bo.PutUint32(nb[24:], bo.Uint32(b[12:]))
			return nb
		}, "layout_off"},
		{"strings before types", func(b []byte) []byte {
			tl, sl := bo.Uint32(b[12:]), bo.Uint32(b[20:])
			str := append([]byte(nil), b[24+tl:24+tl+sl]...)
			for len(str)%4 != 0 {
				str = append(str, 0)
			}
			nb := append(append(append([]byte(nil), b[:24]...), str...), b[24:24+tl]...)
			bo.PutUint32(nb[8:], uint32(len(str)))
			bo.PutUint32(nb[20:], uint32(len(str)))
			bo.PutUint32(nb[16:], 0)
			return nb
		}, ""}, // valid: the kernel only requires tiling
	} {
		t.Run(c.name, func(t *testing.T) {
			b := c.patch(append([]byte(nil), good...))
			s, err := Parse(b, nil)
			if err != nil {
				t.Fatal(err)
			}
			errs := s.Validate()
			if c.rule == "" {
				if len(errs) != 0 {
					t.Fatal(errs)
				}
				if out := mustMarshal(t, s, MarshalOptions{}); string(out) != string(b) {
					t.Fatal("section order not kept")
				}
				return
			}
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), c.rule) {
				t.Fatalf("got %v, want %q", errs, c.rule)
			}
			var ve *ValidationError
			if !errors.As(errs[0], &ve) || ve.ID != 0 {
				t.Fatalf("not a header violation: %v", errs[0])
			}
		})
	}
	empty := NewSpec(nil)
	if errs := empty.Validate(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "No type found") {
		t.Fatal(errs)
	}
	bad := validBase(t)
	bad.strings[0] = 'x'
	if errs := bad.Validate(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "start with NUL") {
		t.Fatal(errs)
	}
	bad = validBase(t)
	bad.strings = append(bad.strings, 'x')
	if errs := bad.Validate(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "NUL-terminated") {
		t.Fatal(errs)
	}
}
