// Package atomicfile owns writing a whole file so that a reader, and a
// crash, sees the old contents or the new, never a part: the data go to a
// synced temporary file in the same directory, renamed over the target,
// then the directory is synced. Every output file btfinline writes (raw
// BTF, an ELF with a new section, SFrame) goes through it.
//
// It imports the standard library only.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write replaces path with data. An existing file keeps its permission
// bits; a new one gets 0644. A path that names a device or a pipe
// (/dev/stdout) is written into as it is. On any error a regular target
// is untouched and no temporary file is left behind.
func Write(path string, data []byte) (err error) {
	perm := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		switch {
		case st.IsDir():
			return fmt.Errorf("%s: is a directory", path)
		case !st.Mode().IsRegular():
			return writeInto(path, data)
		}
		perm = st.Mode().Perm()
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write next to %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

func writeInto(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
