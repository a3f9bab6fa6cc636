package resolve

import (
	"fmt"
	"testing"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/site"
)

func TestFetchArgs(t *testing.T) {
	u32 := TypeInfo{Name: "u32", Size: 4}
	s16 := TypeInfo{Name: "short", Size: 2, Signed: true}
	ptr := TypeInfo{Name: "struct sock *", Size: 8, Pointer: true}
	pair := TypeInfo{Name: "struct pair", Size: 16, Aggregate: true}
	cfa := func(pc uint64) (uint32, int64, bool) { return 7, 96, pc == 0x1000 }
	for _, tc := range []struct {
		name       string
		arch       arch.Arch
		ti         TypeInfo
		loc        site.Location
		pc         uint64
		kprobe     string // "" = unavailable for kprobe_events
		bpftrace   string
		wantFields int
		read       string // Read of the first fetch, "" = nil
	}{
		{"reg", arch.X86_64, ptr, site.Location{Kind: site.LocReg, Reg: 3}, 0, "%bx:x64", `(uint64)reg("bx")`, 1, "reg 3"},
		{"reg r12", arch.X86_64, u32, site.Location{Kind: site.LocReg, Reg: 12}, 0, "%r12:u32", `(uint32)reg("r12")`, 1, "reg 12"},
		{"xmm", arch.X86_64, u32, site.Location{Kind: site.LocReg, Reg: 17}, 0, "", "", 1, ""},
		{"mem", arch.X86_64, s16, site.Location{Kind: site.LocMem, Reg: 7, Offset: 8}, 0, "+8(%sp):s16", `*(int16*)(reg("sp") +8)`, 1, "*(reg 7 +8):2"},
		{"mem neg", arch.X86_64, u32, site.Location{Kind: site.LocMem, Reg: 6, Offset: -20}, 0, "-20(%bp):u32", `*(uint32*)(reg("bp") -20)`, 1, "*(reg 6 -20):4"},
		{"const", arch.X86_64, u32, site.Location{Kind: site.LocConst, Value: 10}, 0, `\0xa:u32`, "(uint32)10", 1, "const 0xa"},
		{"const neg", arch.X86_64, s16, site.Location{Kind: site.LocConst, Value: 0xfffffffffffffffe, Signed: true}, 0, `\0xfffe:s16`, "(int16)-2", 1, "const 0xfffe"},
		{"addr", arch.X86_64, ptr, site.Location{Kind: site.LocAddr, Value: 0xffffffff82a00000}, 0, `\0xffffffff82a00000:x64`, "(uint64)0xffffffff82a00000", 1, "const 0xffffffff82a00000"},
		{"pair", arch.X86_64, pair, site.Location{Kind: site.LocRegPair, Reg: 0, Reg2: 1}, 0, "%ax:x64", `reg("ax")`, 2, "reg 0"},
		{"regoff0", arch.X86_64, ptr, site.Location{Kind: site.LocRegOffset, Reg: 7}, 0, "%sp:x64", `(uint64)(reg("sp") +0)`, 1, "reg 7"},
		{"regoff", arch.X86_64, ptr, site.Location{Kind: site.LocRegOffset, Reg: 7, Offset: 16}, 0, "", `(uint64)(reg("sp") +16)`, 1, "reg 7 +16"},
		{"fbreg cfa", arch.X86_64, ptr, site.Location{Kind: site.LocRegOffset, Reg: site.FBReg, Offset: -96}, 0x1000, "%sp:x64", `(uint64)(reg("sp") +0)`, 1, "reg 7"},
		{"fbreg mem", arch.X86_64, u32, site.Location{Kind: site.LocMem, Reg: site.FBReg, Offset: -80}, 0x1000, "+16(%sp):u32", `*(uint32*)(reg("sp") +16)`, 1, "*(reg 7 +16):4"},
		{"fbreg no cfa", arch.X86_64, u32, site.Location{Kind: site.LocMem, Reg: site.FBReg, Offset: -80}, 0x2000, "", "", 1, ""},
		{"unavailable", arch.X86_64, u32, site.Location{}, 0, "", "", 1, ""},
		{"arm64 reg", arch.ARM64, ptr, site.Location{Kind: site.LocReg, Reg: 19}, 0, "%x19:x64", `(uint64)reg("r19")`, 1, "reg 19"},
		{"arm64 sp", arch.ARM64, u32, site.Location{Kind: site.LocMem, Reg: 31, Offset: 40}, 0, "+40(%sp):u32", `*(uint32*)(reg("sp") +40)`, 1, "*(reg 31 +40):4"},
		{"arm64 fp reg", arch.ARM64, u32, site.Location{Kind: site.LocReg, Reg: 64}, 0, "", "", 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := FetchArgs(tc.arch, []string{"p"}, []TypeInfo{tc.ti}, []site.Location{tc.loc}, tc.pc, cfa)
			if len(f) != tc.wantFields {
				t.Fatalf("%d fetches, want %d: %+v", len(f), tc.wantFields, f)
			}
			if f[0].Arg != tc.kprobe || f[0].Expr != tc.bpftrace {
				t.Errorf("got %q / %q, want %q / %q", f[0].Arg, f[0].Expr, tc.kprobe, tc.bpftrace)
			}
			if (f[0].Arg == "") != (f[0].Unavailable != "") {
				t.Errorf("kprobe %q but unavailable %q: an unavailable fetch must say why", f[0].Arg, f[0].Unavailable)
			}
			if got := describeRead(f[0].Read); got != tc.read {
				t.Errorf("Read %s, want %s", got, tc.read)
			}
			if tc.wantFields == 2 && (describeRead(f[1].Read) != "reg 1" || f[0].Name != "p_lo" || f[1].Name != "p_hi" || f[1].Arg != "%dx:x64") {
				t.Errorf("pair: %+v", f)
			}
			// A tracer groups the halves by their parts, not their names.
			want := [][]Fetch{f}
			if tc.wantFields == 1 {
				want = [][]Fetch{f[:1]}
			}
			if got := (&Place{Fetches: f}).ByParam(1); len(got[0]) != len(want[0]) {
				t.Errorf("ByParam: %d fetches for the parameter, want %d (parts %v)", len(got[0]), len(want[0]), []Part{f[0].Part})
			}
		})
	}
}

func TestFieldNamesUnique(t *testing.T) {
	f := FetchArgs(arch.X86_64, []string{"a", "a", "", "1x"}, make([]TypeInfo, 4), make([]site.Location, 4), 0, nil)
	var names []string
	for _, x := range f {
		names = append(names, x.Name)
	}
	want := []string{"a", "a_2", "arg3", "_1x"}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("names %v, want %v", names, want)
			break
		}
	}
}

func describeRead(r *Read) string {
	switch {
	case r == nil:
		return ""
	case r.Const:
		return fmt.Sprintf("const %#x", r.Value)
	}
	s := fmt.Sprintf("reg %d", r.Reg)
	if r.Off != 0 {
		s += fmt.Sprintf(" %+d", r.Off)
	}
	if r.Size > 0 {
		s = fmt.Sprintf("*(%s):%d", s, r.Size)
	}
	return s
}
