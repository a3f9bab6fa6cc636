package trace

import (
	"fmt"
	"sort"

	"github.com/cilium/ebpf/asm"
)

// Mode is what the program does with a hit that passes the filter.
type Mode int

const (
	// ModeEvents sends each hit to user space through the ring buffer.
	ModeEvents Mode = iota
	// ModeCount only counts hits per site.
	ModeCount
	// ModeHist counts hits per site and log2 bucket of one argument.
	ModeHist
)

// Histogram buckets per site: value < 0, value == 0, [2^k, 2^(k+1)) for
// k = 0..63, and "unavailable".
const (
	histNeg     = 0
	histZero    = 1
	histUnavail = 66
	HistBuckets = 67
)

// wordType is how a word is normalised after it is read: its low bytes
// are the value, sign-extended when signed.
type wordType struct {
	bytes  int // 1-8
	signed bool
}

// mapFDs are the maps a program refers to.
type mapFDs struct {
	sites, scratch, ring, counts, stats, hist int
}

// progConfig is everything one probe's program is built from.
type progConfig struct {
	layout
	regs  ptRegs
	types []wordType // per word
	// fetch says which words the program reads (nil: all): --count and
	// --hist read only what the filter and the histogram need.
	fetch  []bool
	strs   []int   // per string: the word holding the pointer
	filter *Filter // bound; nil for none
	tgid   uint32  // 0: every process
	mode   Mode
	hist   int // ModeHist: the word
	fds    mapFDs
}

// Registers the program keeps across helper calls.
const (
	rCtx     = asm.R6
	rSpec    = asm.R7
	rVal     = asm.R8
	rScratch = asm.R9
)

// Stack slots (below r10).
const (
	stackSite = -4 // u32 site index, the key of sites and counts
	stackZero = -8 // u32 0, the key of scratch and stats
	stackKey  = -12
)

// buildProgram returns the kprobe program of one probe: every site of the
// probe runs it; the cookie of the site's attachment selects its spec.
func buildProgram(c progConfig) (asm.Instructions, error) {
	if err := c.layout.check(); err != nil {
		return nil, err
	}
	if len(c.types) != c.words {
		return nil, fmt.Errorf("%d word types for %d words", len(c.types), c.words)
	}
	if len(c.fetch) != 0 && len(c.fetch) != c.words {
		return nil, fmt.Errorf("fetch flags for %d of %d words", len(c.fetch), c.words)
	}
	g := newGen()
	const exit = "exit"
	g.emit(asm.Mov.Reg(rCtx, asm.R1))
	if c.tgid != 0 {
		g.emit(asm.FnGetCurrentPidTgid.Call(), asm.RSh.Imm(asm.R0, 32))
		g.jump(asm.JNE.Imm(asm.R0, int32(c.tgid), ""), exit)
	}
	g.emit(
		asm.Mov.Reg(asm.R1, rCtx),
		asm.FnGetAttachCookie.Call(),
		asm.StoreMem(asm.RFP, stackSite, asm.R0, asm.Word),
		asm.StoreImm(asm.RFP, stackZero, 0, asm.Word),
	)
	lookup := func(fd int, key int16, dst asm.Register, onNull string) {
		g.emit(
			asm.LoadMapPtr(asm.R1, fd),
			asm.Mov.Reg(asm.R2, asm.RFP),
			asm.Add.Imm(asm.R2, int32(key)),
			asm.FnMapLookupElem.Call(),
		)
		g.jump(asm.JEq.Imm(asm.R0, 0, ""), onNull)
		if dst != asm.R0 {
			g.emit(asm.Mov.Reg(dst, asm.R0))
		}
	}
	// --count without a filter reads nothing but the cookie.
	scratch := c.mode == ModeEvents || c.fetch == nil
	for _, f := range c.fetch {
		scratch = scratch || f
	}
	if !scratch {
		lookup(c.fds.counts, stackSite, asm.R0, exit)
		g.emit(asm.Mov.Imm(asm.R1, 1), asm.StoreXAdd(asm.R0, asm.R1, asm.DWord))
		g.mark(exit)
		g.emit(asm.Mov.Imm(asm.R0, 0), asm.Return())
		return g.finish()
	}
	lookup(c.fds.sites, stackSite, rSpec, exit)
	lookup(c.fds.scratch, stackZero, rScratch, exit)
	g.emit(
		storeImm64(rScratch, scratchEvent+evAvail, 0),
		storeImm64(rScratch, scratchEvent+evFault, 0),
	)
	for w := 0; w < c.words; w++ {
		if c.fetch == nil || c.fetch[w] {
			c.word(g, w)
		}
	}
	if c.mode == ModeEvents {
		for k, w := range c.strs {
			c.str(g, k, w)
		}
	}
	if c.filter != nil {
		c.filter.compile(g, exit)
	}
	// Hits per site.
	done := g.fresh("counted")
	lookup(c.fds.counts, stackSite, asm.R0, done)
	g.emit(asm.Mov.Imm(asm.R1, 1), asm.StoreXAdd(asm.R0, asm.R1, asm.DWord))
	g.mark(done)
	switch c.mode {
	case ModeEvents:
		c.event(g, lookup, exit)
	case ModeHist:
		c.histogram(g, lookup, exit)
	}
	g.mark(exit)
	g.emit(asm.Mov.Imm(asm.R0, 0), asm.Return())
	return g.finish()
}

