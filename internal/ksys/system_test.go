package ksys

import (
	"errors"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/ksym"
)

func TestParseKprobeBlacklist(t *testing.T) {
	bl, err := ParseKprobeBlacklist(strings.NewReader("0xffffffff81001000-0xffffffff81001040\tdo_int3\n0xffffffff81c00000-0xffffffff81c019d7\t__entry_text_start\n"), "blacklist")
	if err != nil {
		t.Fatal(err)
	}
	if len(bl) != 2 || bl[0].Start != 0xffffffff81001000 || bl[0].End != 0xffffffff81001040 || bl[0].Name != "do_int3" {
		t.Errorf("got %+v", bl)
	}
	if _, err := ParseKprobeBlacklist(strings.NewReader("0x0-0x0\tdo_int3\n"), "bl"); !errors.Is(err, ksym.ErrRestricted) {
		t.Errorf("zero blacklist: %v", err)
	}
	if _, err := ParseKprobeBlacklist(strings.NewReader("0x10 foo\n"), "bl"); err == nil {
		t.Error("no error for a line without a range")
	}
}

// FuzzParseKprobeBlacklist: any input gives entries or an error.
func FuzzParseKprobeBlacklist(f *testing.F) {
	f.Add("0xffffffff81001000-0xffffffff81001040\tdo_int3\n")
	f.Add("0x0-0x0\tx\n")
	f.Fuzz(func(t *testing.T, in string) {
		bl, err := ParseKprobeBlacklist(strings.NewReader(in), "fuzz")
		if err == nil && len(bl) > strings.Count(in, "\n")+1 {
			t.Fatalf("%d entries from %d lines", len(bl), strings.Count(in, "\n")+1)
		}
	})
}
