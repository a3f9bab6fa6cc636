package lookup

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/btfinline/btfinline/internal/encode"
	"github.com/btfinline/btfinline/internal/ksys"
	"golang.org/x/sync/errgroup"
)

// Options steer Find.
type Options struct {
	Sys   ksys.System
	Cache Cache
	// Fetch returns a local path to the DWARF file of a build id, from a
	// debuginfod server (the command line's internal/debuginfod client).
	// nil: no fetching; NoFetch says why, for the error.
	Fetch   func(ctx context.Context, buildID string) (string, error)
	NoFetch string
	// Encode is how a found DWARF file is encoded (the defaults of
	// "btfinline encode"); its Bases are set here.
	Encode encode.Options
	// Log gets one line per step worth telling (nil: silent).
	Log func(format string, a ...any)
	// Plan, when set, is told what Find will do once the cache and this
	// machine's debug files are looked at, before anything is fetched or
	// encoded: a command that needs many objects says so first.
	Plan func(Plan)
	// FetchSize, when set with Plan, gives the size of a build id's DWARF
	// on the servers (-1: unknown) for the plan's fetch list.
	FetchSize func(ctx context.Context, buildID string) int64
	// KeepGoing: an object whose DWARF is found nowhere costs that object
	// only. Find then returns what it found and a *MissingError naming the
	// rest; without it, the first such object fails the call.
	KeepGoing bool
}

// Plan is what Find is about to do.
type Plan struct {
	Ready   []Found   // served by the kernel or cached
	Local   []Pending // DWARF on this machine, to encode
	Fetch   []Pending // DWARF to download (Fetch set), then encode
	Missing []string  // objects with DWARF nowhere here, and no fetching
}

// Pending is one object to build, with the DWARF file it is built from
// (a local path, or for a fetch its build id) and that file's size (-1:
// unknown).
type Pending struct {
	Object, BuildID, Path string
	Size                  int64
}

// Bytes sums the known sizes of ps, and says whether all were known.
func Bytes(ps []Pending) (n int64, known bool) {
	known = true
	for _, p := range ps {
		if p.Size < 0 {
			known = false
			continue
		}
		n += p.Size
	}
	return n, known
}

// MissingError lists the objects, with KeepGoing, whose inline BTF could
// not be provided; the others were.
type MissingError struct {
	Objects []*NotFoundError
}

func (e *MissingError) Error() string {
	names := make([]string, len(e.Objects))
	for i, o := range e.Objects {
		names[i] = o.Object
	}
	return fmt.Sprintf("no inline BTF for %d of the objects (%s); the first: %v", len(names), strings.Join(names, ", "), e.Objects[0])
}

func (o *Options) log(format string, a ...any) {
	if o.Log != nil {
		o.Log(format, a...)
	}
}

// From says where a Found file came from.
type From string

const (
	FromKernel  From = "kernel"  // /sys/kernel/btf/NAME.inline
	FromCache   From = "cache"   // built earlier on this machine
	FromEncoded From = "encoded" // encoded now from DWARF
)

// Found is the inline BTF of one object.
type Found struct {
	Object  string
	BuildID string
	Path    string
	From    From
	Source  string // with FromEncoded: the DWARF file
}

// Tried is one place looked at, and why it gave nothing.
type Tried struct {
	Place, Why string
}

// NotFoundError names every place looked at for an object's inline BTF,
// and what would provide it.
type NotFoundError struct {
	Object, BuildID, Release string
	Tried                    []Tried
	Hint                     string
}

func (e *NotFoundError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no inline BTF for %s", e.Object)
	if e.BuildID != "" {
		fmt.Fprintf(&b, " (build id %s", e.BuildID)
		if e.Release != "" {
			fmt.Fprintf(&b, ", kernel %s", e.Release)
		}
		b.WriteString(")")
	}
	b.WriteString("; looked at:")
	for _, t := range e.Tried {
		fmt.Fprintf(&b, "\n  %s: %s", t.Place, t.Why)
	}
	if e.Hint != "" {
		fmt.Fprintf(&b, "\nto fix: %s; or give --inline FILE", e.Hint)
	}
	return b.String()
}

