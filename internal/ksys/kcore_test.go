package ksys

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

func TestKcore(t *testing.T) {
	root := t.TempDir()
	const a, b = 0xffff_8000_0000_0000, 0xffff_8000_0001_0000
	seg := func(addr uint64, pages int) testutil.KcoreSegment {
		d := make([]byte, pages*kcorePage)
		for i := range d {
			d[i] = byte(i) ^ byte(i>>12)*0x5b ^ byte(addr>>16)*0x11
		}
		return testutil.KcoreSegment{Addr: addr, Data: d}
	}
	s1, s2 := seg(a, 2), seg(b, 1)
	testutil.WriteKcore(t, filepath.Join(root, "proc/kcore"), s1, s2)
	k, err := System{Root: root}.OpenKcore()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		addr uint64
		n    int
		want []byte
	}{
		{"in a page", a + 10, 16, s1.Data[10:26]},
		{"across pages", a + kcorePage - 5, 10, s1.Data[kcorePage-5 : kcorePage+5]},
		{"second segment", b + 100, 4, s2.Data[100:104]},
		{"past a segment", a + 2*kcorePage - 2, 4, nil},
		{"unmapped", a - 16, 8, nil},
		{"wraps", ^uint64(0) - 2, 8, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := k.Read(c.addr, c.n)
			if ok != (c.want != nil) || !bytes.Equal(got, c.want) {
				t.Errorf("Read(%#x, %d) = %x, %v; want %x", c.addr, c.n, got, ok, c.want)
			}
		})
	}
	if _, err := (System{Root: t.TempDir()}).OpenKcore(); err == nil {
		t.Error("OpenKcore without /proc/kcore: no error")
	}
}

func TestKprobeAddrs(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "sys/kernel/debug/kprobes/list")
	os.MkdirAll(filepath.Dir(p), 0o755)
	write := func(s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ffffffff8123a4b0  k  __list_del_entry+0x10    [DISABLED]\nffffffffc0a01234  k  btfi_hot+0x4  btfi_e2e [OPTIMIZED]\n")
	got, ok := System{Root: root}.KprobeAddrs()
	if !ok || len(got) != 2 || got[0] != 0xffffffff8123a4b0 || got[1] != 0xffffffffc0a01234 {
		t.Errorf("KprobeAddrs = %x, %v", got, ok)
	}
	// Not root: kptr_restrict hides every address.
	write("0000000000000000  k  __list_del_entry+0x10\n")
	if got, ok := (System{Root: root}).KprobeAddrs(); ok {
		t.Errorf("hidden addresses: KprobeAddrs = %x, ok", got)
	}
}
