//go:build linux

package main

import (
	"io"
	"strings"
	"testing"
)

// Lines in the shape the 6.1 kernel writes them to tracefs "trace": kprobe
// hits of events defined by btfinline resolve, and printk:console events
// carrying the module's reference lines.
const probes = `
p:inline/btfi_add3_1 btfi_e2e:btfi_call_regs+0x25 a=%bp:u32 b=%bx:u64 c=%r12:s32
p:inline/btfi_konst_1 btfi_e2e:btfi_call_misc+0x1a x=%si:u32 k=\0xa:u32
p:inline/btfi_deref_1 btfi_e2e:btfi_call_mem+0x5 p=%di:x64
p:inline/btfi_outer_1 btfi_e2e:btfi_call_misc+0x6b x=%si:x32 y=%r12:x32
p:inline/btfi_inner_1 btfi_e2e:btfi_call_misc+0x80 p=%si:x32
`

func trace(lines ...string) []string {
	var out []string
	for i, l := range lines {
		ts := "  10.0000" + string(rune('0'+i%10))
		if strings.HasPrefix(l, "btfi: ") {
			out = append(out, "              sh-85      [000] .....  "+ts+": console: "+l)
		} else {
			out = append(out, "              sh-85      [000] d....  "+ts+": "+l)
		}
	}
	return out
}

