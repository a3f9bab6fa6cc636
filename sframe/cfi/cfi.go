// Package cfi parses DWARF call frame information from .eh_frame and
// .debug_frame sections and interprets each FDE into its row table.
//
// It owns the byte-level decoding (CIEs, FDEs, augmentations, pointer
// encodings, call frame instructions) and the row interpreter; it knows
// nothing about SFrame. The sframe package consumes the instruction stream
// (to translate like GNU as does) and the row tables (to check that the
// translation unwinds the same way).
package cfi

import (
	"encoding/binary"
	"fmt"
)

// Kind says which flavour of call frame section is being parsed.
type Kind uint8

const (
	EHFrame    Kind = iota // .eh_frame: CIE id 0, relative CIE pointers, augmentations
	DebugFrame             // .debug_frame: CIE id all-ones, absolute CIE offsets
)

func (k Kind) String() string {
	if k == EHFrame {
		return ".eh_frame"
	}
	return ".debug_frame"
}

// Error is a decoding error that names the section and the byte offset in it.
type Error struct {
	Section string
	Offset  int64
	Msg     string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s+%#x: %s", e.Section, e.Offset, e.Msg)
}

// Section describes one call frame section to parse.
type Section struct {
	Name    string // for errors; defaults to Kind.String()
	Kind    Kind
	Data    []byte
	Addr    uint64 // sh_addr (0 in relocatable objects)
	Order   binary.ByteOrder
	PtrSize int // 4 or 8: the target's address size

	// Bases for DW_EH_PE_textrel and DW_EH_PE_datarel pointers.
	TextBase, DataBase uint64
	// Deref reads a target pointer for DW_EH_PE_indirect; nil means that
	// indirect pointers are reported as errors.
	Deref func(addr uint64) (uint64, bool)
}

// DWARF pointer encodings (DW_EH_PE_*).
const (
	PEAbsptr   = 0x00
	PEULEB128  = 0x01
	PEUdata2   = 0x02
	PEUdata4   = 0x03
	PEUdata8   = 0x04
	PESLEB128  = 0x09
	PESdata2   = 0x0a
	PESdata4   = 0x0b
	PESdata8   = 0x0c
	PEPCRel    = 0x10
	PETextRel  = 0x20
	PEDataRel  = 0x30
	PEFuncRel  = 0x40
	PEAligned  = 0x50
	PEIndirect = 0x80
	PEOmit     = 0xff
)

// CIE is a common information entry.
type CIE struct {
	Offset              int64 // section offset of the length field
	Version             uint8
	Augmentation        string
	AddressSize         uint8
	SegmentSize         uint8
	CodeAlign           uint64
	DataAlign           int64
	RAReg               uint64
	FDEEncoding         uint8 // 'R'
	LSDAEncoding        uint8 // 'L'
	PersonalityEncoding uint8
	Personality         uint64 // 'P'
	SignalFrame         bool   // 'S'
	BKey                bool   // 'B' (AArch64 pointer authentication with key B)
	MTETagged           bool   // 'G'
	Initial             []byte // initial instructions
	initOff             int64
	sec                 *Section
	err                 error // set when the CIE itself could not be parsed
}

// FDE is a frame description entry.
type FDE struct {
	Offset       int64 // section offset of the length field
	CIE          *CIE
	Begin        uint64 // absolute start address
	Size         uint64
	LSDA         uint64
	Instructions []byte
	insnOff      int64 // section offset of Instructions[0]
	sec          *Section
}

// End is the first address after the FDE's range.
func (f *FDE) End() uint64 { return f.Begin + f.Size }

// Skip records an FDE (or a CIE and all FDEs using it) that could not be
// parsed; Parse continues after it.
type Skip struct {
	Err *Error
}

// Result is the output of Parse.
type Result struct {
	CIEs    []*CIE
	FDEs    []*FDE
	Skipped []*Error // per-entry problems; the entries were skipped
}

type reader struct {
	sec   *Section
	b     []byte
	off   int // absolute offset in sec.Data
	end   int
	err   *Error
	order binary.ByteOrder
}

func (r *reader) fail(msg string, a ...any) {
	if r.err == nil {
		r.err = &Error{Section: r.sec.name(), Offset: int64(r.off), Msg: fmt.Sprintf(msg, a...)}
	}
	r.off = r.end
}

func (s *Section) name() string {
	if s.Name != "" {
		return s.Name
	}
	return s.Kind.String()
}

func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || r.end-r.off < n {
		r.fail("truncated: need %d bytes, have %d", n, r.end-r.off)
		return false
	}
	return true
}

