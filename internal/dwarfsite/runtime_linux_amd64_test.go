package dwarfsite

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/testutil"
)

// cfaRow is one row of the CFA table: from addr on, CFA = reg + off.
type cfaRow struct {
	lo, hi uint64 // FDE range
	addr   uint64
	reg    string
	off    int64
}

// cfaTable reads the call frame table of path with "readelf -wF".
func cfaTable(t *testing.T, path string) []cfaRow {
	t.Helper()
	out, err := exec.Command(testutil.SystemTool(t, "readelf"), "-wF", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var rows []cfaRow
	var lo, hi uint64
	inFDE := false
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 4 && f[3] == "FDE" {
			for _, x := range f {
				if r, ok := strings.CutPrefix(x, "pc="); ok {
					a, b, _ := strings.Cut(r, "..")
					lo, _ = strconv.ParseUint(a, 16, 64)
					hi, _ = strconv.ParseUint(b, 16, 64)
				}
			}
			inFDE = true
			// The CIE's initial rule on x86-64: CFA = rsp + 8.
			rows = append(rows, cfaRow{lo: lo, hi: hi, addr: lo, reg: "rsp", off: 8})
			continue
		}
		if len(f) >= 4 && f[3] == "CIE" {
			inFDE = false
			continue
		}
		if !inFDE || len(f) < 2 {
			continue
		}
		a, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil {
			continue
		}
		reg, off, ok := strings.Cut(f[1], "+")
		if !ok {
			continue
		}
		o, _ := strconv.ParseInt(off, 10, 64)
		rows = append(rows, cfaRow{lo: lo, hi: hi, addr: a, reg: reg, off: o})
	}
	return rows
}

func cfaAt(rows []cfaRow, pc uint64, regs *syscall.PtraceRegs) (uint64, bool) {
	var best *cfaRow
	for i := range rows {
		r := &rows[i]
		if r.lo <= pc && pc < r.hi && r.addr <= pc && (best == nil || r.addr >= best.addr) {
			best = r
		}
	}
	if best == nil {
		return 0, false
	}
	var base uint64
	switch best.reg {
	case "rsp":
		base = regs.Rsp
	case "rbp":
		base = regs.Rbp
	default:
		return 0, false
	}
	return base + uint64(best.off), true
}

// dwarfReg maps an x86-64 DWARF register number to its value.
func dwarfReg(regs *syscall.PtraceRegs, n uint32) (uint64, bool) {
	r := []uint64{regs.Rax, regs.Rdx, regs.Rcx, regs.Rbx, regs.Rsi, regs.Rdi, regs.Rbp, regs.Rsp,
		regs.R8, regs.R9, regs.R10, regs.R11, regs.R12, regs.R13, regs.R14, regs.R15}
	if int(n) < len(r) {
		return r[n], true
	}
	return 0, false
}

func peek(t *testing.T, pid int, addr uint64, n int) []byte {
	t.Helper()
	buf := make([]byte, n)
	if _, err := syscall.PtracePeekData(pid, uintptr(addr), buf); err != nil {
		t.Fatalf("peek 0x%x: %v", addr, err)
	}
	return buf
}

// TestFixtureRuntime runs the x86-64 fixtures under ptrace with a
// breakpoint at every site address, reads every located parameter from
// the registers, memory or constant the reader reported, and compares it
// with the value the EXPECT comment on the call line gives: at the entry
// pcs (ProbeEntry) and at the addresses ProbeBlock chooses, some of which
// lie past the entry pc (and must: the fixture has sites whose entry pc
// lacks a parameter a later address of the block has).
func TestFixtureRuntime(t *testing.T) {
	exp := readExpectations(t)
	for _, name := range []string{"sites-x86_64", "sites-x86_64-dwarf4"} {
		for _, pp := range []ProbePoint{ProbeEntry, ProbeBlock} {
			t.Run(name+"/"+pp.String(), func(t *testing.T) {
				runFixture(t, name, pp, exp)
			})
		}
	}
}

func runFixture(t *testing.T, name string, pp ProbePoint, exp map[string]map[int]map[string]expectation) {
	{
		{
			path := filepath.Join(fixtureDir, name)
			res := readFixture(t, name, fixtureOptions(pp))
			cfa := cfaTable(t, path)
			f, err := elf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			byAddr := make(map[uint64][]*site.Site)
			for i := range res.Sites {
				s := &res.Sites[i]
				byAddr[s.Addr] = append(byAddr[s.Addr], s)
			}
			hit, located, checked, kinds := runUnderPtrace(t, path, byAddr, func(pid int, regs *syscall.PtraceRegs, s *site.Site) (int, int, map[site.LocKind]int) {
				return checkSite(t, pid, regs, s, expectFor(exp, s), cfa, f)
			})
			if hit != len(res.Sites) {
				t.Errorf("%d of %d sites hit", hit, len(res.Sites))
			}
			if checked != located || located == 0 {
				t.Errorf("%d located parameters, %d checked", located, checked)
			}
			for _, k := range []site.LocKind{site.LocReg, site.LocRegPair, site.LocRegOffset, site.LocMem, site.LocConst, site.LocAddr} {
				if kinds[k] == 0 {
					t.Errorf("no %v location checked", k)
				}
			}
			if pp == ProbeBlock && res.Stats.Moved == 0 {
				t.Errorf("no site moved past its entry pc")
			}
			t.Logf("%s: %d sites hit (%d moved past the entry pc), %d parameters located, %d read back and checked (by kind %v)", name, hit, res.Stats.Moved, located, checked, kinds)
		}
	}
}

