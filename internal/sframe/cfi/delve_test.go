package cfi

import (
	"debug/elf"
	"fmt"
	"path/filepath"
	"testing"

	dframe "github.com/go-delve/delve/pkg/dwarf/frame"

	"github.com/btfinline/btfinline/internal/testutil"
)

// TestRowsAgainstDelve uses delve's pkg/dwarf/frame as an independent
// oracle: for every row of every FDE in linked fixtures and this machine's
// libc, the CFA and the RA and FP rules agree.
func TestRowsAgainstDelve(t *testing.T) {
	files := []string{
		"../testdata/x86-O2.nosf.exe",
		"../testdata/x86-O2-realign.nosf.exe",
		"../testdata/x86-O0.nosf.exe",
	}
	for _, p := range files {
		t.Run(filepath.Base(p), func(t *testing.T) { compareDelve(t, p) })
	}
	// libc comes from its package, so a machine without it fails under CI
	// instead of passing on three fixtures.
	t.Run("libc.so.6", func(t *testing.T) {
		p, _ := testutil.PackageFile(t, "libc6", "libc.so.6")
		compareDelve(t, p)
	})
}

func compareDelve(t *testing.T, path string) {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".eh_frame")
	data, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Parse(&Section{Kind: EHFrame, Data: data, Addr: s.Addr, Order: f.ByteOrder, PtrSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := dframe.Parse(data, f.ByteOrder, 0, 8, s.Addr)
	if err != nil {
		// Every file here is one delve parses; a failure is a regression of
		// the oracle or of the file, never a pass.
		t.Fatalf("delve cannot parse %s: %v", path, err)
	}
	byBegin := map[uint64]*dframe.FrameDescriptionEntry{}
	for _, d := range theirs {
		byBegin[d.Begin()] = d
	}
	rows, fdes, bad := 0, 0, 0
	for _, fde := range res.FDEs {
		d := byBegin[fde.Begin]
		if d == nil || d.End() != fde.End() {
			t.Errorf("FDE %#x+%#x: delve has %v", fde.Begin, fde.Size, d)
			continue
		}
		fdes++
		err = fde.Execute(func(r *Row) error {
			rows++
			ctx, err := d.EstablishFrame(r.Loc)
			if err != nil {
				return err
			}
			if msg := diffDelve(r, ctx, fde.CIE.RAReg); msg != "" {
				bad++
				if bad < 10 {
					t.Errorf("pc %#x: %s", r.Loc, msg)
				}
			}
			return nil
		})
		if err != nil {
			t.Errorf("FDE %#x: %v", fde.Begin, err)
		}
	}
	if fdes == 0 || rows == 0 {
		t.Fatal("nothing compared")
	}
	t.Logf("%d FDEs, %d rows compared, %d differ", fdes, rows, bad)
}

func diffDelve(r *Row, ctx *dframe.FrameContext, raReg uint64) string {
	switch {
	case r.CFA.Expr != nil:
		if ctx.CFA.Rule != dframe.RuleExpression || string(ctx.CFA.Expression) != string(r.CFA.Expr) {
			return fmt.Sprintf("CFA expr %x vs %+v", r.CFA.Expr, ctx.CFA)
		}
	case ctx.CFA.Rule != dframe.RuleCFA || ctx.CFA.Reg != r.CFA.Reg || ctx.CFA.Offset != r.CFA.Off:
		return fmt.Sprintf("CFA r%d%+d vs %+v", r.CFA.Reg, r.CFA.Off, ctx.CFA)
	}
	for _, reg := range []uint64{raReg, 6, 3, 12, 13, 14, 15} {
		ours := r.Reg(reg)
		theirs, ok := ctx.Regs[reg]
		var same bool
		switch ours.Kind {
		case RuleUnspecified, RuleSameValue:
			// delve's DW_CFA_restore of a register the CIE says nothing
			// about leaves a zero DWRule (RuleUndefined) in its map.
			same = !ok || theirs.Rule == dframe.RuleSameVal ||
				(ours.Kind == RuleUnspecified && theirs.Rule == dframe.RuleUndefined && theirs.Offset == 0 && theirs.Reg == 0 && theirs.Expression == nil)
		case RuleUndefined:
			same = ok && theirs.Rule == dframe.RuleUndefined
		case RuleOffset:
			same = ok && theirs.Rule == dframe.RuleOffset && theirs.Offset == ours.Off
		case RuleValOffset:
			same = ok && theirs.Rule == dframe.RuleValOffset && theirs.Offset == ours.Off
		case RuleRegister:
			same = ok && theirs.Rule == dframe.RuleRegister && theirs.Reg == ours.Reg
		case RuleExpression:
			same = ok && theirs.Rule == dframe.RuleExpression && string(theirs.Expression) == string(ours.Expr)
		case RuleValExpression:
			same = ok && theirs.Rule == dframe.RuleValExpression && string(theirs.Expression) == string(ours.Expr)
		}
		if !same {
			return fmt.Sprintf("r%d: %v%+d vs %+v", reg, ours.Kind, ours.Off, theirs)
		}
	}
	return ""
}
