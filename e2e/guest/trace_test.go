//go:build linux

package main

import (
	"io"
	"strings"
	"testing"
)

// Events as btfinline trace --json writes them, and dmesg lines of the
// module.
const traceEvents = `{"time":"1.000001","func":"btfi_add3","event":"btfi_add3_1","place":"btfi_e2e:btfi_call_regs+0x25","args":{"a":10,"b":4294967331,"c":-8}}
{"time":"1.000002","func":"btfi_wide","event":"btfi_wide_1","place":"btfi_e2e:btfi_call_misc+0x3c","args":{"w":{"lo":65,"hi":18446744073709551610},"tag":5}}
{"time":"1.000003","func":"btfi_deref","event":"btfi_deref_1","place":"btfi_e2e:btfi_call_mem+0x5","args":{"p":"0xffffc90000123e80","p->a":26,"p->b":null},"unavailable":{"p->b":"no location at this site"}}
{"counts":"total","total":3}
`

var traceDmesg = []string{
	"[    1.0] btfi: run n=0x5",
	"[    1.0] btfi: fn=btfi_add3 a=0xa b=0x100000023 c=0xfffffffffffffff8",
	"[    1.0] btfi: fn=btfi_wide w_lo=0x41 w_hi=0xfffffffffffffffa tag=0x5",
	"[    1.0] btfi: fn=btfi_deref p=0xffffc90000123e80 *p_a=0x1a *p_b=0x10",
}

func TestTracecheck(t *testing.T) {
	for _, tc := range []struct {
		name                                         string
		events                                       string
		dmesg                                        []string
		matched, mismatched, unavail, extra, missing int
	}{
		{"all equal", traceEvents, traceDmesg, 8, 0, 1, 0, 0},
		{"a value differs", strings.Replace(traceEvents, `"a":10`, `"a":11`, 1), traceDmesg, 7, 1, 1, 0, 0},
		{"a signed value differs", strings.Replace(traceEvents, `"c":-8`, `"c":-7`, 1), traceDmesg, 7, 1, 1, 0, 0},
		{"a struct member differs", strings.Replace(traceEvents, `"lo":65`, `"lo":64`, 1), traceDmesg, 7, 1, 1, 0, 0},
		{"a call without an event", traceEvents, append(traceDmesg, "btfi: fn=btfi_add3 a=0x1 b=0x2 c=0x3"), 8, 0, 1, 0, 1},
		{"an event without a call", traceEvents, traceDmesg[:3], 6, 0, 0, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tracecheck(io.Discard, strings.NewReader(tc.events), tc.dmesg)
			if err != nil {
				t.Fatal(err)
			}
			if r.matched != tc.matched || r.mismatched != tc.mismatched || r.unavailable != tc.unavail || r.extra != tc.extra || r.missing != tc.missing {
				t.Errorf("%+v, want matched=%d mismatched=%d unavailable=%d extra=%d missing=%d", r, tc.matched, tc.mismatched, tc.unavail, tc.extra, tc.missing)
			}
		})
	}
}

func TestCountcheck(t *testing.T) {
	p0 := map[string][2]uint64{"f_1": {10, 0}, "f_2": {0, 0}, "f_3": {5, 1}}
	p1 := map[string][2]uint64{"f_1": {17, 0}, "f_2": {0, 0}, "f_3": {9, 1}}
	ours := []placeCount{{"f_1", "a+0x1", 7}, {"f_2", "b+0x2", 0}, {"f_3", "c+0x3", 4}}
	r, _ := countcheck(io.Discard, p0, p1, ours)
	if r.equal != 3 || r.differ != 0 || r.hitPlaces != 2 {
		t.Errorf("%+v", r)
	}
	ours[2].Hits = 5
	if r, _ := countcheck(io.Discard, p0, p1, ours); r.differ != 1 {
		t.Errorf("a count one off: %+v", r)
	}
}
