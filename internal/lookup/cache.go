package lookup

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/btfinline/btfinline/internal/atomicfile"
)

// Cache is a folder of inline BTF built on this machine: DIR/BUILDID/
// holds OBJECT.inline and meta.json, which records what the file was made
// from and its digest, written after the file so that a reader never
// trusts a file its record does not describe.
type Cache struct {
	Dir string
}

// DefaultCacheDir is $XDG_CACHE_HOME/btfinline, else ~/.cache/btfinline.
func DefaultCacheDir() (string, error) {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "btfinline"), nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder: %w (give --cache-dir)", err)
	}
	return filepath.Join(h, ".cache", "btfinline"), nil
}

// Entry is the record of one cached file.
type Entry struct {
	BuildID string `json:"build_id"`
	Object  string `json:"object"`
	Release string `json:"release,omitempty"`
	// BaseSHA256 digests the BTF the file is split on, as
	// /sys/kernel/btf serves it: vmlinux's, then the module's.
	BaseSHA256 string    `json:"base_sha256"`
	SHA256     string    `json:"sha256"`
	Size       int64     `json:"size"`
	Source     string    `json:"source"` // the DWARF file it was encoded from
	Sites      int       `json:"sites"`
	Created    time.Time `json:"created"`

	Path string `json:"-"` // the .inline file
}

