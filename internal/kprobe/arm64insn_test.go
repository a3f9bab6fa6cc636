package kprobe

import (
	"encoding/binary"
	"strings"
	"testing"
)

func a64Text(words ...uint32) []byte {
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// Encodings from the Debian 6.1 arm64 vmlinux (aarch64-linux-gnu-objdump),
// at sites the kernel refused in the e2e run.
const casa = 0x88e27c65 // casa w5, w2, [x3]

func TestArm64Refusal(t *testing.T) {
	const (
		nop   = 0xd503201f
		movX0 = 0xd2800000 // mov x0, #0x0

		ldaxr    = 0x885ffc01 // ldaxr w1, [x0]
		stlxr    = 0x8802fc01 // stlxr w2, w1, [x0]
		msrDAIF  = 0xd50343df // msr daifset, #0xf
		msrReg   = 0xd51b4237 // msr daif, x23
		mrsDAIF  = 0xd53b4235 // mrs x21, daif
		mrsSPEL0 = 0xd5384100 // mrs x0, sp_el0
		autiasp  = 0xd50323bf
		paciasp  = 0xd503233f
		yield    = 0xd503203f
		brk      = 0xd4210000 // brk #0x800
		cbz      = 0xb4000040 // cbz x0, +8
	)
	for _, tc := range []struct {
		name  string
		words []uint32
		off   uint64
		want  string // substring; "" for no refusal
	}{
		{"plain", []uint32{nop, movX0}, 8, ""},
		{"msr imm", []uint32{msrDAIF}, 8, "MSR"},
		{"msr reg", []uint32{msrReg}, 8, "MSR"},
		{"mrs daif", []uint32{mrsDAIF}, 8, "MRS of DAIF"},
		{"mrs sp_el0 steps", []uint32{mrsSPEL0}, 8, ""},
		{"autiasp", []uint32{autiasp}, 8, "HINT #29"},
		{"paciasp steps", []uint32{paciasp}, 0, ""},
		{"yield", []uint32{yield}, 8, "HINT #1"},
		{"brk", []uint32{brk}, 8, "exception-generating"},
		{"ldaxr itself", []uint32{ldaxr}, 8, "exclusive load/store"},
		{"after casa", []uint32{casa, movX0, cbz}, 64, "exclusive sequence"},
		{"after ldaxr, stlxr between", []uint32{ldaxr, stlxr, cbz}, 64, ""},
		// The scan stops at the function start (off), as the kernel's
		// kallsyms lookup bounds it.
		{"casa before the function", []uint32{casa, movX0, cbz}, 4, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ARM64Refusal(a64Text(tc.words...), tc.off)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("ARM64Refusal = %q, want %q", got, tc.want)
			}
		})
	}
	// The window is 32 instructions: a CAS 32 back counts, 33 back not.
	for _, tc := range []struct {
		back int
		want bool
	}{{32, true}, {33, false}} {
		w := []uint32{casa}
		for range tc.back - 1 {
			w = append(w, nop)
		}
		w = append(w, movX0)
		if got := ARM64Refusal(a64Text(w...), 4096); (got != "") != tc.want {
			t.Errorf("casa %d instructions back: %q, want refused=%v", tc.back, got, tc.want)
		}
	}
}