// object is one object to provide: the running one (Find) or one named by
// its DWARF file (Prepare).
type object struct {
	name, id, rel string
	baseSHA       string   // of the chain the inline BTF is split on
	ownSHA        string   // of the object's own .BTF as the kernel serves it
	bases         []string // the chain below the object's own .BTF, for encode
	dwarf         string   // the DWARF file, once found
	tried         []Tried
}

// Find returns the inline BTF of each running object in objs ("vmlinux"
// or a loaded module's name), building what is missing: see the package
// doc for the order. An object whose own BTF the kernel does not serve
// (no CONFIG_DEBUG_INFO_BTF, a module not loaded) is left out, for the
// caller to report as it reports a missing base. Modules are encoded in
// one batch on vmlinux's BTF, loaded once.
func Find(ctx context.Context, objs []string, o Options) ([]Found, error) {
	if o.Sys.Root == "" {
		o.Sys.Root = "/"
	}
	sys := o.Sys
	rel := KernelRelease(sys)
	var out []Found
	var need []*object
	var vmBTF []byte
	for _, name := range objs {
		if p := sys.BTFPath(name + ".inline"); exists(p) {
			out = append(out, Found{Object: name, Path: p, From: FromKernel})
			continue
		}
		// Without the kernel's BTF there is nothing to split inline BTF
		// on: the caller's own loading says so in its words.
		if vmBTF == nil {
			b, err := os.ReadFile(sys.BTFPath("vmlinux"))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("the running kernel's BTF: %w", err)
			}
			vmBTF = b
		}
		ob := &object{name: name, rel: rel}
		ob.tried = append(ob.tried, Tried{sys.BTFPath(name + ".inline"), "does not exist (the kernel serves no inline BTF: CONFIG_DEBUG_INFO_BTF_INLINE)"})
		notes := "/sys/kernel/notes"
		own := vmBTF
		if name != "vmlinux" {
			notes = "/sys/module/" + name + "/notes/.note.gnu.build-id"
			b, err := os.ReadFile(sys.BTFPath(name))
			if errors.Is(err, os.ErrNotExist) {
				continue // not loaded
			}
			if err != nil {
				return nil, fmt.Errorf("module %s: %w", name, err)
			}
			own = b
			ob.bases = []string{sys.BTFPath("vmlinux")}
			ob.baseSHA = chainSHA(vmBTF, b)
		} else {
			ob.baseSHA = chainSHA(vmBTF)
		}
		ob.ownSHA = chainSHA(own)
		ob.id = sys.BuildID(name, binary.NativeEndian)
		if ob.id == "" || !validBuildID(ob.id) {
			return nil, &NotFoundError{Object: name, Release: rel, Tried: append(ob.tried, Tried{filepath.Join(sys.Root, notes), "no GNU build id readable: the cache and debug files are found by it"}),
				Hint: "run as root"}
		}
		need = append(need, ob)
	}
	return provide(ctx, out, need, o)
}

// localModules lists where the DWARF of a module may be on this machine,
// walking the debug tree once per process.
func localModules(root, rel, name string) []string {
	moduleTree.Lock()
	defer moduleTree.Unlock()
	key := root + "\x00" + rel
	m, ok := moduleTree.m[key]
	if !ok {
		m = moduleFiles(root, rel)
		moduleTree.m[key] = m
	}
	return m[normModule(name)]
}

var moduleTree = struct {
	sync.Mutex
	m map[string]map[string][]string
}{m: map[string]map[string][]string{}}

