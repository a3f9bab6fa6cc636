// Package cfi parses DWARF call frame information from .eh_frame and
// .debug_frame sections and interprets each FDE into its row table.
//
// It owns the byte-level decoding (CIEs, FDEs, augmentations, pointer
// encodings, call frame instructions) and the row interpreter; it knows
// nothing about SFrame. The sframe package consumes the instruction stream
// (to translate like GNU as does) and the row tables (to check that the
// translation unwinds the same way).
//
// It imports internal/dwarfbuf and the standard library.
package cfi

import (
	"encoding/binary"
	"fmt"

	"github.com/btfinline/btfinline/internal/dwarfbuf"
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

// Error is a decoding error that names the section and the byte offset in
// it. It is the error type of the shared DWARF byte cursor, so errors.As
// finds the cursor's errors under this name.
type Error = dwarfbuf.Error

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

// reader is the byte cursor plus what pointer encodings need to know
// about the section. Its positions (Pos) are section offsets.
type reader struct {
	dwarfbuf.Buf
	sec *Section
}

// newReader reads data, which sits at section offset pos.
func newReader(s *Section, pos int, data []byte) reader {
	return reader{Buf: dwarfbuf.Make(s.name(), s.Order, int64(pos), data), sec: s}
}

// sub reads an n-byte block and returns a reader over it.
func (r *reader) sub(n uint64) reader {
	return reader{Buf: r.Sub(n), sec: r.sec}
}

func (s *Section) name() string {
	if s.Name != "" {
		return s.Name
	}
	return s.Kind.String()
}

// encoded reads a pointer with a DW_EH_PE encoding. funcBase is the
// function start for DW_EH_PE_funcrel (0 when not applicable).
func (r *reader) encoded(enc uint8, funcBase uint64) uint64 {
	if enc == PEOmit {
		return 0
	}
	pos := r.sec.Addr + uint64(r.Pos())
	v := r.encodedFormatOnly(enc)
	if r.Err() != nil {
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
		r.Failf("unknown pointer application %#x", enc)
		return 0
	}
	if enc&PEIndirect != 0 {
		if r.sec.Deref == nil {
			r.Failf("indirect pointer %#x cannot be read", v)
			return 0
		}
		d, ok := r.sec.Deref(v)
		if !ok {
			r.Failf("indirect pointer %#x not in a loaded segment", v)
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

// encodedFormatOnly reads the value of a DW_EH_PE encoding, without
// applying it (pcrel, datarel...) or dereferencing it.
func (r *reader) encodedFormatOnly(enc uint8) uint64 {
	switch enc & 0x0f {
	case PEAbsptr:
		return r.Sized(r.sec.PtrSize)
	case PEULEB128:
		return r.Uleb()
	case PEUdata2:
		return uint64(r.U16())
	case PEUdata4:
		return uint64(r.U32())
	case PEUdata8:
		return r.U64()
	case PESLEB128:
		return uint64(r.Sleb())
	case PESdata2:
		return uint64(int64(int16(r.U16())))
	case PESdata4:
		return uint64(int64(int32(r.U32())))
	case PESdata8:
		return r.U64()
	}
	r.Failf("unknown pointer encoding %#x", enc)
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
	}
	fdes := make([]pending, 0, len(s.Data)/40)
	data := s.Data
	r := newReader(s, 0, data)
	body := r // one reader per entry, reset for each
	for r.Left() > 0 {
		start := r.Pos()
		length := uint64(r.U32())
		is64 := false
		if length == 0xffffffff {
			length = r.U64()
			is64 = true
		}
		if err := r.Err(); err != nil {
			return res, err
		}
		if length == 0 {
			// A terminator, or in .eh_frame padding between input
			// sections of a relocatable link: keep going, the linker may
			// have placed more entries after it.
			continue
		}
		if length > uint64(r.Left()) {
			return res, &Error{Section: s.name(), Offset: start, Msg: fmt.Sprintf("entry length %#x runs past the section end (%#x)", length, len(data))}
		}
		body.Reset(r.Pos(), r.Bytes(length))
		var id uint64
		idPos := body.Pos()
		if is64 {
			id = body.U64()
		} else {
			id = uint64(body.U32())
		}
		if body.Err() != nil {
			res.Skipped = append(res.Skipped, body.Failure())
			continue
		}
		isCIE := false
		var cieOff int64
		switch s.Kind {
		case EHFrame:
			isCIE = id == 0
			cieOff = idPos - int64(id)
		case DebugFrame:
			isCIE = (!is64 && id == 0xffffffff) || (is64 && id == ^uint64(0))
			cieOff = int64(id)
		}
		if isCIE {
			c := parseCIE(s, &body, start)
			cies[start] = c
			res.CIEs = append(res.CIEs, c)
		} else {
			fdes = append(fdes, pending{off: start, cieOff: cieOff, bodyStart: int(body.Pos()), bodyEnd: int(r.Pos())})
		}
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
		r := &body
		r.Reset(int64(p.bodyStart), data[p.bodyStart:p.bodyEnd])
		f := &slab[k]
		*f = FDE{Offset: p.off, CIE: c, sec: s}
		if s.Kind == EHFrame || c.FDEEncoding != PEAbsptr {
			f.Begin = r.encoded(c.FDEEncoding, 0)
			f.Size = r.rangeValue(c.FDEEncoding)
		} else {
			as := int(c.AddressSize)
			f.Begin = r.Sized(as)
			f.Size = r.Sized(as)
		}
		if hasZ(c.Augmentation) {
			n := r.Uleb()
			if n > uint64(r.Left()) {
				r.Failf("augmentation data length %d past the entry end", n)
			}
			if c.LSDAEncoding != PEOmit && r.Err() == nil {
				aug := r.sub(n)
				f.LSDA = aug.encoded(c.LSDAEncoding, f.Begin)
				r.SetFailure(aug.Failure())
			} else {
				r.Skip(n)
			}
		}
		if r.Err() != nil {
			res.Skipped = append(res.Skipped, r.Failure())
			continue
		}
		if f.Begin+f.Size < f.Begin || (s.PtrSize == 4 && f.Begin+f.Size > 1<<32) {
			res.Skipped = append(res.Skipped, &Error{Section: s.name(), Offset: p.off, Msg: fmt.Sprintf("FDE range %#x+%#x overflows the address space", f.Begin, f.Size)})
			continue
		}
		f.insnOff = r.Pos()
		f.Instructions = r.Bytes(uint64(r.Left()))
		res.FDEs = append(res.FDEs, f)
	}
	return res, nil
}

func hasZ(aug string) bool { return len(aug) > 0 && aug[0] == 'z' }

// parseCIE reads a CIE from r, which holds its body after the CIE id.
func parseCIE(s *Section, r *reader, start int64) *CIE {
	c := &CIE{Offset: start, sec: s, FDEEncoding: PEAbsptr, LSDAEncoding: PEOmit, PersonalityEncoding: PEOmit}
	c.AddressSize = uint8(s.PtrSize)
	c.Version = r.U8()
	switch {
	case r.Err() != nil:
	case s.Kind == EHFrame && c.Version != 1 && c.Version != 3:
		r.Failf("unsupported .eh_frame CIE version %d", c.Version)
	case s.Kind == DebugFrame && c.Version != 1 && c.Version != 3 && c.Version != 4:
		r.Failf("unsupported .debug_frame CIE version %d", c.Version)
	}
	c.Augmentation = string(r.CString())
	if c.Version == 4 {
		c.AddressSize = r.U8()
		c.SegmentSize = r.U8()
		if r.Err() == nil && c.AddressSize != 1 && c.AddressSize != 2 && c.AddressSize != 4 && c.AddressSize != 8 {
			r.Failf("unsupported CIE address size %d", c.AddressSize)
		}
		if r.Err() == nil && c.SegmentSize != 0 {
			r.Failf("unsupported CIE segment selector size %d", c.SegmentSize)
		}
	}
	aug := c.Augmentation
	if r.Err() == nil && len(aug) >= 2 && aug[:2] == "eh" {
		// Ancient GCC: an eh_ptr follows the augmentation.
		r.Sized(s.PtrSize)
		aug = aug[2:]
	}
	c.CodeAlign = r.Uleb()
	c.DataAlign = r.Sleb()
	if c.Version == 1 {
		c.RAReg = uint64(r.U8())
	} else {
		c.RAReg = r.Uleb()
	}
	if r.Err() == nil && len(aug) > 0 {
		if aug[0] != 'z' {
			r.Failf("unknown augmentation %q", c.Augmentation)
		} else {
			n := r.Uleb()
			if n > uint64(r.Left()) {
				r.Failf("augmentation data length %d past the entry end", n)
			}
			sub := r.sub(n)
			for i := 1; i < len(aug) && sub.Err() == nil; i++ {
				switch aug[i] {
				case 'R':
					c.FDEEncoding = sub.U8()
				case 'L':
					c.LSDAEncoding = sub.U8()
				case 'P':
					c.PersonalityEncoding = sub.U8()
					c.Personality = sub.encoded(c.PersonalityEncoding, 0)
				case 'S':
					c.SignalFrame = true
				case 'B':
					c.BKey = true
				case 'G':
					c.MTETagged = true
				default:
					sub.Failf("unknown augmentation character %q in %q", aug[i], c.Augmentation)
				}
			}
			r.SetFailure(sub.Failure())
		}
	}
	if r.Err() == nil && c.CodeAlign == 0 {
		r.Failf("code alignment factor 0")
	}
	if r.Err() == nil {
		c.initOff = r.Pos()
		c.Initial = r.Bytes(uint64(r.Left()))
	}
	c.err = r.Err()
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
	r := newReader(s, pos, s.Data[pos:])
	vals := make([]uint64, len(encs))
	for i, e := range encs {
		vals[i] = r.encoded(e, 0)
	}
	if err := r.Err(); err != nil {
		return nil, int(r.Pos()), err
	}
	return vals, int(r.Pos()), nil
}
