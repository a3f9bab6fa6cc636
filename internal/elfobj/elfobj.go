// Package elfobj owns opening an ELF object for reading: the file mapped
// read-only (or bytes given), debug/elf's view of its headers over that
// memory, and bounded reads of section contents, so that a corrupt header
// never costs an allocation larger than the file and a 600 MB vmlinux
// costs only the pages actually read. Relocated section copies go through
// package elfrel. Every reader of ELF input in btfinline (DWARF inline
// sites, DWARF types, call frame information, kernel tables, BTF) opens
// its file here, and a pipeline that needs several of them (encode) opens
// the file once.
//
// It imports debug/elf and the other internal packages only.
package elfobj

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/btfinline/btfinline/internal/dwarfbuf"
	"github.com/btfinline/btfinline/internal/elfrel"
	"golang.org/x/sys/unix"
)

// Error names the section and file offset of data that is not there.
type Error = dwarfbuf.Error

// File is an opened ELF object. The embedded *elf.File gives the headers,
// sections, program headers and symbols.
type File struct {
	*elf.File
	// data is the whole file: the mapping, or the bytes given to New; nil
	// when mapping failed and sections are read through fh.
	data   []byte
	mapped bool
	fh     *os.File
	size   int64
}

// Open opens the ELF file at path, mapped read-only when the system
// allows (else read through the file descriptor). Close releases it.
func Open(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		fh.Close()
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	o := &File{size: st.Size()}
	var ra io.ReaderAt = fh
	if o.size > 0 && o.size == int64(int(o.size)) {
		if m, err := syscall.Mmap(int(fh.Fd()), 0, int(o.size), syscall.PROT_READ, syscall.MAP_PRIVATE); err == nil {
			o.data, o.mapped = m, true
			ra = bytes.NewReader(m)
		}
	}
	if o.mapped {
		fh.Close()
	} else {
		o.fh = fh
	}
	if o.File, err = elf.NewFile(ra); err != nil {
		o.Close()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%s: truncated ELF file (%d bytes): headers end past the end of the file", path, o.size)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return o, nil
}

// New opens an ELF object held in memory; b must stay unchanged while the
// File is in use.
func New(b []byte) (*File, error) {
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return &File{File: f, data: b, size: int64(len(b))}, nil
}

// Close releases the mapping or the file descriptor. Slices returned by
// Data and Raw must not be used after it.
func (f *File) Close() error {
	if f.mapped {
		syscall.Munmap(f.data)
		f.data, f.mapped = nil, false
	}
	if f.fh != nil {
		f.fh.Close()
		f.fh = nil
	}
	return nil
}

// Release gives back the pages that reads brought in of the bulk debug
// sections, those of 8 MiB and more (a vmlinux's .debug_info,
// .debug_loclists and .debug_line), so that they no longer count in the
// process's resident memory. The data stays valid: the mapping is private
// and never written, so a later read faults the same bytes in again from
// the page cache. The small sections that every unit reads (abbreviations,
// strings, BTF, symbols, text) stay: giving them back every interval
// made a vmlinux encode fault them in again, a fifth of its time on a
// virtual machine. Without a mapping it does nothing.
func (f *File) Release() {
	if !f.mapped {
		return
	}
	for _, s := range f.Sections {
		if !strings.HasPrefix(s.Name, ".debug_") || s.FileSize < bulkSection || s.Type == elf.SHT_NOBITS {
			continue
		}
		lo := (s.Offset + pageSize - 1) &^ (pageSize - 1)
		hi := (s.Offset + s.FileSize) &^ (pageSize - 1)
		if lo < hi && hi <= uint64(len(f.data)) {
			_ = unix.Madvise(f.data[lo:hi], unix.MADV_DONTNEED)
		}
	}
}

// bulkSection is the size from which Release gives a debug section back.
const bulkSection = 8 << 20

// pageSize is the unit Release gives back in: a page partly outside the
// section is kept.
const pageSize = 4096

// ReleaseEvery calls Release every d until stop is called: a reader of a
// whole vmlinux's DWARF (hundreds of MB, read once) then keeps resident
// only what it read in the last interval. stop must be called before
// Close.
func (f *File) ReleaseEvery(d time.Duration) (stop func()) {
	if !f.mapped {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				f.Release()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
		})
	}
}

// Raw is the whole file when it is in memory (mapped or given), else nil.
func (f *File) Raw() []byte { return f.data }

