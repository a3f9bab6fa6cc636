package elfobj

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// writeELF writes a relocatable x86-64 ELF file holding the named
// sections (PROGBITS, filled with their index), one after another from
// offset 4096.
func writeELF(t *testing.T, secs []string, sizes []int) string {
	t.Helper()
	shstr := []byte{0}
	names := make([]uint32, len(secs))
	for i, n := range secs {
		names[i] = uint32(len(shstr))
		shstr = append(append(shstr, n...), 0)
	}
	shName := uint32(len(shstr))
	shstr = append(append(shstr, ".shstrtab"...), 0)
	body := make([]byte, 4096)
	offs := make([]uint64, len(secs))
	for i := range secs {
		offs[i] = uint64(len(body))
		for range sizes[i] {
			body = append(body, byte(i+1))
		}
	}
	shstrOff := uint64(len(body))
	body = append(body, shstr...)
	for len(body)%8 != 0 {
		body = append(body, 0)
	}
	shoff := uint64(len(body))
	le := binary.LittleEndian
	sh := func(name, typ uint32, off, size uint64) {
		var h [64]byte
		le.PutUint32(h[0:], name)
		le.PutUint32(h[4:], typ)
		le.PutUint64(h[24:], off)
		le.PutUint64(h[32:], size)
		le.PutUint64(h[48:], 1)
		body = append(body, h[:]...)
	}
	sh(0, 0, 0, 0)
	for i := range secs {
		sh(names[i], uint32(elf.SHT_PROGBITS), offs[i], uint64(sizes[i]))
	}
	sh(shName, uint32(elf.SHT_STRTAB), shstrOff, uint64(len(shstr)))
	h := body[:64]
	copy(h, "\x7fELF\x02\x01\x01")
	le.PutUint16(h[16:], uint16(elf.ET_REL))
	le.PutUint16(h[18:], uint16(elf.EM_X86_64))
	le.PutUint32(h[20:], 1)
	le.PutUint64(h[40:], shoff)
	le.PutUint16(h[52:], 64)
	le.PutUint16(h[58:], 64)
	le.PutUint16(h[60:], uint16(len(secs)+2))
	le.PutUint16(h[62:], uint16(len(secs)+1))
	p := filepath.Join(t.TempDir(), "obj.o")
	if err := os.WriteFile(p, body, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// residentKiB is the Rss of the mapping that starts at b, from
// /proc/self/smaps.
func residentKiB(t *testing.T, b []byte) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := fmt.Sprintf("%x-", uintptr(unsafe.Pointer(&b[0])))
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		in = in || strings.HasPrefix(l, start)
		// The mapping's first Rss line is its own.
		if in && strings.HasPrefix(l, "Rss:") {
			n, err := strconv.Atoi(strings.Fields(l)[1])
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no mapping at %s in /proc/self/smaps", start)
	return 0
}

// TestReleaseBulk: Release gives back the pages of a debug section of 8
// MiB and more, and keeps a small one's, which every unit reads again
// (and the section headers' page): read both whole, release, and the
// mapping keeps the small section and at most the pages the big one
// shares with its neighbours.
func TestReleaseBulk(t *testing.T) {
	const big, small = 9 << 20, 256 << 10
	f := open(t, writeELF(t, []string{".debug_info", ".debug_str"}, []int{big, small}))
	sum := 0
	for _, n := range []string{".debug_info", ".debug_str"} {
		d, err := f.Data(f.Section(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range d {
			sum += int(c)
		}
	}
	if sum != big+2*small {
		t.Fatalf("read %d, want %d", sum, big+2*small)
	}
	if r := residentKiB(t, f.Raw()); r < (big+small)/1024 {
		t.Fatalf("%d KiB resident after reading every byte, want %d or more", r, (big+small)/1024)
	}
	f.Release()
	// The small section, the header page, a page each end of the big
	// one, and the page of the section headers.
	kept := residentKiB(t, f.Raw())
	if lo, hi := small/1024, small/1024+4*4; kept < lo || kept > hi {
		t.Errorf("%d KiB resident after Release, want %d to %d (the small section and boundary pages)", kept, lo, hi)
	}
}
