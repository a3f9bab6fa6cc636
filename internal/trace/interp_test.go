package trace

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/cilium/ebpf/asm"
)

// A small interpreter of the BPF instruction set, over a fake kernel: it
// runs the exact bytes buildProgram hands to the kernel, with the helpers
// the programs call, so that the tests check what each generated program
// reads from pt_regs and kernel memory without a kernel. It checks what
// the kernel's verifier would otherwise catch at run time: every memory
// access must fall inside a known region (stack, a map value, the ring
// record being read), and only probe_read_kernel may touch "kernel"
// memory.

type region struct {
	name     string
	base     uint64
	data     []byte
	kernel   bool // readable only through the probe-read helpers
	readOnly bool // the context: loads yes, stores no
}

type fakeMap struct {
	fd       int
	kind     string // "array", "percpu", "ringbuf"
	key, val int
	n        int
	values   *region
	ptr      uint64
	records  [][]byte
	full     bool // ringbuf: refuse every record
}

type vm struct {
	regions []*region
	maps    map[int]*fakeMap
	cookie  uint64
	pidTgid uint64
	cpu     uint32
	comm    string
	now     uint64
	stack   []uint64
	calls   map[int32]int
	steps   int
	atomics int
}

const (
	vmStack = 0x7000_0000_0000
	vmCtx   = 0x6000_0000_0000
	vmMaps  = 0x5000_0000_0000
)

func newVM() *vm {
	return &vm{maps: map[int]*fakeMap{}, calls: map[int32]int{}, comm: "test"}
}

func (v *vm) addRegion(r *region) *region {
	v.regions = append(v.regions, r)
	return r
}

// kernelMem places bytes at a kernel address.
func (v *vm) kernelMem(addr uint64, b []byte) {
	v.addRegion(&region{name: fmt.Sprintf("kernel %#x", addr), base: addr, data: b, kernel: true})
}

func (v *vm) addMap(fd int, kind string, key, val, n int) *fakeMap {
	m := &fakeMap{fd: fd, kind: kind, key: key, val: val, n: n, ptr: vmMaps + uint64(fd)<<24}
	if kind != "ringbuf" {
		m.values = v.addRegion(&region{name: fmt.Sprintf("map %d", fd), base: m.ptr + 1<<20, data: make([]byte, val*n)})
	}
	v.maps[fd] = m
	return m
}

func (v *vm) find(addr uint64, n int) (*region, int, error) {
	for _, r := range v.regions {
		if addr >= r.base && addr+uint64(n) <= r.base+uint64(len(r.data)) && addr+uint64(n) >= addr {
			return r, int(addr - r.base), nil
		}
	}
	return nil, 0, fmt.Errorf("access of %d bytes at %#x: no such memory", n, addr)
}

func (v *vm) load(addr uint64, n int) (uint64, error) {
	r, o, err := v.find(addr, n)
	if err != nil {
		return 0, err
	}
	if r.kernel {
		return 0, fmt.Errorf("direct load from %s (must go through bpf_probe_read_kernel)", r.name)
	}
	return getN(r.data[o:], n), nil
}

func (v *vm) store(addr uint64, n int, x uint64) error {
	r, o, err := v.find(addr, n)
	if err != nil {
		return err
	}
	if r.kernel || r.readOnly {
		return fmt.Errorf("store to %s", r.name)
	}
	putN(r.data[o:], n, x)
	return nil
}

func getN(b []byte, n int) uint64 {
	var buf [8]byte
	copy(buf[:], b[:n])
	return binary.LittleEndian.Uint64(buf[:])
}

func putN(b []byte, n int, x uint64) {
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], x)
	copy(b[:n], buf[:n])
}

// probeRead copies kernel (or any) memory as bpf_probe_read_kernel does:
// on a fault the destination is zeroed and -EFAULT returned.
func (v *vm) probeRead(dst uint64, n int, src uint64) (uint64, error) {
	d, do, err := v.find(dst, n)
	if err != nil || d.kernel {
		return 0, fmt.Errorf("probe read into bad buffer %#x (%d bytes)", dst, n)
	}
	s, so, err := v.find(src, n)
	if err != nil {
		clear(d.data[do : do+n])
		return efault, nil
	}
	copy(d.data[do:do+n], s.data[so:so+n])
	return 0, nil
}

const efault = ^uint64(13) // -14