func TestCheck(t *testing.T) {
	defs, err := readLinesFrom(probes)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		trace []string
		want  checkResult
	}{
		{"match", trace(
			"btfi_add3_1: (btfi_call_regs+0x25/0x5a [btfi_e2e]) a=10 b=4294967331 c=-8",
			"btfi: fn=btfi_add3 a=0xa b=0x100000023 c=0xfffffffffffffff8",
			"btfi_konst_1: (btfi_call_misc+0x1a/0xb3 [btfi_e2e]) x=6 k=10",
			"btfi: fn=btfi_konst x=0x6 k=0xa",
		), checkResult{probed: 5, hit: 2, checked: 5, matched: 5}},
		{"mismatch", trace(
			"btfi_add3_1: (btfi_call_regs+0x25/0x5a [btfi_e2e]) a=11 b=4294967331 c=-8",
			"btfi: fn=btfi_add3 a=0xa b=0x100000023 c=0xfffffffffffffff8",
		), checkResult{probed: 5, hit: 1, checked: 3, matched: 2, mismatched: 1}},
		{"width", trace(
			// a u32 fetch is compared on 32 bits only.
			"btfi_add3_1: (btfi_call_regs+0x25/0x5a [btfi_e2e]) a=4294967295 b=1 c=-1",
			"btfi: fn=btfi_add3 a=0xffffffff b=0x1 c=0xffffffffffffffff",
		), checkResult{probed: 5, hit: 1, checked: 3, matched: 3}},
		{"optional and unavailable", trace(
			"btfi_deref_1: (btfi_call_mem+0x5/0x67 [btfi_e2e]) p=0xff44fff780013a30",
			"btfi: fn=btfi_deref p=0xff44fff780013a30 *p_a=0x5 *p_b=0x6",
			"btfi_inner_1: (btfi_call_misc+0x80/0xb3 [btfi_e2e]) p=0x3",
			"btfi: fn=btfi_inner p=0x3 q=0x4",
		), checkResult{probed: 5, hit: 2, checked: 2, matched: 2, unavailable: 1}},
		{"nested", trace(
			"btfi_outer_1: (btfi_call_misc+0x6b/0xb3 [btfi_e2e]) x=0x1 y=0x2",
			"btfi: fn=btfi_outer x=0x1 y=0x2",
			"btfi_inner_1: (btfi_call_misc+0x80/0xb3 [btfi_e2e]) p=0x3",
			"btfi: fn=btfi_inner p=0x3",
		), checkResult{probed: 5, hit: 2, checked: 3, matched: 3}},
		{"unpaired", trace(
			"btfi_konst_1: (btfi_call_misc+0x1a/0xb3 [btfi_e2e]) x=6 k=10",
		), checkResult{probed: 5, hit: 1, unpaired: 1}},
		// A site whose entry pc gcc put after the printk: the hit follows
		// its reference line, within one run, and is not paired with the
		// next run's line.
		{"hit after its line", trace(
			"btfi: run n=0x5",
			"btfi: fn=btfi_konst x=0x6 k=0xa",
			"btfi_konst_1: (btfi_call_misc+0x1a/0xb3 [btfi_e2e]) x=6 k=10",
			"btfi: done n=0x5",
			"btfi: run n=0x6",
			"btfi: fn=btfi_konst x=0x7 k=0xa",
			"btfi_konst_1: (btfi_call_misc+0x1a/0xb3 [btfi_e2e]) x=7 k=10",
			"btfi: done n=0x6",
		), checkResult{probed: 5, hit: 1, checked: 4, matched: 4}},
		// perf script's lines of the same events (perf record of the
		// inline group and printk:console): GROUP:EVENT, a raw address.
		{"perf script", []string{
			"              sh    85 [000]    10.000001: printk:console: btfi: run n=0x5",
			"              sh    85 [000]    10.000002: inline:btfi_add3_1: (ffffffffc0123025) a=10 b=4294967331 c=-8",
			"              sh    85 [000]    10.000003: printk:console: btfi: fn=btfi_add3 a=0xa b=0x100000023 c=0xfffffffffffffff8",
			"              sh    85 [000]    10.000004: printk:console: btfi: done n=0x5",
		}, checkResult{probed: 5, hit: 1, checked: 3, matched: 3}},
		// A line left over from an earlier run is not taken.
		{"line from another run", trace(
			"btfi: run n=0x5",
			"btfi: fn=btfi_konst x=0x6 k=0xa",
			"btfi: done n=0x5",
			"btfi: run n=0x6",
			"btfi_konst_1: (btfi_call_misc+0x1a/0xb3 [btfi_e2e]) x=7 k=10",
			"btfi: done n=0x6",
		), checkResult{probed: 5, hit: 1, unpaired: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := check(io.Discard, defs, tc.trace)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseProbe(t *testing.T) {
	p, err := parseProbe(`p:inline/btfi_konst_12 btfi_e2e:btfi_call_misc+0x1a x=%si:u32 k=\0xa:s16`)
	if err != nil {
		t.Fatal(err)
	}
	if p.event != "btfi_konst_12" || p.fn != "btfi_konst" || p.types["x"] != "u32" || p.types["k"] != "s16" {
		t.Errorf("parseProbe: %+v", p)
	}
	if _, err := parseProbe("r:foo bar"); err == nil {
		t.Error("a kretprobe line was accepted")
	}
}

func TestUniqueAddrs(t *testing.T) {
	got := uniqueAddrs([]string{"a .text f+0x1 g", "a .text f+0x1 h", "b .text f+0x2 g"})
	if len(got) != 2 || !strings.HasSuffix(got[0], " g") {
		t.Errorf("uniqueAddrs: %q", got)
	}
}

func TestParseBlacklist(t *testing.T) {
	// The lines as kprobe_blacklist_seq_show prints them.
	bl, err := parseBlacklist("0xffffffff81000000-0xffffffff81000040\tasm_exc_divide_error\n" +
		"0xffffffffc0012000-0xffffffffc0012080\tfoo_nokprobe [foo]\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		addr uint64
		in   bool
	}{
		{0xffffffff81000000, true}, {0xffffffff8100003f, true}, {0xffffffff81000040, false},
		{0xffffffffc0012010, true}, {0xffffffff80ffffff, false},
	} {
		if got := bl.contains(c.addr); got != c.in {
			t.Errorf("contains(%#x) = %v, want %v", c.addr, got, c.in)
		}
	}
	for _, bad := range []string{"", "0xffffffff81000000 0xffffffff81000040 sym\n", "junk\n"} {
		if _, err := parseBlacklist(bad); err == nil {
			t.Errorf("parseBlacklist(%q): no error", bad)
		}
	}
}

func TestTagWriter(t *testing.T) {
	var b strings.Builder
	w := &tagWriter{w: &b, tag: "E2E peer perf "}
	io.WriteString(w, "E2E summary sites probed=1\nE2E hits x 1\n")
	if got, want := b.String(), "E2E peer perf summary sites probed=1\nE2E peer perf hits x 1\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestBpftraceHits: bpftrace's printf lines become hits the checker pairs
// with the console's printk lines, hex values with their 0x, the printk
// lines bpftrace cut short taken whole from the kernel log; a value
// bpftrace printed wrong is a mismatch, and a log that does not hold
// bpftrace's printk lines an error.
func TestBpftraceHits(t *testing.T) {
	prog := []string{
		`kprobe:btfi_e2e:btfi_call_regs2+23 { printf("btfi_add3_1 a=%lx b=%ld c=%lu\n", (uint64)reg("di"), (int64)reg("si"), (uint32)reg("dx")); }`,
		`tracepoint:printk:console { printf("console: %s\n", str(args->msg)); }`,
	}
	defs := []string{`p:inline/btfi_add3_1 btfi_e2e:btfi_call_regs2+0x17 a=%di:x64 b=%si:s64 c=%dx:u32`}
	dmesg := []string{
		"[    1.0] btfi: fn=btfi_add3 a=0x1 b=0x2 c=0x3",
		"[    2.0] btfi: run n=1",
		"[    2.1] btfi: fn=btfi_add3 a=0x1f b=0xfffffffffffffffd c=0x7",
		"[    2.2] btfi: done n=1",
	}
	for _, c := range []struct {
		out     string
		cut     string // the printk line as bpftrace printed it
		matched int
		err     bool
	}{
		{"btfi_add3_1 a=1f b=-3 c=7", "btfi: fn=btfi_add3 a=0x1f b=0xfffffffffffffffd c=0x7", 3, false},
		{"btfi_add3_1 a=1e b=-3 c=7", "btfi: fn=btfi_add3 a=0x1f b=0xfffffffffffffffd c=0x7", 2, false},
		{"btfi_add3_1 a=1f b=-3 c=7", "btfi: fn=btfi_add3 a=0x1f b=0xffffff", 3, false},
		{"btfi_add3_1 a=1f b=-3 c=7", "btfi: fn=btfi_add3 a=0x1e", 0, true},
	} {
		out := []string{"console: btfi: run n=1", c.out, "console: " + c.cut, "console: btfi: done n=1"}
		lines, err := bpftraceHits(prog, out, dmesg)
		if (err != nil) != c.err {
			t.Fatalf("%q: error %v, want one: %v", c.cut, err, c.err)
		}
		if err != nil {
			continue
		}
		var b strings.Builder
		res, err := check(&b, defs, lines)
		if err != nil {
			t.Fatal(err)
		}
		if res.checked != 3 || res.matched != c.matched || res.hit != 1 || res.unpaired != 0 {
			t.Errorf("%q, %q: %+v\n%s", c.out, c.cut, res, b.String())
		}
	}
}
