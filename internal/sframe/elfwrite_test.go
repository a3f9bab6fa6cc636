package sframe

import (
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/btfinline/btfinline/internal/sframe/cfi"
)

// TestCorruptEHFrame: a corrupt .eh_frame length gives an error naming the
// section and offset; a corrupt FDE is a counted skip.
func TestCorruptEHFrame(t *testing.T) {
	p := filepath.Join(fixtures, "x86-O2.nosf.exe")
	raw, _ := os.ReadFile(p)
	ef, err := elf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	eh := ef.Section(".eh_frame")
	ef.Close()
	bad := append([]byte(nil), raw...)
	bad[eh.Offset+3] = 0x7f // first entry's length runs past the end
	in, err := Open(bad)
	if err != nil {
		t.Fatal(err)
	}
	_, err = in.Emit(EmitOptions{})
	var ce *cfi.Error
	if !errors.As(err, &ce) || ce.Section != ".eh_frame" {
		t.Fatalf("want a .eh_frame error, got %v", err)
	}
	// Point the second entry's CIE pointer somewhere else: counted skip.
	bad = append([]byte(nil), raw...)
	cieLen := uint64(bad[eh.Offset]) + 4
	bad[eh.Offset+cieLen+4] ^= 0x40
	in, _ = Open(bad)
	em, err := in.Emit(EmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if em.Skipped[SkipCFIError] != 1 {
		t.Errorf("skips %v", em.Skipped)
	}
}
