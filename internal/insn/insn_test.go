package insn

import (
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"testing"
)

func a64(words ...uint32) []byte {
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

func x86(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestDecode(t *testing.T) {
	const pc = 0x1000
	for _, tc := range []struct {
		name   string
		m      elf.Machine
		code   []byte
		len    int
		kind   Kind
		target uint64
		writes uint64
		all    bool
		mem    bool
	}{
		{"mov rdi,rax", elf.EM_X86_64, x86("4889f8"), 3, Next, 0, 1 << 0, false, false},
		{"mov eax,edi", elf.EM_X86_64, x86("89f8"), 2, Next, 0, 1 << 0, false, false},
		{"mov [rdi],eax", elf.EM_X86_64, x86("8907"), 2, Next, 0, 0, false, true},
		{"cmp rsi,rdi", elf.EM_X86_64, x86("4839fe"), 3, Next, 0, 0, false, false},
		{"xchg rax,rdx", elf.EM_X86_64, x86("4892"), 2, Next, 0, 1<<0 | 1<<1, false, false},
		{"push rbx", elf.EM_X86_64, x86("53"), 1, Next, 0, 1 << 7, false, true},
		{"mul rsi", elf.EM_X86_64, x86("48f7e6"), 3, Next, 0, 1<<0 | 1<<1, false, false},
		{"endbr64", elf.EM_X86_64, x86("f30f1efa"), 4, Landing, 0, 0, false, false},
		{"jmp rel32", elf.EM_X86_64, x86("e910000000"), 5, Jump, pc + 5 + 0x10, 0, true, true},
		{"je rel8", elf.EM_X86_64, x86("74fe"), 2, Branch, pc, 0, true, true},
		{"call rel32", elf.EM_X86_64, x86("e8fbffffff"), 5, Call, pc, 0, true, true},
		{"jmp rax", elf.EM_X86_64, x86("ffe0"), 2, IndirectJump, 0, 0, true, true},
		{"ret", elf.EM_X86_64, x86("c3"), 1, Return, 0, 0, true, true},
		{"ud2", elf.EM_X86_64, x86("0f0b"), 2, Stop, 0, 0, true, true},
		{"int3", elf.EM_X86_64, x86("cc"), 1, Stop, 0, 0, true, true},
		{"rep movsb (not modeled)", elf.EM_X86_64, x86("f3a4"), 2, Next, 0, 0, true, true},
		{"mov x0,x1", elf.EM_AARCH64, a64(0xaa0103e0), 4, Next, 0, 1 << 0, false, false},
		{"ldp x29,x30,[sp],#16", elf.EM_AARCH64, a64(0xa8c17bfd), 4, Next, 0, 1<<29 | 1<<30 | 1<<31, false, false},
		{"str x0,[x1,#8]", elf.EM_AARCH64, a64(0xf9000420), 4, Next, 0, 0, false, true},
		{"cmp x0,#1", elf.EM_AARCH64, a64(0xf100041f), 4, Next, 0, 0, false, false},
		{"paciasp", elf.EM_AARCH64, a64(0xd503233f), 4, Next, 0, 1<<17 | 1<<30, false, false},
		{"bti c", elf.EM_AARCH64, a64(0xd503245f), 4, Landing, 0, 0, false, false},
		{"b.eq .+8", elf.EM_AARCH64, a64(0x54000040), 4, Branch, pc + 8, 0, true, true},
		{"b .+8", elf.EM_AARCH64, a64(0x14000002), 4, Jump, pc + 8, 0, true, true},
		{"bl .+8", elf.EM_AARCH64, a64(0x94000002), 4, Call, pc + 8, 0, true, true},
		{"cbz x0,.+8", elf.EM_AARCH64, a64(0xb4000040), 4, Branch, pc + 8, 0, true, true},
		{"br x1", elf.EM_AARCH64, a64(0xd61f0020), 4, IndirectJump, 0, 0, true, true},
		{"ret", elf.EM_AARCH64, a64(0xd65f03c0), 4, Return, 0, 0, true, true},
		{"brk #0", elf.EM_AARCH64, a64(0xd4200000), 4, Stop, 0, 0, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Decode(tc.m, tc.code, pc)
			if err != nil {
				t.Fatal(err)
			}
			if in.Len != tc.len || in.Kind != tc.kind || in.Target != tc.target {
				t.Errorf("len %d kind %v target %#x, want %d %v %#x", in.Len, in.Kind, in.Target, tc.len, tc.kind, tc.target)
			}
			if in.Writes != tc.writes || in.WritesAll != tc.all || in.WritesMem != tc.mem {
				t.Errorf("writes %#x all %v mem %v, want %#x %v %v", in.Writes, in.WritesAll, in.WritesMem, tc.writes, tc.all, tc.mem)
			}
		})
	}
	for _, bad := range []struct {
		m    elf.Machine
		code []byte
	}{{elf.EM_X86_64, x86("0f01ca")}, {elf.EM_X86_64, x86("f3480f1ec8")}, {elf.EM_AARCH64, a64(0xd65f0bff)}, {elf.EM_386, x86("90")}} {
		if _, err := Decode(bad.m, bad.code, 0); err == nil {
			t.Errorf("% x on %v: decoded", bad.code, bad.m)
		}
	}
}

// run applies code (instructions of machine m at 0) to a fresh state.
func run(t *testing.T, m elf.Machine, code []byte) *State {
	t.Helper()
	s := NewState(m)
	for pc := 0; pc < len(code); {
		in, err := Decode(m, code[pc:], uint64(pc))
		if err != nil {
			t.Fatalf("at %d: %v", pc, err)
		}
		s.Step(&in)
		pc += in.Len
	}
	return s
}

func TestState(t *testing.T) {
	// rax = rdi << 4 (as get_order's argument), then rax - 1 (size--).
	s := run(t, elf.EM_X86_64, x86("4889f8"+"48c1e004"))
	shl := Shl(Reg(5), 4)
	if !Equal(s.RegValue(0), shl, 8) {
		t.Errorf("mov+shl: rax = %v, want %v", s.RegValue(0), shl)
	}
	s2 := run(t, elf.EM_X86_64, x86("4889f8"+"48c1e004"+"4883e801"))
	if Equal(s2.RegValue(0), shl, 8) || !Equal(s2.RegValue(0), Sub(shl, Const(1)), 8) {
		t.Errorf("after sub: rax = %v", s2.RegValue(0))
	}
	// lea (%rdi,%rdi,1) is rdi * 2 is rdi + rdi; a 32-bit add is the same
	// in 4 bytes, not in 8.
	lea := run(t, elf.EM_X86_64, x86("488d043f"))
	if !Equal(lea.RegValue(0), Add(Reg(5), Reg(5)), 8) || !Equal(lea.RegValue(0), Mul(Reg(5), Const(2)), 8) {
		t.Errorf("lea: rax = %v", lea.RegValue(0))
	}
	add32 := run(t, elf.EM_X86_64, x86("89f8"+"01f8")) // mov %edi,%eax; add %edi,%eax
	if !Equal(add32.RegValue(0), Shl(Reg(5), 1), 4) || Equal(add32.RegValue(0), Shl(Reg(5), 1), 8) {
		t.Errorf("add32: rax = %v", add32.RegValue(0))
	}
	// A logical right shift needs the whole operand: 32-bit shr differs
	// from the 64-bit one even in the low 4 bytes.
	shr32 := run(t, elf.EM_X86_64, x86("89f8"+"c1e803")) // mov %edi,%eax; shr $3,%eax
	if Equal(shr32.RegValue(0), Shr(Reg(5), 3), 4) || !Equal(shr32.RegValue(0), Shr(Zext(Reg(5), 4), 3), 4) {
		t.Errorf("shr32: rax = %v", shr32.RegValue(0))
	}
	// xor with itself is 0; a load after a store reads another memory.
	if z := run(t, elf.EM_X86_64, x86("31c0")); !Equal(z.RegValue(0), Const(0), 8) {
		t.Errorf("xor: rax = %v", z.RegValue(0))
	}
	ld := run(t, elf.EM_X86_64, x86("488b4708")) // mov 8(%rdi),%rax
	if !Equal(ld.RegValue(0), Load(Add(Reg(5), Const(8)), 8, 0), 8) {
		t.Errorf("load: rax = %v", ld.RegValue(0))
	}
	st := run(t, elf.EM_X86_64, x86("488937"+"488b4708")) // mov %rsi,(%rdi); mov 8(%rdi),%rax
	if Equal(st.RegValue(0), Load(Add(Reg(5), Const(8)), 8, 0), 8) {
		t.Errorf("load after a store: rax = %v", st.RegValue(0))
	}
	// What is not modeled is unknown: rep movsb clobbers everything.
	rep := run(t, elf.EM_X86_64, x86("f3a4"))
	if Equal(rep.RegValue(5), Reg(5), 8) || !Equal(rep.RegValue(5), rep.RegValue(5), 8) {
		t.Errorf("rep movsb: rdi = %v", rep.RegValue(5))
	}
	// arm64: mov, lsl #4, and with an immediate; add with an immediate is
	// not modeled (arm64asm keeps it unexported).
	a := run(t, elf.EM_AARCH64, a64(0xaa0103e0, 0xd37cec00)) // mov x0,x1; lsl x0,x0,#4
	if !Equal(a.RegValue(0), Shl(Reg(1), 4), 8) {
		t.Errorf("arm64 mov+lsl: x0 = %v", a.RegValue(0))
	}
	b := run(t, elf.EM_AARCH64, a64(0x91004020)) // add x0,x1,#16
	if Equal(b.RegValue(0), Add(Reg(1), Const(16)), 8) || !Equal(b.RegValue(1), Reg(1), 8) {
		t.Errorf("arm64 add: x0 = %v x1 = %v", b.RegValue(0), b.RegValue(1))
	}
}

// TestExtension: DWARF spells (long)int as "shl 32, shra 32" and
// (unsigned long)unsigned int as "shl 32, shr 32" (or "and 0xffffffff");
// the instructions are movslq and a 32-bit mov. Each spelling is the
// same value (issue 26: find_next_bit's offset after movslq).
func TestExtension(t *testing.T) {
	x := Add(Reg(5), Const(1)) // rdi + 1, as "DW_OP_breg5 1"
	sext := Sar(Shl(x, 32), 32)
	zext := Shr(Shl(x, 32), 32)
	for _, tc := range []struct {
		name string
		code string // rax = the extension of edi + 1
		want Value
	}{
		{"movslq", "8d4701" + "4863c0", sext},                   // lea 1(%rdi),%eax; movslq %eax,%rax
		{"shl+sar", "488d4701" + "48c1e020" + "48c1f820", sext}, // lea 1(%rdi),%rax; shl $32; sar $32
		{"mov32", "8d4701" + "89c0", zext},                      // lea 1(%rdi),%eax; mov %eax,%eax
		{"shl+shr", "488d4701" + "48c1e020" + "48c1e820", zext},
		{"and", "488d4701" + "89c0", And(x, Const(0xffffffff))},
	} {
		if got := run(t, elf.EM_X86_64, x86(tc.code)).RegValue(0); !Equal(got, tc.want, 8) {
			t.Errorf("%s: rax = %v, want %v", tc.name, got, tc.want)
		}
	}
	// arm64: add w2, w2, #1 is not modeled, so from w2 itself.
	w2 := Reg(2)
	for _, tc := range []struct {
		name string
		word uint32
		want Value
	}{
		{"sxtw x2, w2", 0x93407c42, Sar(Shl(w2, 32), 32)},
		{"sxtb x2, w2", 0x93401c42, Sar(Shl(w2, 56), 56)},
		{"uxth w2, w2", 0x53003c42, Shr(Shl(w2, 48), 48)},
	} {
		if got := run(t, elf.EM_AARCH64, a64(tc.word)).RegValue(2); !Equal(got, tc.want, 8) {
			t.Errorf("%s: x2 = %v, want %v", tc.name, got, tc.want)
		}
	}
	if Equal(sext, zext, 8) || !Equal(sext, zext, 4) {
		t.Errorf("sign and zero extension: %v, %v", sext, zext)
	}
	// Only a right shift by the left shift's count is an extension, and
	// neither keeps the bits shifted out.
	if Equal(Sar(Shl(x, 32), 31), sext, 8) || Equal(Sar(Shl(x, 4), 4), x, 8) || Equal(Shr(Shl(x, 4), 4), x, 8) {
		t.Error("a shift pair with the top bits of x equal to x")
	}
	if !Equal(Shr(Shl(x, 4), 4), And(x, Const(1<<60-1)), 8) {
		t.Errorf("shr 4: %v", Shr(Shl(x, 4), 4))
	}
}

// TestLongSum: a sum of more terms than a scan merges (sumScan) is
// merged and ordered as a short one, whatever the order of its terms,
// and the shared leaves (small constants, registers) are the values a
// new node would be.
func TestLongSum(t *testing.T) {
	const n = 3 * sumScan
	leaf := func(i int) Value {
		if i%2 == 0 {
			return Reg(uint32(i)) // shared below 64, made above
		}
		return Load(Const(uint64(0x1000*i)), 8, 0)
	}
	var up, down, twice Value
	up, down, twice = Const(0), Const(0), Const(0)
	for i := range n {
		up = Add(up, leaf(i))
		down = Add(down, leaf(n-1-i))
		twice = Add(twice, Add(leaf(i), leaf(i)))
	}
	if up.String() != down.String() {
		t.Errorf("order matters:\n%v\n%v", up, down)
	}
	if !Equal(Add(up, up), twice, 8) {
		t.Errorf("x+x is not 2x past %d terms:\n%v\n%v", sumScan, Add(up, up), twice)
	}
	if !Equal(Sub(up, up), Const(0), 8) {
		t.Errorf("x-x = %v", Sub(up, up))
	}
	for _, tc := range []struct{ shared, made Value }{
		{Const(7), Value{mk(&node{kind: kConst, c: 7})}},
		{Reg(3), Value{mk(&node{kind: kReg, c: 3})}},
		{Reg(100), Value{mk(&node{kind: kReg, c: 100})}},
	} {
		if tc.shared.String() != tc.made.String() || tc.shared.n.kind != tc.made.n.kind || tc.shared.n.c != tc.made.n.c {
			t.Errorf("leaf %v, want %v", tc.shared, tc.made)
		}
	}
}

// FuzzDecode: any bytes decode to an instruction or an error, and
// stepping a state through them never panics.
func FuzzDecode(f *testing.F) {
	f.Add(false, x86("4889f848c1e0044883e801c3"))
	f.Add(true, a64(0xaa0103e0, 0xd37cec00, 0x91004020, 0xd65f03c0))
	f.Fuzz(func(t *testing.T, arm bool, code []byte) {
		m := elf.EM_X86_64
		if arm {
			m = elf.EM_AARCH64
		}
		s := NewState(m)
		for pc := 0; pc < len(code); {
			in, err := Decode(m, code[pc:], uint64(pc))
			if err != nil {
				pc++
				continue
			}
			if in.Len <= 0 || in.Len > len(code)-pc {
				t.Fatalf("length %d at %d of %d", in.Len, pc, len(code))
			}
			s.Step(&in)
			pc += in.Len
		}
		for r := uint32(0); r < 32; r++ {
			Equal(s.RegValue(r), Reg(r), 8)
		}
	})
}
