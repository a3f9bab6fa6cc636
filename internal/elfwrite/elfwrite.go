// Package elfwrite adds or replaces one section of an ELF file in place,
// atomically, leaving every other byte that anything in the file refers to
// where it was: the ELF header (but for the section-table fields), the
// program headers, every segment and every other section keep their offsets
// and contents. The section's data, a new section-name table when the name
// is new, and a new section header table are appended at the end; what was
// appended by an earlier run is reclaimed, so repeated runs do not grow the
// file. An existing allocated (SHF_ALLOC) section is the exception: a
// segment maps it at its address, so its new bytes go over the old ones and
// must be exactly as many (kbuild links vmlinux's .BTF.inline with its
// final size, then has it written this way).
//
// The write goes to a temporary file in the same directory, is synced, and
// is renamed over the original: on any error the original file is untouched.
// Used by "encode --elf-section" (.BTF.inline) and "sframe emit
// --elf-section" (.sframe).
//
// It imports debug/elf and internal/atomicfile.
package elfwrite

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/btfinline/btfinline/internal/atomicfile"
)

// Options describe the section header of the section being written. Zero
// values give a non-allocated SHT_PROGBITS section aligned to 4 bytes, which
// is what .BTF.inline needs.
type Options struct {
	Type      elf.SectionType
	Flags     elf.SectionFlag
	Addralign uint64
	// Replace allows replacing an existing section whose contents differ.
	// Replacing with identical contents is always allowed (a no-op).
	Replace bool
}

// ErrExists is returned when the section exists with other contents and
// Options.Replace is false.
var ErrExists = errors.New("section exists with different contents")

// Error is an error about the input ELF file, with the offset it concerns.
type Error struct {
	Path   string
	Offset int64
	Msg    string
}

func (e *Error) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("%s: offset %#x: %s", e.Path, e.Offset, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Result says what SetSection did.
type Result struct {
	Replaced  bool // an existing section of that name was replaced
	Unchanged bool // the section already held exactly these bytes
	Index     int  // section header index of the written section
}

// SetSection adds section name with data to the ELF file at path, or
// replaces the section of that name.
func SetSection(path, name string, data []byte, opts Options) (Result, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Result{}, err
	}
	out, res, err := Build(raw, name, data, opts)
	if err != nil {
		var ee *Error
		if errors.As(err, &ee) && ee.Path == "" {
			ee.Path = path
		}
		return res, err
	}
	if res.Unchanged {
		return res, nil
	}
	return res, atomicfile.Write(path, out)
}

// Build returns the bytes of the ELF image raw with section name set to
// data. It is SetSection without the file system.
func Build(raw []byte, name string, data []byte, opts Options) ([]byte, Result, error) {
	out, placed, err := BuildSections(raw, []Section{{
		Name: name, Type: opts.Type, Flags: opts.Flags, Addralign: opts.Addralign,
		Data: data, Replace: opts.Replace,
	}})
	var res Result
	if len(placed) == 1 {
		res = Result{Replaced: placed[0].Replaced, Unchanged: placed[0].Unchanged, Index: placed[0].Index}
	}
	return out, res, err
}

// Section is one section for BuildSections to add or replace.
type Section struct {
	Name      string
	Type      elf.SectionType // 0: SHT_PROGBITS
	Flags     elf.SectionFlag
	Addr      uint64
	Addralign uint64 // 0: 4
	Entsize   uint64
	Link      uint32
	Info      uint32
	// InfoFrom, when set, names a section (new or existing) whose index
	// goes into sh_info, as a relocation section needs.
	InfoFrom string
	Data     []byte
	// Replace allows replacing an existing section with other contents.
	Replace bool
}

// Placed says where BuildSections put one section.
type Placed struct {
	Index     int    // section header index
	Offset    uint64 // file offset of the data
	Replaced  bool
	Unchanged bool // existed with exactly these bytes
}

