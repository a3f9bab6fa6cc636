package trace

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/btfinline/btfinline/internal/arch"

	"github.com/btfinline/btfinline/internal/resolve"
	"github.com/cilium/ebpf/asm"
)

const (
	fdSites = 11 + iota
	fdScratch
	fdRing
	fdCounts
	fdStats
	fdHist
)

var testFDs = mapFDs{sites: fdSites, scratch: fdScratch, ring: fdRing, counts: fdCounts, stats: fdStats, hist: fdHist}

// harness runs one probe's program over a fake kernel.
type harness struct {
	t      *testing.T
	arch   arch.Arch
	cfg    progConfig
	vm     *vm
	prog   []byte
	sites  *fakeMap
	ring   *fakeMap
	counts *fakeMap
	stats  *fakeMap
	hist   *fakeMap
}

func newHarness(t *testing.T, arch arch.Arch, cfg progConfig, nsites int) *harness {
	t.Helper()
	regs, err := regsOf(arch)
	if err != nil {
		t.Fatal(err)
	}
	cfg.regs, cfg.fds = regs, testFDs
	insns, err := buildProgram(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, arch: arch, cfg: cfg, vm: newVM(), prog: marshal(t, insns)}
	h.sites = h.vm.addMap(fdSites, "array", 4, cfg.specSize(), nsites)
	h.vm.addMap(fdScratch, "percpu", 4, scratchEvent+cfg.eventSize(), 1)
	h.ring = h.vm.addMap(fdRing, "ringbuf", 0, 0, 0)
	h.counts = h.vm.addMap(fdCounts, "array", 4, 8, nsites)
	h.stats = h.vm.addMap(fdStats, "array", 4, 8, 1)
	h.hist = h.vm.addMap(fdHist, "array", 4, 8, nsites*HistBuckets)
	return h
}

func (h *harness) setSite(i int, slots []Slot) {
	h.t.Helper()
	b, err := h.cfg.encodeSpec(slots)
	if err != nil {
		h.t.Fatal(err)
	}
	copy(h.sites.values.data[i*h.cfg.specSize():], b)
}

// The members of struct pt_regs in order, as the kernel headers declare
// them (arch/x86/include/asm/ptrace.h, arch/arm64/include/asm/ptrace.h),
// named as kprobe_events names registers: the tests' layout, independent
// of the offsets table the program is built from.
var ptRegsMembers = map[arch.Arch][]string{
	arch.X86_64: {"r15", "r14", "r13", "r12", "bp", "bx", "r11", "r10", "r9", "r8",
		"ax", "cx", "dx", "si", "di", "orig_ax", "ip", "cs", "flags", "sp", "ss"},
	arch.ARM64: func() []string {
		var l []string
		for i := 0; i <= 30; i++ {
			l = append(l, fmt.Sprintf("x%d", i))
		}
		return append(l, "sp", "pc", "pstate", "orig_x0", "syscallno")
	}(),
}

// ctx lays DWARF register values out as the arch's pt_regs.
func (h *harness) ctx(regs map[uint32]uint64) []byte {
	b := make([]byte, 8*len(ptRegsMembers[h.arch]))
	for r, v := range regs {
		name, ok := h.arch.RegName(r)
		o := slices.Index(ptRegsMembers[h.arch], name)
		if !ok || o < 0 {
			h.t.Fatalf("register %d (%s) not in pt_regs", r, name)
		}
		binary.LittleEndian.PutUint64(b[8*o:], v)
	}
	return b
}