// word emits the fetch of event word w into the event.
func (c progConfig) word(g *gen, w int) {
	so := int16(w * c.slotStride())
	none, konst, steps, fault, store, end :=
		g.fresh("none"), g.fresh("const"), g.fresh("steps"), g.fresh("fault"), g.fresh("store"), g.fresh("end")
	dst := int16(scratchEvent + evWords + 8*w)
	g.emit(asm.LoadMem(asm.R1, rSpec, so, asm.Byte))
	g.jump(asm.JEq.Imm(asm.R1, slotConst, ""), konst)
	g.jump(asm.JNE.Imm(asm.R1, slotReg, ""), none)
	g.emit(asm.LoadMem(asm.R1, rSpec, so+1, asm.Byte))
	c.readReg(g, none, steps)
	g.mark(konst)
	g.emit(asm.LoadMem(rVal, rSpec, so+8, asm.DWord))
	g.mark(steps)
	for k := 0; k < c.maxSteps; k++ {
		st := so + int16(slotHeader+k*stepSize)
		next := g.fresh("step")
		g.emit(asm.LoadMem(asm.R1, rSpec, so+2, asm.Byte))
		g.jump(asm.JLE.Imm(asm.R1, int32(k), ""), store)
		g.emit(
			asm.LoadMem(asm.R1, rSpec, st, asm.DWord),
			asm.Add.Reg(rVal, asm.R1),
			asm.LoadMem(asm.R2, rSpec, st+8, asm.Word),
		)
		g.jump(asm.JEq.Imm(asm.R2, 0, ""), next)
		g.jump(asm.JGT.Imm(asm.R2, 8, ""), fault)
		g.emit(
			storeImm64(rScratch, scratchTmp, 0),
			asm.Mov.Reg(asm.R1, rScratch),
			asm.Add.Imm(asm.R1, scratchTmp),
			asm.Mov.Reg(asm.R3, rVal),
			asm.FnProbeReadKernel.Call(),
		)
		g.jump(asm.JNE.Imm(asm.R0, 0, ""), fault)
		g.emit(asm.LoadMem(rVal, rScratch, scratchTmp, asm.DWord))
		g.mark(next)
	}
	g.mark(store)
	normalize(g, rVal, c.types[w])
	g.emit(asm.StoreMem(rScratch, dst, rVal, asm.DWord))
	setBit(g, evAvail, w)
	g.jump(asm.Ja.Label(""), end)
	if c.maxSteps > 0 { // else nothing loads, nothing faults
		g.mark(fault)
		setBit(g, evFault, w)
	}
	g.mark(none)
	g.emit(storeImm64(rScratch, dst, 0))
	g.mark(end)
}

