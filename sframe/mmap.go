package sframe

import (
	"os"
	"syscall"
)

// OpenFile maps path read-only and opens it; close releases the mapping.
// Only the pages of the sections actually read are touched, which matters
// for a 600 MB vmlinux whose .debug_frame is a few MB.
func OpenFile(path string) (in *Input, close func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	var raw []byte
	unmap := func() {}
	if size > 0 && size == int64(int(size)) {
		if m, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE); err == nil {
			raw = m
			unmap = func() { syscall.Munmap(m) }
		}
	}
	if raw == nil {
		if raw, err = os.ReadFile(path); err != nil {
			return nil, nil, err
		}
	}
	in, err = Open(raw)
	if err != nil {
		unmap()
		return nil, nil, err
	}
	return in, unmap, nil
}