// Bytes is the whole file: Raw, or when the file could not be mapped, its
// contents read now.
func (f *File) Bytes() ([]byte, error) {
	if f.data != nil {
		return f.data, nil
	}
	b := make([]byte, f.size)
	if _, err := f.fh.ReadAt(b, 0); err != nil {
		return nil, err
	}
	return b, nil
}

// CheckSections reports the first section whose contents lie past the end
// of the file (a truncated copy), so that a reader fails before doing work.
func (f *File) CheckSections() error {
	for _, s := range f.Sections {
		if s.Type == elf.SHT_NOBITS || s.Type == elf.SHT_NULL {
			continue
		}
		if s.Offset > uint64(f.size) || s.FileSize > uint64(f.size)-s.Offset {
			return fmt.Errorf("truncated ELF file (%d bytes): section %s data [%#x, %#x) past the end", f.size, s.Name, s.Offset, s.Offset+s.FileSize)
		}
	}
	return nil
}

// Size is the file's size in bytes.
func (f *File) Size() int64 { return f.size }

// Index is the section index of s, -1 if s is not one of f's sections.
func (f *File) Index(s *elf.Section) int {
	for i, t := range f.Sections {
		if t == s {
			return i
		}
	}
	return -1
}

// SectionWithData is the first section called name that has contents in
// the file (not SHT_NOBITS or SHT_NULL), or nil.
func (f *File) SectionWithData(name string) *elf.Section {
	for _, s := range f.Sections {
		if s.Name == name && s.Type != elf.SHT_NOBITS && s.Type != elf.SHT_NULL {
			return s
		}
	}
	return nil
}

// inFile checks that the file holds [off, off+n).
func (f *File) inFile(s *elf.Section, off, n uint64) error {
	if off > uint64(f.size) || n > uint64(f.size)-off {
		return &Error{Section: s.Name, Offset: int64(s.Offset), Msg: fmt.Sprintf("section data [0x%x, +0x%x) past end of file", off, n)}
	}
	return nil
}

// Data returns the contents of s: a slice of the file's memory when it is
// uncompressed (read-only: copy before changing it), else a decompressed
// copy; nil for SHT_NOBITS. Contents the file does not hold are an error.
func (f *File) Data(s *elf.Section) ([]byte, error) {
	if s.Type == elf.SHT_NOBITS || s.Type == elf.SHT_NULL {
		return nil, nil
	}
	if err := f.inFile(s, s.Offset, s.FileSize); err != nil {
		return nil, err
	}
	if s.Flags&elf.SHF_COMPRESSED != 0 {
		b, err := s.Data()
		if err != nil {
			return nil, &Error{Section: s.Name, Offset: int64(s.Offset), Msg: err.Error()}
		}
		return b, nil
	}
	if f.data != nil {
		end := s.Offset + s.FileSize
		return f.data[s.Offset:end:end], nil
	}
	b := make([]byte, s.FileSize)
	if _, err := s.ReadAt(b, 0); err != nil {
		return nil, &Error{Section: s.Name, Offset: int64(s.Offset), Msg: err.Error()}
	}
	return b, nil
}

// Range returns n bytes at offset off of the uncompressed section s,
// refusing a range past the bytes the section has in the file.
func (f *File) Range(s *elf.Section, off, n uint64) ([]byte, error) {
	if s.Flags&elf.SHF_COMPRESSED != 0 {
		return nil, fmt.Errorf("section %s is compressed", s.Name)
	}
	if off > s.FileSize || n > s.FileSize-off {
		return nil, fmt.Errorf("section %s: %d bytes at %#x past its %d bytes in the file", s.Name, n, off, s.FileSize)
	}
	if err := f.inFile(s, s.Offset+off, n); err != nil {
		return nil, fmt.Errorf("section %s: %d bytes at %#x: past the end of the file", s.Name, n, off)
	}
	if f.data != nil {
		start := s.Offset + off
		return f.data[start : start+n : start+n], nil
	}
	b := make([]byte, n)
	if _, err := s.ReadAt(b, int64(off)); err != nil {
		return nil, fmt.Errorf("section %s at %#x: %w", s.Name, off, err)
	}
	return b, nil
}