// readReg loads into rVal the pt_regs word whose index is in r1, by a
// binary search over the indices a location can name (the verifier
// allows only constant offsets into the context), and jumps to done; an
// index no register has goes to none.
func (c progConfig) readReg(g *gen, none, done string) {
	var idx []int
	seen := map[int]bool{}
	for _, o := range c.regs.offsets() {
		if o >= 0 && !seen[o/8] {
			seen[o/8] = true
			idx = append(idx, o/8)
		}
	}
	sort.Ints(idx)
	var tree func(l []int)
	tree = func(l []int) {
		if len(l) == 1 {
			g.jump(asm.JNE.Imm(asm.R1, int32(l[0]), ""), none)
			g.emit(asm.LoadMem(rVal, rCtx, int16(8*l[0]), asm.DWord))
			g.jump(asm.Ja.Label(""), done)
			return
		}
		m := len(l) / 2
		hi := g.fresh("reg")
		g.jump(asm.JGE.Imm(asm.R1, int32(l[m]), ""), hi)
		tree(l[:m])
		g.mark(hi)
		tree(l[m:])
	}
	tree(idx)
}

// setBit sets bit of the event's u64 at off.
func setBit(g *gen, off int16, bit int) {
	g.emit(
		asm.LoadMem(asm.R1, rScratch, scratchEvent+off, asm.DWord),
		asm.Mov.Imm(asm.R2, 1),
		asm.LSh.Imm(asm.R2, int32(bit)),
		asm.Or.Reg(asm.R1, asm.R2),
		asm.StoreMem(rScratch, scratchEvent+off, asm.R1, asm.DWord),
	)
}

// normalize keeps the low t.bytes of r, sign-extended when signed.
func normalize(g *gen, r asm.Register, t wordType) {
	if t.bytes >= 8 || t.bytes <= 0 {
		return
	}
	sh := int32(64 - 8*t.bytes)
	switch {
	case t.signed:
		g.emit(asm.LSh.Imm(r, sh), asm.ArSh.Imm(r, sh))
	case t.bytes == 4:
		g.emit(asm.Mov.Reg32(r, r))
	case t.bytes == 1 || t.bytes == 2:
		g.emit(asm.And.Imm(r, int32(1)<<(8*t.bytes)-1))
	default:
		g.emit(asm.LSh.Imm(r, sh), asm.RSh.Imm(r, sh))
	}
}

// str emits the read of string k behind the pointer in word w.
func (c progConfig) str(g *gen, k, w int) {
	none, end := g.fresh("str_none"), g.fresh("str_end")
	dst := int32(scratchEvent + c.strOff() + strLen*k)
	g.emit(
		asm.LoadMem(asm.R1, rScratch, scratchEvent+evAvail, asm.DWord),
		asm.RSh.Imm(asm.R1, int32(w)),
		asm.And.Imm(asm.R1, 1),
	)
	g.jump(asm.JEq.Imm(asm.R1, 0, ""), none)
	g.emit(
		asm.Mov.Reg(asm.R1, rScratch),
		asm.Add.Imm(asm.R1, dst),
		asm.Mov.Imm(asm.R2, strLen),
		asm.LoadMem(asm.R3, rScratch, int16(scratchEvent+evWords+8*w), asm.DWord),
		asm.FnProbeReadKernelStr.Call(),
	)
	g.jump(asm.JSGE.Imm(asm.R0, 0, ""), end)
	setBit(g, evFault, 32+k)
	g.jump(asm.Ja.Label(""), end)
	g.mark(none)
	g.emit(asm.StoreImm(rScratch, int16(dst), 0, asm.Byte))
	g.mark(end)
}

type lookupFunc func(fd int, key int16, dst asm.Register, onNull string)