// provide gets each object from the cache or builds it: under the lock of
// its build id (taken in build id order, so that two processes cannot
// deadlock), it checks the cache again, finds the DWARF, and encodes,
// vmlinux alone and the modules as one batch. ready are the objects the
// kernel serves, for the plan and the result.
func provide(ctx context.Context, ready []Found, objs []*object, o Options) ([]Found, error) {
	cached, build := fromCacheAll(objs, o, false)
	out := append(ready, cached...)
	if len(build) == 0 {
		o.plan(ctx, out, nil)
		return sortFound(out), nil
	}
	slices.SortFunc(build, func(a, b *object) int { return strings.Compare(a.id, b.id) })
	for _, ob := range build {
		unlock, err := o.Cache.Lock(ob.id)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	// Another process may have built some while we waited for the locks.
	again, todo := fromCacheAll(build, o, true)
	out = append(out, again...)
	// This machine's files first, so that the plan knows what is left to
	// download before anything is.
	for _, ob := range todo {
		if ob.dwarf == "" {
			findLocal(ob, o)
		}
	}
	o.plan(ctx, out, todo)
	// Every download at once: they overlap one another, and vmlinux is
	// encoded as soon as its file is there, while the modules' still
	// arrive. Errors are reported in the objects' order, not the race's.
	errs := make([]error, len(todo))
	vms := make([]*Found, len(todo))
	var g errgroup.Group
	g.SetLimit(4)
	for i, ob := range todo {
		g.Go(func() error {
			if ob.dwarf == "" {
				if errs[i] = fetchDWARF(ctx, ob, o); errs[i] != nil {
					return nil
				}
			}
			if len(ob.bases) == 0 {
				var f Found
				f, errs[i] = encodeOne(ob, o)
				vms[i] = &f
			}
			return nil
		})
	}
	g.Wait()
	var missing MissingError
	var mods []*object
	for i, ob := range todo {
		var nf *NotFoundError
		switch {
		case errs[i] == nil:
		case o.KeepGoing && errors.As(errs[i], &nf):
			missing.Objects = append(missing.Objects, nf)
			continue
		default:
			return nil, errs[i]
		}
		if vms[i] != nil {
			out = append(out, *vms[i])
		} else {
			mods = append(mods, ob)
		}
	}
	built, err := encodeBatch(mods, o)
	if err != nil {
		return nil, err
	}
	out = sortFound(append(out, built...))
	if len(missing.Objects) > 0 {
		return out, &missing
	}
	return out, nil
}

func sortFound(fs []Found) []Found {
	slices.SortStableFunc(fs, func(a, b Found) int { return strings.Compare(order(a.Object), order(b.Object)) })
	return fs
}

// plan tells o.Plan what is about to happen to todo, with the sizes of
// the downloads asked for at once.
func (o *Options) plan(ctx context.Context, ready []Found, todo []*object) {
	if o.Plan == nil {
		return
	}
	p := Plan{Ready: sortFound(slices.Clone(ready))}
	for _, ob := range todo {
		switch {
		case ob.dwarf != "":
			size := int64(-1)
			if st, err := os.Stat(ob.dwarf); err == nil {
				size = st.Size()
			}
			p.Local = append(p.Local, Pending{Object: ob.name, BuildID: ob.id, Path: ob.dwarf, Size: size})
		case o.Fetch != nil:
			p.Fetch = append(p.Fetch, Pending{Object: ob.name, BuildID: ob.id, Size: -1})
		default:
			p.Missing = append(p.Missing, ob.name)
		}
	}
	if o.FetchSize != nil {
		var g errgroup.Group
		g.SetLimit(8)
		for i := range p.Fetch {
			g.Go(func() error {
				p.Fetch[i].Size = o.FetchSize(ctx, p.Fetch[i].BuildID)
				return nil
			})
		}
		g.Wait()
	}
	o.Plan(p)
}

// order puts vmlinux first, then modules by name.
func order(name string) string {
	if name == "vmlinux" {
		return ""
	}
	return name
}

// fromCacheAll splits objs into those the cache holds and the rest.
func fromCacheAll(objs []*object, o Options, say bool) (found []Found, rest []*object) {
	for _, ob := range objs {
		if f, ok := fromCache(ob, o, say); ok {
			found = append(found, f)
		} else {
			rest = append(rest, ob)
		}
	}
	return found, rest
}

// fromCache looks in the cache; say: tell why it gave nothing (under the
// lock, where the answer is final).
func fromCache(ob *object, o Options, say bool) (Found, bool) {
	e, err := o.Cache.Get(ob.id, ob.name, ob.baseSHA)
	var se *StaleError
	switch {
	case err == nil:
		return Found{Object: ob.name, BuildID: ob.id, Path: e.Path, From: FromCache, Source: e.Source}, true
	case !say:
	case errors.As(err, &se):
		o.log("%s: cached file refused, rebuilding it: %s", ob.name, se)
		ob.tried = append(ob.tried, Tried{"cache " + se.Path, se.Why})
	case errors.Is(err, errMiss):
		ob.tried = append(ob.tried, Tried{"cache " + o.Cache.Path(ob.id, ob.name), "not there"})
	default:
		ob.tried = append(ob.tried, Tried{"cache " + o.Cache.Path(ob.id, ob.name), err.Error()})
	}
	return Found{}, false
}

// findDWARF sets ob.dwarf: a local file first, then a fetched one.
func findDWARF(ctx context.Context, ob *object, o Options) error {
	if findLocal(ob, o); ob.dwarf != "" {
		return nil
	}
	return fetchDWARF(ctx, ob, o)
}

// findLocal sets ob.dwarf to a file on this machine, if one is there,
// and records each place it looked at.
func findLocal(ob *object, o Options) {
	root := o.Sys.Root
	var mods []string
	if ob.name != "vmlinux" && ob.rel != "" {
		mods = localModules(root, ob.rel, ob.name)
	}
	for _, p := range localCandidates(root, ob.name, ob.id, ob.rel, mods) {
		ok, why := checkDWARF(p, ob.id, ob.ownSHA)
		if ok {
			ob.dwarf = p
			return
		}
		if why == "" {
			why = "does not exist"
		}
		ob.tried = append(ob.tried, Tried{p, why})
	}
}

// fetchDWARF sets ob.dwarf to a fetched file, once findLocal found none.
func fetchDWARF(ctx context.Context, ob *object, o Options) error {
	root := o.Sys.Root
	if o.Fetch == nil {
		why := o.NoFetch
		if why == "" {
			why = "not asked"
		}
		ob.tried = append(ob.tried, Tried{"debuginfod", why})
		return notFound(ob, root)
	}
	t0 := time.Now()
	p, err := o.Fetch(ctx, ob.id)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		ob.tried = append(ob.tried, Tried{"debuginfod", err.Error()})
		return notFound(ob, root)
	}
	if ok, why := checkDWARF(p, ob.id, ob.ownSHA); !ok {
		ob.tried = append(ob.tried, Tried{"debuginfod: " + p, why})
		return notFound(ob, root)
	}
	o.log("%s: DWARF from debuginfod in %.1f s: %s", ob.name, time.Since(t0).Seconds(), p)
	ob.dwarf = p
	return nil
}

