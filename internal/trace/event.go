package trace

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// rawEvent is one decoded ring buffer record.
type rawEvent struct {
	Time      uint64
	Site      uint32
	CPU       uint32
	PID, TGID uint32
	Comm      string
	Avail     uint64
	Fault     uint64
	Words     []uint64
	Strs      []string
	Stack     []uint64
	StackErr  int64 // bpf_get_stack's negative errno, 0 if none
}

// decode reads a record of this layout.
func (l layout) decode(b []byte) (rawEvent, error) {
	if len(b) < l.eventSize() {
		return rawEvent{}, fmt.Errorf("event of %d bytes, want %d", len(b), l.eventSize())
	}
	bo := binary.NativeEndian
	pt := bo.Uint64(b[evPID:])
	e := rawEvent{
		Time:  bo.Uint64(b[evTime:]),
		Site:  bo.Uint32(b[evSite:]),
		CPU:   bo.Uint32(b[evCPU:]),
		PID:   uint32(pt),
		TGID:  uint32(pt >> 32),
		Comm:  cString(b[evComm : evComm+commLen]),
		Avail: bo.Uint64(b[evAvail:]),
		Fault: bo.Uint64(b[evFault:]),
	}
	for w := 0; w < l.words; w++ {
		e.Words = append(e.Words, bo.Uint64(b[evWords+8*w:]))
	}
	for k := 0; k < l.strs; k++ {
		o := l.strOff() + strLen*k
		e.Strs = append(e.Strs, cString(b[o:o+strLen]))
	}
	if l.stackFrames > 0 {
		o := l.stackOff()
		n := int64(bo.Uint64(b[o:]))
		if n < 0 {
			e.StackErr = n
		} else {
			for i := 0; i < int(n/8) && i < l.stackFrames; i++ {
				e.Stack = append(e.Stack, bo.Uint64(b[o+8+8*i:]))
			}
		}
	}
	return e, nil
}

func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
