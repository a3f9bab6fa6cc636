package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

func TestModeOf(t *testing.T) {
	for in, want := range map[string]string{
		"always [madvise] never\n": "madvise",
		"[always] madvise never\n": "always",
		"always madvise [never]\n": "never",
		"":                         "",
		"garbage]x[":               "",
	} {
		if got := modeOf(in); got != want {
			t.Errorf("modeOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// sink keeps the child's allocations alive until it has read smaps.
var sink [][]byte

// TestAdvise: in a child process (the heap is the process's), 64 MiB
// allocated and written after Advise are backed by huge pages where the
// kernel's mode is "madvise", and the same without Advise are not (the
// check that sees the difference); in any other mode, and under a finite
// RLIMIT_DATA, Advise does nothing.
func TestAdvise(t *testing.T) {
	if n := os.Getenv("BTFI_HUGEPAGE_CHILD"); n != "" {
		advise, _ := strconv.Atoi(n)
		if os.Getenv("BTFI_HUGEPAGE_LIMIT") != "" {
			setDataLimit(t)
		}
		got := 0
		if advise > 0 {
			got = Advise(advise)
		}
		for range 64 {
			b := make([]byte, 1<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			sink = append(sink, b)
		}
		fmt.Printf("advised %d huge %d\n", got, anonHugeKiB(t))
		return
	}
	if runtime.GOOS != "linux" {
		if Advise(256<<20) != 0 {
			t.Fatal("Advise did something off Linux")
		}
		return
	}
	child := func(advise int) (advised, hugeKiB int) {
		out := testutil.InChild(t, "TestAdvise", fmt.Sprintf("BTFI_HUGEPAGE_CHILD=%d", advise), "GOGC=", "GOMEMLIMIT=")
		if _, err := fmt.Sscanf(out, "advised %d huge %d", &advised, &hugeKiB); err != nil {
			t.Fatalf("child said %q: %v", out, err)
		}
		return advised, hugeKiB
	}
	mode := Mode()
	advised, with := child(256 << 20)
	_, without := child(-1)
	t.Setenv("BTFI_HUGEPAGE_LIMIT", "1")
	limitedAdvised, _ := child(256 << 20)
	if limitedAdvised != 0 {
		t.Errorf("under a finite RLIMIT_DATA Advise advised %d bytes, want none", limitedAdvised)
	}
	t.Logf("mode %q, strict overcommit %v, limited %v: advised %d bytes; AnonHugePages %d KiB with Advise, %d KiB without", mode, strictOvercommit(), limited(), advised, with, without)
	if mode != "madvise" || strictOvercommit() || limited() {
		if advised != 0 {
			t.Fatalf("mode %q: Advise advised %d bytes, want none", mode, advised)
		}
		return
	}
	if advised < 128<<20 {
		t.Errorf("Advise(256 MiB) advised %d bytes", advised)
	}
	// Of the 64 MiB written, most must be huge pages; without Advise
	// only the runtime's own advised metadata may be.
	if with < 48<<10 {
		t.Errorf("with Advise: %d KiB of huge pages, want at least 48 MiB", with)
	}
	if without >= 16<<10 {
		t.Errorf("without Advise: %d KiB of huge pages: the check cannot tell", without)
	}
}

// anonHugeKiB sums AnonHugePages over the process's mappings.
func anonHugeKiB(t *testing.T) int {
	f, err := os.Open("/proc/self/smaps_rollup")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "AnonHugePages:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no AnonHugePages in smaps_rollup")
	return 0
}
