package dedup

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/btfindex"
)

func readBTF(t testing.TB, name string, base *btf.Spec) *btf.Spec {
	t.Helper()
	f, err := os.Open("../btf/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(raw, base)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestIndexLookups: the layered Index of the Debian vmlinux BTF and the
// tcp_bbr module's BTF on it answers every lookup of the converter as
// tables built over the whole chain by string keys, in id order, do: the
// lists in full and ascending, the first ids the lowest.
func TestIndexLookups(t *testing.T) {
	t.Run("vmlinux+tcp_bbr", func(t *testing.T) {
		vm := readBTF(t, "vmlinux.btf.gz", nil)
		checkLookups(t, readBTF(t, "tcp_bbr.btf.gz", vm))
	})
	// Names that several types share, in one Spec and across the chain:
	// the lists must hold them all, in id order.
	t.Run("shared names", func(t *testing.T) {
		base := btf.NewSpec(nil)
		add := func(s *btf.Spec, ty btf.Type) btf.TypeID {
			id, err := s.Add(ty)
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		i32 := add(base, btf.NewInt(base.AddString("int"), 4, btf.IntSigned, 0, 32))
		u8 := add(base, btf.NewInt(base.AddString("u8"), 1, 0, 0, 8))
		for _, tgt := range []btf.TypeID{i32, u8, i32, u8} {
			add(base, btf.NewTypedef(base.AddString("t"), tgt))
			add(base, btf.NewPtr(tgt))
			add(base, btf.NewStruct(base.AddString("s"), 4, []btf.Member{{NameOff: base.AddString("a"), Type: tgt}}, false))
			add(base, btf.NewStruct(0, 4, []btf.Member{{NameOff: base.AddString("a"), Type: tgt}}, false))
		}
		split := btf.NewSpec(base)
		for _, tgt := range []btf.TypeID{u8, i32} {
			add(split, btf.NewTypedef(split.AddString("t"), tgt))
			add(split, btf.NewTypedef(split.AddString("t2"), tgt))
		}
		checkLookups(t, split)
	})
}

// checkLookups compares every lookup of a Converter on the Index of mod's
// chain with tables built by string keys over the chain.
func checkLookups(t *testing.T, mod *btf.Spec) {
	c := NewOn(nil, btf.NewSpec(mod), btfindex.Chain(mod))

	type nk struct {
		k    btf.Kind
		name string
	}
	named := map[nk][]btf.TypeID{}
	anon := map[string][]btf.TypeID{}
	refs := map[string]btf.TypeID{}
	arrays := map[[2]uint32]btf.TypeID{}
	protos := map[string]btf.TypeID{}
	first := func(m map[string]btf.TypeID, k string, id btf.TypeID) {
		if _, ok := m[k]; !ok {
			m[k] = id
		}
	}
	var anonArgs [][4]any
	for id, ty := range mod.All() {
		k, name := ty.Kind(), mod.Name(ty)
		switch k {
		case btf.KindInt, btf.KindFloat, btf.KindFwd, btf.KindTypedef:
			named[nk{k, name}] = append(named[nk{k, name}], id)
		case btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64:
			if k == btf.KindEnum64 {
				k = btf.KindEnum
			}
			if name != "" {
				named[nk{k, name}] = append(named[nk{k, name}], id)
				break
			}
			fn := ""
			if ty.Vlen() > 0 {
				fn, _ = mod.StringAt(ty.Data[0])
			}
			key := fmt.Sprint(k, ty.SizeType, ty.Vlen(), fn)
			if anon[key] == nil {
				anonArgs = append(anonArgs, [4]any{k, ty.SizeType, ty.Vlen(), fn})
			}
			anon[key] = append(anon[key], id)
		case btf.KindArray:
			elem, _, n := ty.Array()
			if _, ok := arrays[[2]uint32{uint32(elem), n}]; !ok {
				arrays[[2]uint32{uint32(elem), n}] = id
			}
		case btf.KindFuncProto:
			first(protos, protoString(ty), id)
		}
		switch k {
		case btf.KindPtr, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypedef:
			first(refs, fmt.Sprint(k, ty.SizeType, name), id)
		}
	}
	for key, want := range named {
		if got := c.named(key.k, key.name); !slices.Equal(got, want) {
			t.Fatalf("named %v %q: %v, want %v", key.k, key.name, got, want)
		}
	}
	for _, a := range anonArgs {
		k, size, vlen, fn := a[0].(btf.Kind), a[1].(uint32), a[2].(int), a[3].(string)
		if got, want := c.anonymous(k, size, vlen, fn), anon[fmt.Sprint(k, size, vlen, fn)]; !slices.Equal(got, want) {
			t.Fatalf("anonymous %v/%d/%d/%q: %v, want %v", k, size, vlen, fn, got, want)
		}
	}
	for id, ty := range mod.All() {
		k, name := ty.Kind(), mod.Name(ty)
		switch k {
		case btf.KindPtr, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypedef:
			if got, _ := c.ref(k, btf.TypeID(ty.SizeType), name); got != refs[fmt.Sprint(k, ty.SizeType, name)] {
				t.Fatalf("[%d] ref: %d, want %d", id, got, refs[fmt.Sprint(k, ty.SizeType, name)])
			}
		case btf.KindArray:
			elem, _, n := ty.Array()
			if got, _ := c.array(elem, n); got != arrays[[2]uint32{uint32(elem), n}] {
				t.Fatalf("[%d] array: %d, want %d", id, got, arrays[[2]uint32{uint32(elem), n}])
			}
		case btf.KindFuncProto:
			if got, _ := c.proto(ty, btfindex.ShapeOf(ty).Named); got != protos[protoString(ty)] {
				t.Fatalf("[%d] proto: %d, want %d", id, got, protos[protoString(ty)])
			}
		}
	}
	t.Logf("%d named keys, %d anonymous, %d refs, %d arrays, %d prototypes", len(named), len(anon), len(refs), len(arrays), len(protos))
}

// protoString spells what a FUNC_PROTO is matched by, as the converter's
// string-keyed table once did: whether a parameter is named, the return
// and the parameter types.
func protoString(t *btf.Type) string {
	named := false
	var types []btf.TypeID
	for _, p := range t.Params() {
		named = named || p.NameOff != 0
		types = append(types, p.Type)
	}
	return fmt.Sprint(named, t.SizeType, types)
}
