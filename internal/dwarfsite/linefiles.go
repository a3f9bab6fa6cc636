package dwarfsite

import (
	"bytes"
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"path"

	"github.com/btfinline/btfinline/internal/dwarfbuf"
)

// The file table of a line program header (DWARF 5 6.2.4, DWARF 2-4
// 6.2.4 items 15-16): DW_AT_decl_file indexes it. lineFiles reads it
// without debug/dwarf, whose LineReader needs a dwarf.Data and so a
// parse of every unit's abbreviations; its names, errors included, are
// those of LineReader.Files: a table with an error is no table.

// Content type codes of DWARF 5's entry formats (DW_LNCT_*).
const (
	lnctPath           = 0x1
	lnctDirectoryIndex = 0x2
)

// Why lineFiles read no table: errLineAsk, ask debug/dwarf (a header it
// may refuse too, or a path that is not a Unix one, which only it spells
// as it does); errLineCount, a table longer than the bytes that hold it,
// which debug/dwarf would allocate whole.
var (
	errLineAsk   = errors.New("line table: left to debug/dwarf")
	errLineCount = errors.New("line table: more entries than bytes")
)

// lineFiles returns the file names of the line program header at off in
// line, as debug/dwarf's LineReader.Files gives them (nil entries as ""),
// with compDir the unit's DW_AT_comp_dir.
func lineFiles(line, str, lineStr []byte, order binary.ByteOrder, off int64, compDir string) ([]string, error) {
	refs, err := lineFileRefs(line, str, lineStr, order, off, compDir)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(refs))
	for i := range refs {
		out[i] = refs[i].path()
	}
	return out, nil
}

// fileRef is an entry of a file table before its path is spelled: a
// unit's table names a hundred headers or more, of which its entries use
// a few.
type fileRef struct {
	dir  string
	name []byte // in the section
	join bool   // the path is dir joined with name, else name
}

func (f *fileRef) path() string {
	if f.join {
		return joinPath(f.dir, string(f.name))
	}
	return string(f.name)
}

// lineFileRefs is lineFiles with the paths left unspelled.
func lineFileRefs(line, str, lineStr []byte, order binary.ByteOrder, off int64, compDir string) ([]fileRef, error) {
	if off < 0 || off > int64(len(line)) || !unixPath(compDir) {
		return nil, errLineAsk
	}
	c := dwarfbuf.Make(".debug_line", order, off, line[off:])
	length := uint64(c.U32())
	dwarf64 := false
	switch {
	case length == 0xffffffff:
		dwarf64, length = true, c.U64()
	case length >= 0xfffffff0:
		return nil, errLineAsk
	}
	if c.Err() != nil || length > uint64(c.Left()) {
		return nil, errLineAsk
	}
	c = c.Sub(length)
	version := c.U16()
	if version < 2 || version > 5 {
		return nil, errLineAsk
	}
	if version >= 5 {
		c.U8() // address size
		c.U8() // segment selector size
	}
	var hdrLen uint64
	if dwarf64 {
		hdrLen = c.U64()
	} else {
		hdrLen = uint64(c.U32())
	}
	if c.Err() != nil || hdrLen > uint64(c.Left()) {
		return nil, errLineAsk
	}
	c.U8() // minimum instruction length
	if version >= 4 && c.U8() == 0 {
		return nil, errLineAsk // maximum operations per instruction
	}
	c.U8() // default is_stmt
	c.U8() // line base
	if c.U8() == 0 {
		return nil, errLineAsk // line range
	}
	opBase := int(c.U8())
	for i := 1; i < opBase; i++ {
		if n := c.U8(); i < len(stdOpcodeLen) && stdOpcodeLen[i] >= 0 && int(n) != stdOpcodeLen[i] {
			return nil, errLineAsk
		}
	}
	if c.Err() != nil {
		return nil, errLineAsk
	}
	if version < 5 {
		return lineFilesV4(&c, compDir)
	}
	strs := [2][]byte{str, lineStr}
	drefs, err := lineEntries(&c, dwarf64, strs, nil)
	if err != nil {
		return nil, err
	}
	dirs := make([]string, len(drefs))
	for i := range drefs {
		dirs[i] = drefs[i].path()
	}
	return lineEntries(&c, dwarf64, strs, dirs)
}

// stdOpcodeLen are the operand counts of the standard opcodes DWARF 2-5
// define (DW_LNS_copy .. DW_LNS_set_isa) that debug/dwarf requires a
// header to give as they are; it does not check DW_LNS_set_column (5) and
// DW_LNS_fixed_advance_pc (9), -1 here.
var stdOpcodeLen = [...]int{0, 0, 1, 1, 1, -1, 0, 0, 0, -1, 0, 0, 1}

