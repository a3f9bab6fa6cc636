package trace

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseProbe(t *testing.T) {
	for _, tc := range []struct {
		in, out, err string
	}{
		{"tcp_snd_cwnd_set", "tcp_snd_cwnd_set", ""},
		{"fuse:fuse_request_init", "fuse:fuse_request_init", ""},
		{"nf-tables:x", "nf-tables:x", ""},
		{"f(a, b)", "f(a, b)", ""},
		{" f ( a ,b ) ", "f(a, b)", ""},
		{"f()", "f()", ""},
		{"f(skb->dev->name:str, p->a.b, flags:x)", "f(skb->dev->name:str, p->a.b, flags:x)", ""},
		{"f(a:str:x)", "f(a:str:x)", ""},
		{"foo.isra.0", "foo.isra.0", ""},
		{"", "", "bad function name"},
		{"1f", "", "bad function name"},
		{":f", "", "bad module name"},
		{"m:", "", "bad function name"},
		{"f(a", "", `missing ")"`},
		{"f(a,)", "", `bad name ""`},
		{"f(a-b)", "", `want "->" or "."`},
		{"f(a->)", "", `bad name ""`},
		{"f(a:int)", "", `unknown modifier "int"`},
		{"f(a.1)", "", `bad name "1"`},
	} {
		p, err := ParseProbe(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if p.String() != tc.out {
			t.Errorf("%q: %s, want %s", tc.in, p, tc.out)
		}
	}
}

// Member paths: loads behind the pointer, with the pointee laid out as
// struct sock { u32 cwnd; u32 flags; long stamp; }.
func TestPlanPaths(t *testing.T) {
	for _, file := range []string{"x86_64.elf", "aarch64.elf"} {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join("..", "resolve", "testdata", file)
			sys := fakeRoot(t, path)
			p, err := ParseProbe("cwnd_set(val, sk->cwnd, sk->flags:x, sk->stamp)")
			if err != nil {
				t.Fatal(err)
			}
			pl, err := makePlan(Options{Probes: []Probe{p}, File: path, Sys: sys, Filter: "sk->cwnd != 0"})
			if err != nil {
				t.Fatal(err)
			}
			pp := pl.probes[0]
			if len(pp.fields) != 4 || pp.layout.maxSteps != 2 {
				t.Fatalf("fields %+v, %d steps", pp.fields, pp.layout.maxSteps)
			}
			n := 0
			for i, s := range pl.sites {
				if s.refused != "" {
					continue
				}
				n++
				h := newHarness(t, pp.arch, progConfig{layout: pp.layout, types: pp.types}, len(pl.sites))
				h.patternMemory(32)
				h.setSite(i, s.slots)
				regs := map[uint32]uint64{}
				for r := uint32(0); r < uint32(len(mustRegs(pp.arch).offsets())); r++ {
					regs[r] = regValue(r)
				}
				e := h.one(i, regs)
				sk := s.place.ByParam(len(pp.params))[0][0]
				base, ok := oracle(t, pp.arch, sk)
				if !ok {
					t.Fatalf("%s: sk unavailable", where(s.place))
				}
				want := []uint64{patternAt(base, 4), patternAt(base+4, 4), patternAt(base+8, 8)}
				for k, w := range want {
					if got := e.Words[1+k]; got != w || e.Avail&(1<<uint(1+k)) == 0 {
						t.Errorf("%s %s: %#x, want %#x", where(s.place), pp.fields[1+k].name, got, w)
					}
				}
			}
			if n == 0 {
				t.Fatal("no place attached")
			}
			for _, tc := range []struct{ probe, err string }{
				{"cwnd_set(sk->nope)", `has no member "nope"`},
				{"cwnd_set(val->x)", "not a pointer"},
				{"cwnd_set(sk.cwnd)", "by-value parameter"},
				{"cwnd_set(nope)", "no parameter \"nope\" (parameters: sk, val)"},
				{"cwnd_set(val:str)", "needs a pointer"},
			} {
				p, err := ParseProbe(tc.probe)
				if err != nil {
					t.Fatal(err)
				}
				_, err = makePlan(Options{Probes: []Probe{p}, File: path, Sys: sys})
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("%s: %v, want %q", tc.probe, err, tc.err)
				}
			}
		})
	}
}

// FuzzParseProbe: the parser never panics, its errors are ProbeErrors, and
// what it accepts prints as a PROBE that parses back to the same.
func FuzzParseProbe(f *testing.F) {
	for _, s := range []string{"tcp_snd_cwnd_set", "fuse:fuse_request_init", "f(skb->dev->name:str, p->a.b, flags:x)", "f()", "f(a", "m:f(a:str:x)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ParseProbe(in)
		if err != nil {
			var pe *ProbeError
			if !errors.As(err, &pe) {
				t.Fatalf("%q: error of type %T: %v", in, err, err)
			}
			return
		}
		q, err := ParseProbe(p.String())
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", in, p, err)
		}
		if q.String() != p.String() {
			t.Fatalf("%q: %q, then %q", in, p, q)
		}
	})
}
