package sframe

import (
	"encoding/binary"
	"fmt"

	"github.com/btfinline/btfinline/internal/memtrace"
)

// Table answers lookups from the bytes of an encoded SFrame v3 section,
// the way an in-kernel unwinder reads a mapped section: a binary search of
// the FDE index, then a walk of the function's FREs. It exists to measure
// lookup cost (time, and with a memtrace.Trace the lines and pages read);
// Section.Lookup answers the same from the decoded form.
type Table struct {
	b      []byte
	addr   uint64
	bo     binary.ByteOrder
	s      Section // header fields FrameOf needs
	n      int     // FDEs
	fdeOff int     // byte offset of the index
	freOff int     // byte offset of the FRE sub-section
	pcrel  bool
}

// NewTable checks that b is a sorted SFrame v3 section (decoding it whole
// once, so that lookups need no checks) sitting at address addr.
func NewTable(b []byte, addr uint64) (*Table, error) {
	s, err := Decode(b, addr, ".sframe")
	if err != nil {
		return nil, err
	}
	if s.Version != Version3 || s.Flags&FlagFDESorted == 0 {
		return nil, fmt.Errorf("sframe: Table needs a sorted v3 section")
	}
	t := &Table{b: b, addr: addr, bo: s.ABI.ByteOrder(), n: len(s.FDEs), pcrel: s.Flags&FlagFDEFuncStartPCRel != 0}
	t.s = Section{Version: s.Version, ABI: s.ABI, FixedFP: s.FixedFP, FixedRA: s.FixedRA}
	h := headerSize + int(b[7])
	t.fdeOff = h + int(t.bo.Uint32(b[20:]))
	t.freOff = h + int(t.bo.Uint32(b[24:]))
	return t, nil
}

// Lookup returns the frame rule at pc; ok is false outside every FDE, in
// a gap, or before the function's first FRE.
func (t *Table) Lookup(pc uint64, tr *memtrace.Trace) (Frame, bool) {
	b, bo := t.b, t.bo
	start := func(i int) int64 {
		o := t.fdeOff + i*16
		tr.Touch(uint64(o), 8)
		v := int64(bo.Uint64(b[o:])) + int64(t.addr)
		if t.pcrel {
			v += int64(o)
		}
		return v
	}
	lo, hi := 0, t.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if start(mid) <= int64(pc) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return Frame{}, false
	}
	i := lo - 1
	o := t.fdeOff + i*16
	tr.Touch(uint64(o), 16)
	fstart := start(i)
	size := bo.Uint32(b[o+8:])
	if uint64(int64(pc)-fstart) >= uint64(size) {
		return Frame{}, false
	}
	p := t.freOff + int(bo.Uint32(b[o+12:]))
	tr.Touch(uint64(p), 5)
	nfres := int(bo.Uint16(b[p:]))
	f := FDE{Info: b[p+2], Info2: b[p+3], RepSize: b[p+4]}
	p += 5
	off := uint64(int64(pc) - fstart)
	if f.PCType() == PCTypeMask && f.RepSize != 0 {
		off %= uint64(f.RepSize)
	}
	asz := 1 << f.FREType()
	// Walk start and info bytes only; decode the data words of the match.
	last := -1
	for j := 0; j < nfres; j++ {
		tr.Touch(uint64(p), uint64(asz+1))
		st := readFREStart(b, p, asz, bo)
		if uint64(st) > off {
			break
		}
		last = p
		info := b[p+asz]
		p += asz + 1 + int(info>>1&0xf)<<(info>>5&3)
	}
	if last < 0 {
		return Frame{}, false
	}
	p = last
	match := FRE{Start: readFREStart(b, p, asz, bo)}
	match.Info = b[p+asz]
	p += asz + 1
	n, wsz := match.N(), 1<<match.SizeCode()
	tr.Touch(uint64(p), uint64(n*wsz))
	for k := 0; k < n && k < MaxWords; k++ {
		match.W[k] = dataWord(b, p, wsz, f.Flex() && isCtrl(n, k), bo)
		p += wsz
	}
	return t.s.FrameOf(&f, &match), true
}
