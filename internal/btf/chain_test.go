package btf

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// chainFixture is vmlinux's BTF with tcp_bbr.ko's split on it.
func chainFixture(t *testing.T) (vm, mod *Spec) {
	t.Helper()
	_, vm = vmlinux(t)
	mod, err := Parse(readFixture(t, "tcp_bbr.btf.gz"), vm)
	if err != nil {
		t.Fatal(err)
	}
	return vm, mod
}

func TestChain(t *testing.T) {
	vm, mod := chainFixture(t)
	if c := mod.Chain(); len(c) != 2 || c[0] != vm || c[1] != mod {
		t.Fatalf("Chain = %v", c)
	}
	n, next := 0, TypeID(1)
	for id, ty := range mod.All() {
		if id != next {
			t.Fatalf("All yields [%d] after [%d]", id, next-1)
		}
		if want, _ := mod.TypeByID(id); want != ty {
			t.Fatalf("All: [%d] is not TypeByID's", id)
		}
		next++
		n++
	}
	if n != vm.NumTypes()+mod.NumTypes() {
		t.Errorf("All yields %d types, the chain has %d", n, vm.NumTypes()+mod.NumTypes())
	}
	funcs := mod.OfKind(KindFunc)
	if len(funcs) == 0 || !slices.IsSorted(funcs) || funcs[len(funcs)-1] < mod.FirstID() {
		t.Errorf("OfKind(FUNC): %d ids, not sorted or none of the module's", len(funcs))
	}
}

func TestFuncsByName(t *testing.T) {
	vm, mod := chainFixture(t)
	for _, name := range []string{"tcp_snd_cwnd_set", "bbr_main", "kmalloc_trace"} {
		var want []TypeID
		for id, ty := range mod.All() {
			if ty.Kind() == KindFunc && mod.Name(ty) == name {
				want = append(want, id)
			}
		}
		if got := mod.FuncsByName(name); !slices.Equal(got, want) {
			t.Errorf("FuncsByName(%s) = %v, want %v", name, got, want)
		}
	}
	if got := mod.FuncsByName("bbr_mai"); got != nil {
		t.Errorf("a prefix matches: %v", got)
	}
	if got := vm.FuncsByName("bbr_main"); got != nil {
		t.Errorf("the base finds its split's FUNC: %v", got)
	}
}

// TestResolveSize builds the types by hand: a typedef of a const array of
// three pointers, and a cycle.
func TestResolveSize(t *testing.T) {
	s := NewSpec(nil)
	intID, _ := s.Add(NewInt(s.AddString("int"), 4, IntSigned, 0, 32))
	ptr, _ := s.Add(NewPtr(intID))
	arr, _ := s.Add(NewArray(ptr, intID, 3))
	cnst, _ := s.Add(NewConst(arr))
	td, _ := s.Add(NewTypedef(s.AddString("ptrs_t"), cnst))
	loop, _ := s.Add(NewTypedef(s.AddString("loop"), td+2))
	s.Add(NewConst(loop))
	huge, _ := s.Add(NewArray(arr, intID, 1<<31))

	for _, c := range []struct {
		id       TypeID
		ptr      uint32
		size     uint32
		resolved TypeID
	}{
		{intID, 8, 4, intID}, {ptr, 8, 8, ptr}, {ptr, 4, 4, ptr},
		{arr, 8, 24, arr}, {td, 8, 24, arr}, {td, 4, 12, arr},
		{loop, 8, 0, 0}, {huge, 8, 0, huge}, {0, 8, 0, 0}, {1000, 8, 0, 0},
	} {
		if got := s.Size(c.id, c.ptr); got != c.size {
			t.Errorf("Size([%d], %d) = %d, want %d", c.id, c.ptr, got, c.size)
		}
		_, id, err := s.Resolve(c.id)
		if id != c.resolved || (err == nil) != (c.resolved != 0) {
			t.Errorf("Resolve([%d]) = [%d], %v; want [%d]", c.id, id, err, c.resolved)
		}
	}
	if _, _, err := s.Resolve(0); !errors.Is(err, ErrVoid) {
		t.Errorf("Resolve(void) = %v", err)
	}
}

// TestConstStrings: known values print as the kernel and bpftool name
// them, unknown ones stay visible.
func TestConstStrings(t *testing.T) {
	for _, c := range []struct {
		v    fmt.Stringer
		want string
	}{
		{KindLocSec, "LOCSEC"}, {KindInt, "INT"}, {Kind(42), "Kind(42)"},
		{LinkageGlobal, "global"}, {Linkage(7), "Linkage(7)"},
		{IntBool, "BOOL"}, {IntEncoding(3), "IntEncoding(3)"},
		{LocReg | LocDeref, "REG|DEREF"}, {LocFlags(0), "0"}, {LocConst | 0x100, "CONST|0x100"},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("%#v.String() = %q, want %q", c.v, got, c.want)
		}
	}
	if kindString(Kind(42)) != "UNKNOWN" || intEncString(3) != "UNKN" || linkageString(7) != "(unknown)" {
		t.Error("bpftool's spellings of unknown values changed")
	}
}
