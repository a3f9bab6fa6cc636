package ksym

import (
	"errors"
	"strings"
	"testing"
)

func TestParseKallsyms(t *testing.T) {
	in := `ffffffff9a000000 T _text
ffffffff9a000000 T startup_64
ffffffff9a0000f0 t verify_cpu
ffffffff9b800000 D some_data
ffffffffc0a01000 t bbr_main	[tcp_bbr]
ffffffffc0a01200 T bbr_init	[tcp_bbr]
`
	k, err := ParseKallsyms(strings.NewReader(in), "kallsyms")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := k.TextBase(); err != nil || a != 0xffffffff9a000000 {
		t.Errorf("TextBase = %#x, %v", a, err)
	}
	if len(k.Text) != 5 {
		t.Errorf("got %d text symbols, want 5 (data symbols are not text)", len(k.Text))
	}
	vm := k.SymTab("vmlinux")
	// startup_64 and _text share an address: the function names it.
	if s, off, ok := vm.Lookup("", 0xffffffff9a000010); !ok || s.Name != "startup_64" || off != 0x10 {
		t.Errorf("Lookup = %+v %#x %v", s, off, ok)
	}
	if s, off, ok := vm.Lookup("", 0xffffffff9a000100); !ok || s.Name != "verify_cpu" || off != 0x10 {
		t.Errorf("Lookup = %+v %#x %v", s, off, ok)
	}
	mod := k.SymTab("tcp_bbr")
	if s, off, ok := mod.Lookup("", 0xffffffffc0a01204); !ok || s.Name != "bbr_init" || off != 4 || s.Module != "tcp_bbr" {
		t.Errorf("module Lookup = %+v %#x %v", s, off, ok)
	}
	if _, _, ok := mod.Lookup("", 0xffffffff9a000100); ok {
		t.Error("module table finds a vmlinux address")
	}
}

func TestParseLineErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"zero", "0000000000000000 T _text\n0000000000000000 t foo\n", "hidden (all zero)"},
		{"fields", "ffffffff81000000 T\n", "kallsyms:1: want"},
		{"addr", "xyz T foo\n", "kallsyms:1: bad address"},
		{"module", "ffffffff81000000 t foo bar\n", "bad module tag"},
		{"type", "ffffffff81000000 TT foo\n", "want"},
		{"empty", "", "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseKallsyms(strings.NewReader(tc.in), "kallsyms")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if tc.name == "zero" && !errors.Is(err, ErrRestricted) {
				t.Errorf("not ErrRestricted: %v", err)
			}
		})
	}
}

// FuzzParseKallsyms: any input gives a table or an error, never a panic,
// and every symbol of a table can be looked up.
func FuzzParseKallsyms(f *testing.F) {
	f.Add("ffffffff81000000 T _text\nffffffff81000010 t foo\t[mod]\n")
	f.Add("0 T _text\n")
	f.Fuzz(func(t *testing.T, in string) {
		k, err := ParseKallsyms(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		st := k.SymTab("")
		for _, s := range k.Text {
			if s.Module == "" {
				if _, _, ok := st.Lookup("", s.Addr); !ok {
					t.Fatalf("symbol %s at %#x not found", s.Name, s.Addr)
				}
			}
		}
	})
}