// BuildSections returns raw with every section of secs added or replaced,
// in one rewrite. When every section already holds exactly its bytes the
// returned image is nil and every Placed says Unchanged.
func BuildSections(raw []byte, secs []Section) ([]byte, []Placed, error) {
	for _, s := range secs {
		if s.Name == "" || strings.IndexByte(s.Name, 0) >= 0 {
			return nil, nil, fmt.Errorf("invalid section name %q", s.Name)
		}
	}
	img, err := parse(raw)
	if err != nil {
		return nil, nil, err
	}
	return img.set(secs)
}

// image is the parsed structure of an ELF file: enough to rewrite its
// section header table.
type image struct {
	raw      []byte
	class    elf.Class
	order    binary.ByteOrder
	shoff    uint64
	shentsz  int
	shdrs    [][]byte // raw section headers, copied
	shstrndx int
	strtab   []byte // section-name table contents
	keepEnd  uint64 // end of the last byte something other than the section table refers to
	sections []*elf.Section
}

func parse(raw []byte) (*image, error) {
	f, err := elf.NewFile(bytes.NewReader(raw))
	if err != nil {
		return nil, &Error{Offset: -1, Msg: "not a readable ELF file: " + err.Error()}
	}
	defer f.Close()
	img := &image{raw: raw, class: f.Class, order: f.ByteOrder, sections: f.Sections}
	var phoff, phnum, phentsz uint64
	switch f.Class {
	case elf.ELFCLASS64:
		if len(raw) < 64 {
			return nil, &Error{Offset: 0, Msg: "truncated ELF header"}
		}
		phoff = img.order.Uint64(raw[32:])
		img.shoff = img.order.Uint64(raw[40:])
		phentsz = uint64(img.order.Uint16(raw[54:]))
		phnum = uint64(img.order.Uint16(raw[56:]))
		img.shentsz = int(img.order.Uint16(raw[58:]))
		if img.shentsz != 64 {
			return nil, &Error{Offset: 58, Msg: fmt.Sprintf("section header size %d, want 64", img.shentsz)}
		}
	case elf.ELFCLASS32:
		if len(raw) < 52 {
			return nil, &Error{Offset: 0, Msg: "truncated ELF header"}
		}
		phoff = uint64(img.order.Uint32(raw[28:]))
		img.shoff = uint64(img.order.Uint32(raw[32:]))
		phentsz = uint64(img.order.Uint16(raw[42:]))
		phnum = uint64(img.order.Uint16(raw[44:]))
		img.shentsz = int(img.order.Uint16(raw[46:]))
		if img.shentsz != 40 {
			return nil, &Error{Offset: 46, Msg: fmt.Sprintf("section header size %d, want 40", img.shentsz)}
		}
	default:
		return nil, &Error{Offset: 4, Msg: "unknown ELF class"}
	}
	if img.shoff == 0 || len(f.Sections) == 0 {
		return nil, &Error{Offset: -1, Msg: "no section header table"}
	}
	n := uint64(len(f.Sections))
	if img.shoff > uint64(len(raw)) || n*uint64(img.shentsz) > uint64(len(raw))-img.shoff {
		return nil, &Error{Offset: int64(img.shoff), Msg: "section header table past the end of the file"}
	}
	img.shdrs = make([][]byte, n)
	for i := range img.shdrs {
		off := img.shoff + uint64(i)*uint64(img.shentsz)
		img.shdrs[i] = append([]byte(nil), raw[off:off+uint64(img.shentsz)]...)
	}
	img.shstrndx = img.shstrIndex()
	if img.shstrndx <= 0 || img.shstrndx >= len(f.Sections) {
		return nil, &Error{Offset: -1, Msg: "no section-name table"}
	}
	ss := f.Sections[img.shstrndx]
	if ss.Type != elf.SHT_STRTAB || ss.Offset > uint64(len(raw)) || ss.Size > uint64(len(raw))-ss.Offset {
		return nil, &Error{Offset: int64(ss.Offset), Msg: "section-name table out of the file"}
	}
	img.strtab = raw[ss.Offset : ss.Offset+ss.Size]

	// Everything a program header or a section refers to must stay put.
	img.keepEnd = uint64(len(raw))
	if f.Class == elf.ELFCLASS64 {
		img.keepEnd = 64
	} else {
		img.keepEnd = 52
	}
	if phnum > 0 {
		if phoff > uint64(len(raw)) || phnum*phentsz > uint64(len(raw))-phoff {
			return nil, &Error{Offset: int64(phoff), Msg: "program header table past the end of the file"}
		}
		img.keepEnd = max(img.keepEnd, phoff+phnum*phentsz)
	}
	for _, p := range f.Progs {
		if p.Off > uint64(len(raw)) || p.Filesz > uint64(len(raw))-p.Off {
			return nil, &Error{Offset: int64(p.Off), Msg: "segment past the end of the file"}
		}
		img.keepEnd = max(img.keepEnd, p.Off+p.Filesz)
	}
	return img, nil
}