func notFound(ob *object, root string) error {
	return &NotFoundError{Object: ob.name, BuildID: ob.id, Release: ob.rel, Tried: ob.tried, Hint: installHint(root, ob.rel)}
}

// encodeOne encodes a vmlinux (its DIEs keep every CPU busy alone) and
// caches it.
func encodeOne(ob *object, o Options) (Found, error) {
	t0 := time.Now()
	eo := o.Encode
	eo.Bases, eo.Base = nil, nil
	r, err := encode.File(ob.dwarf, eo)
	if err != nil {
		return Found{}, fmt.Errorf("%s: encoding %s: %w", ob.name, ob.dwarf, err)
	}
	f, err := put(ob, o, r)
	if err != nil {
		return Found{}, err
	}
	o.log("%s: %d inline sites encoded from %s in %.1f s, cached as %s", ob.name, r.Stats.Entries, ob.dwarf, time.Since(t0).Seconds(), f.Path)
	return f, nil
}

// encodeBatch encodes modules as one batch on their shared base, and
// caches each result.
func encodeBatch(mods []*object, o Options) ([]Found, error) {
	var out []Found
	if len(mods) == 0 {
		return nil, nil
	}
	// One base for the batch: every module here is split on the same
	// vmlinux BTF (the running kernel's, or one DWARF vmlinux).
	for _, m := range mods[1:] {
		if !slices.Equal(m.bases, mods[0].bases) {
			return nil, fmt.Errorf("modules %s and %s have different bases", mods[0].name, m.name)
		}
	}
	t0 := time.Now()
	base, err := encode.LoadBase(mods[0].bases)
	if err != nil {
		return nil, err
	}
	jobs := make([]encode.Job, len(mods))
	tmp := make([]string, len(mods))
	for i, m := range mods {
		if err := os.MkdirAll(o.Cache.dir(m.id), 0o755); err != nil {
			return nil, cacheError(o.Cache.Dir, err)
		}
		// The batch writes beside the cached file; put moves it in
		// only with its record.
		tmp[i] = o.Cache.Path(m.id, m.name) + ".new"
		jobs[i] = encode.Job{Path: m.dwarf, Out: encode.Output{Path: tmp[i]}}
	}
	bo := encode.BatchOptions{Options: o.Encode}
	bo.Bases, bo.Base = nil, base
	var firstErr error
	sites := 0
	err = encode.Batch(jobs, bo, func(j encode.Job, r *encode.Result, _ string, err error) {
		i := slices.IndexFunc(jobs, func(x encode.Job) bool { return x.Out.Path == j.Out.Path })
		os.Remove(tmp[i])
		if err == nil {
			var f Found
			if f, err = put(mods[i], o, r); err == nil {
				out = append(out, f)
				sites += r.Stats.Entries
				return
			}
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("%s: encoding %s: %w", mods[i].name, mods[i].dwarf, err)
		}
	})
	if err == nil {
		err = firstErr
	}
	if err != nil {
		return nil, err
	}
	o.log("%d modules: %d inline sites encoded in %.1f s, cached in %s", len(mods), sites, time.Since(t0).Seconds(), o.Cache.Dir)
	return out, nil
}