// event fills the header and sends the event; a full ring buffer counts
// as lost (stats[0]).
func (c progConfig) event(g *gen, lookup lookupFunc, exit string) {
	ev := int16(scratchEvent)
	g.emit(
		asm.FnKtimeGetNs.Call(),
		asm.StoreMem(rScratch, ev+evTime, asm.R0, asm.DWord),
		asm.LoadMem(asm.R1, asm.RFP, stackSite, asm.Word),
		asm.StoreMem(rScratch, ev+evSite, asm.R1, asm.Word),
		asm.FnGetSmpProcessorId.Call(),
		asm.StoreMem(rScratch, ev+evCPU, asm.R0, asm.Word),
		asm.FnGetCurrentPidTgid.Call(),
		asm.StoreMem(rScratch, ev+evPID, asm.R0, asm.DWord),
		asm.Mov.Reg(asm.R1, rScratch),
		asm.Add.Imm(asm.R1, int32(ev+evComm)),
		asm.Mov.Imm(asm.R2, commLen),
		asm.FnGetCurrentComm.Call(),
	)
	if c.stackFrames > 0 {
		so := int32(ev) + int32(c.stackOff())
		g.emit(
			asm.Mov.Reg(asm.R1, rCtx),
			asm.Mov.Reg(asm.R2, rScratch),
			asm.Add.Imm(asm.R2, so+8),
			asm.Mov.Imm(asm.R3, int32(8*c.stackFrames)),
			asm.Mov.Imm(asm.R4, 0),
			asm.FnGetStack.Call(),
			asm.StoreMem(rScratch, int16(so), asm.R0, asm.DWord),
		)
	}
	g.emit(
		asm.LoadMapPtr(asm.R1, c.fds.ring),
		asm.Mov.Reg(asm.R2, rScratch),
		asm.Add.Imm(asm.R2, int32(ev)),
		asm.Mov.Imm(asm.R3, int32(c.eventSize())),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnRingbufOutput.Call(),
	)
	g.jump(asm.JEq.Imm(asm.R0, 0, ""), exit)
	lookup(c.fds.stats, stackZero, asm.R0, exit)
	g.emit(asm.Mov.Imm(asm.R1, 1), asm.StoreXAdd(asm.R0, asm.R1, asm.DWord))
}

// histogram counts the hit in its site's bucket of word c.hist.
func (c progConfig) histogram(g *gen, lookup lookupFunc, exit string) {
	w := c.hist
	bucket := asm.R3
	key, unavail, neg, zero := g.fresh("key"), g.fresh("unavail"), g.fresh("neg"), g.fresh("zero")
	g.emit(
		asm.LoadMem(asm.R1, rScratch, scratchEvent+evAvail, asm.DWord),
		asm.RSh.Imm(asm.R1, int32(w)),
		asm.And.Imm(asm.R1, 1),
	)
	g.jump(asm.JEq.Imm(asm.R1, 0, ""), unavail)
	g.emit(asm.LoadMem(asm.R1, rScratch, int16(scratchEvent+evWords+8*w), asm.DWord))
	if c.types[w].signed {
		g.jump(asm.JSLT.Imm(asm.R1, 0, ""), neg)
	}
	g.jump(asm.JEq.Imm(asm.R1, 0, ""), zero)
	g.emit(asm.Mov.Imm(bucket, 2))
	for _, sh := range []int32{32, 16, 8, 4, 2, 1} {
		skip := g.fresh("log")
		g.emit(asm.Mov.Reg(asm.R2, asm.R1), asm.RSh.Imm(asm.R2, sh))
		g.jump(asm.JEq.Imm(asm.R2, 0, ""), skip)
		g.emit(asm.Mov.Reg(asm.R1, asm.R2), asm.Add.Imm(bucket, sh))
		g.mark(skip)
	}
	g.jump(asm.Ja.Label(""), key)
	if c.types[w].signed {
		g.mark(neg)
		g.emit(asm.Mov.Imm(bucket, histNeg))
		g.jump(asm.Ja.Label(""), key)
	}
	g.mark(zero)
	g.emit(asm.Mov.Imm(bucket, histZero))
	g.jump(asm.Ja.Label(""), key)
	g.mark(unavail)
	g.emit(asm.Mov.Imm(bucket, histUnavail))
	g.mark(key)
	g.emit(
		asm.LoadMem(asm.R1, asm.RFP, stackSite, asm.Word),
		asm.Mul.Imm(asm.R1, HistBuckets),
		asm.Add.Reg(asm.R1, bucket),
		asm.StoreMem(asm.RFP, stackKey, asm.R1, asm.Word),
	)
	lookup(c.fds.hist, stackKey, asm.R0, exit)
	g.emit(asm.Mov.Imm(asm.R1, 1), asm.StoreXAdd(asm.R0, asm.R1, asm.DWord))
}
