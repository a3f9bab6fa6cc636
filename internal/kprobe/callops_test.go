package kprobe

import (
	"encoding/binary"
	"slices"
	"testing"
)

// TestAdjustCallOps: the ftrace call sites of the three arm64 layouts
// (ftrace_call_adjust), at the first instruction ftrace patches.
func TestAdjustCallOps(t *testing.T) {
	const body = 0xa9bf7bfd // stp x29, x30, [sp, #-16]!
	for _, tc := range []struct {
		name  string
		words []uint32 // text from address 0; the sites are at 0 and 0x20
		want  []uint64
		moved bool
	}{
		{"patchable-function-entry=2", // 6.1: two NOPs at the function
			[]uint32{arm64NOP, arm64NOP, body, body, body, body, body, body, arm64NOP, arm64NOP, body, body, body, body, body, body},
			[]uint64{0x20, 0}, false}, // as given
		{"call-ops", // 6.4+: a literal, then the function's two NOPs
			[]uint32{arm64NOP, arm64NOP, arm64NOP, arm64NOP, body, body, body, body, arm64NOP, arm64NOP, arm64NOP, arm64NOP, body, body, body, body},
			[]uint64{0x8, 0x28}, true},
		{"call-ops-bti", // and BTI C first in a BTI kernel
			[]uint32{arm64NOP, arm64NOP, arm64BTIC, arm64NOP, arm64NOP, body, body, body, arm64NOP, arm64NOP, arm64BTIC, arm64NOP, arm64NOP, body, body, body},
			[]uint64{0xc, 0x2c}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := make([]byte, 4*len(tc.words))
			for i, w := range tc.words {
				binary.LittleEndian.PutUint32(b[4*i:], w)
			}
			text := func(sec string, addr uint64) ([]byte, uint64, bool) { return b, addr, sec == ".text" }
			sites := map[string][]uint64{".text": {0x20, 0}}
			moved := adjustCallOps(sites, text)
			if moved != tc.moved || !slices.Equal(sites[".text"], tc.want) {
				t.Errorf("moved %v, sites %#x; want %v, %#x", moved, sites[".text"], tc.moved, tc.want)
			}
		})
	}
}