// hit runs the program for one hit of site i and returns the events it
// sent.
func (h *harness) hit(i int, regs map[uint32]uint64) []rawEvent {
	h.t.Helper()
	h.vm.cookie = uint64(i)
	before := len(h.ring.records)
	ret, err := h.vm.run(h.prog, h.ctx(regs))
	if err != nil {
		h.t.Fatal(err)
	}
	if ret != 0 {
		h.t.Fatalf("program returned %d", ret)
	}
	var out []rawEvent
	for _, r := range h.ring.records[before:] {
		e, err := h.cfg.decode(r)
		if err != nil {
			h.t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func (h *harness) one(i int, regs map[uint32]uint64) rawEvent {
	h.t.Helper()
	evs := h.hit(i, regs)
	if len(evs) != 1 {
		h.t.Fatalf("%d events, want 1", len(evs))
	}
	return evs[0]
}

func (h *harness) count(m *fakeMap, i int) uint64 {
	return binary.LittleEndian.Uint64(m.values.data[8*i:])
}

func u64(n int) []wordType {
	t := make([]wordType, n)
	for i := range t {
		t[i] = wordType{bytes: 8}
	}
	return t
}

var arches = []arch.Arch{arch.X86_64, arch.ARM64}

// Every register pt_regs holds is read from its own slot: the DWARF
// numbering of each architecture against the kernel's struct layout.
func TestProgramRegisters(t *testing.T) {
	for _, a := range arches {
		t.Run(a.String(), func(t *testing.T) {
			regs, _ := regsOf(a)
			n := len(regs.offsets())
			h := newHarness(t, a, progConfig{layout: layout{words: n}, types: u64(n)}, 1)
			var slots []Slot
			vals := map[uint32]uint64{}
			for r := 0; r < n; r++ {
				o, _ := regs.offset(uint32(r))
				slots = append(slots, Slot{Kind: slotReg, Reg: o})
				vals[uint32(r)] = 0x1111_0000_0000_0000*uint64(r%15+1) + uint64(r)
			}
			h.setSite(0, slots)
			e := h.one(0, vals)
			for r := 0; r < n; r++ {
				if e.Words[r] != vals[uint32(r)] {
					name, _ := a.RegName(uint32(r))
					t.Errorf("DWARF register %d (%s): got %#x, want %#x", r, name, e.Words[r], vals[uint32(r)])
				}
			}
			if e.Avail != 1<<uint(n)-1 || e.Fault != 0 {
				t.Errorf("avail %#x fault %#x", e.Avail, e.Fault)
			}
		})
	}
}

// Each LOC_PARAM kind through resolve's Read: what the word must hold.
func TestProgramLocations(t *testing.T) {
	const (
		base = 0xffff_8880_0100_0000 // a kernel data page
		sp   = 0xffff_c900_0004_fe00 // a kernel stack
	)
	mem := make([]byte, 256)
	for i := range mem {
		mem[i] = byte(0xa0 + i)
	}
	stack := make([]byte, 512)
	binary.LittleEndian.PutUint64(stack[0x60:], 0x1122_3344_5566_7788)
	binary.LittleEndian.PutUint64(stack[0x68:], 0x99aa_bbcc_ddee_ff00)
	// A pointer chain for nested loads: *(base+0x40) = base+0x80.
	binary.LittleEndian.PutUint64(mem[0x40:], base+0x80)
	le := func(o, n int) uint64 { return getN(mem[o:], n) }
	for _, a := range arches {
		spReg := a.SPReg()
		r3 := uint32(3)
		regs := map[uint32]uint64{r3: base + 0x20, spReg: sp}
		for _, tc := range []struct {
			name string
			read *resolve.Read
			typ  wordType
			path []Step // member steps after the location
			want uint64
			// fault: the load must fail (unmapped), the word is 0.
			fault, unavail bool
		}{
			{"reg", &resolve.Read{Reg: r3}, wordType{bytes: 8}, nil, base + 0x20, false, false},
			{"reg u32", &resolve.Read{Reg: r3}, wordType{bytes: 4}, nil, 0x0100_0020, false, false},
			{"reg+off address", &resolve.Read{Reg: r3, Off: -0x10}, wordType{bytes: 8}, nil, base + 0x10, false, false},
			{"mem u8", &resolve.Read{Reg: r3, Off: 1, Size: 1}, wordType{bytes: 1}, nil, le(0x21, 1), false, false},
			{"mem s8", &resolve.Read{Reg: r3, Off: 1, Size: 1}, wordType{bytes: 1, signed: true}, nil, uint64(int64(int8(mem[0x21]))), false, false},
			{"mem u16", &resolve.Read{Reg: r3, Off: 2, Size: 2}, wordType{bytes: 2}, nil, le(0x22, 2), false, false},
			{"mem s32", &resolve.Read{Reg: r3, Off: -4, Size: 4}, wordType{bytes: 4, signed: true}, nil, uint64(int64(int32(le(0x1c, 4)))), false, false},
			{"mem u64", &resolve.Read{Reg: r3, Off: 8, Size: 8}, wordType{bytes: 8}, nil, le(0x28, 8), false, false},
			{"mem 3 bytes", &resolve.Read{Reg: r3, Off: 0, Size: 3}, wordType{bytes: 3}, nil, le(0x20, 3), false, false},
			// Frame base: resolve turned fbreg-N into %sp+M through the CFA.
			{"frame slot", &resolve.Read{Reg: spReg, Off: 0x60, Size: 8}, wordType{bytes: 8}, nil, 0x1122_3344_5566_7788, false, false},
			{"frame slot hi", &resolve.Read{Reg: spReg, Off: 0x68, Size: 4}, wordType{bytes: 4}, nil, 0xddee_ff00, false, false},
			{"const", &resolve.Read{Const: true, Value: 10}, wordType{bytes: 4}, nil, 10, false, false},
			{"const signed", &resolve.Read{Const: true, Value: 0xfffe}, wordType{bytes: 2, signed: true}, nil, ^uint64(1), false, false},
			{"address const", &resolve.Read{Const: true, Value: 0xffffffff82a00000}, wordType{bytes: 8}, nil, 0xffffffff82a00000, false, false},
			// p->next->field: the pointer in mem at +0x20 from r3, then a load behind it.
			{"nested", &resolve.Read{Reg: r3, Off: 0x20, Size: 8}, wordType{bytes: 2}, []Step{{Off: 6, Size: 2}}, le(0x86, 2), false, false},
			{"nested add", &resolve.Read{Reg: r3}, wordType{bytes: 4}, []Step{{Off: 0x20, Size: 8}, {Off: 0x10, Size: 4}}, le(0x90, 4), false, false},
			{"fault", &resolve.Read{Reg: r3, Off: 0x1000, Size: 8}, wordType{bytes: 8}, nil, 0, true, false},
			{"fault nested", &resolve.Read{Reg: r3, Off: 0x20, Size: 8}, wordType{bytes: 8}, []Step{{Off: 0x10000, Size: 8}}, 0, true, false},
			{"unavailable", nil, wordType{bytes: 8}, nil, 0, false, true},
		} {
			t.Run(a.String()+"/"+tc.name, func(t *testing.T) {
				regsLayout, _ := regsOf(a)
				slot, err := slotOf(regsLayout, tc.read, "no location")
				if err != nil {
					t.Fatal(err)
				}
				slot.Steps = append(slot.Steps, tc.path...)
				h := newHarness(t, a, progConfig{layout: layout{words: 2, maxSteps: 3}, types: []wordType{tc.typ, {bytes: 8}}}, 2)
				h.vm.kernelMem(base, mem)
				h.vm.kernelMem(sp, stack)
				// Word 1 is a canary: register 3 again.
				o, _ := regsLayout.offset(r3)
				h.setSite(1, []Slot{slot, {Kind: slotReg, Reg: o}})
				e := h.one(1, regs)
				if e.Words[0] != tc.want {
					t.Errorf("word %#x, want %#x", e.Words[0], tc.want)
				}
				if got := e.Fault&1 != 0; got != tc.fault {
					t.Errorf("fault %v, want %v", got, tc.fault)
				}
				if got := e.Avail&1 == 0; got != tc.unavail && !tc.fault {
					t.Errorf("unavailable %v, want %v", got, tc.unavail)
				}
				if e.Words[1] != base+0x20 || e.Avail&2 == 0 {
					t.Errorf("canary word %#x avail %#x", e.Words[1], e.Avail)
				}
				if e.Site != 1 || h.count(h.counts, 1) != 1 || h.count(h.counts, 0) != 0 {
					t.Errorf("site %d, counts %d %d", e.Site, h.count(h.counts, 0), h.count(h.counts, 1))
				}
			})
		}
	}
}

// The event header: time, cpu, pid, comm, stack.
func TestProgramHeader(t *testing.T) {
	h := newHarness(t, arch.X86_64, progConfig{layout: layout{words: 1, stackFrames: 4}, types: u64(1)}, 1)
	h.vm.now, h.vm.cpu, h.vm.pidTgid, h.vm.comm = 123456789, 1, 42<<32|43, "kworker/0:1"
	h.vm.stack = []uint64{0xffffffff81000010, 0xffffffff81000020, 0xffffffff81000030, 0xffffffff81000040, 0xffffffff81000050}
	h.setSite(0, []Slot{{Kind: slotConst, Value: 7}})
	e := h.one(0, nil)
	if e.Time != 123456789 || e.CPU != 1 || e.TGID != 42 || e.PID != 43 || e.Comm != "kworker/0:1" {
		t.Errorf("header %+v", e)
	}
	if len(e.Stack) != 4 || e.Stack[0] != 0xffffffff81000010 || e.Stack[3] != 0xffffffff81000040 {
		t.Errorf("stack %#x", e.Stack)
	}
}

// A site whose spec is missing (cookie out of range) sends nothing.
func TestProgramUnknownSite(t *testing.T) {
	h := newHarness(t, arch.X86_64, progConfig{layout: layout{words: 1}, types: u64(1)}, 1)
	if evs := h.hit(5, nil); len(evs) != 0 {
		t.Errorf("%d events for an unknown cookie", len(evs))
	}
}

func TestProgramStrings(t *testing.T) {
	const addr = 0xffff_8880_0200_0000
	h := newHarness(t, arch.ARM64, progConfig{layout: layout{words: 2, strs: 2}, types: u64(2), strs: []int{0, 1}}, 1)
	long := make([]byte, 100)
	for i := range long {
		long[i] = 'x'
	}
	h.vm.kernelMem(addr, append([]byte("eth0\x00junk"), long...))
	h.setSite(0, []Slot{{Kind: slotReg, Reg: 0}, {Kind: slotConst, Value: 0x10}})
	e := h.one(0, map[uint32]uint64{0: addr})
	if e.Strs[0] != "eth0" || e.Strs[1] != "" || e.Fault != 1<<33 {
		t.Errorf("strings %q fault %#x", e.Strs, e.Fault)
	}
	e = h.one(0, map[uint32]uint64{0: addr + 9})
	if len(e.Strs[0]) != strLen-1 {
		t.Errorf("long string of %d bytes, want %d", len(e.Strs[0]), strLen-1)
	}
}

func TestProgramPID(t *testing.T) {
	h := newHarness(t, arch.X86_64, progConfig{layout: layout{words: 1}, types: u64(1), tgid: 42}, 1)
	h.setSite(0, []Slot{{Kind: slotConst, Value: 7}})
	h.vm.pidTgid = 41<<32 | 41
	if evs := h.hit(0, nil); len(evs) != 0 {
		t.Error("event from another process")
	}
	h.vm.pidTgid = 42<<32 | 50
	if evs := h.hit(0, nil); len(evs) != 1 {
		t.Error("no event from the process")
	}
	if h.count(h.counts, 0) != 1 {
		t.Errorf("count %d", h.count(h.counts, 0))
	}
}

func TestProgramLost(t *testing.T) {
	h := newHarness(t, arch.X86_64, progConfig{layout: layout{words: 1}, types: u64(1)}, 1)
	h.setSite(0, []Slot{{Kind: slotConst, Value: 7}})
	h.ring.full = true
	for i := 0; i < 3; i++ {
		h.hit(0, nil)
	}
	if h.count(h.stats, 0) != 3 || h.count(h.counts, 0) != 3 {
		t.Errorf("lost %d, counted %d", h.count(h.stats, 0), h.count(h.counts, 0))
	}
}

func TestProgramCount(t *testing.T) {
	for _, fetch := range [][]bool{nil, {false}} {
		testProgramCount(t, fetch)
	}
}

func testProgramCount(t *testing.T, fetch []bool) {
	h := newHarness(t, arch.X86_64, progConfig{layout: layout{words: 1}, types: u64(1), mode: ModeCount, fetch: fetch}, 3)
	for i := 0; i < 3; i++ {
		h.setSite(i, []Slot{{Kind: slotConst, Value: 7}})
	}
	for i, n := range []int{2, 0, 5} {
		for k := 0; k < n; k++ {
			if evs := h.hit(i, nil); len(evs) != 0 {
				t.Fatal("--count sent an event")
			}
		}
	}
	for i, n := range []uint64{2, 0, 5} {
		if got := h.count(h.counts, i); got != n {
			t.Errorf("site %d: %d hits, want %d", i, got, n)
		}
	}
}

// --count reads only the words its filter needs: here word 1, not the
// load of word 0.
func TestProgramCountFetchesFilterWords(t *testing.T) {
	f := mustBind(t, "b > 5")
	h := newHarness(t, arch.X86_64, progConfig{layout: layout{words: 2, maxSteps: 1}, types: u64(2), mode: ModeCount,
		fetch: []bool{false, true}, filter: f}, 1)
	h.vm.kernelMem(0x1000, make([]byte, 64))
	h.setSite(0, []Slot{{Kind: slotConst, Value: 0x1000, Steps: []Step{{Off: 8, Size: 8}}}, {Kind: slotReg, Reg: 80}})
	h.hit(0, map[uint32]uint64{0: 6})
	h.hit(0, map[uint32]uint64{0: 5})
	if n := h.vm.calls[int32(asm.FnProbeReadKernel&0xffff)]; n != 0 {
		t.Errorf("%d loads for a word --count does not use", n)
	}
	if got := h.count(h.counts, 0); got != 1 {
		t.Errorf("%d hits passed \"b > 5\", want 1", got)
	}
}

func TestProgramHist(t *testing.T) {
	for _, signed := range []bool{false, true} {
		h := newHarness(t, arch.X86_64, progConfig{layout: layout{words: 2}, types: []wordType{{bytes: 8}, {bytes: 8, signed: signed}}, mode: ModeHist, hist: 1}, 2)
		h.setSite(1, []Slot{{}, {Kind: slotReg, Reg: 80}}) // ax
		h.setSite(0, []Slot{{}, {}})
		want := map[int]uint64{}
		r := rand.New(rand.NewSource(1))
		vals := []uint64{0, 1, 2, 3, 4, 7, 8, 1 << 40, 1<<63 + 5, ^uint64(0)}
		for i := 0; i < 50; i++ {
			vals = append(vals, r.Uint64()>>uint(r.Intn(64)))
		}
		for _, v := range vals {
			h.hit(1, map[uint32]uint64{0: v})
			want[HistBuckets+bucketOf(v, signed)]++
		}
		h.hit(0, nil)
		want[histUnavail]++
		for k := 0; k < 2*HistBuckets; k++ {
			if got := h.count(h.hist, k); got != want[k] {
				t.Errorf("signed=%v: bucket %d: %d, want %d", signed, k, got, want[k])
			}
		}
	}
}