func (v *vm) run(prog []byte, ctx []byte) (uint64, error) {
	v.regions = append(v.regions, &region{name: "ctx", base: vmCtx, data: ctx, readOnly: true})
	stack := v.addRegion(&region{name: "stack", base: vmStack, data: make([]byte, 512)})
	defer func() {
		v.regions = v.regions[:len(v.regions)-2]
	}()
	_ = stack
	var r [11]uint64
	r[1] = vmCtx
	r[10] = vmStack + 512
	n := len(prog) / 8
	for pc := 0; pc < n; pc++ {
		v.steps++
		if v.steps > 1_000_000 {
			return 0, fmt.Errorf("too many steps")
		}
		b := prog[pc*8:]
		op := b[0]
		dst, src := b[1]&0xf, b[1]>>4
		off := int16(binary.LittleEndian.Uint16(b[2:]))
		imm := int32(binary.LittleEndian.Uint32(b[4:]))
		if dst > 10 || src > 10 {
			return 0, fmt.Errorf("pc %d: bad register", pc)
		}
		class := op & 7
		switch class {
		case 0x07, 0x04: // ALU64, ALU
			x, y := r[dst], source(op, r[src], imm)
			is32 := class == 0x04
			if is32 {
				x, y = uint64(uint32(x)), uint64(uint32(y))
			}
			switch op & 0xf0 {
			case 0x00:
				x += y
			case 0x10:
				x -= y
			case 0x20:
				x *= y
			case 0x40:
				x |= y
			case 0x50:
				x &= y
			case 0x60:
				x <<= y & 63
			case 0x70:
				if is32 {
					x = uint64(uint32(x) >> (y & 31))
				} else {
					x >>= y & 63
				}
			case 0x80:
				x = -x
			case 0xa0:
				x ^= y
			case 0xb0:
				x = y
			case 0xc0:
				if is32 {
					x = uint64(uint32(int32(x) >> (y & 31)))
				} else {
					x = uint64(int64(x) >> (y & 63))
				}
			default:
				return 0, fmt.Errorf("pc %d: ALU op %#x not implemented", pc, op)
			}
			if is32 {
				x = uint64(uint32(x))
			}
			if dst == 10 {
				return 0, fmt.Errorf("pc %d: write to r10", pc)
			}
			r[dst] = x
		case 0x05, 0x06: // JMP, JMP32
			code := op & 0xf0
			if code == 0x80 { // call
				if class != 0x05 || src != 0 {
					return 0, fmt.Errorf("pc %d: only helper calls", pc)
				}
				ret, err := v.call(imm, r[1:6])
				if err != nil {
					return 0, fmt.Errorf("pc %d: helper %d: %w", pc, imm, err)
				}
				r[0] = ret
				// r1-r5 are clobbered: poison them.
				for i := 1; i <= 5; i++ {
					r[i] = 0xdead_beef_dead_beef
				}
				continue
			}
			if code == 0x90 {
				return r[0], nil
			}
			x, y := r[dst], source(op, r[src], imm)
			sx, sy := int64(x), int64(y)
			if class == 0x06 {
				sx, sy = int64(int32(x)), int64(int32(y))
				x, y = uint64(uint32(x)), uint64(uint32(y))
			}
			var t bool
			switch code {
			case 0x00:
				t = true
			case 0x10:
				t = x == y
			case 0x20:
				t = x > y
			case 0x30:
				t = x >= y
			case 0x40:
				t = x&y != 0
			case 0x50:
				t = x != y
			case 0x60:
				t = sx > sy
			case 0x70:
				t = sx >= sy
			case 0xa0:
				t = x < y
			case 0xb0:
				t = x <= y
			case 0xc0:
				t = sx < sy
			case 0xd0:
				t = sx <= sy
			default:
				return 0, fmt.Errorf("pc %d: jump op %#x not implemented", pc, op)
			}
			if t {
				pc += int(off)
				if pc+1 < 0 || pc+1 >= n {
					return 0, fmt.Errorf("jump out of the program to %d", pc+1)
				}
			}
		case 0x01, 0x02, 0x03: // LDX, ST, STX
			if op == 0xdb || op == 0xc3 { // atomic add (imm BPF_ADD)
				if imm != 0 {
					return 0, fmt.Errorf("pc %d: atomic op %#x not implemented", pc, imm)
				}
				size := 8
				if op == 0xc3 {
					size = 4
				}
				a := r[dst] + uint64(int64(off))
				x, err := v.load(a, size)
				if err == nil {
					err = v.store(a, size, x+r[src])
				}
				if err != nil {
					return 0, fmt.Errorf("pc %d: %w", pc, err)
				}
				v.atomics++
				continue
			}
			if op&0xe0 != 0x60 {
				return 0, fmt.Errorf("pc %d: memory mode %#x not implemented", pc, op)
			}
			size := map[byte]int{0x00: 4, 0x08: 2, 0x10: 1, 0x18: 8}[op&0x18]
			switch class {
			case 0x01:
				x, err := v.load(r[src]+uint64(int64(off)), size)
				if err != nil {
					return 0, fmt.Errorf("pc %d: %w", pc, err)
				}
				r[dst] = x
			case 0x02:
				if err := v.store(r[dst]+uint64(int64(off)), size, uint64(int64(imm))); err != nil {
					return 0, fmt.Errorf("pc %d: %w", pc, err)
				}
			case 0x03:
				if err := v.store(r[dst]+uint64(int64(off)), size, r[src]); err != nil {
					return 0, fmt.Errorf("pc %d: %w", pc, err)
				}
			}
		case 0x00: // LD_IMM64
			if op != 0x18 || pc+1 >= n {
				return 0, fmt.Errorf("pc %d: bad ld op %#x", pc, op)
			}
			hi := binary.LittleEndian.Uint32(prog[(pc+1)*8+4:])
			x := uint64(uint32(imm)) | uint64(hi)<<32
			switch src {
			case 0:
			case 1: // BPF_PSEUDO_MAP_FD
				m, ok := v.maps[int(imm)]
				if !ok {
					return 0, fmt.Errorf("pc %d: no map with fd %d", pc, imm)
				}
				x = m.ptr
			default:
				return 0, fmt.Errorf("pc %d: ld_imm64 src %d", pc, src)
			}
			r[dst] = x
			pc++
		default:
			return 0, fmt.Errorf("pc %d: class %#x not implemented", pc, class)
		}
	}
	return 0, fmt.Errorf("fell off the end")
}

