package btf

// Loading: a file starting with the ELF magic is mapped (internal/elfobj)
// (only the headers and the wanted section, vmlinux is ~600 MB); anything
// else is a raw blob. Module BTF needs no relocation: .BTF of a .ko has
// none.

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/btfinline/btfinline/internal/elfobj"
)

// LoadFile reads BTF from path: an ELF file (its .BTF section: vmlinux, a
// .ko), or a raw blob (a detached .btf file, /sys/kernel/btf/*).
func LoadFile(path string, base *Spec) (*Spec, error) {
	if IsELF(path) {
		// Mapped: only the headers and the section are read (vmlinux is
		// ~600 MB), and in place: the types are decoded and the strings
		// copied straight from the mapping.
		f, err := elfobj.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		s, err := loadSection(f, ".BTF", base)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return s, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	// sysfs files report a size of 4096 or 0: the size is only a hint,
	// read to EOF.
	var buf bytes.Buffer
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 && fi.Size() < 1<<31 {
		buf.Grow(int(fi.Size()) + 1)
	}
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	s, err := parse(data, base, true)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// IsELF reports whether path starts with the ELF magic.
func IsELF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var m [4]byte
	if _, err := io.ReadFull(f, m[:]); err != nil {
		return false
	}
	return string(m[:]) == elf.ELFMAG
}

// ErrDistilledBase is the error for a module whose .BTF is split on the
// distilled base in its own .BTF.base (pahole --btf_features=distilled_base,
// how Linux 6.12 and later build out-of-tree modules): the kernel relocates
// that BTF onto vmlinux's at load, so its type IDs are not the ones
// /sys/kernel/btf serves, and no .BTF.inline can be split on it.
var ErrDistilledBase = errors.New(".BTF is split on a distilled base (.BTF.base, an out-of-tree module of Linux 6.12+): build the module with MODULE_PAHOLE_FLAGS= so that its .BTF is split on vmlinux's, as in-tree modules are")

// LoadELFSection parses the BTF in section name (".BTF", ".BTF.inline") of
// f on top of base.
func LoadELFSection(f *elf.File, name string, base *Spec) (*Spec, error) {
	if name == ".BTF" && f.Section(".BTF.base") != nil {
		return nil, ErrDistilledBase
	}
	sec := f.Section(name)
	if sec == nil {
		return nil, fmt.Errorf("no %s section", name)
	}
	if sec.Type == elf.SHT_NOBITS {
		return nil, fmt.Errorf("%s section has no data", name)
	}
	// Data reads a fresh copy: the Spec may keep it.
	data, err := sec.Data()
	if err != nil {
		return nil, fmt.Errorf("%s section: %w", name, err)
	}
	s, err := parse(data, base, true)
	if err != nil {
		return nil, fmt.Errorf("%s section: %w", name, err)
	}
	return s, nil
}

// LoadObjectSection is LoadELFSection of an elfobj.File, which reads the
// section in place where the file is mapped instead of copying it (a
// vmlinux's .BTF is 5 MB): the Spec keeps nothing of the mapping.
func LoadObjectSection(f *elfobj.File, name string, base *Spec) (*Spec, error) {
	if name == ".BTF" && f.Section(".BTF.base") != nil {
		return nil, ErrDistilledBase
	}
	return loadSection(f, name, base)
}

// loadSection is LoadELFSection through an elfobj.File: the contents are
// not copied.
func loadSection(f *elfobj.File, name string, base *Spec) (*Spec, error) {
	sec := f.Section(name)
	if sec == nil {
		return nil, fmt.Errorf("no %s section", name)
	}
	if sec.Type == elf.SHT_NOBITS {
		return nil, fmt.Errorf("%s section has no data", name)
	}
	data, err := f.Data(sec)
	if err != nil {
		return nil, fmt.Errorf("%s section: %w", name, err)
	}
	s, err := parse(data, base, false)
	if err != nil {
		return nil, fmt.Errorf("%s section: %w", name, err)
	}
	return s, nil
}

// ExtractELFSection returns the raw bytes of section name of the ELF file at
// path (for tools writing detached BTF).
func ExtractELFSection(path, name string) ([]byte, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sec := f.Section(name)
	if sec == nil {
		return nil, fmt.Errorf("%s: no %s section", path, name)
	}
	return sec.Data()
}
