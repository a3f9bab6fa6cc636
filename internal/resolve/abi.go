package resolve

import (
	"errors"
	"fmt"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/btf"
)

// Where the arguments of a function are at its first instruction: the
// calling conventions the kernel is built with, applied to the BTF
// FUNC_PROTO (x86-64 SysV psABI 3.2.3, AAPCS64 6.8.2). Vector registers
// (floats, SSE eightbytes, HFAs) have no pt_regs name, so such arguments
// are unavailable with the register named; everything after them is still
// placed, because the classification says which register or stack slot
// each argument takes.

// class is a psABI eightbyte class.
type class uint8

const (
	classNone class = iota
	classInt
	classSSE
	classMem
)

func merge(a, b class) class {
	switch {
	case a == b:
		return a
	case a == classNone:
		return b
	case b == classNone:
		return a
	case a == classMem || b == classMem:
		return classMem
	case a == classInt || b == classInt:
		return classInt
	}
	return classSSE
}

// abiType is what the conventions need to know about an argument type.
type abiType struct {
	size, align int
	scalar      class // classInt or classSSE for a scalar, classNone for an aggregate
	eight       [2]class
	mem         bool // aggregate that must be in memory (x86-64) / not classifiable
	hfa         int  // AAPCS64: members of a homogeneous float aggregate (1-4), else 0
	hfaSize     int
}

// classify walks type id of spec.
func classify(spec *btf.Spec, id btf.TypeID) (abiType, error) {
	var at abiType
	t, id, err := resolveType(spec, id)
	if err != nil {
		return at, err
	}
	switch t.Kind() {
	case btf.KindInt, btf.KindEnum, btf.KindEnum64:
		at.size = int(t.SizeType)
		at.align, at.scalar = min(max(at.size, 1), 16), classInt
		if legacyFloat(spec, t) {
			at.scalar = classSSE
			if at.size > 8 {
				at.scalar, at.mem = classMem, true
			}
		}
	case btf.KindPtr:
		at.size, at.align, at.scalar = ptrSize, ptrSize, classInt
	case btf.KindFloat:
		at.size = int(t.SizeType)
		at.align, at.scalar = at.size, classSSE
		if at.size > 8 {
			at.scalar, at.mem = classMem, true // x87 long double: memory
		}
	case btf.KindStruct, btf.KindUnion, btf.KindArray:
		at.size = int(spec.Size(id, ptrSize))
		at.align = 1
		var hfaKind int
		hfaOK := true
		err := walkScalars(spec, id, 0, 0, func(off, size, align int, c class) {
			at.align = max(at.align, align)
			if off%align != 0 {
				at.mem = true // packed: not classified, in memory
			}
			for b := off / 8; b <= (off+size-1)/8 && b < 2; b++ {
				at.eight[b] = merge(at.eight[b], c)
			}
			if c != classSSE || hfaKind != 0 && hfaKind != size {
				hfaOK = false
			}
			hfaKind = size
			at.hfa++
		})
		if err != nil {
			return at, err
		}
		if at.size > 16 || at.eight[0] == classMem || at.eight[1] == classMem {
			at.mem = true
		}
		if !hfaOK || at.hfa > 4 || at.hfa == 0 || at.hfa*hfaKind != at.size {
			at.hfa = 0
		}
		at.hfaSize = hfaKind
	default:
		return at, fmt.Errorf("%s has no calling-convention class", t.Kind())
	}
	if at.size == 0 && t.Kind() != btf.KindStruct && t.Kind() != btf.KindUnion {
		return at, fmt.Errorf("type of size 0")
	}
	return at, nil
}

// legacyFloat reports an INT that is a floating-point type: pahole without
// FLOAT support (--btf_gen_floats) encodes float, double and long double
// as encoding-less INTs of their size.
func legacyFloat(spec *btf.Spec, t *btf.Type) bool {
	if t.Kind() != btf.KindInt {
		return false
	}
	if enc, _, _ := t.IntEncoding(); enc != 0 {
		return false
	}
	switch spec.Name(t) {
	case "float", "double", "long double", "_Float32", "_Float64", "_Float128", "__float128":
		return true
	}
	return false
}