// put caches an encoding of ob.
func put(ob *object, o Options, r *encode.Result) (Found, error) {
	e := &Entry{BuildID: ob.id, Object: ob.name, Release: ob.rel, BaseSHA256: ob.baseSHA, Source: ob.dwarf, Sites: r.Stats.Entries}
	if err := o.Cache.Put(e, r.Data); err != nil {
		return Found{}, err
	}
	return Found{Object: ob.name, BuildID: ob.id, Path: e.Path, From: FromEncoded, Source: ob.dwarf}, nil
}

// chainSHA digests a chain of BTF blobs, root first: each blob's own
// digest then the digest of those, so that no two chains collide by
// shifting bytes between blobs.
func chainSHA(blobs ...[]byte) string {
	h := sha256.New()
	for _, b := range blobs {
		s := sha256.Sum256(b)
		h.Write(s[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// KernelRelease is the running kernel's release (uname -r), "" if
// unreadable.
func KernelRelease(sys ksys.System) string {
	b, err := os.ReadFile(filepath.Join(sys.Root, "/proc/sys/kernel/osrelease"))
	if err != nil {
		return ""
	}
	return string(bytes.TrimSpace(b))
}

// RunningObjects names vmlinux and every loaded module that has BTF
// (/sys/kernel/btf), in that order: what "cache fetch --running" builds.
func RunningObjects(sys ksys.System) ([]string, error) {
	des, err := os.ReadDir(filepath.Dir(sys.BTFPath("vmlinux")))
	if err != nil {
		return nil, fmt.Errorf("the running kernel's BTF: %w (CONFIG_DEBUG_INFO_BTF)", err)
	}
	out := []string{"vmlinux"}
	for _, de := range des {
		n := de.Name()
		if n != "vmlinux" && !strings.HasSuffix(n, ".inline") {
			out = append(out, n)
		}
	}
	return out, nil
}
