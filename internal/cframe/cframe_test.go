package cframe

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/btfinline/btfinline/internal/sframe"
	"github.com/btfinline/btfinline/internal/testutil"
)

const sframeFixtures = "../sframe/testdata"

var fixtureFiles = []string{
	"x86-O0.nosf.exe", "x86-O2.nosf.exe", "x86-O2-fp.nosf.exe", "x86-O2-realign.nosf.exe", "x86-O2-pic.nosf.exe", "x86-plt.nosf.exe",
	"a64-O0.nosf.exe", "a64-O2.nosf.exe", "a64-O2-fp.nosf.exe", "a64-O2-pac.nosf.exe",
}

var strategies = []Options{
	{Strategy: StrategyNone, InnerBits: -1},
	{Strategy: StrategyNone, Dedup: true, InnerBits: -1},
	{Strategy: StrategyCalleeSaved, Dedup: true, InnerBits: -1},
}

func optName(o Options) string {
	n := o.Strategy.String()
	if o.Dedup {
		n += "+dedup"
	}
	if o.InnerBits >= 0 {
		n += fmt.Sprintf("/ib%d", o.InnerBits)
	}
	return n
}

// verifyPath builds the table of path with opt, encodes, decodes and runs
// the unwinding check on it.
func verifyPath(t *testing.T, path string, opt Options) (*Emitted, sframe.VerifyResult) {
	t.Helper()
	in, done, err := sframe.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	return verifyInput(t, in, opt)
}

func verifyInput(t *testing.T, in *sframe.Input, opt Options) (*Emitted, sframe.VerifyResult) {
	t.Helper()
	e, err := Emit(in, opt)
	if err != nil {
		t.Fatal(err)
	}
	addr := in.SectionAddr()
	b, err := e.Encode(addr)
	if err != nil {
		t.Fatal(err)
	}
	vr, err := e.Verify(in, b, addr, 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range vr.Mismatches {
		if m != "" {
			t.Error(m)
		}
	}
	if len(vr.Mismatches) > 0 || vr.NoCFI > 0 || vr.FDEs == 0 || vr.GapPoints == 0 {
		t.Errorf("unwinding check: %d mismatches, %d without CFI, %d functions, %d gap points", len(vr.Mismatches), vr.NoCFI, vr.FDEs, vr.GapPoints)
	}
	t.Logf("%d bytes: %d functions, %d points, %d gap points, %d PLT, %d not kept; %+v", len(b), vr.FDEs, vr.Points, vr.GapPoints, vr.PLT, vr.NotKept, e.Built.Stats)
	return e, vr
}

// TestUnwindAgrees: at every instruction boundary of every function kept,
// the table's CFA, RA and FP rules are the CFI row's, and every address
// outside the functions answers no frame; for each strategy, and for
// every inner_bits (small buckets split chunks at many boundaries).
func TestUnwindAgrees(t *testing.T) {
	for _, f := range fixtureFiles {
		opts := append([]Options(nil), strategies...)
		for _, ib := range []int{0, 3, 6} {
			opts = append(opts, Options{Strategy: StrategyNone, InnerBits: ib}, Options{Strategy: StrategyCalleeSaved, Dedup: true, InnerBits: ib})
		}
		for _, o := range opts {
			t.Run(f+"/"+optName(o), func(t *testing.T) {
				verifyPath(t, filepath.Join(sframeFixtures, f), o)
			})
		}
	}
}

// TestUnwindAgreesSystem: the unwinding check on the C and C++ runtime
// libraries (installed by scripts/setup, found through their packages).
func TestUnwindAgreesSystem(t *testing.T) {
	for _, l := range []struct{ pkg, file string }{{"libc6", "libc.so.6"}, {"libstdc++6", "libstdc++.so.6"}} {
		p, _ := testutil.PackageFile(t, l.pkg, l.file)
		for _, o := range cliStrategies {
			t.Run(l.file+"/"+optName(o), func(t *testing.T) { verifyPath(t, p, o) })
		}
	}
}