// resolveType is Spec.Resolve, with a void parameter called by its name.
func resolveType(spec *btf.Spec, id btf.TypeID) (*btf.Type, btf.TypeID, error) {
	t, id, err := spec.Resolve(id)
	if errors.Is(err, btf.ErrVoid) {
		err = errors.New("void argument")
	}
	return t, id, err
}

// ptrSize is the pointer size of both ABIs resolve knows (LP64).
const ptrSize = 8

// walkScalars calls fn for every scalar inside aggregate id at byte
// offset base: its offset, size, natural alignment and class. Bitfields
// count as integers covering their bytes.
func walkScalars(spec *btf.Spec, id btf.TypeID, base, depth int, fn func(off, size, align int, c class)) error {
	if depth > maxTypeDepth {
		return fmt.Errorf("type nesting too deep")
	}
	t, id, err := resolveType(spec, id)
	if err != nil {
		return err
	}
	switch t.Kind() {
	case btf.KindStruct, btf.KindUnion:
		for _, m := range t.Members() {
			bitOff, bitSize := t.MemberBitOffset(m)
			if bitSize > 0 {
				off := int(bitOff / 8)
				end := int((bitOff + bitSize + 7) / 8)
				fn(off+base, end-off, 1, classInt)
				continue
			}
			if err := walkScalars(spec, m.Type, base+int(bitOff/8), depth+1, fn); err != nil {
				return err
			}
		}
		return nil
	case btf.KindArray:
		elem, _, n := t.Array()
		es := int(spec.Size(elem, ptrSize))
		if n > 64 {
			n = 64 // beyond 16 bytes the aggregate is in memory anyway
		}
		for i := 0; i < int(n); i++ {
			if err := walkScalars(spec, elem, base+i*es, depth+1, fn); err != nil {
				return err
			}
		}
		return nil
	}
	at, err := classify(spec, id)
	if err != nil {
		return err
	}
	c := at.scalar
	if at.mem {
		c = classMem
	}
	fn(base, at.size, max(at.align, 1), c)
	return nil
}

// entryLocations places every parameter of a FUNC_PROTO at the function's
// first instruction.
func entryLocations(a arch.Arch, spec *btf.Spec, params []site.Param, infos []TypeInfo) []site.Location {
	locs := make([]site.Location, len(params))
	regs := a.ArgRegs()
	ngrn, nsrn := 0, 0
	stack := int64(0)
	if a == arch.X86_64 {
		stack = 8 // return address at 0(%sp)
	}
	sp := a.SPReg()
	onStack := func(size, align int) site.Location {
		al := int64(max(8, align))
		stack = (stack + al - 1) &^ (al - 1)
		l := site.Location{Kind: site.LocMem, Reg: sp, Offset: stack, Size: uint8(min(size, 255))}
		stack += int64((size + 7) &^ 7)
		return l
	}
	inRegs := func(n, size int) site.Location {
		l := site.Location{Kind: site.LocReg, Reg: regs[ngrn], Size: uint8(size)}
		if n == 2 {
			l.Kind, l.Reg2 = site.LocRegPair, regs[ngrn+1]
		}
		ngrn += n
		return l
	}
	vec := func(n int) string {
		if a == arch.ARM64 {
			return fmt.Sprintf("%%v%d", n)
		}
		return fmt.Sprintf("%%xmm%d", n)
	}
	for i, p := range params {
		name := p.Type
		if i < len(infos) && infos[i].Name != "" {
			name = infos[i].Name
		}
		at, err := classify(spec, btf.TypeID(p.TypeID))
		if err != nil {
			// Nothing after an argument we cannot classify is known.
			for j := i; j < len(params); j++ {
				locs[j].Reason = fmt.Sprintf("argument position after %s %s not computed (%v)", name, p.Name, err)
			}
			locs[i].Reason = fmt.Sprintf("%s: %v", name, err)
			return locs
		}
		if at.size == 0 {
			locs[i].Reason = "empty aggregate: takes no register"
			continue
		}
		switch a {
		case arch.X86_64:
			locs[i] = sysvArg(at, &ngrn, &nsrn, len(regs), inRegs, onStack, vec)
		case arch.ARM64:
			locs[i] = aapcsArg(at, &ngrn, &nsrn, len(regs), regs, inRegs, onStack, vec)
		}
	}
	return locs
}