// AllocSection is the allocated section with contents in the file that
// holds the linked addresses [start, stop), or nil.
func (f *File) AllocSection(start, stop uint64) *elf.Section {
	for _, s := range f.Sections {
		if s.Type == elf.SHT_NOBITS || s.Flags&elf.SHF_ALLOC == 0 || start < s.Addr || stop > s.Addr+s.Size {
			continue
		}
		return s
	}
	return nil
}

// AddrRange returns the bytes at the linked addresses [start, stop).
func (f *File) AddrRange(start, stop uint64) ([]byte, error) {
	s := f.AllocSection(start, stop)
	if s == nil || stop < start {
		return nil, fmt.Errorf("range %#x-%#x is in no section", start, stop)
	}
	return f.Range(s, start-s.Addr, stop-start)
}

// Pointers reads the 8-byte words at the linked addresses [start, stop),
// with the values a position-independent image (the arm64 vmlinux) keeps
// for them in its dynamic relocations.
func (f *File) Pointers(start, stop uint64) ([]uint64, error) {
	s := f.AllocSection(start, stop)
	if s == nil || stop < start {
		return nil, fmt.Errorf("range %#x-%#x is in no section", start, stop)
	}
	n := stop - start
	if n > s.Size || n%8 != 0 {
		return nil, fmt.Errorf("range %#x-%#x is not a whole number of addresses", start, stop)
	}
	b, err := f.Range(s, start-s.Addr, n)
	if err != nil {
		return nil, err
	}
	b = append([]byte(nil), b...)
	if _, err := elfrel.ApplyDynamic(f.File, start, b); err != nil {
		return nil, err
	}
	out := make([]uint64, n/8)
	for i := range out {
		out[i] = f.ByteOrder.Uint64(b[8*i:])
	}
	return out, nil
}

// Relocated returns a copy of section idx's contents with the RELA
// relocations that target it applied, section i being laid out at
// addr(i) (nil: all at 0). Unless strict, relocation types elfrel does
// not know are counted in the result and left as they are.
func (f *File) Relocated(idx int, addr func(int) uint64, strict bool) ([]byte, elfrel.Result, error) {
	if idx <= 0 || idx >= len(f.Sections) {
		return nil, elfrel.Result{}, fmt.Errorf("section index %d out of range", idx)
	}
	data, err := f.Data(f.Sections[idx])
	if err != nil {
		return nil, elfrel.Result{}, err
	}
	out := append([]byte(nil), data...)
	res, err := elfrel.Apply(f.File, idx, out, elfrel.Options{SectionAddr: addr, Strict: strict, Read: f.Data})
	if err != nil {
		return nil, res, err
	}
	return out, res, nil
}

// Deref reads the 8-byte word a loaded image holds at the linked address
// addr, through the PT_LOAD segments, as the dynamic linker would have
// mapped them (before relocation).
func (f *File) Deref(addr uint64) (uint64, bool) {
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || addr < p.Vaddr || addr+8 > p.Vaddr+p.Filesz {
			continue
		}
		var b [8]byte
		if _, err := p.ReadAt(b[:], int64(addr-p.Vaddr)); err != nil {
			return 0, false
		}
		return f.ByteOrder.Uint64(b[:]), true
	}
	return 0, false
}

// BuildID returns the hex NT_GNU_BUILD_ID of f, "" if it has none.
func (f *File) BuildID() (string, error) {
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		d, err := f.Data(s)
		if err != nil {
			return "", err
		}
		if id, ok := ParseBuildIDNote(d, f.ByteOrder); ok {
			return id, nil
		}
	}
	return "", nil
}

// ParseBuildIDNote finds the GNU build-id note in a note section's bytes
// (a section of an ELF file, or /sys/kernel/notes).
func ParseBuildIDNote(d []byte, bo binary.ByteOrder) (string, bool) {
	for len(d) >= 12 {
		nsz, dsz, typ := bo.Uint32(d), bo.Uint32(d[4:]), bo.Uint32(d[8:])
		n := 12 + int(align4(nsz))
		end := n + int(align4(dsz))
		if nsz > 1<<16 || dsz > 1<<16 || end > len(d) {
			return "", false
		}
		if typ == 3 && nsz == 4 && string(d[12:15]) == "GNU" {
			return fmt.Sprintf("%x", d[n:n+int(dsz)]), true
		}
		d = d[end:]
	}
	return "", false
}

func align4(x uint32) uint32 { return (x + 3) &^ 3 }