// shstrIndex honours the extended numbering of section 0 (SHN_XINDEX).
func (img *image) shstrIndex() int {
	var idx uint64
	if img.class == elf.ELFCLASS64 {
		idx = uint64(img.order.Uint16(img.raw[62:]))
	} else {
		idx = uint64(img.order.Uint16(img.raw[50:]))
	}
	if idx == uint64(elf.SHN_XINDEX) {
		idx = uint64(img.field(img.shdrs[0], fLink))
	}
	return int(idx)
}

// Section header fields, by name; offsets differ between the classes.
type field int

const (
	fName field = iota
	fType
	fFlags
	fAddr
	fOffset
	fSize
	fLink
	fInfo
	fAlign
	fEntsize
)

var (
	off64 = [...]int{0, 4, 8, 16, 24, 32, 40, 44, 48, 56}
	off32 = [...]int{0, 4, 8, 12, 16, 20, 24, 28, 32, 36}
)

func (img *image) wide(f field) bool {
	if img.class == elf.ELFCLASS32 {
		return false
	}
	switch f {
	case fFlags, fAddr, fOffset, fSize, fAlign, fEntsize:
		return true
	}
	return false
}

func (img *image) field(h []byte, f field) uint64 {
	if img.class == elf.ELFCLASS32 {
		return uint64(img.order.Uint32(h[off32[f]:]))
	}
	if img.wide(f) {
		return img.order.Uint64(h[off64[f]:])
	}
	return uint64(img.order.Uint32(h[off64[f]:]))
}

func (img *image) setField(h []byte, f field, v uint64) {
	if img.class == elf.ELFCLASS32 {
		img.order.PutUint32(h[off32[f]:], uint32(v))
		return
	}
	if img.wide(f) {
		img.order.PutUint64(h[off64[f]:], v)
		return
	}
	img.order.PutUint32(h[off64[f]:], uint32(v))
}

