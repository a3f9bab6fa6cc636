package sframe

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/btfinline/btfinline/internal/dwarfbuf"
)

// Versions.
const (
	Version2 = 2
	Version3 = 3
)

// Magic is the SFrame preamble magic in the target byte order.
const Magic = 0xdee2

// Header flags.
const (
	FlagFDESorted         = 0x01
	FlagFramePointer      = 0x02 // v1/v2 only
	FlagFDEFuncStartPCRel = 0x04
)

// ABI is the sfh_abi_arch identifier.
type ABI uint8

const (
	ABIAArch64BE ABI = 1
	ABIAArch64LE ABI = 2
	ABIAMD64LE   ABI = 3
	ABIS390XBE   ABI = 4
)

func (a ABI) String() string {
	switch a {
	case ABIAArch64BE:
		return "AArch64 big-endian"
	case ABIAArch64LE:
		return "AArch64 little-endian"
	case ABIAMD64LE:
		return "AMD64"
	case ABIS390XBE:
		return "s390x"
	}
	return fmt.Sprintf("abi(%d)", uint8(a))
}

// ByteOrder is the ABI's byte order.
func (a ABI) ByteOrder() binary.ByteOrder {
	if a == ABIAArch64BE || a == ABIS390XBE {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// DWARF register numbers of SP, FP and RA per ABI.
func (a ABI) Regs() (sp, fp, ra uint64) {
	switch a {
	case ABIAMD64LE:
		return 7, 6, 16
	case ABIAArch64BE, ABIAArch64LE:
		return 31, 29, 30
	case ABIS390XBE:
		return 15, 11, 14
	}
	return 0, 0, 0
}

// FRE types (start address widths).
const (
	FREAddr1 = 0
	FREAddr2 = 1
	FREAddr4 = 2
)

// FDE types (v3 info2) and PC types.
const (
	FDETypeDefault = 0
	FDETypeFlex    = 1
	PCTypeInc      = 0
	PCTypeMask     = 1
)

// Base registers in the FRE info byte.
const (
	BaseFP = 0
	BaseSP = 1
)

// Section is a decoded SFrame section. Function starts are absolute
// addresses (resolved with the section address the section was decoded or
// will be encoded at).
type Section struct {
	Version uint8
	Flags   uint8
	ABI     ABI
	FixedFP int8
	FixedRA int8
	AuxHdr  []byte
	FDEs    []FDE // in index order
}

// FDE is one function descriptor with its FREs.
type FDE struct {
	Start   int64 // absolute function start address
	Size    uint32
	Info    uint8 // v2 sfde_func_info / v3 sfda_func_info
	Info2   uint8 // v3 sfda_func_info2 (FDE type)
	RepSize uint8
	FREs    []FRE
	// Block is the position of this FDE's FRE block in the FRE
	// sub-section; the encoder writes blocks in Block order (ties by index
	// order). GNU ld keeps link order for the blocks while sorting the index.
	Block int
}

// FREType returns the FRE start-address width code from Info.
func (f *FDE) FREType() uint8 { return f.Info & 0xf }

// PCType returns PCTypeInc or PCTypeMask.
func (f *FDE) PCType() uint8 { return (f.Info >> 4) & 1 }

// PAuthKeyB reports AArch64 pointer-authentication key B.
func (f *FDE) PAuthKeyB() bool { return f.Info&0x20 != 0 }

// Signal reports the v3 signal-frame bit.
func (f *FDE) Signal() bool { return f.Info&0x80 != 0 }

// Flex reports a v3 FLEX FDE.
func (f *FDE) Flex() bool { return f.Info2&0x1f == FDETypeFlex }

// FRE is a frame row entry. Data words are held sign-extended; FLEX control
// words are held as their unsigned value (reinterpret with uint32).
type FRE struct {
	Start uint32
	Info  uint8
	W     [MaxWords]int32
}

// MaxWords is the most data words libsframe accepts in an FRE.
const MaxWords = 6

// N returns the number of data words.
func (r *FRE) N() int { return int(r.Info>>1) & 0xf }

// Base returns BaseSP or BaseFP.
func (r *FRE) Base() uint8 { return r.Info & 1 }

// SizeCode is the data-word size code (0: 1 byte, 1: 2, 2: 4).
func (r *FRE) SizeCode() uint8 { return (r.Info >> 5) & 3 }

// Mangled reports the AArch64 mangled-RA bit.
func (r *FRE) Mangled() bool { return r.Info&0x80 != 0 }

// Words returns the FRE's data words.
func (r *FRE) Words() []int32 { return r.W[:min(r.N(), MaxWords)] }

// FREInfo composes an FRE info byte.
func FREInfo(base uint8, n int, sizeCode uint8, mangled bool) uint8 {
	i := base&1 | uint8(n&0xf)<<1 | (sizeCode&3)<<5
	if mangled {
		i |= 0x80
	}
	return i
}

// isCtrl reports whether word i of an N-word FLEX FRE is a control word.
func isCtrl(n, i int) bool {
	if n == 5 {
		return i == 0 || i == 2 || i == 3
	}
	return i%2 == 0
}

// FormatError is an SFrame decoding error naming the section and offset.
type FormatError = dwarfbuf.Error

const headerSize = 28

func fdeSize(version uint8) int {
	if version == Version2 {
		return 20
	}
	return 16
}

// magicOrder is the byte order whose Magic b starts with; ok is false when
// b starts with neither.
func magicOrder(b []byte) (bo binary.ByteOrder, ok bool) {
	switch {
	case len(b) < 2:
		return nil, false
	case b[0] == Magic&0xff && b[1] == Magic>>8:
		return binary.LittleEndian, true
	case b[0] == Magic>>8 && b[1] == Magic&0xff:
		return binary.BigEndian, true
	}
	return nil, false
}

// HasMagic says whether b starts with the SFrame magic in either byte
// order. An ELF file starts with 0x7f 'E', so this tells a raw section,
// as "sframe emit -o" writes it, from an ELF file before either is parsed.
func HasMagic(b []byte) bool {
	_, ok := magicOrder(b)
	return ok
}

// Decode parses an SFrame v2 or v3 section that sits at address addr. name
// is used in errors.
func Decode(b []byte, addr uint64, name string) (*Section, error) {
	ferr := func(off int, msg string, a ...any) error {
		return &FormatError{Section: name, Offset: int64(off), Msg: fmt.Sprintf(msg, a...)}
	}
	if len(b) < headerSize {
		return nil, ferr(0, "truncated header: %d bytes", len(b))
	}
	bo, ok := magicOrder(b)
	if !ok {
		return nil, ferr(0, "bad magic %02x%02x", b[0], b[1])
	}
	s := &Section{Version: b[2], Flags: b[3], ABI: ABI(b[4]), FixedFP: int8(b[5]), FixedRA: int8(b[6])}
	if s.Version != Version2 && s.Version != Version3 {
		return nil, ferr(2, "unsupported SFrame version %d", s.Version)
	}
	allowed := uint8(0x07)
	if s.Version == Version3 {
		allowed = 0x05
	}
	if s.Flags&^allowed != 0 {
		return nil, ferr(3, "invalid flags %#x for version %d", s.Flags, s.Version)
	}
	if s.ABI < ABIAArch64BE || s.ABI > ABIS390XBE {
		return nil, ferr(4, "unknown ABI/arch %d", s.ABI)
	}
	if s.ABI.ByteOrder() != bo {
		return nil, ferr(0, "byte order does not match ABI %v", s.ABI)
	}
	aux := int(b[7])
	numFDEs := bo.Uint32(b[8:])
	numFREs := bo.Uint32(b[12:])
	freLen := bo.Uint32(b[16:])
	fdeOff := bo.Uint32(b[20:])
	freOff := bo.Uint32(b[24:])
	h := headerSize + aux
	if h > len(b) {
		return nil, ferr(7, "auxiliary header of %d bytes past the section end", aux)
	}
	s.AuxHdr = append([]byte(nil), b[headerSize:h]...)
	fsz := fdeSize(s.Version)
	if fdeOff > freOff {
		return nil, ferr(20, "FDE offset %#x after FRE offset %#x", fdeOff, freOff)
	}
	rest := uint64(len(b) - h)
	if uint64(fdeOff)+uint64(numFDEs)*uint64(fsz) > uint64(freOff) || uint64(freOff) > rest {
		return nil, ferr(8, "%d FDEs at %#x do not fit before the FREs at %#x (section %d bytes)", numFDEs, fdeOff, freOff, len(b))
	}
	if uint64(freOff)+uint64(freLen) > rest {
		return nil, ferr(16, "FRE sub-section %#x+%#x past the section end", freOff, freLen)
	}
	freBase := h + int(freOff)
	freEnd := freBase + int(freLen)
	s.FDEs = make([]FDE, numFDEs)
	type blk struct {
		off uint32
		i   int
	}
	blocks := make([]blk, numFDEs)
	total := 0
	for i := range s.FDEs {
		fo := h + int(fdeOff) + i*fsz
		f := &s.FDEs[i]
		var start int64
		var freStart uint32
		var nfres int
		if s.Version == Version2 {
			start = int64(int32(bo.Uint32(b[fo:])))
			f.Size = bo.Uint32(b[fo+4:])
			freStart = bo.Uint32(b[fo+8:])
			nfres64 := bo.Uint32(b[fo+12:])
			f.Info = b[fo+16]
			f.RepSize = b[fo+17]
			if nfres64 > numFREs {
				return nil, ferr(fo+12, "FDE %d claims %d FREs, header has %d", i, nfres64, numFREs)
			}
			nfres = int(nfres64)
		} else {
			start = int64(bo.Uint64(b[fo:]))
			f.Size = bo.Uint32(b[fo+8:])
			freStart = bo.Uint32(b[fo+12:])
		}
		abs := int64(addr) + start
		if s.Flags&FlagFDEFuncStartPCRel != 0 {
			abs += int64(fo)
		}
		f.Start = abs
		p := freBase + int(freStart)
		if uint64(freStart) >= uint64(freLen)+1 || p > freEnd {
			return nil, ferr(fo, "FDE %d: FRE offset %#x past the FRE sub-section", i, freStart)
		}
		blocks[i] = blk{freStart, i}
		if s.Version == Version3 {
			if freEnd-p < 5 {
				return nil, ferr(p, "FDE %d: truncated attribute record", i)
			}
			nfres = int(bo.Uint16(b[p:]))
			f.Info = b[p+2]
			f.Info2 = b[p+3]
			f.RepSize = b[p+4]
			p += 5
			if f.Info&0x40 != 0 {
				return nil, ferr(p-3, "FDE %d: reserved info bit set", i)
			}
			if t := f.Info2 & 0x1f; t > FDETypeFlex || f.Info2&^0x1f != 0 {
				return nil, ferr(p-2, "FDE %d: unknown FDE type %#x", i, f.Info2)
			}
		}
		ft := f.FREType()
		if ft > FREAddr4 {
			return nil, ferr(p, "FDE %d: bad FRE type %d", i, ft)
		}
		if f.PCType() == PCTypeMask && f.RepSize == 0 {
			return nil, ferr(fo, "FDE %d: PC mask FDE with zero repetition size", i)
		}
		total += nfres
		if total > int(numFREs) {
			return nil, ferr(fo, "FDE %d: more FREs than the header's %d", i, numFREs)
		}
		// Each FRE takes at least 2 bytes, so bound the allocation.
		if nfres > (freEnd-p)/2 {
			return nil, ferr(p, "FDE %d: %d FREs do not fit in %d bytes", i, nfres, freEnd-p)
		}
		f.FREs = make([]FRE, nfres)
		asz := 1 << ft
		var prev int64 = -1
		for j := range f.FREs {
			r := &f.FREs[j]
			if freEnd-p < asz+1 {
				return nil, ferr(p, "FDE %d FRE %d: truncated", i, j)
			}
			r.Start = readFREStart(b, p, asz, bo)
			if int64(r.Start) <= prev {
				return nil, ferr(p, "FDE %d FRE %d: start %#x not after the previous FRE", i, j, r.Start)
			}
			prev = int64(r.Start)
			if f.PCType() == PCTypeInc && r.Start > f.Size {
				return nil, ferr(p, "FDE %d FRE %d: start %#x past the function size %#x", i, j, r.Start, f.Size)
			}
			p += asz
			r.Info = b[p]
			p++
			n := r.N()
			sc := r.SizeCode()
			if sc == 3 {
				return nil, ferr(p-1, "FDE %d FRE %d: invalid data word size code 3", i, j)
			}
			if n > MaxWords {
				return nil, ferr(p-1, "FDE %d FRE %d: %d data words (at most %d)", i, j, n, MaxWords)
			}
			wsz := 1 << sc
			if freEnd-p < n*wsz {
				return nil, ferr(p, "FDE %d FRE %d: truncated data words", i, j)
			}
			flex := s.Version == Version3 && f.Flex()
			for k := 0; k < n; k++ {
				r.W[k] = dataWord(b, p, wsz, flex && isCtrl(n, k), bo)
				p += wsz
			}
		}
	}
	if total != int(numFREs) {
		return nil, ferr(12, "header counts %d FREs, FDEs hold %d", numFREs, total)
	}
	sort.SliceStable(blocks, func(a, c int) bool { return blocks[a].off < blocks[c].off })
	for k, bl := range blocks {
		s.FDEs[bl.i].Block = k
	}
	return s, nil
}

// readFREStart reads an FRE start address of asz bytes at b[p:].
func readFREStart(b []byte, p, asz int, bo binary.ByteOrder) uint32 {
	switch asz {
	case 1:
		return uint32(b[p])
	case 2:
		return uint32(bo.Uint16(b[p:]))
	}
	return bo.Uint32(b[p:])
}

// dataWord reads a data word of wsz bytes at b[p:]: sign-extended, or
// unsigned for a FLEX control word.
func dataWord(b []byte, p, wsz int, ctrl bool, bo binary.ByteOrder) int32 {
	switch {
	case wsz == 1 && ctrl:
		return int32(b[p])
	case wsz == 1:
		return int32(int8(b[p]))
	case wsz == 2 && ctrl:
		return int32(bo.Uint16(b[p:]))
	case wsz == 2:
		return int32(int16(bo.Uint16(b[p:])))
	}
	return int32(bo.Uint32(b[p:]))
}

// wordSizeCode returns the smallest data-word size code for an FRE: signed
// offsets within ±0x7f / ±0x7fff (GNU as does not use -0x80), control words
// as unsigned.
func wordSizeCode(r *FRE, flex bool) uint8 {
	n := r.N()
	var code uint8
	for k := 0; k < n && k < MaxWords; k++ {
		v := r.W[k]
		var c uint8
		if flex && isCtrl(n, k) {
			u := uint32(v)
			switch {
			case u <= 0xff:
				c = 0
			case u <= 0xffff:
				c = 1
			default:
				c = 2
			}
		} else {
			switch {
			case v >= -0x7f && v <= 0x7f:
				c = 0
			case v >= -0x7fff && v <= 0x7fff:
				c = 1
			default:
				c = 2
			}
		}
		code = max(code, c)
	}
	return code
}

// FRETypeFor returns the FRE type GNU as picks for a function of the given
// size.
func FRETypeFor(size uint64) uint8 {
	switch {
	case size < 0x100:
		return FREAddr1
	case size < 0x10000:
		return FREAddr2
	}
	return FREAddr4
}

// EncodeOptions controls Encode.
type EncodeOptions struct {
	Addr uint64 // address the section will sit at (0 in relocatable files)
	// Sort sorts the index by function start and sets FDE_SORTED.
	Sort bool
}

// Encode writes the section. FRE types and data-word sizes are the smallest
// that fit (but never smaller than what the FDE/FRE already says, so that a
// decoded section re-encodes to the same bytes).
func Encode(s *Section, opt EncodeOptions) ([]byte, error) {
	if s.Version != Version2 && s.Version != Version3 {
		return nil, fmt.Errorf("sframe: cannot encode version %d", s.Version)
	}
	bo := s.ABI.ByteOrder()
	fsz := fdeSize(s.Version)
	idx := make([]int, len(s.FDEs))
	for i := range idx {
		idx[i] = i
	}
	flags := s.Flags | FlagFDEFuncStartPCRel
	if opt.Sort {
		sort.SliceStable(idx, func(a, b int) bool { return s.FDEs[idx[a]].Start < s.FDEs[idx[b]].Start })
		flags |= FlagFDESorted
	}
	if s.Version == Version3 {
		flags &^= FlagFramePointer
	}
	// FRE blocks in Block order.
	blockOrder := make([]int, len(s.FDEs))
	for i := range blockOrder {
		blockOrder[i] = i
	}
	sort.SliceStable(blockOrder, func(a, b int) bool { return s.FDEs[blockOrder[a]].Block < s.FDEs[blockOrder[b]].Block })
	est := 0
	for i := range s.FDEs {
		est += 5 + 4*len(s.FDEs[i].FREs)
	}
	fres := make([]byte, 0, est)
	freOffs := make([]uint32, len(s.FDEs))
	infos := make([]uint8, len(s.FDEs))
	numFREs := 0
	var tmp [8]byte
	for _, i := range blockOrder {
		f := &s.FDEs[i]
		if len(fres) > 0xffffffff {
			return nil, fmt.Errorf("sframe: FRE sub-section too large")
		}
		freOffs[i] = uint32(len(fres))
		ft := max(f.FREType(), FRETypeFor(uint64(f.Size)))
		if f.PCType() == PCTypeMask {
			ft = f.FREType()
			for _, r := range f.FREs {
				ft = max(ft, FRETypeFor(uint64(r.Start)))
			}
		}
		info := f.Info&^0xf | ft
		if s.Version == Version2 {
			info &^= 0xc0 // no signal bit in v2
		}
		infos[i] = info
		numFREs += len(f.FREs)
		if s.Version == Version3 {
			if len(f.FREs) > 0xffff {
				return nil, fmt.Errorf("sframe: function at %#x has %d FREs (v3 allows 65535)", f.Start, len(f.FREs))
			}
			bo.PutUint16(tmp[:], uint16(len(f.FREs)))
			fres = append(fres, tmp[0], tmp[1], info, f.Info2, f.RepSize)
		}
		flex := s.Version == Version3 && f.Flex()
		for j := range f.FREs {
			r := &f.FREs[j]
			switch ft {
			case FREAddr1:
				fres = append(fres, byte(r.Start))
			case FREAddr2:
				bo.PutUint16(tmp[:], uint16(r.Start))
				fres = append(fres, tmp[:2]...)
			default:
				bo.PutUint32(tmp[:], r.Start)
				fres = append(fres, tmp[:4]...)
			}
			n := min(r.N(), MaxWords)
			sc := max(r.SizeCode(), wordSizeCode(r, flex))
			if n == 0 {
				sc = r.SizeCode()
			}
			fres = append(fres, r.Info&^0x60|sc<<5)
			for k := 0; k < n; k++ {
				switch sc {
				case 0:
					fres = append(fres, byte(r.W[k]))
				case 1:
					bo.PutUint16(tmp[:], uint16(r.W[k]))
					fres = append(fres, tmp[:2]...)
				default:
					bo.PutUint32(tmp[:], uint32(r.W[k]))
					fres = append(fres, tmp[:4]...)
				}
			}
		}
	}
	h := headerSize + len(s.AuxHdr)
	out := make([]byte, h, h+len(s.FDEs)*fsz+len(fres))
	bo.PutUint16(out[0:], Magic)
	out[2] = s.Version
	out[3] = flags
	out[4] = uint8(s.ABI)
	out[5] = uint8(s.FixedFP)
	out[6] = uint8(s.FixedRA)
	out[7] = uint8(len(s.AuxHdr))
	bo.PutUint32(out[8:], uint32(len(s.FDEs)))
	bo.PutUint32(out[12:], uint32(numFREs))
	bo.PutUint32(out[16:], uint32(len(fres)))
	bo.PutUint32(out[20:], 0)
	bo.PutUint32(out[24:], uint32(len(s.FDEs)*fsz))
	copy(out[headerSize:], s.AuxHdr)
	for slot, i := range idx {
		f := &s.FDEs[i]
		fieldAddr := int64(opt.Addr) + int64(h+slot*fsz)
		rel := f.Start - fieldAddr
		var e [20]byte
		if s.Version == Version2 {
			if rel < -1<<31 || rel >= 1<<31 {
				return nil, fmt.Errorf("sframe: function at %#x is out of v2's 32-bit reach from the section at %#x", f.Start, opt.Addr)
			}
			bo.PutUint32(e[0:], uint32(int32(rel)))
			bo.PutUint32(e[4:], f.Size)
			bo.PutUint32(e[8:], freOffs[i])
			bo.PutUint32(e[12:], uint32(len(f.FREs)))
			e[16] = infos[i]
			e[17] = f.RepSize
		} else {
			bo.PutUint64(e[0:], uint64(rel))
			bo.PutUint32(e[8:], f.Size)
			bo.PutUint32(e[12:], freOffs[i])
		}
		out = append(out, e[:fsz]...)
	}
	out = append(out, fres...)
	return out, nil
}