func runUnderPtrace(t *testing.T, path string, byAddr map[uint64][]*site.Site,
	check func(pid int, regs *syscall.PtraceRegs, s *site.Site) (int, int, map[site.LocKind]int)) (hit, located, checked int, kinds map[site.LocKind]int) {
	t.Helper()
	kinds = make(map[site.LocKind]int)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd := exec.Command(path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Ptrace: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer cmd.Process.Kill()
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil || !ws.Stopped() {
		t.Fatalf("child did not stop at exec: %v %v", err, ws)
	}
	addrs := make([]uint64, 0, len(byAddr))
	for a := range byAddr {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
	orig := make(map[uint64]byte)
	for _, a := range addrs {
		b := peek(t, pid, a, 1)
		orig[a] = b[0]
		if _, err := syscall.PtracePokeData(pid, uintptr(a), []byte{0xcc}); err != nil {
			t.Fatalf("poke 0x%x: %v", a, err)
		}
	}
	for {
		if err := syscall.PtraceCont(pid, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
			t.Fatal(err)
		}
		if ws.Exited() {
			if ws.ExitStatus() != 0 {
				t.Errorf("fixture exited with %d", ws.ExitStatus())
			}
			break
		}
		if !ws.Stopped() || ws.StopSignal() != syscall.SIGTRAP {
			t.Fatalf("unexpected stop: %v", ws)
		}
		var regs syscall.PtraceRegs
		if err := syscall.PtraceGetRegs(pid, &regs); err != nil {
			t.Fatal(err)
		}
		pc := regs.Rip - 1
		o, ok := orig[pc]
		if !ok {
			t.Fatalf("SIGTRAP at 0x%x, not a breakpoint", regs.Rip)
		}
		regs.Rip = pc
		for _, s := range byAddr[pc] {
			hit++
			l, c, k := check(pid, &regs, s)
			located += l
			checked += c
			for kk, n := range k {
				kinds[kk] += n
			}
		}
		// Each site runs once: remove the breakpoint and go on.
		if _, err := syscall.PtracePokeData(pid, uintptr(pc), []byte{o}); err != nil {
			t.Fatal(err)
		}
		delete(orig, pc)
		if err := syscall.PtraceSetRegs(pid, &regs); err != nil {
			t.Fatal(err)
		}
	}
	return hit, located, checked, kinds
}

func checkSite(t *testing.T, pid int, regs *syscall.PtraceRegs, s *site.Site, want map[string]expectation, cfa []cfaRow, f *elf.File) (located, checked int, kinds map[site.LocKind]int) {
	kinds = make(map[site.LocKind]int)
	for i, p := range s.Func.Params {
		l := s.Params[i]
		if l.Kind == site.LocUnavailable {
			continue
		}
		located++
		w, ok := want[p.Name]
		if !ok {
			t.Errorf("0x%x %s: located parameter %s has no EXPECT on %s:%d", s.Addr, s.Func.Name, p.Name, s.CallFile, s.CallLine)
			continue
		}
		regVal := func(n uint32) uint64 {
			if n == site.FBReg {
				v, ok := cfaAt(cfa, s.Addr, regs)
				if !ok {
					t.Fatalf("0x%x: no CFA", s.Addr)
				}
				return v
			}
			v, ok := dwarfReg(regs, n)
			if !ok {
				t.Fatalf("0x%x: DWARF register %d", s.Addr, n)
			}
			return v
		}
		var lo, hi uint64
		switch l.Kind {
		case site.LocReg:
			lo = regVal(l.Reg)
		case site.LocRegPair:
			lo, hi = regVal(l.Reg), regVal(l.Reg2)
		case site.LocRegOffset:
			lo = regVal(l.Reg) + uint64(l.Offset)
		case site.LocMem:
			n := int(l.Size)
			if n == 0 {
				n = 8
			}
			b := peek(t, pid, regVal(l.Reg)+uint64(l.Offset), n)
			if n > 8 {
				lo, hi = binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])
			} else {
				lo = bytesValue(b, binary.LittleEndian)
			}
		case site.LocConst, site.LocAddr:
			lo = l.Value
		}
		wlo, whi := w.lo, w.hi
		if w.sym != "" {
			v, _ := symbolValue(t, f, w.sym)
			wlo = v + w.symOff
		}
		size := l.Size
		if w.pair {
			if lo != wlo || hi != whi {
				t.Errorf("0x%x %s(%s [%s]) = 0x%x:0x%x, want 0x%x:0x%x", s.Addr, s.Func.Name, p.Name, site.FormatLocation(&l, nil), lo, hi, wlo, whi)
			}
		} else if truncate(lo, size) != truncate(wlo, size) {
			t.Errorf("0x%x %s(%s [%s]) = 0x%x, want 0x%x", s.Addr, s.Func.Name, p.Name, site.FormatLocation(&l, nil), truncate(lo, size), truncate(wlo, size))
		}
		checked++
		kinds[l.Kind]++
	}
	return located, checked, kinds
}
