package dwarfsite

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/site"
)

func FuzzExpr(f *testing.F) {
	f.Add([]byte{byte(opReg0) + 5}, false)
	f.Add([]byte{byte(opBreg0) + 7, 0x10, byte(opDeref), byte(opStackValue)}, false)
	f.Add([]byte{byte(opEntryValue), 1, byte(opReg0) + 4, byte(opStackValue)}, true)
	f.Add([]byte{byte(opReg0) + 5, byte(opPiece), 8, byte(opReg0) + 4, byte(opPiece), 8}, false)
	// gcc's 65-bit constant (0x9000000000000000 as a signed LEB128).
	f.Add([]byte{byte(opConsts), 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x90, 0x01, byte(opStackValue)}, false)
	f.Fuzz(func(t *testing.T, data []byte, atEntry bool) {
		for _, ef := range []exprFormat{fmt8, {AddrSize: 4, RefSize: 8, Order: le}} {
			ins, err := decodeExpr(data, ef, ".debug_info", 0x40)
			if err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) || fe.Offset < 0x40 || fe.Offset > 0x40+int64(len(data)) {
					t.Fatalf("bad error %v", err)
				}
				continue
			}
			if len(ins) > len(data) {
				t.Fatalf("%d instructions from %d bytes", len(ins), len(data))
			}
			l := classify(ins, &evalEnv{f: ef, atEntry: atEntry, size: 8,
				addrx: func(i uint64) (uint64, bool) { return i * 8, i < 4 }})
			if l.Kind > site.LocAddr {
				t.Fatalf("kind %d", l.Kind)
			}
			if l.Kind != site.LocUnavailable && l.Reason != "" {
				t.Fatalf("reason %q on a located value", l.Reason)
			}
			_ = site.FormatLocation(&l, nil)
		}
	})
}

func FuzzLocList(f *testing.F) {
	f.Add(dblList(), uint16(6), int16(0), true)
	f.Add(cat(u64le(0x10), u64le(0x20), []byte{1, 0, 0x50}, u64le(0), u64le(0)), uint16(0), int16(-1), false)
	f.Fuzz(func(t *testing.T, data []byte, off uint16, views int16, v5 bool) {
		name := ".debug_loc"
		if v5 {
			name = ".debug_loclists"
		}
		sec := &locListSec{Name: name, Data: data, V5: v5}
		u := &locListUnit{Format: fmt8, Base: 0x1000, Addrx: func(i uint64) (uint64, bool) { return i, i < 16 }}
		es, err := readLocList(sec, int64(off), int64(views), u)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Section != name {
				t.Fatalf("bad error %v", err)
			}
		}
		if len(es) > len(data) {
			t.Fatalf("%d entries from %d bytes", len(es), len(data))
		}
		for _, e := range es {
			if _, err := decodeExpr(e.Expr, fmt8, name, e.ExprOff); err == nil {
				continue
			}
		}
		entryAtPC(es, 0x1010, 1)
	})
}

// FuzzReadELF feeds whole (mutated) objects to the reader: it must return
// sites or an error, never panic or hang. The type converter's typed
// reads (NextType) must give what Next gives.
func FuzzReadELF(f *testing.F) {
	for _, n := range []string{"tiny-x86_64.o", "wideconst-x86_64.o", "badform-x86_64.o"} {
		b, err := os.ReadFile(filepath.Join(fixtureDir, n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				buf := make([]byte, 1<<20)
				n := runtime.Stack(buf, true)
				panic(string(buf[:n]))
			}
		}()
		if ef, err := elfobj.New(data); err == nil {
			if x, err := Load(ef); err == nil {
				checkTypeEntriesNext(t, x, 2000)
			}
		}
		res, err := ReadBytes(data, Options{Workers: 1})
		if err != nil {
			return
		}
		for i := range res.Sites {
			if res.Sites[i].Func == nil || len(res.Sites[i].Params) < len(res.Sites[i].Func.Params) {
				t.Fatalf("bad site %+v", res.Sites[i])
			}
		}
	})
}