func (r *reader) u8() uint8 {
	if !r.need(1) {
		return 0
	}
	v := r.b[r.off]
	r.off++
	return v
}

func (r *reader) u16() uint16 {
	if !r.need(2) {
		return 0
	}
	v := r.order.Uint16(r.b[r.off:])
	r.off += 2
	return v
}

func (r *reader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	v := r.order.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

func (r *reader) u64() uint64 {
	if !r.need(8) {
		return 0
	}
	v := r.order.Uint64(r.b[r.off:])
	r.off += 8
	return v
}

func (r *reader) uleb() uint64 {
	var v uint64
	var shift uint
	for {
		if !r.need(1) {
			return 0
		}
		c := r.b[r.off]
		r.off++
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			return v
		}
	}
}

func (r *reader) sleb() int64 {
	var v int64
	var shift uint
	for {
		if !r.need(1) {
			return 0
		}
		c := r.b[r.off]
		r.off++
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}

func (r *reader) bytes(n uint64) []byte {
	if n > uint64(r.end-r.off) {
		r.fail("truncated: block of %d bytes, have %d", n, r.end-r.off)
		return nil
	}
	b := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return b
}

func (r *reader) addr(size int) uint64 {
	switch size {
	case 1:
		return uint64(r.u8())
	case 2:
		return uint64(r.u16())
	case 4:
		return uint64(r.u32())
	case 8:
		return r.u64()
	}
	r.fail("unsupported address size %d", size)
	return 0
}

// encoded reads a pointer with a DW_EH_PE encoding. funcBase is the
// function start for DW_EH_PE_funcrel (0 when not applicable).
func (r *reader) encoded(enc uint8, funcBase uint64) uint64 {
	if enc == PEOmit {
		return 0
	}
	pos := r.sec.Addr + uint64(r.off)
	var v uint64
	switch enc & 0x0f {
	case PEAbsptr:
		v = r.addr(r.sec.PtrSize)
	case PEULEB128:
		v = r.uleb()
	case PEUdata2:
		v = uint64(r.u16())
	case PEUdata4:
		v = uint64(r.u32())
	case PEUdata8:
		v = r.u64()
	case PESLEB128:
		v = uint64(r.sleb())
	case PESdata2:
		v = uint64(int64(int16(r.u16())))
	case PESdata4:
		v = uint64(int64(int32(r.u32())))
	case PESdata8:
		v = r.u64()
	default:
		r.fail("unknown pointer encoding %#x", enc)
		return 0
	}
	switch enc & 0x70 {
	case 0:
	case PEPCRel:
		v += pos
	case PETextRel:
		v += r.sec.TextBase
	case PEDataRel:
		v += r.sec.DataBase
	case PEFuncRel:
		v += funcBase
	case PEAligned:
		// The value itself is aligned; already read.
	default:
		r.fail("unknown pointer application %#x", enc)
		return 0
	}
	if enc&PEIndirect != 0 {
		if r.sec.Deref == nil {
			r.fail("indirect pointer %#x cannot be read", v)
			return 0
		}
		d, ok := r.sec.Deref(v)
		if !ok {
			r.fail("indirect pointer %#x not in a loaded segment", v)
			return 0
		}
		v = d
	}
	if r.sec.PtrSize == 4 {
		v &= 0xffffffff
	}
	return v
}

// rangeValue reads an FDE address range: only the value format of the
// encoding applies.
func (r *reader) rangeValue(enc uint8) uint64 {
	v := r.encodedFormatOnly(enc)
	if r.sec.PtrSize == 4 {
		v &= 0xffffffff
	}
	return v
}

func (r *reader) encodedFormatOnly(enc uint8) uint64 {
	switch enc & 0x0f {
	case PEAbsptr:
		return r.addr(r.sec.PtrSize)
	case PEULEB128:
		return r.uleb()
	case PEUdata2:
		return uint64(r.u16())
	case PEUdata4:
		return uint64(r.u32())
	case PEUdata8:
		return r.u64()
	case PESLEB128:
		return uint64(r.sleb())
	case PESdata2:
		return uint64(int64(int16(r.u16())))
	case PESdata4:
		return uint64(int64(int32(r.u32())))
	case PESdata8:
		return r.u64()
	}
	r.fail("unknown pointer encoding %#x", enc)
	return 0
}

// Parse walks a call frame section and returns its CIEs and FDEs. Entries
// whose contents are bad are recorded in Result.Skipped and skipped; a
// malformed length field ends the walk with an error (nothing after it can
// be located).
func Parse(s *Section) (*Result, error) {
	if s.Order == nil {
		s.Order = binary.LittleEndian
	}
	if s.PtrSize != 4 && s.PtrSize != 8 {
		return nil, &Error{Section: s.name(), Msg: fmt.Sprintf("unsupported address size %d", s.PtrSize)}
	}
	res := &Result{}
	cies := map[int64]*CIE{}
	type pending struct {
		off, cieOff        int64
		bodyStart, bodyEnd int
		is64               bool
	}
	fdes := make([]pending, 0, len(s.Data)/40)
	data := s.Data
	off := 0
	for off < len(data) {
		r := &reader{sec: s, b: data, off: off, end: len(data), order: s.Order}
		start := off
		length := uint64(r.u32())
		is64 := false
		if length == 0xffffffff {
			length = r.u64()
			is64 = true
		}
		if r.err != nil {
			return res, r.err
		}
		if length == 0 {
			if s.Kind == EHFrame {
				// Terminator (or padding between input sections in a
				// relocatable link): keep going, the linker may have
				// placed more entries after it.
				off = r.off
				continue
			}
			off = r.off
			continue
		}
		if length > uint64(len(data)-r.off) {
			return res, &Error{Section: s.name(), Offset: int64(start), Msg: fmt.Sprintf("entry length %#x runs past the section end (%#x)", length, len(data))}
		}
		bodyStart := r.off
		bodyEnd := r.off + int(length)
		r.end = bodyEnd
		var id uint64
		idPos := r.off
		if is64 {
			id = r.u64()
		} else {
			id = uint64(r.u32())
		}
		if r.err != nil {
			res.Skipped = append(res.Skipped, r.err)
			off = bodyEnd
			continue
		}
		isCIE := false
		var cieOff int64
		switch s.Kind {
		case EHFrame:
			isCIE = id == 0
			cieOff = int64(idPos) - int64(id)
		case DebugFrame:
			isCIE = (!is64 && id == 0xffffffff) || (is64 && id == ^uint64(0))
			cieOff = int64(id)
		}
		if isCIE {
			c := parseCIE(s, r, int64(start), is64)
			cies[int64(start)] = c
			res.CIEs = append(res.CIEs, c)
		} else {
			fdes = append(fdes, pending{off: int64(start), cieOff: cieOff, bodyStart: r.off, bodyEnd: bodyEnd, is64: is64})
		}
		_ = bodyStart
		off = bodyEnd
	}
	slab := make([]FDE, len(fdes))
	for k, p := range fdes {
		c := cies[p.cieOff]
		if c == nil {
			// A CIE may sit at an offset we have not visited as an entry
			// start (a bogus pointer), or after a corrupt entry.
			res.Skipped = append(res.Skipped, &Error{Section: s.name(), Offset: p.off, Msg: fmt.Sprintf("FDE's CIE pointer %#x does not point at a CIE", p.cieOff)})
			continue
		}
		if c.err != nil {
			res.Skipped = append(res.Skipped, &Error{Section: s.name(), Offset: p.off, Msg: fmt.Sprintf("FDE uses a bad CIE at %#x: %v", c.Offset, c.err)})
			continue
		}
		r := &reader{sec: s, b: data, off: p.bodyStart, end: p.bodyEnd, order: s.Order}
		f := &slab[k]
		*f = FDE{Offset: p.off, CIE: c, sec: s}
		if s.Kind == EHFrame || c.FDEEncoding != PEAbsptr {
			f.Begin = r.encoded(c.FDEEncoding, 0)
			f.Size = r.rangeValue(c.FDEEncoding)
		} else {
			as := int(c.AddressSize)
			f.Begin = r.addr(as)
			f.Size = r.addr(as)
		}
		if hasZ(c.Augmentation) {
			n := r.uleb()
			augEnd := r.off + int(min(n, uint64(r.end-r.off)))
			if n > uint64(r.end-r.off) {
				r.fail("augmentation data length %d past the entry end", n)
			}
			if c.LSDAEncoding != PEOmit && r.err == nil {
				sub := *r
				sub.end = augEnd
				f.LSDA = sub.encoded(c.LSDAEncoding, f.Begin)
				if sub.err != nil {
					r.err = sub.err
				}
			}
			if r.err == nil {
				r.off = augEnd
			}
		}
		if r.err != nil {
			res.Skipped = append(res.Skipped, r.err)
			continue
		}
		if f.Begin+f.Size < f.Begin || (s.PtrSize == 4 && f.Begin+f.Size > 1<<32) {
			res.Skipped = append(res.Skipped, &Error{Section: s.name(), Offset: p.off, Msg: fmt.Sprintf("FDE range %#x+%#x overflows the address space", f.Begin, f.Size)})
			continue
		}
		f.insnOff = int64(r.off)
		f.Instructions = data[r.off:p.bodyEnd]
		res.FDEs = append(res.FDEs, f)
	}
	return res, nil
}

func hasZ(aug string) bool { return len(aug) > 0 && aug[0] == 'z' }

func parseCIE(s *Section, r *reader, start int64, is64 bool) *CIE {
	c := &CIE{Offset: start, sec: s, FDEEncoding: PEAbsptr, LSDAEncoding: PEOmit, PersonalityEncoding: PEOmit}
	c.AddressSize = uint8(s.PtrSize)
	c.Version = r.u8()
	switch {
	case r.err != nil:
	case s.Kind == EHFrame && c.Version != 1 && c.Version != 3:
		r.fail("unsupported .eh_frame CIE version %d", c.Version)
	case s.Kind == DebugFrame && c.Version != 1 && c.Version != 3 && c.Version != 4:
		r.fail("unsupported .debug_frame CIE version %d", c.Version)
	}
	// Augmentation string, NUL-terminated.
	augStart := r.off
	for r.err == nil {
		if !r.need(1) {
			break
		}
		if r.b[r.off] == 0 {
			c.Augmentation = string(r.b[augStart:r.off])
			r.off++
			break
		}
		r.off++
	}
	if c.Version == 4 {
		c.AddressSize = r.u8()
		c.SegmentSize = r.u8()
		if r.err == nil && c.AddressSize != 1 && c.AddressSize != 2 && c.AddressSize != 4 && c.AddressSize != 8 {
			r.fail("unsupported CIE address size %d", c.AddressSize)
		}
		if r.err == nil && c.SegmentSize != 0 {
			r.fail("unsupported CIE segment selector size %d", c.SegmentSize)
		}
	}
	aug := c.Augmentation
	if r.err == nil && len(aug) >= 2 && aug[:2] == "eh" {
		// Ancient GCC: an eh_ptr follows the augmentation.
		r.addr(s.PtrSize)
		aug = aug[2:]
	}
	c.CodeAlign = r.uleb()
	c.DataAlign = r.sleb()
	if c.Version == 1 {
		c.RAReg = uint64(r.u8())
	} else {
		c.RAReg = r.uleb()
	}
	if r.err == nil && len(aug) > 0 {
		if aug[0] != 'z' {
			r.fail("unknown augmentation %q", c.Augmentation)
		} else {
			n := r.uleb()
			if r.err == nil && n > uint64(r.end-r.off) {
				r.fail("augmentation data length %d past the entry end", n)
			}
			augEnd := r.off + int(n)
			sub := *r
			sub.end = augEnd
			for i := 1; i < len(aug) && sub.err == nil; i++ {
				switch aug[i] {
				case 'R':
					c.FDEEncoding = sub.u8()
				case 'L':
					c.LSDAEncoding = sub.u8()
				case 'P':
					c.PersonalityEncoding = sub.u8()
					c.Personality = sub.encoded(c.PersonalityEncoding, 0)
				case 'S':
					c.SignalFrame = true
				case 'B':
					c.BKey = true
				case 'G':
					c.MTETagged = true
				default:
					sub.fail("unknown augmentation character %q in %q", aug[i], c.Augmentation)
				}
			}
			if sub.err != nil {
				r.err = sub.err
			} else {
				r.off = augEnd
			}
		}
	}
	if r.err == nil && c.CodeAlign == 0 {
		r.fail("code alignment factor 0")
	}
	if r.err == nil {
		c.Initial = r.b[r.off:r.end]
		c.initOff = int64(r.off)
	}
	if r.err != nil {
		c.err = r.err
	}
	return c
}

// ReadEncoded reads successive DW_EH_PE-encoded values starting at section
// offset pos (as in .eh_frame_hdr) and returns them with the end offset.
func ReadEncoded(s *Section, pos int, encs []uint8) ([]uint64, int, error) {
	if s.Order == nil {
		s.Order = binary.LittleEndian
	}
	if pos < 0 || pos > len(s.Data) {
		return nil, pos, &Error{Section: s.name(), Offset: int64(pos), Msg: "offset outside the section"}
	}
	r := &reader{sec: s, b: s.Data, off: pos, end: len(s.Data), order: s.Order}
	vals := make([]uint64, len(encs))
	for i, e := range encs {
		vals[i] = r.encoded(e, 0)
	}
	if r.err != nil {
		return nil, r.off, r.err
	}
	return vals, r.off, nil
}
