package arch

import (
	"fmt"
	"testing"
)

func TestSpell(t *testing.T) {
	for _, tc := range []struct {
		a    Arch
		reg  uint32
		want string
	}{
		{X86_64, 0, "%ax"}, {X86_64, 5, "%di"}, {X86_64, 7, "%sp"}, {X86_64, 15, "%r15"}, {X86_64, 16, "%ip"},
		{X86_64, 17, "%xmm0"}, {X86_64, 32, "%xmm15"}, {X86_64, 33, "%st0"}, {X86_64, 48, "%mm7"}, {X86_64, 49, "reg49"},
		{ARM64, 0, "x0"}, {ARM64, 30, "x30"}, {ARM64, 31, "sp"}, {ARM64, 32, "reg32"}, {ARM64, 64, "v0"}, {ARM64, 95, "v31"}, {ARM64, 96, "reg96"},
		{Unknown, 5, "reg5"},
	} {
		if got := tc.a.Spell(tc.reg); got != tc.want {
			t.Errorf("%v.Spell(%d) = %q, want %q", tc.a, tc.reg, got, tc.want)
		}
	}
}

// The registers a site line names: the first argument register of each
// architecture, spelled for a person and for kprobe_events.
func ExampleArch_Spell() {
	for _, a := range []Arch{X86_64, ARM64} {
		r := a.ArgRegs()[0]
		kp, _ := a.RegName(r)
		fmt.Printf("%v: DWARF reg%d is %s (kprobe_events %%%s)\n", a, r, a.Spell(r), kp)
	}
	// Output:
	// x86_64: DWARF reg5 is %di (kprobe_events %di)
	// arm64: DWARF reg0 is x0 (kprobe_events %x0)
}
