package testutil

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// benchCell is "WALL s (CPU s CPU), RSS MiB" of a bench-kernel row.
var benchCell = regexp.MustCompile(`^([0-9.]+) s \(([0-9.]+) s CPU\), ([0-9.]+) MiB`)

// benchKernel names the kernel of an encode row by its title: "encode
// (6.12) xfs.ko" is 6.12's, "encode xfs.ko" 6.1's.
func benchKernel(title string) string {
	if strings.Contains(title, "(6.12)") {
		return "6.12"
	}
	return "6.1"
}

// benchList spells names as the README does: "a", "a and b", "a, b and c".
func benchList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// TestBenchClaims: what the README says under the bench-kernel table
// holds in the table (docs/figures/bench-kernel.md, one run's): against
// pahole -J -j, encoding vmlinux takes less wall time, CPU and memory on
// both kernels, both batches are faster, no module is slower, and
// sites --dwarf --stats needs about a third of pahole's memory; and the
// README names exactly the rows that miss issue 26's goals of 2x on
// vmlinux and 1.3x on every module, so that a run that meets or misses
// one more makes the words change. The same for the goal of at most 1.5
// core-seconds a vmlinux encode, and for that goal read against the
// DWARF floor of the same run (the floor table: a process that only
// decodes every DIE once), where the 1.5 against its 0.7-second
// floor was 2.1x; the floor table's encode CPU must be the encode row's.
func TestBenchClaims(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(figuresDir(), "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(figuresDir(), "bench-kernel.md"))
	if err != nil {
		t.Fatal(err)
	}
	vmlinux, batches, modules, dwarf := 0, 0, 0, 0
	var under2x, under13, over15, overFloor []string
	encodeCPU := map[string]string{} // by kernel: the vmlinux encode's CPU cell
	floors := 0
	for _, l := range strings.Split(string(b), "\n") {
		c := strings.Split(l, " | ")
		if len(c) == 5 && (c[0] == "| 6.1" || c[0] == "| 6.12") {
			floors++
			k := strings.TrimPrefix(c[0], "| ")
			floor, enc := benchCell.FindStringSubmatch(c[2]), strings.TrimSuffix(c[3], " s")
			if floor == nil || enc != encodeCPU[k] {
				t.Errorf("floor row not read, or its encode CPU is not the encode row's (%q): %s", encodeCPU[k], l)
				continue
			}
			f, _ := strconv.ParseFloat(floor[2], 64)
			e, _ := strconv.ParseFloat(enc, 64)
			ratio := strconv.FormatFloat(e/f, 'f', 1, 64)
			if got := strings.TrimSuffix(c[4], "x |"); got != ratio {
				t.Errorf("floor row says %sx, its figures %sx: %s", got, ratio, l)
			}
			if r, _ := strconv.ParseFloat(ratio, 64); r > 2.1 {
				overFloor = append(overFloor, "the "+k+" vmlinux")
			}
			continue
		}
		if len(c) != 4 || !strings.Contains(c[0], "pahole -J -j") {
			continue
		}
		ours, theirs := benchCell.FindStringSubmatch(c[1]), benchCell.FindStringSubmatch(c[2])
		if ours == nil || theirs == nil {
			t.Errorf("row not read: %s", l)
			continue
		}
		v := func(m []string, i int) float64 { f, _ := strconv.ParseFloat(m[i], 64); return f }
		wall, cpu, rss := v(ours, 1) < v(theirs, 1), v(ours, 2) < v(theirs, 2), v(ours, 3) < v(theirs, 3)
		switch {
		case strings.Contains(c[0], "vmlinux .BTF.inline"):
			vmlinux++
			if !wall || !cpu || !rss {
				t.Errorf("vmlinux encode not below pahole in wall, CPU and memory: %s", l)
			}
			if v(theirs, 1) < 2*v(ours, 1) {
				under2x = append(under2x, "the "+benchKernel(c[0])+" vmlinux")
			}
			encodeCPU[benchKernel(c[0])] = ours[2]
			if v(ours, 2) > 1.5 {
				over15 = append(over15, "the "+benchKernel(c[0])+" vmlinux")
			}
		case strings.Contains(c[0], "one batch"):
			batches++
			if !wall {
				t.Errorf("batch not faster: %s", l)
			}
		case strings.Contains(c[0], "sites --dwarf"):
			dwarf++
			if v(ours, 3) > 0.4*v(theirs, 3) {
				t.Errorf("sites --dwarf --stats needs more than about a third of pahole's memory: %s", l)
			}
		case strings.Contains(c[0], ".ko"):
			modules++
			if v(ours, 1) > v(theirs, 1) {
				t.Errorf("module slower than pahole: %s", l)
			}
			if v(theirs, 1) < 1.3*v(ours, 1) {
				name := strings.Fields(strings.TrimPrefix(strings.TrimPrefix(c[0], "| encode "), "(6.12) "))[0]
				under13 = append(under13, benchKernel(c[0])+"'s "+name)
			}
		}
	}
	// The words for each goal, from what the table says of it.
	var want []string
	switch len(under2x) {
	case 0:
		want = append(want, "at least 2x less wall time on both vmlinux")
	case 2:
		want = append(want, "2x on either vmlinux")
	default:
		want = append(want, "2x on "+under2x[0])
	}
	switch len(under13) {
	case 0:
		want = append(want, "at least 1.3x on every module")
	case 1:
		want = append(want, "("+under13[0]+" is just under it)")
	default:
		want = append(want, "("+benchList(under13)+" are just under it)")
	}
	// Each goal read against both vmlinux: "on both vmlinux" or "on the
	// 6.12 vmlinux".
	which := func(l []string) string {
		if len(l) == 2 {
			return "both vmlinux"
		}
		return l[0]
	}
	if len(over15) == 0 {
		want = append(want, "within 1.5 core-seconds on both vmlinux")
	} else {
		want = append(want, "misses 1.5 core-seconds on "+which(over15))
	}
	if len(overFloor) == 0 {
		want = append(want, "at most 2.1x the DWARF floor on both vmlinux")
	} else {
		want = append(want, "more than 2.1x the DWARF floor on "+which(overFloor))
	}
	words := strings.Join(strings.Fields(string(readme)), " ")
	for _, w := range want {
		if !strings.Contains(words, w) {
			t.Errorf("README.md does not say %q, which the table says", w)
		}
	}
	if vmlinux != 2 || batches != 2 || modules != 10 || dwarf != 1 || floors != 2 {
		t.Errorf("rows read: %d vmlinux, %d batches, %d modules, %d sites --dwarf, %d floors; want 2, 2, 10, 1, 2", vmlinux, batches, modules, dwarf, floors)
	}
}