// sysvArg places one argument by the x86-64 psABI: INTEGER eightbytes in
// rdi, rsi, rdx, rcx, r8, r9; SSE eightbytes in xmm0-7; MEMORY and
// whatever does not fit entirely in the remaining registers on the stack
// (later arguments may still take registers).
func sysvArg(at abiType, ngrn, nsrn *int, nregs int, inRegs func(n, size int) site.Location,
	onStack func(size, align int) site.Location, vec func(int) string) site.Location {
	var cls []class
	switch {
	case at.mem || at.scalar == classMem:
		return onStack(at.size, at.align)
	case at.scalar != classNone:
		cls = []class{at.scalar}
		if at.size > 8 {
			cls = append(cls, at.scalar)
		}
	default:
		cls = []class{at.eight[0]}
		if at.size > 8 {
			cls = append(cls, at.eight[1])
		}
	}
	gp, ss := 0, 0
	for _, c := range cls {
		switch c {
		case classInt, classNone:
			gp++
		case classSSE:
			ss++
		}
	}
	if *ngrn+gp > nregs || *nsrn+ss > 8 {
		return onStack(at.size, at.align)
	}
	if ss == 0 {
		return inRegs(gp, at.size)
	}
	first := *nsrn
	*ngrn += gp
	*nsrn += ss
	if gp == 0 {
		return site.Location{Size: uint8(at.size), Reason: "passed in " + vec(first) + ": vector registers are not in pt_regs"}
	}
	return site.Location{Size: uint8(at.size), Reason: "passed partly in " + vec(first) + ": vector registers are not in pt_regs"}
}

// aapcsArg places one argument by AAPCS64: integers and composites of up to
// 16 bytes in x0-x7 (a 16-byte aligned one from an even register), floats
// and homogeneous float aggregates in v0-v7, larger composites by
// reference (a pointer to a copy in the next x register), the rest on the
// stack; once an argument goes to the stack, no later one takes an x
// register (NGRN is set to 8).
func aapcsArg(at abiType, ngrn, nsrn *int, nregs int, regs []uint32, inRegs func(n, size int) site.Location,
	onStack func(size, align int) site.Location, vec func(int) string) site.Location {
	switch {
	case at.scalar == classSSE || at.scalar == classMem || at.hfa > 0:
		n := 1
		if at.hfa > 0 {
			n = at.hfa
		}
		if *nsrn+n <= 8 {
			first := *nsrn
			*nsrn += n
			return site.Location{Size: uint8(at.size), Reason: "passed in " + vec(first) + ": vector registers are not in pt_regs"}
		}
		*nsrn = 8
		return onStack(at.size, at.align)
	case at.scalar == classNone && at.size > 16:
		if *ngrn < nregs {
			r := regs[*ngrn]
			*ngrn++
			return site.Location{Size: uint8(min(at.size, 255)), Reason: fmt.Sprintf("passed by reference: a %d-byte copy at the address in DWARF register %d; fetch its fields by offset", at.size, r)}
		}
		l := onStack(8, 8)
		return site.Location{Size: uint8(min(at.size, 255)), Reason: fmt.Sprintf("passed by reference: the copy's address is at %+d(%%sp)", l.Offset)}
	}
	n := (at.size + 7) / 8
	if at.align >= 16 && *ngrn%2 == 1 {
		*ngrn++
	}
	if *ngrn+n <= nregs {
		return inRegs(n, at.size)
	}
	*ngrn = nregs
	return onStack(at.size, at.align)
}