func (img *image) set(secs []Section) ([]byte, []Placed, error) {
	placed := make([]Placed, len(secs))
	target := make([]int, len(secs))
	index := map[string]int{}
	for i, s := range img.sections {
		if _, dup := index[s.Name]; i > 0 && !dup {
			index[s.Name] = i
		}
	}
	allSame := true
	for i, sec := range secs {
		t, ok := index[sec.Name]
		if !ok {
			target[i] = -1
			allSame = false
			continue
		}
		target[i] = t
		placed[i] = Placed{Index: t, Replaced: true}
		s := img.sections[t]
		if s.Type != elf.SHT_NOBITS && s.Offset <= uint64(len(img.raw)) && s.Size <= uint64(len(img.raw))-s.Offset &&
			bytes.Equal(img.raw[s.Offset:s.Offset+s.Size], sec.Data) {
			placed[i].Unchanged = true
			placed[i].Offset = s.Offset
			continue
		}
		allSame = false
		if !sec.Replace {
			return nil, placed, fmt.Errorf("%s: %w (use --force to replace it)", sec.Name, ErrExists)
		}
	}
	if allSame {
		return nil, placed, nil
	}
	raw, inPlace, err := img.rewriteAllocated(secs, target, placed)
	if err != nil {
		return nil, placed, err
	}
	if len(inPlace) == len(secs) {
		return raw, placed, nil
	}
	img.raw = raw

	// Which bytes must stay: everything but the section table, the
	// rewritten sections and (when names are added) the name table.
	var names []byte
	newNames := false
	nameOff := make([]uint64, len(secs))
	for i, sec := range secs {
		if target[i] >= 0 {
			nameOff[i] = img.field(img.shdrs[target[i]], fName)
			continue
		}
		if at := indexName(img.strtab, sec.Name); at >= 0 {
			nameOff[i] = uint64(at)
			continue
		}
		if !newNames {
			names = append([]byte(nil), img.strtab...)
			newNames = true
		}
		nameOff[i] = uint64(len(names))
		names = append(append(names, sec.Name...), 0)
	}
	rewritten := map[int]bool{}
	for i, t := range target {
		if t >= 0 && !inPlace[i] {
			rewritten[t] = true
		}
	}
	keepEnd := img.keepEnd
	for i, s := range img.sections {
		if i == 0 || rewritten[i] || (newNames && i == img.shstrndx) || s.Type == elf.SHT_NOBITS {
			continue
		}
		if s.Offset > uint64(len(img.raw)) || s.Size > uint64(len(img.raw))-s.Offset {
			return nil, placed, &Error{Offset: int64(s.Offset), Msg: fmt.Sprintf("section %q past the end of the file", s.Name)}
		}
		keepEnd = max(keepEnd, s.Offset+s.Size)
	}
	ss := img.sections[img.shstrndx]
	if newNames && ss.Offset < keepEnd {
		// The old name table sits among kept bytes: leave it, unused.
		keepEnd = max(keepEnd, ss.Offset+ss.Size)
	}

	size := keepEnd + uint64(len(names)) + uint64(len(img.shdrs)+len(secs))*uint64(img.shentsz) + 8
	for _, sec := range secs {
		size += uint64(len(sec.Data)) + sec.Addralign
	}
	out := make([]byte, 0, size)
	out = append(out, img.raw[:keepEnd]...)
	pad := func(align uint64) {
		if align > 1 {
			for uint64(len(out))%align != 0 {
				out = append(out, 0)
			}
		}
	}

	shdrs := append([][]byte(nil), img.shdrs...)
	if newNames {
		h := append([]byte(nil), shdrs[img.shstrndx]...)
		img.setField(h, fOffset, uint64(len(out)))
		img.setField(h, fSize, uint64(len(names)))
		shdrs[img.shstrndx] = h
		out = append(out, names...)
	}
	// Indexes first, so that InfoFrom can name a section added later.
	for i := range secs {
		if inPlace[i] {
			continue
		}
		if target[i] < 0 {
			target[i] = len(shdrs)
			shdrs = append(shdrs, make([]byte, img.shentsz))
		}
		placed[i].Index = target[i]
		index[secs[i].Name] = target[i]
	}
	for i, sec := range secs {
		if inPlace[i] {
			continue
		}
		if sec.Type == 0 {
			sec.Type = elf.SHT_PROGBITS
		}
		if sec.Addralign == 0 {
			sec.Addralign = 4
		}
		pad(sec.Addralign)
		placed[i].Offset = uint64(len(out))
		placed[i].Unchanged = false
		out = append(out, sec.Data...)
		h := make([]byte, img.shentsz)
		img.setField(h, fName, nameOff[i])
		img.setField(h, fType, uint64(sec.Type))
		img.setField(h, fFlags, uint64(sec.Flags))
		img.setField(h, fAddr, sec.Addr)
		img.setField(h, fOffset, placed[i].Offset)
		img.setField(h, fSize, uint64(len(sec.Data)))
		img.setField(h, fLink, uint64(sec.Link))
		info := uint64(sec.Info)
		if sec.InfoFrom != "" {
			t, ok := index[sec.InfoFrom]
			if !ok {
				return nil, placed, fmt.Errorf("%s: sh_info names %q, which is not in the file", sec.Name, sec.InfoFrom)
			}
			info = uint64(t)
		}
		img.setField(h, fInfo, info)
		img.setField(h, fAlign, sec.Addralign)
		img.setField(h, fEntsize, sec.Entsize)
		shdrs[target[i]] = h
	}

	if img.class == elf.ELFCLASS64 {
		pad(8)
	} else {
		pad(4)
	}
	shoff := uint64(len(out))
	for _, h := range shdrs {
		out = append(out, h...)
	}
	if err := img.putShnum(out, shoff, len(shdrs)); err != nil {
		return nil, placed, err
	}
	return out, placed, nil
}

