package debuginfod

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/btfinline/btfinline/internal/testutil"
)

// TestKernelDebuginfod serves Debian's real -dbg packages (the ones
// ../shared/tools/kernel-data downloaded) with the real debuginfod and
// fetches each x86-64 build's vmlinux and tcp_bbr module by the build ids
// of the kernel data's copies: the fetched bytes must equal them, and the
// test process must stay far below the file's size in memory (the body is
// streamed to disk).
//
// To keep it bounded on a small machine, one server indexes only the
// -dbg .debs of the builds checked, one at a time (SIGUSR1 starts a scan
// of the folder after each is added), which also times each. The arm64
// build is left out: the same mechanism on another ~260 MB archive.
func TestKernelDebuginfod(t *testing.T) {
	var ks []testutil.Kernel
	for _, k := range testutil.Kernels(t) {
		if k.Arch == "x86_64" {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		t.Skip("no x86-64 kernel data")
	}
	debs := t.TempDir()
	srv := startServer(t, 0, "-L", "-c", "1", "-U", debs)
	ctx := context.Background()
	c := client(t, srv.URL)
	c.Timeout = DefaultTimeout

	for i, k := range ks {
		ver := strings.TrimPrefix(filepath.Base(k.Dir), "kernel-")
		deb := dbgDeb(t, k, ver)
		st, err := os.Stat(deb)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(deb, filepath.Join(debs, filepath.Base(deb))); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		srv.cmd.Process.Signal(syscall.SIGUSR1)
		if err := srv.waitIndexed(i+1, 10*time.Minute); err != nil {
			t.Fatalf("%s: %v\n%s", deb, err, srv.logTail())
		}
		t.Logf("%s: indexed %s (%d MB) in %.1f s", k.Name, filepath.Base(deb), st.Size()>>20, time.Since(start).Seconds())

		for _, want := range []string{k.Vmlinux(), k.Module("tcp_bbr")} {
			id, err := fileBuildID(want)
			if err != nil || id == "" {
				t.Fatalf("%s: build id %q, %v", want, id, err)
			}
			start := time.Now()
			got, err := c.Debuginfo(ctx, id)
			if err != nil {
				t.Fatalf("%s: %v", k.Name, err)
			}
			d := time.Since(start)
			size := sameBytes(t, got, want)
			t.Logf("%s: fetched %s (%s, %.1f MB) in %.1f s", k.Name, filepath.Base(want), id, float64(size)/(1<<20), d.Seconds())
			start = time.Now()
			if again, err := c.Debuginfo(ctx, id); err != nil || again != got {
				t.Errorf("%s again: %q, %v", want, again, err)
			}
			t.Logf("%s: %s again, from the cache, in %.3f s", k.Name, filepath.Base(want), time.Since(start).Seconds())
		}
	}
	if hwm := peakRSS(); hwm > 256<<20 {
		t.Errorf("peak resident memory %d MB: the body is not streamed", hwm>>20)
	} else {
		t.Logf("peak resident memory of the test process: %d MB", hwm>>20)
	}
}

// dbgDeb is the -dbg package kernel-data downloaded for build ver: in
// $BTFI_CACHE/debs, the folder beside the kernel data's.
func dbgDeb(t testing.TB, k testutil.Kernel, ver string) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(k.Dir), "debs")
	if c := os.Getenv("BTFI_CACHE"); c != "" {
		dir = filepath.Join(c, "debs")
	}
	m, _ := filepath.Glob(filepath.Join(dir, "linux-image-"+ver+"-dbg_*.deb"))
	if len(m) == 0 {
		msg := fmt.Sprintf("%s: no linux-image-%s-dbg_*.deb in %s (../shared/tools/kernel-data downloads it)", k.Name, ver, dir)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return m[0]
}

// sameBytes checks that files a and b are equal, reading both in bounded
// chunks, and returns their size.
func sameBytes(t testing.TB, a, b string) int64 {
	t.Helper()
	fa, err := os.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	ba, bb := make([]byte, 1<<20), make([]byte, 1<<20)
	var off int64
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			t.Fatalf("%s differs from %s in the MiB at %d", a, b, off)
		}
		off += int64(na)
		if ea != nil || eb != nil {
			if (ea == io.EOF || ea == io.ErrUnexpectedEOF) && (eb == io.EOF || eb == io.ErrUnexpectedEOF) {
				return off
			}
			t.Fatalf("reading: %v, %v", ea, eb)
		}
	}
}

// peakRSS is the process's peak resident set (VmHWM), 0 if unknown.
func peakRSS() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n << 10
		}
	}
	return 0
}
