package trace

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// eventsFor builds raw events of the first attachable place of probe p in
// the x86-64 fixture: what the program sends, with the given words.
func eventsFor(t testing.TB, probe string, json bool, out io.Writer) (*printer, []byte) {
	path := filepath.Join("..", "resolve", "testdata", "x86_64.elf")
	tt, _ := t.(*testing.T)
	if tt == nil {
		tt = &testing.T{}
	}
	sys := fakeRoot(tt, path)
	p, err := ParseProbe(probe)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := makePlan(Options{Probes: []Probe{p}, File: path, Sys: sys})
	if err != nil {
		t.Fatal(err)
	}
	si := -1
	for i, s := range pl.sites {
		if s.refused == "" {
			si = i
			break
		}
	}
	pp := pl.probes[0]
	b := make([]byte, pp.layout.eventSize())
	bo := binary.NativeEndian
	bo.PutUint64(b[evTime:], 12_345_678_901)
	bo.PutUint32(b[evSite:], uint32(si))
	bo.PutUint32(b[evCPU:], 1)
	bo.PutUint64(b[evPID:], 42<<32|43)
	copy(b[evComm:], "kworker/1:0")
	bo.PutUint64(b[evAvail:], 1<<uint(pp.layout.words)-1)
	for w := 0; w < pp.layout.words; w++ {
		bo.PutUint64(b[evWords+8*w:], 0xffff888001000000+uint64(w))
	}
	return newPrinter(pl, Options{JSON: json, Out: out}, nil), b
}

func TestPrinterLine(t *testing.T) {
	var buf bytes.Buffer
	pr, ev := eventsFor(t, "cwnd_set(sk, val, sk->flags:x)", false, &buf)
	if err := pr.event(ev); err != nil {
		t.Fatal(err)
	}
	pr.w.Flush()
	want := "12.345678       1   42      kworker/1:0      disconnect cwnd_set(sk=0xffff888001000000, val=16777217, sk->flags=0x1000002)\n"
	if buf.String() != want {
		t.Errorf("got  %q\nwant %q", buf.String(), want)
	}
	// The same event with val's word not fetched at this site and the
	// load of sk->flags faulted: both say so instead of a value.
	buf.Reset()
	bo := binary.NativeEndian
	bo.PutUint64(ev[evAvail:], bo.Uint64(ev[evAvail:])&^(1<<1))
	bo.PutUint64(ev[evFault:], 1<<2)
	if err := pr.event(ev); err != nil {
		t.Fatal(err)
	}
	pr.w.Flush()
	want = "12.345678       1   42      kworker/1:0      disconnect cwnd_set(sk=0xffff888001000000, val=(unavailable), sk->flags=(fault))\n"
	if buf.String() != want {
		t.Errorf("got  %q\nwant %q", buf.String(), want)
	}
	buf.Reset()
	pr, ev = eventsFor(t, "cwnd_set", true, &buf)
	bo.PutUint64(ev[evAvail:], 1)
	if err := pr.event(ev); err != nil {
		t.Fatal(err)
	}
	pr.w.Flush()
	for _, s := range []string{`"val":null`, `"unavailable":{"val":`} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("JSON %s lacks %s", buf.String(), s)
		}
	}
	buf.Reset()
	pr, ev = eventsFor(t, "cwnd_set", true, &buf)
	if err := pr.event(ev); err != nil {
		t.Fatal(err)
	}
	pr.w.Flush()
	for _, s := range []string{`"time":"12.345678"`, `"pid":42`, `"tid":43`, `"comm":"kworker/1:0"`, `"place":"disconnect"`,
		`"args":{"sk":"0xffff888001000000","val":16777217}`, `"event":"cwnd_set_2"`} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("JSON %s lacks %s", buf.String(), s)
		}
	}
}

func BenchmarkPrinter(b *testing.B) {
	for _, json := range []bool{false, true} {
		name := "text"
		if json {
			name = "json"
		}
		b.Run(name, func(b *testing.B) {
			pr, ev := eventsFor(b, "cwnd_set", json, io.Discard)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := pr.event(ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestSkips(t *testing.T) {
	var b bytes.Buffer
	k := newSkips(&b, false)
	for i := 0; i < 12; i++ {
		k.add("f", fmt.Sprintf("c%d+0x1", i), fmt.Sprintf("not traceable: notrace function c%d: no ftrace location", i))
	}
	k.add("f", "s+0x2", "not traceable: init text (freed after boot)")
	k.summary()
	want := "btfinline trace: skipping 12 places of f: not traceable: notrace function: no ftrace location (e.g. c0+0x1; --verbose lists them)\n" +
		"btfinline trace: skipping 1 place of f: not traceable: init text (freed after boot) (e.g. s+0x2; --verbose lists them)\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	k = newSkips(&b, false)
	k.add("f", "s+0x2", "why")
	k.summary()
	if b.String() != "btfinline trace: skipping f at s+0x2: why\n" {
		t.Errorf("one skip: %q", b.String())
	}
}

// FuzzEvent: whatever a ring buffer record holds, the printers (text and
// JSON, with and without a stack) print it or return an error; they
// never panic or read past it.
func FuzzEvent(f *testing.F) {
	path := filepath.Join("..", "resolve", "testdata", "x86_64.elf")
	sys := fakeRoot(&testing.T{}, path)
	var printers []*printer
	for _, stack := range []bool{false, true} {
		for _, json := range []bool{false, true} {
			p, err := ParseProbe("cwnd_set(sk, val, sk->flags:x, sk->stamp)")
			if err != nil {
				f.Fatal(err)
			}
			o := Options{Probes: []Probe{p}, File: path, Sys: sys, Stack: stack, JSON: json, Out: io.Discard}
			pl, err := makePlan(o)
			if err != nil {
				f.Fatal(err)
			}
			printers = append(printers, newPrinter(pl, o, &ksyms{}))
		}
	}
	_, ev := eventsFor(f, "cwnd_set(sk, val, sk->flags:x, sk->stamp)", false, io.Discard)
	f.Add(ev)
	f.Add(ev[:len(ev)-1])
	// The same with a stack of two frames, and a stack error.
	l := printers[2].pl.probes[0].layout
	sev := append(append([]byte(nil), ev...), make([]byte, l.eventSize()-len(ev))...)
	binary.NativeEndian.PutUint64(sev[l.stackOff():], 16)
	binary.NativeEndian.PutUint64(sev[l.stackOff()+8:], 0xffffffff81000010)
	binary.NativeEndian.PutUint64(sev[l.stackOff()+16:], 0xffffffff81000020)
	f.Add(sev)
	serr := append([]byte(nil), sev...)
	binary.NativeEndian.PutUint64(serr[l.stackOff():], uint64(1<<64-14))
	f.Add(serr)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, p := range printers {
			_ = p.event(raw)
			p.w.Flush()
		}
	})
}
