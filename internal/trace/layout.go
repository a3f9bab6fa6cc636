package trace

import (
	"encoding/binary"
	"fmt"
)

// The records the BPF program and this package exchange. All are in the
// machine's byte order (both supported architectures are little-endian).
//
// A site spec (the value of the sites map, keyed by the probe's cookie)
// holds one slot per event word:
//
//	0   u8  kind: slotNone, slotReg, slotConst
//	1   u8  pt_regs word index (slotReg)
//	2   u8  number of steps
//	8   u64 value (slotConst)
//	16  steps[maxSteps]: s64 offset, u32 size (0: no load), u32 zero
//
// The value of a word is the register (or the constant); each step adds
// its offset and, when its size is not 0, replaces the value by the size
// bytes in kernel memory at that address (bpf_probe_read_kernel).
//
// An event (one ring buffer record) is:
//
//	0   u64 CLOCK_MONOTONIC ns (bpf_ktime_get_ns)
//	8   u32 site (the cookie)
//	12  u32 cpu
//	16  u64 pid_tgid (tgid in the high half)
//	24  [16] comm
//	40  u64 available words (bit per word)
//	48  u64 faults: bit w, a load of word w failed; bit 32+k, string k
//	56  u64 words[words]
//	    [strLen]byte strings[strs]
//	    u64 stack bytes (or a negative errno), u64 ips[stackFrames]
const (
	slotNone  = 0
	slotReg   = 1
	slotConst = 2

	slotHeader = 16
	stepSize   = 16

	evTime  = 0
	evSite  = 8
	evCPU   = 12
	evPID   = 16
	evComm  = 24
	evAvail = 40
	evFault = 48
	evWords = 56

	commLen = 16
	// strLen bytes are read behind a pointer shown as a string.
	strLen = 64
	// MaxWords and MaxStrings bound one event (fault bits 0-31 and 32-47).
	MaxWords   = 32
	MaxStrings = 16
	// MaxSteps bounds the loads of one word: the location's own, and one
	// per "->" of a member path.
	MaxSteps = 8
	// StackFrames is the depth of --stack.
	StackFrames = 32

	// The per-CPU scratch value: a load buffer and the event being built.
	scratchTmp   = 0
	scratchEvent = 8
)

// Step is one step of a word's fetch.
type Step struct {
	Off  int64
	Size int // bytes to load, 1-8; 0: add only
}

// Slot says how one site computes one event word.
type Slot struct {
	Kind  int    // slotNone, slotReg, slotConst
	Reg   int    // byte offset in pt_regs (slotReg)
	Value uint64 // slotConst
	Steps []Step
	Why   string // slotNone: why the value is unavailable here
}

// layout is the shape every site of one probe shares.
type layout struct {
	words       int
	maxSteps    int
	strs        int
	stackFrames int // 0: no stack
}

// maxLayout is the largest a probe's layout can be (check), with a stack.
var maxLayout = layout{words: MaxWords, maxSteps: MaxSteps, strs: MaxStrings, stackFrames: StackFrames}

func (l layout) slotStride() int { return slotHeader + stepSize*l.maxSteps }
func (l layout) specSize() int   { return max(8, l.words*l.slotStride()) }
func (l layout) strOff() int     { return evWords + 8*l.words }
func (l layout) stackOff() int   { return l.strOff() + strLen*l.strs }

func (l layout) eventSize() int {
	n := l.stackOff()
	if l.stackFrames > 0 {
		n += 8 + 8*l.stackFrames
	}
	return n
}

func (l layout) check() error {
	switch {
	case l.words > MaxWords:
		return fmt.Errorf("%d event words: at most %d", l.words, MaxWords)
	case l.strs > MaxStrings:
		return fmt.Errorf("%d strings: at most %d", l.strs, MaxStrings)
	case l.maxSteps > MaxSteps:
		return fmt.Errorf("%d loads for one value: at most %d", l.maxSteps, MaxSteps)
	}
	return nil
}

// encodeSpec lays out the slots of one site.
func (l layout) encodeSpec(slots []Slot) ([]byte, error) {
	if len(slots) != l.words {
		return nil, fmt.Errorf("%d slots for %d words", len(slots), l.words)
	}
	b := make([]byte, l.specSize())
	bo := binary.NativeEndian
	for w, s := range slots {
		o := w * l.slotStride()
		if len(s.Steps) > l.maxSteps {
			return nil, fmt.Errorf("word %d: %d steps, layout has %d", w, len(s.Steps), l.maxSteps)
		}
		switch s.Kind {
		case slotNone:
			continue
		case slotReg:
			if s.Reg < 0 || s.Reg%8 != 0 || s.Reg/8 > 255 {
				return nil, fmt.Errorf("word %d: bad pt_regs offset %d", w, s.Reg)
			}
			b[o+1] = byte(s.Reg / 8)
		case slotConst:
			bo.PutUint64(b[o+8:], s.Value)
		default:
			return nil, fmt.Errorf("word %d: bad slot kind %d", w, s.Kind)
		}
		b[o] = byte(s.Kind)
		b[o+2] = byte(len(s.Steps))
		for k, st := range s.Steps {
			if st.Size < 0 || st.Size > 8 {
				return nil, fmt.Errorf("word %d step %d: load of %d bytes", w, k, st.Size)
			}
			so := o + slotHeader + k*stepSize
			bo.PutUint64(b[so:], uint64(st.Off))
			bo.PutUint32(b[so+8:], uint32(st.Size))
		}
	}
	return b, nil
}