// validBuildID reports whether id can name a cache folder: lower-case
// hex, as elfutils and /usr/lib/debug/.build-id spell it.
func validBuildID(id string) bool {
	if len(id) < 2 || len(id) > 128 || len(id)%2 != 0 {
		return false
	}
	for _, c := range id {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func (c Cache) dir(id string) string  { return filepath.Join(c.Dir, id) }
func (c Cache) meta(id string) string { return filepath.Join(c.dir(id), "meta.json") }

// Path is where the inline BTF of object obj with build id id is kept.
func (c Cache) Path(id, obj string) string { return filepath.Join(c.dir(id), obj+".inline") }

// StaleError says why a cached file was not used; the caller rebuilds it.
type StaleError struct {
	Path, Why string
}

func (e *StaleError) Error() string { return e.Path + ": " + e.Why }

// errMiss: nothing is cached for the build id.
var errMiss = errors.New("not cached")

// Get returns the entry of build id id if it holds object obj on the base
// whose digest is baseSHA, and its file is whole (size and SHA-256 as
// recorded when it was validated and written): errMiss when nothing is
// there, a *StaleError when something is but must not be used.
func (c Cache) Get(id, obj, baseSHA string) (*Entry, error) {
	b, err := os.ReadFile(c.meta(id))
	if errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(c.Path(id, obj)); err == nil {
			return nil, &StaleError{c.Path(id, obj), "no record of what it was made from (meta.json missing): a foreign file"}
		}
		return nil, errMiss
	}
	if err != nil {
		return nil, err
	}
	var e Entry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, &StaleError{c.meta(id), "unreadable record: " + err.Error()}
	}
	e.Path = c.Path(id, obj)
	switch {
	case e.BuildID != id:
		return nil, &StaleError{e.Path, fmt.Sprintf("recorded for build id %s, not %s", e.BuildID, id)}
	case e.Object != obj:
		return nil, &StaleError{e.Path, fmt.Sprintf("recorded for object %s, not %s", e.Object, obj)}
	case baseSHA != "" && e.BaseSHA256 != baseSHA:
		return nil, &StaleError{e.Path, "made on another base BTF than the running kernel's (base SHA-256 " + short(e.BaseSHA256) + ", running " + short(baseSHA) + ")"}
	}
	f, err := os.Open(e.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &StaleError{e.Path, "missing"}
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return nil, err
	}
	if n != e.Size || hex.EncodeToString(h.Sum(nil)) != e.SHA256 {
		return nil, &StaleError{e.Path, fmt.Sprintf("corrupt or truncated (%d bytes, recorded %d, digest differs)", n, e.Size)}
	}
	return &e, nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// Put writes data as the inline BTF of e.Object under e.BuildID, then
// its record. The caller has validated data on its base. On error no
// partial file is left (a record is written only after its file).
func (c Cache) Put(e *Entry, data []byte) error {
	if !validBuildID(e.BuildID) {
		return fmt.Errorf("bad build id %q", e.BuildID)
	}
	if err := os.MkdirAll(c.dir(e.BuildID), 0o755); err != nil {
		return cacheError(c.Dir, err)
	}
	sum := sha256.Sum256(data)
	e.SHA256, e.Size = hex.EncodeToString(sum[:]), int64(len(data))
	if e.Created.IsZero() {
		e.Created = time.Now().UTC().Truncate(time.Second)
	}
	e.Path = c.Path(e.BuildID, e.Object)
	// The old record goes first: a reader must never pair it with the
	// new file (its digest would refuse it anyway).
	if err := os.Remove(c.meta(e.BuildID)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return cacheError(c.Dir, err)
	}
	if err := atomicfile.Write(e.Path, data); err != nil {
		return cacheError(c.Dir, err)
	}
	m, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(c.meta(e.BuildID), append(m, '\n')); err != nil {
		os.Remove(e.Path)
		return cacheError(c.Dir, err)
	}
	return nil
}

// cacheError says what to do about a cache folder that cannot be written.
func cacheError(dir string, err error) error {
	what := "cannot be written"
	switch {
	case errors.Is(err, syscall.ENOSPC):
		what = "is on a full disk"
	case errors.Is(err, syscall.EROFS):
		what = "is on a read-only file system"
	case errors.Is(err, os.ErrPermission):
		what = "is not writable"
	}
	return fmt.Errorf("cache folder %s %s (%w): give another with --cache-dir, or --inline FILE", dir, what, err)
}

// Lock takes the build id's lock, waiting for another process that holds
// it: two commands for the same kernel do the work once. The returned
// function releases it.
func (c Cache) Lock(id string) (func(), error) {
	if !validBuildID(id) {
		return nil, fmt.Errorf("bad build id %q", id)
	}
	if err := os.MkdirAll(c.dir(id), 0o755); err != nil {
		return nil, cacheError(c.Dir, err)
	}
	f, err := os.OpenFile(filepath.Join(c.dir(id), ".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, cacheError(c.Dir, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", f.Name(), err)
	}
	return func() { f.Close() }, nil
}

// List returns every entry of the cache, by object then build id, with
// Stale set for those that Get would refuse for any base.
func (c Cache) List() ([]ListEntry, error) {
	des, err := os.ReadDir(c.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []ListEntry
	for _, de := range des {
		id := de.Name()
		if !de.IsDir() || !validBuildID(id) {
			continue // the folder may hold other tools' data (the tests' downloads)
		}
		le := ListEntry{Entry: Entry{BuildID: id}}
		b, err := os.ReadFile(c.meta(id))
		if errors.Is(err, os.ErrNotExist) {
			if l, _ := filepath.Glob(filepath.Join(c.dir(id), "*.inline")); len(l) == 0 {
				continue // a lock and nothing built: a lookup that found nothing
			}
		}
		if err == nil {
			err = json.Unmarshal(b, &le.Entry)
		}
		if err != nil {
			le.Stale = "no readable record"
		} else if _, err := c.Get(id, le.Object, ""); err != nil {
			le.Stale = err.Error()
			var se *StaleError
			if errors.As(err, &se) {
				le.Stale = se.Why
			}
		}
		le.Path = c.Path(id, le.Object)
		out = append(out, le)
	}
	slices.SortFunc(out, func(a, b ListEntry) int {
		if x := strings.Compare(a.Object, b.Object); x != 0 {
			return x
		}
		return strings.Compare(a.BuildID, b.BuildID)
	})
	return out, nil
}

// ListEntry is an Entry as List sees it.
type ListEntry struct {
	Entry
	Stale string // why it would not be used ("" = it would)
}

// Remove deletes the cached files of build id id.
func (c Cache) Remove(id string) error {
	if !validBuildID(id) {
		return fmt.Errorf("bad build id %q", id)
	}
	return os.RemoveAll(c.dir(id))
}
