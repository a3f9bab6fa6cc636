package resolve

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/testutil"
)

// TestEntryABI places the arguments of every function of abi.c at its
// entry (x86-64 SysV and AAPCS64 classification of the BTF prototype) and
// compares each with gcc's DWARF location at the function's low_pc, as
// llvm-dwarfdump prints it.
func TestEntryABI(t *testing.T) {
	dd := testutil.SystemTool(t, "llvm-dwarfdump")
	for _, a := range fixtureArchs {
		t.Run(a, func(t *testing.T) {
			path := fixture("abi-" + a + ".elf")
			tg, err := Open(Options{File: path})
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(dd, "--debug-info", path).Output()
			if err != nil {
				t.Fatal(err)
			}
			dwarf := entryLocsFromDwarfdump(out)
			cfaAtEntry := int64(0)
			if tg.Arch == arch.X86_64 {
				cfaAtEntry = 8 // the return address
			}
			checked := 0
			for fn, want := range dwarf {
				ids := tg.Spec.FuncsByName(fn)
				if len(ids) == 0 {
					// pahole leaves out functions whose arguments are not
					// where it expects them (floats, __int128 on arm64).
					t.Logf("%s: no BTF FUNC (pahole skipped it)", fn)
					continue
				}
				d := tg.Decoder()
				f, err := d.function(ids[0])
				if err != nil {
					t.Fatal(err)
				}
				got := entryLocations(tg.Arch, tg.Spec, f.Params, d.TypeInfos(f))
				if len(got) != len(want) {
					t.Errorf("%s: %d BTF parameters, %d in DWARF", fn, len(got), len(want))
					continue
				}
				for i, l := range got {
					g := canonEntry(tg.Arch, l)
					w := canonDwarf(want[i].ops, cfaAtEntry)
					if w == "" || w == "local" {
						// No location at the entry, or one valid only
						// after the prologue spilled the argument (gcc
						// gives one location for the whole function).
						t.Logf("%s(%s): DWARF has no entry location (%q); ours %s", fn, want[i].name, want[i].ops, FormatLoc(l))
						continue
					}
					if g != w {
						t.Errorf("%s(%s): ours %q (%s), DWARF %q (%s)", fn, want[i].name, g, FormatLoc(l), w, want[i].ops)
					}
					checked++
				}
			}
			if checked < 20 {
				t.Fatalf("only %d arguments checked", checked)
			}
			t.Logf("%d arguments agree with DWARF", checked)
		})
	}
}

// FormatLoc spells a location for test messages.
func FormatLoc(l site.Location) string {
	if l.Kind == site.LocUnavailable {
		return "unavailable: " + l.Reason
	}
	return site.FormatLocation(&l, nil)
}

func canonEntry(a arch.Arch, l site.Location) string {
	switch l.Kind {
	case site.LocReg:
		return fmt.Sprintf("reg%d", l.Reg)
	case site.LocRegPair:
		return fmt.Sprintf("reg%d,reg%d", l.Reg, l.Reg2)
	case site.LocMem:
		if l.Reg == a.SPReg() {
			return fmt.Sprintf("sp%+d", l.Offset)
		}
	case site.LocUnavailable:
		switch {
		case strings.Contains(l.Reason, "vector registers"):
			return "vector"
		case strings.Contains(l.Reason, "by reference"):
			return "reference"
		}
	}
	return "?" + FormatLoc(l)
}

var (
	reReg   = regexp.MustCompile(`^DW_OP_reg(\d+)\b`)
	reRegx  = regexp.MustCompile(`^DW_OP_regx ([A-Z]+)(\d+)`)
	reFBReg = regexp.MustCompile(`^DW_OP_fbreg ([+-]\d+)$`)
	reBReg  = regexp.MustCompile(`^DW_OP_breg\d+ `)
)

// canonDwarf spells a DWARF location like canonEntry: registers, pieces
// of registers, a stack slot (the frame base is the CFA), a vector
// register (x86-64 17-32 are xmm0-15; arm64 regx B/V are v registers),
// or memory through a register (a copy passed by reference; gcc may name
// the register the pointer is moved to in the first instruction).
func canonDwarf(ops string, cfaAtEntry int64) string {
	if ops == "" {
		return ""
	}
	var parts []string
	for _, op := range strings.Split(ops, ", ") {
		op = strings.TrimSpace(op)
		switch {
		case strings.HasPrefix(op, "DW_OP_piece"):
			continue
		case reReg.MatchString(op):
			n, _ := strconv.Atoi(reReg.FindStringSubmatch(op)[1])
			if strings.Contains(op, "XMM") || n >= 64 {
				return "vector"
			}
			parts = append(parts, fmt.Sprintf("reg%d", n))
		case reRegx.MatchString(op):
			return "vector"
		case reFBReg.MatchString(op):
			k, _ := strconv.ParseInt(reFBReg.FindStringSubmatch(op)[1], 10, 64)
			if k < 0 {
				return "local" // below the CFA: the callee's own frame
			}
			return fmt.Sprintf("sp%+d", k+cfaAtEntry)
		case reBReg.MatchString(op):
			return "reference"
		default:
			return "?" + op
		}
	}
	return strings.Join(parts, ",")
}

type dwarfParam struct{ name, ops string }

// entryLocsFromDwarfdump reads the parameters of each subprogram named
// f_* and their location at the subprogram's low_pc.
func entryLocsFromDwarfdump(out []byte) map[string][]dwarfParam {
	res := map[string][]dwarfParam{}
	var fn string
	var low string
	var param string
	inList, inParam := false, false
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		l := sc.Text()
		s := strings.TrimSpace(l)
		switch {
		case strings.HasSuffix(s, "DW_TAG_subprogram"):
			fn, low, param, inList, inParam = "", "", "", false, false
		case strings.HasSuffix(s, "DW_TAG_formal_parameter"):
			param, inList, inParam = "", false, true
		case strings.Contains(s, "DW_TAG_") || s == "NULL":
			param, inList, inParam = "", false, false
		case strings.HasPrefix(s, "DW_AT_name") && fn == "" && param == "" && strings.Contains(s, `("f_`):
			fn = s[strings.Index(s, `("`)+2 : strings.LastIndex(s, `")`)]
		case strings.HasPrefix(s, "DW_AT_name") && fn != "" && inParam:
			param = s[strings.Index(s, `("`)+2 : strings.LastIndex(s, `")`)]
			res[fn] = append(res[fn], dwarfParam{param, ""})
		case strings.HasPrefix(s, "DW_AT_low_pc") && fn != "":
			low = strings.Trim(strings.Fields(s)[1], "()")
		case strings.HasPrefix(s, "DW_AT_location") && fn != "" && param != "":
			v := strings.TrimSpace(strings.TrimPrefix(s, "DW_AT_location"))
			if strings.HasPrefix(v, "(DW_OP") {
				res[fn][len(res[fn])-1].ops = strings.TrimSuffix(v[1:], ")")
			} else {
				inList = true
			}
		case inList && strings.HasPrefix(s, "["):
			// [lo, hi): ops
			lo := strings.TrimPrefix(strings.Split(s, ",")[0], "[")
			if a, err1 := strconv.ParseUint(strings.TrimPrefix(lo, "0x"), 16, 64); err1 == nil {
				if b, err2 := strconv.ParseUint(strings.TrimPrefix(low, "0x"), 16, 64); err2 == nil && a == b {
					ops := s[strings.Index(s, "): ")+3:]
					res[fn][len(res[fn])-1].ops = strings.TrimSuffix(ops, ")")
					inList = false
				}
			}
		}
	}
	return res
}