// lineFilesV4 reads the include directories and file names of DWARF 2-4,
// c at the first directory.
func lineFilesV4(c *dwarfbuf.Buf, compDir string) ([]fileRef, error) {
	dirs := []string{compDir}
	for {
		d := c.CString()
		if c.Err() != nil {
			return nil, errLineAsk
		}
		if len(d) == 0 {
			break
		}
		dir := string(d)
		if !unixPath(dir) {
			return nil, errLineAsk
		}
		if !absPath(dir) {
			dir = joinPath(compDir, dir)
		}
		dirs = append(dirs, dir)
	}
	files := []fileRef{{}} // file numbers start at 1
	for {
		n := c.CString()
		if c.Err() != nil {
			return nil, errLineAsk
		}
		if len(n) == 0 {
			return files, nil
		}
		f := fileRef{name: n}
		di := c.Uleb()
		if !unixPath(n) {
			return nil, errLineAsk
		}
		if !absPath(n) {
			if di >= uint64(len(dirs)) {
				return nil, errLineAsk
			}
			f.dir, f.join = dirs[di], true
		}
		c.Uleb() // modification time
		c.Uleb() // length
		files = append(files, f)
	}
}

// lineEntries reads a DWARF 5 directory or file name table (its entry
// format, count and entries) at c: the paths, each joined to its entry in
// dirs when it names one. strs are .debug_str and .debug_line_str.
func lineEntries(c *dwarfbuf.Buf, dwarf64 bool, strs [2][]byte, dirs []string) ([]fileRef, error) {
	type lnctForm struct{ lnct, form uint64 }
	nf := int(c.U8())
	formats := make([]lnctForm, 0, min(nf, c.Left()))
	for range nf {
		if c.Err() != nil {
			return nil, errLineAsk
		}
		formats = append(formats, lnctForm{c.Uleb(), c.Uleb()})
	}
	n := c.Uleb()
	if c.Err() != nil {
		return nil, errLineAsk
	}
	if n > uint64(c.Left()) {
		return nil, errLineCount
	}
	out := make([]fileRef, 0, n)
	for range n {
		var p, s []byte
		var dir string
		for _, f := range formats {
			s = nil
			var v uint64
			switch f.form {
			case formString:
				s = c.CString()
			case formStrp, formLineStrp:
				var so uint64
				if dwarf64 {
					so = c.U64()
				} else {
					so = uint64(c.U32())
				}
				sec := strs[0]
				if f.form == formLineStrp {
					sec = strs[1]
				}
				if so > uint64(len(sec)) {
					return nil, errLineAsk
				}
				i := bytes.IndexByte(sec[so:], 0)
				if i < 0 {
					return nil, errLineAsk
				}
				s = sec[so : so+uint64(i)]
			case formStrpSup:
				if dwarf64 {
					c.U64()
				} else {
					c.U32()
				}
			case formStrx:
				c.Uleb()
			case formStrx1, formData1:
				v = uint64(c.U8())
			case formStrx2, formData2:
				v = uint64(c.U16())
			case formStrx3:
				c.Skip(3)
			case formStrx4, formData4:
				v = uint64(c.U32())
			case formData8:
				v = c.U64()
			case formData16:
				c.Skip(16)
			case formBlock:
				c.Skip(c.Uleb())
			case formUdata:
				v = c.Uleb()
			}
			if f.form == formStrx1 || f.form == formStrx2 || f.form == formStrx4 {
				v = 0 // an index into .debug_str_offsets, not a value
			}
			switch f.lnct {
			case lnctPath:
				p = s
			case lnctDirectoryIndex:
				if v >= uint64(len(dirs)) {
					return nil, errLineAsk
				}
				dir = dirs[v]
			}
		}
		if c.Err() != nil || !unixPath(p) {
			return nil, errLineAsk
		}
		out = append(out, fileRef{dir: dir, name: p, join: dir != "" && len(p) > 0})
	}
	return out, nil
}

// readerFiles are the names of lr.Files, a nil entry as "".
func readerFiles(lr *dwarf.LineReader) []string {
	var fs []string
	for _, f := range lr.Files() {
		if f == nil {
			fs = append(fs, "")
		} else {
			fs = append(fs, f.Name)
		}
	}
	return fs
}

// unixPath: p is a path debug/dwarf joins as a Unix one (no drive letter,
// no UNC prefix).
func unixPath[S ~string | ~[]byte](p S) bool {
	if len(p) >= 2 && p[1] == ':' {
		if c := p[0]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return !(len(p) > 3 && (p[0] == '\\' || p[0] == '/') && (p[1] == '\\' || p[1] == '/'))
}

// absPath is debug/dwarf's test of a Unix path for being absolute.
func absPath[S ~string | ~[]byte](p S) bool { return len(p) > 0 && (p[0] == '/' || p[0] == '\\') }

// joinPath is debug/dwarf's join of a Unix directory and a name.
func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return path.Join(dir, name)
}