// rewriteAllocated writes the new bytes of every existing SHF_ALLOC section
// among secs over the old ones, in a copy of the image. Such a section is
// where a segment maps it (vmlinux's .BTF.inline, linked between
// __start_BTF_inline and __stop_BTF_inline, is read by the running kernel
// at its link address), so it is never moved and its header never changes:
// the new contents must have exactly the old size. inPlace[i] says secs[i]
// is such a section, written or already holding its bytes.
func (img *image) rewriteAllocated(secs []Section, target []int, placed []Placed) ([]byte, map[int]bool, error) {
	raw := img.raw
	copied := false
	inPlace := map[int]bool{}
	for i, sec := range secs {
		if target[i] < 0 {
			continue
		}
		s := img.sections[target[i]]
		if s.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		if placed[i].Unchanged {
			inPlace[i] = true
			continue
		}
		if s.Type == elf.SHT_NOBITS {
			return nil, nil, &Error{Offset: int64(img.shoff) + int64(target[i]*img.shentsz),
				Msg: fmt.Sprintf("section %s is SHT_NOBITS and allocated: it has no bytes to rewrite", sec.Name)}
		}
		if uint64(len(sec.Data)) != s.Size {
			return nil, nil, &Error{Offset: int64(s.Offset),
				Msg: fmt.Sprintf("section %s is allocated (address %#x, %d bytes): it is rewritten in place and cannot take %d bytes", sec.Name, s.Addr, s.Size, len(sec.Data))}
		}
		if s.Offset > uint64(len(raw)) || s.Size > uint64(len(raw))-s.Offset {
			return nil, nil, &Error{Offset: int64(s.Offset), Msg: fmt.Sprintf("section %q past the end of the file", s.Name)}
		}
		if !copied {
			raw, copied = append([]byte(nil), img.raw...), true
		}
		copy(raw[s.Offset:], sec.Data)
		inPlace[i] = true
		placed[i].Offset = s.Offset
	}
	return raw, inPlace, nil
}

// putShnum writes e_shoff and e_shnum, using the extended form in section
// 0's sh_size when the count does not fit.
func (img *image) putShnum(out []byte, shoff uint64, n int) error {
	ext := n >= int(elf.SHN_LORESERVE)
	count := uint16(n)
	if ext {
		count = 0
	}
	sh0 := out[shoff : shoff+uint64(img.shentsz)]
	if ext || img.field(sh0, fSize) != 0 {
		if ext {
			img.setField(sh0, fSize, uint64(n))
		} else {
			img.setField(sh0, fSize, 0)
		}
	}
	if img.class == elf.ELFCLASS64 {
		img.order.PutUint64(out[40:], shoff)
		img.order.PutUint16(out[60:], count)
	} else {
		if shoff > 0xffffffff {
			return &Error{Offset: -1, Msg: "ELF32 file would exceed 4 GiB"}
		}
		img.order.PutUint32(out[32:], uint32(shoff))
		img.order.PutUint16(out[48:], count)
	}
	return nil
}

// indexName finds name as a whole NUL-terminated string in strtab.
func indexName(strtab []byte, name string) int {
	want := append([]byte(name), 0)
	for i := 0; i+len(want) <= len(strtab); {
		j := bytes.Index(strtab[i:], want)
		if j < 0 {
			return -1
		}
		at := i + j
		if at == 0 || strtab[at-1] == 0 {
			return at
		}
		i = at + 1
	}
	return -1
}