// source is the second operand: the source register (BPF_X) or the
// sign-extended immediate.
func source(op byte, reg uint64, imm int32) uint64 {
	if op&0x08 != 0 {
		return reg
	}
	return uint64(int64(imm))
}

func (v *vm) mapAt(p uint64) (*fakeMap, error) {
	for _, m := range v.maps {
		if m.ptr == p {
			return m, nil
		}
	}
	return nil, fmt.Errorf("%#x is not a map", p)
}

func (v *vm) call(fn int32, a []uint64) (uint64, error) {
	v.calls[fn]++
	switch asm.BuiltinFunc(fn) & 0xffff {
	case asm.FnMapLookupElem & 0xffff:
		m, err := v.mapAt(a[0])
		if err != nil {
			return 0, err
		}
		k, err := v.load(a[1], m.key)
		if err != nil {
			return 0, err
		}
		if m.values == nil || k >= uint64(m.n) {
			return 0, nil
		}
		return m.values.base + k*uint64(m.val), nil
	case asm.FnKtimeGetNs & 0xffff:
		return v.now, nil
	case asm.FnGetSmpProcessorId & 0xffff:
		return uint64(v.cpu), nil
	case asm.FnGetCurrentPidTgid & 0xffff:
		return v.pidTgid, nil
	case asm.FnGetCurrentComm & 0xffff:
		d, o, err := v.find(a[0], int(a[1]))
		if err != nil {
			return 0, err
		}
		b := d.data[o : o+int(a[1])]
		clear(b)
		copy(b[:len(b)-1], v.comm)
		return 0, nil
	case asm.FnGetStack & 0xffff:
		if a[0] != vmCtx {
			return 0, fmt.Errorf("get_stack without the context")
		}
		d, o, err := v.find(a[1], int(a[2]))
		if err != nil {
			return 0, err
		}
		n := 0
		for i, ip := range v.stack {
			if 8*(i+1) > int(a[2]) {
				break
			}
			binary.LittleEndian.PutUint64(d.data[o+8*i:], ip)
			n += 8
		}
		return uint64(n), nil
	case asm.FnProbeReadKernel & 0xffff:
		return v.probeRead(a[0], int(a[1]), a[2])
	case asm.FnProbeReadKernelStr & 0xffff:
		size := int(a[1])
		d, do, err := v.find(a[0], size)
		if err != nil || d.kernel {
			return 0, fmt.Errorf("probe read str into bad buffer")
		}
		s, so, err := v.find(a[2], 1)
		if err != nil {
			clear(d.data[do : do+size])
			return efault, nil
		}
		src := s.data[so:]
		i := 0
		for ; i < size-1 && i < len(src) && src[i] != 0; i++ {
			d.data[do+i] = src[i]
		}
		d.data[do+i] = 0
		return uint64(i + 1), nil
	case asm.FnRingbufOutput & 0xffff:
		m, err := v.mapAt(a[0])
		if err != nil || m.kind != "ringbuf" {
			return 0, fmt.Errorf("ringbuf_output on a non-ring map")
		}
		d, o, err := v.find(a[1], int(a[2]))
		if err != nil {
			return 0, err
		}
		if m.full {
			return ^uint64(27), nil // -ENOSPC
		}
		m.records = append(m.records, bytes.Clone(d.data[o:o+int(a[2])]))
		return 0, nil
	case asm.FnGetAttachCookie & 0xffff:
		if a[0] != vmCtx {
			return 0, fmt.Errorf("get_attach_cookie without the context")
		}
		return v.cookie, nil
	}
	return 0, fmt.Errorf("helper %d not implemented", fn)
}

func marshal(t testing.TB, insns asm.Instructions) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := insns.Marshal(&b, binary.LittleEndian); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
