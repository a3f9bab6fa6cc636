package trace

import (
	"fmt"

	"github.com/cilium/ebpf/asm"
)

// gen collects instructions with symbolic jump targets and resolves them
// itself, so that the instructions handed to the kernel (and to the
// tests' interpreter) carry plain offsets and several labels may name one
// place.
type gen struct {
	insns  []asm.Instruction
	labels map[string]int // label -> index of the instruction it names
	fixups []fixup
	seq    int
}

type fixup struct {
	at    int
	label string
}

func newGen() *gen { return &gen{labels: map[string]int{}} }

func (g *gen) emit(ins ...asm.Instruction) { g.insns = append(g.insns, ins...) }

// jump emits a jump instruction whose target is label.
func (g *gen) jump(ins asm.Instruction, label string) {
	g.fixups = append(g.fixups, fixup{len(g.insns), label})
	g.insns = append(g.insns, ins)
}

// mark names the next instruction emitted.
func (g *gen) mark(label string) { g.labels[label] = len(g.insns) }

// fresh returns a new unique label.
func (g *gen) fresh(prefix string) string {
	g.seq++
	return fmt.Sprintf("%s_%d", prefix, g.seq)
}

func (g *gen) finish() (asm.Instructions, error) {
	raw := make([]int, len(g.insns)+1)
	for i, ins := range g.insns {
		raw[i+1] = raw[i] + int(ins.Size()/asm.InstructionSize)
	}
	for _, f := range g.fixups {
		t, ok := g.labels[f.label]
		if !ok || t > len(g.insns) {
			return nil, fmt.Errorf("jump to undefined label %q", f.label)
		}
		off := raw[t] - raw[f.at] - 1
		if off < -1<<15 || off >= 1<<15 {
			return nil, fmt.Errorf("jump to %q out of range (%d)", f.label, off)
		}
		g.insns[f.at].Offset = int16(off)
	}
	for l, t := range g.labels {
		if t == len(g.insns) {
			return nil, fmt.Errorf("label %q names no instruction", l)
		}
	}
	if i := g.unreachable(); i >= 0 {
		// The verifier refuses a program with dead code ("unreachable
		// insn"): say where, rather than "invalid argument".
		return nil, fmt.Errorf("generated program: instruction %d (%v) is unreachable", i, g.insns[i])
	}
	return asm.Instructions(g.insns), nil
}

// unreachable returns the index of the first instruction no path from the
// entry reaches, or -1.
func (g *gen) unreachable() int {
	target := map[int]int{} // instruction index -> jump target index
	for _, f := range g.fixups {
		target[f.at] = g.labels[f.label]
	}
	seen := make([]bool, len(g.insns))
	work := []int{0}
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		if i >= len(g.insns) || seen[i] {
			continue
		}
		seen[i] = true
		op := g.insns[i].OpCode
		if t, ok := target[i]; ok {
			work = append(work, t)
		}
		switch {
		case op.JumpOp() == asm.Exit:
			continue
		case op.JumpOp() == asm.Ja:
			if _, ok := target[i]; ok {
				continue
			}
		}
		work = append(work, i+1)
	}
	for i, ok := range seen {
		if !ok {
			return i
		}
	}
	return -1
}

// storeImm64 is *(u64 *)(dst + off) = imm (sign-extended), which
// asm.StoreImm does not build for DWord although the kernel accepts it.
func storeImm64(dst asm.Register, off int16, imm int32) asm.Instruction {
	return asm.Instruction{OpCode: asm.StoreImmOp(asm.DWord), Dst: dst, Offset: off, Constant: int64(imm)}
}
