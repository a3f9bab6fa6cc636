package cfi

import (
	"encoding/binary"
	"errors"
	"testing"
)

func TestSeedRows(t *testing.T) {
	s := &Section{Kind: EHFrame, Data: ehFrameSeed, Addr: 0x1000, Order: binary.LittleEndian, PtrSize: 8}
	res, err := Parse(s)
	if err != nil || len(res.FDEs) != 1 {
		t.Fatalf("parse: %v, %+v", err, res)
	}
	f := res.FDEs[0]
	if f.Begin != 0x1000 || f.Size != 0x20 {
		t.Fatalf("FDE %#x+%#x", f.Begin, f.Size)
	}
	rows, err := f.Table()
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		loc uint64
		reg uint64
		off int64
		fp  RuleKind
	}{{0x1000, 7, 8, RuleUnspecified}, {0x1001, 7, 16, RuleOffset}, {0x1004, 6, 16, RuleOffset}, {0x100e, 7, 8, RuleOffset}, {0x100f, 6, 16, RuleOffset}}
	if len(rows) != len(want) {
		t.Fatalf("%d rows: %+v", len(rows), rows)
	}
	for i, w := range want {
		r := rows[i]
		if r.Loc != w.loc || r.CFA.Reg != w.reg || r.CFA.Off != w.off || r.Reg(6).Kind != w.fp {
			t.Errorf("row %d: %+v, want %+v", i, r, w)
		}
		if r.Reg(16).Kind != RuleOffset || r.Reg(16).Off != -8 {
			t.Errorf("row %d: RA rule %+v", i, r.Reg(16))
		}
	}
}

func TestBadInput(t *testing.T) {
	mod := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), ehFrameSeed...)) }
	cases := map[string]struct {
		data    []byte
		wantErr bool // whole-section error (else: a counted skip)
	}{
		"truncated CIE":      {ehFrameSeed[:10], true},
		"length past end":    {mod(func(b []byte) []byte { b[0] = 0xff; return b }), true},
		"CIE pointer bogus":  {mod(func(b []byte) []byte { b[28] = 0x7f; return b }), false},
		"unknown aug":        {mod(func(b []byte) []byte { b[10] = 'Q'; return b }), false},
		"truncated FDE body": {mod(func(b []byte) []byte { b[24] = 0x09; return b[:24+4+9] }), false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			s := &Section{Kind: EHFrame, Data: c.data, Order: binary.LittleEndian, PtrSize: 8}
			res, err := Parse(s)
			var e *Error
			if c.wantErr {
				if !errors.As(err, &e) || e.Section != ".eh_frame" {
					t.Fatalf("want a section error, got %v", err)
				}
				return
			}
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("untyped error %v", err)
			}
			if res == nil || len(res.Skipped) == 0 {
				t.Fatalf("want a counted skip, got %+v, %v", res, err)
			}
			t.Log(res.Skipped[0])
		})
	}
	// Unknown opcode and address overflow surface from the interpreter.
	prog := map[string][]byte{
		"unknown opcode":                 {0x41, 0x3f},
		"advance overflow":               {0x04, 0xff, 0xff, 0xff, 0xff, 0x04, 0xff, 0xff, 0xff, 0xff, 0x1d, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
		"restore_state without remember": {0x0b},
	}
	for name, p := range prog {
		t.Run(name, func(t *testing.T) {
			res, err := Parse(&Section{Kind: EHFrame, Data: buildEH(p), Order: binary.LittleEndian, PtrSize: 8})
			if err != nil || len(res.FDEs) != 1 {
				t.Fatalf("parse: %v", err)
			}
			_, err = res.FDEs[0].Table()
			var e *Error
			if name == "advance overflow" {
				// Rows past the FDE end are dropped; an overflow is an error.
				if err == nil {
					t.Fatal("want an error")
				}
			}
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("untyped error %v", err)
			}
			if name != "advance overflow" && err == nil {
				t.Fatal("want an error")
			}
			t.Log(err)
		})
	}
}
