package btf

// The resolve pass of BPF_BTF_LOAD (btf_check_all_types: btf_resolve with
// the kinds' resolve callbacks, the struct member checks, btf_resolve_valid,
// btf_func_proto_check) and btf_check_modifier_chain_length, which both
// loaders run. The resolve stack, the resolve modes and the sink rules are
// the kernel's, so that what resolves, in which order and with which
// message, is the kernel's. Types of the base chain count as resolved;
// their resolved ids and sizes are worked out on demand.

import "fmt"

type resolveMode uint8

const (
	resolveTBD           resolveMode = iota // RESOLVE_TBD
	resolvePtr                              // RESOLVE_PTR
	resolveStructOrArray                    // RESOLVE_STRUCT_OR_ARRAY
)

// errno is the outcome of a resolve step.
type errno uint8

const (
	eOK    errno = iota
	eINVAL       // logged by the step
	eE2BIG       // stack full: "Exceeded max resolving depth"
	eEXIST       // loop: "Loop detected"
)

type vertex struct {
	t    *Type
	id   TypeID
	next int // next_member
}

// btfVoid is the kernel's btf_void, the type of id 0.
var btfVoid Type

// byID is btf_type_by_id: nil for an id the chain does not have. Looking
// at an own type that failed taints the current resolve.
func (v *verifier) byID(id TypeID) *Type {
	if id == 0 {
		return &btfVoid
	}
	p := v.s.specFor(id)
	if p == nil {
		return nil
	}
	if p == v.s && v.state[id-p.firstID] == failed {
		v.taint = true
	}
	return &p.types[id-p.firstID]
}

func isVoid(t *Type) bool { return t == &btfVoid }

// Kind classes of the verifier (btf_type_is_modifier,
// btf_type_nosize, btf_type_is_resolve_source_only, btf_type_needs_resolve,
// btf_type_has_size), one bit each.
const (
	clsModifier   = 1 << iota // TYPEDEF, VOLATILE, CONST, RESTRICT, TYPE_TAG
	clsNoSize                 // no size: void, FWD, FUNC, FUNC_PROTO, DECL_TAG, the LOC kinds
	clsSourceOnly             // nothing may refer to it
	clsResolve                // has a resolve step
	clsHasSize                // t->size is its size
)

var kindClass = [NumKinds]uint8{
	KindUnknown:   clsNoSize, // void
	KindInt:       clsHasSize,
	KindPtr:       clsResolve,
	KindArray:     clsResolve,
	KindStruct:    clsResolve | clsHasSize,
	KindUnion:     clsResolve | clsHasSize,
	KindEnum:      clsHasSize,
	KindFwd:       clsNoSize,
	KindTypedef:   clsModifier | clsResolve,
	KindVolatile:  clsModifier | clsResolve,
	KindConst:     clsModifier | clsResolve,
	KindRestrict:  clsModifier | clsResolve,
	KindFunc:      clsNoSize | clsResolve,
	KindFuncProto: clsNoSize,
	KindVar:       clsSourceOnly | clsResolve,
	KindDatasec:   clsSourceOnly | clsResolve | clsHasSize,
	KindFloat:     clsHasSize,
	KindDeclTag:   clsNoSize | clsSourceOnly | clsResolve,
	KindTypeTag:   clsModifier | clsResolve,
	KindEnum64:    clsHasSize,
	KindLocParam:  clsNoSize,
	KindLocProto:  clsNoSize | clsSourceOnly | clsResolve,
	KindLocSec:    clsNoSize | clsSourceOnly | clsResolve,
}

// class returns t's kind classes; kinds beyond the known ones have none
// (they fail check_meta, and a resolve that meets them is tainted).
func class(t *Type) uint8 {
	if k := t.Kind(); k < NumKinds {
		return kindClass[k]
	}
	return 0
}

func isModifier(t *Type) bool { return class(t)&clsModifier != 0 }

func isStructOrUnion(t *Type) bool { return t.Kind() == KindStruct || t.Kind() == KindUnion }

// noSize is btf_type_nosize_or_null.
func noSize(t *Type) bool { return t == nil || class(t)&clsNoSize != 0 }

// sourceOnly is btf_type_is_resolve_source_only.
func sourceOnly(t *Type) bool { return class(t)&clsSourceOnly != 0 }

// needsResolve is btf_type_needs_resolve.
func needsResolve(t *Type) bool { return class(t)&clsResolve != 0 }

// hasSize is btf_type_has_size.
func hasSize(t *Type) bool { return class(t)&clsHasSize != 0 }

// intRegular is btf_type_int_is_regular: no bitfield, 1, 2, 4, 8 or 16
// bytes.
func intRegular(t *Type) bool {
	d := t.word(0)
	bits := d & 0xff
	n := (bits + 7) / 8
	return bits%8 == 0 && d>>16&0xff == 0 && n != 0 && n <= 16 && n&(n-1) == 0
}

// isSink is env_type_is_resolve_sink.
func (v *verifier) isSink(t *Type) bool {
	switch v.mode {
	case resolvePtr:
		return !isModifier(t) && t.Kind() != KindPtr
	case resolveStructOrArray:
		return !isModifier(t) && t.Kind() != KindArray && !isStructOrUnion(t)
	}
	return !needsResolve(t)
}

// own returns id's index among s's own types, or -1.
func (v *verifier) own(id TypeID) int {
	if id < v.s.firstID || id >= v.s.NextID() {
		return -1
	}
	return int(id - v.s.firstID)
}

// isResolved is env_type_is_resolved: base types are; void is for split
// BTF only (below start_id), as in the kernel.
func (v *verifier) isResolved(id TypeID) bool {
	if id < v.s.firstID {
		return id != 0 || v.s.base != nil
	}
	i := v.own(id)
	return i >= 0 && v.state[i] == resolved
}

// push is env_stack_push.
func (v *verifier) push(t *Type, id TypeID) errno {
	if len(v.stack) == maxResolveDepth {
		return eE2BIG
	}
	i := v.own(id)
	if i < 0 {
		return eEXIST
	}
	switch v.state[i] {
	case failed:
		v.taint = true
		return eINVAL
	case notVisited:
	default:
		return eEXIST
	}
	v.state[i] = visited
	v.stack = append(v.stack, vertex{t: t, id: id})
	if v.mode == resolveTBD {
		switch {
		case t.Kind() == KindPtr:
			v.mode = resolvePtr
		case isStructOrUnion(t), t.Kind() == KindArray:
			v.mode = resolveStructOrArray
		}
	}
	return eOK
}

func (v *verifier) setNext(n int) { v.stack[len(v.stack)-1].next = n }

// popResolved is env_stack_pop_resolved.
func (v *verifier) popResolved(id TypeID, size uint32) errno {
	top := v.stack[len(v.stack)-1]
	v.stack = v.stack[:len(v.stack)-1]
	i := v.own(top.id)
	v.rid[i], v.rsize[i], v.state[i] = id, size, resolved
	return eOK
}

// resolvedID and resolvedSize are btf_resolved_type_id and
// btf_resolved_type_size.
func (v *verifier) resolvedID(id TypeID) TypeID {
	if i := v.own(id); i >= 0 {
		return v.rid[i]
	}
	r, _ := v.baseResolved(id, 0)
	return r
}

func (v *verifier) resolvedSize(id TypeID) uint32 {
	if i := v.own(id); i >= 0 {
		return v.rsize[i]
	}
	_, n := v.baseResolved(id, 0)
	return n
}

// baseResolved works out what the resolve of a (valid) base type would
// have stored: a modifier, pointer or VAR resolves to the first type
// along its chain that is not a modifier, an array to its element's sized
// type and size times nelems, a FUNC to its FUNC_PROTO, a DECL_TAG to its
// target.
func (v *verifier) baseResolved(id TypeID, depth int) (TypeID, uint32) {
	t := v.byID(id)
	if t == nil || isVoid(t) || depth > maxResolveDepth {
		return 0, 0
	}
	switch k := t.Kind(); {
	case isModifier(t), k == KindPtr, k == KindVar:
		next := TypeID(t.SizeType)
		for range maxResolveDepth {
			nt := v.byID(next)
			if nt == nil || !isModifier(nt) {
				break
			}
			next = TypeID(nt.SizeType)
		}
		return next, 0
	case k == KindArray:
		elem, _, n := t.Array()
		if sid, size, ok := v.idSizeDepth(elem, depth+1); ok {
			return sid, size * n
		}
	case k == KindFunc, k == KindDeclTag:
		return TypeID(t.SizeType), 0
	}
	return 0, 0
}

// idSize is btf_type_id_size: the id of the type that gives id its size,
// and the size.
func (v *verifier) idSize(id TypeID) (TypeID, uint32, bool) { return v.idSizeDepth(id, 0) }

func (v *verifier) idSizeDepth(id TypeID, depth int) (TypeID, uint32, bool) {
	size := func(id TypeID, t *Type) (uint32, bool) {
		switch {
		case hasSize(t):
			return t.SizeType, true
		case t.Kind() == KindArray:
			if i := v.own(id); i >= 0 {
				return v.rsize[i], true
			}
			_, n := v.baseResolved(id, depth)
			return n, true
		case t.Kind() == KindPtr:
			return kernelPtrSize, true
		}
		return 0, false
	}
	t := v.byID(id)
	if noSize(t) {
		return 0, 0, false
	}
	if n, ok := size(id, t); ok {
		return id, n, true
	}
	if !isModifier(t) && t.Kind() != KindVar {
		return 0, 0, false
	}
	sid := v.resolvedID(id)
	st := v.byID(sid)
	if noSize(st) {
		return 0, 0, false
	}
	if n, ok := size(sid, st); ok {
		return sid, n, true
	}
	return 0, 0, false
}

// checkAllTypes is btf_check_all_types: every own type that needs it is
// resolved, and every FUNC_PROTO checked, in id order.
func (v *verifier) checkAllTypes() {
	s := v.s
	v.rid = make([]TypeID, len(s.types))
	v.rsize = make([]uint32, len(s.types))
	v.stack = make([]vertex, 0, maxResolveDepth)
	for i := range s.types {
		if v.state[i] == failed {
			continue
		}
		t := &s.types[i]
		id := s.firstID + TypeID(i)
		v.logID = id
		if needsResolve(t) && !v.isResolved(id) {
			if v.resolve(t, id) != eOK {
				continue
			}
		}
		if t.Kind() == KindFuncProto {
			v.taint = false
			if v.funcProtoCheck(t) != eOK {
				v.state[i] = failed
			}
		}
	}
}

// resolve is btf_resolve. When it fails, every type on the stack stops
// there (the kernel's verdict is in): they are marked failed.
func (v *verifier) resolve(t *Type, id TypeID) errno {
	saveID, saveTaint := v.logID, v.taint
	v.taint = false
	v.mode = resolveTBD
	err := v.push(t, id)
	for err == eOK && len(v.stack) > 0 {
		top := v.stack[len(v.stack)-1]
		v.logID = top.id
		err = v.resolveVertex(top)
	}
	v.logID = id
	switch err {
	case eE2BIG:
		v.emit(v.logType(t, fmt.Sprintf("Exceeded max resolving depth:%d", maxResolveDepth)))
	case eEXIST:
		v.emit(v.logType(t, "Loop detected"))
	case eOK:
		if !v.resolveValid(t, id) {
			v.emit(v.logType(t, "Invalid resolve state"))
			err = eINVAL
		}
	}
	if err != eOK {
		for _, x := range v.stack {
			v.state[v.own(x.id)] = failed
		}
		v.stack = v.stack[:0]
		if i := v.own(id); i >= 0 {
			v.state[i] = failed
		}
	}
	v.logID, v.taint = saveID, saveTaint || v.taint
	return err
}

// resolveVertex calls the resolve callback of x's kind.
func (v *verifier) resolveVertex(x vertex) errno {
	switch t := x.t; t.Kind() {
	case KindTypedef, KindVolatile, KindConst, KindRestrict, KindTypeTag, KindPtr, KindVar:
		return v.refResolve(t)
	case KindArray:
		return v.arrayResolve(t)
	case KindStruct, KindUnion:
		return v.structResolve(x)
	case KindDatasec:
		return v.datasecResolve(x)
	case KindFunc:
		if e := v.funcCheck(t); e != eOK {
			return e
		}
		return v.popResolved(TypeID(t.SizeType), 0)
	case KindDeclTag:
		return v.declTagResolve(t)
	case KindLocProto:
		return v.locProtoResolve(t)
	case KindLocSec:
		return v.locsecResolve(x)
	default:
		v.emit(v.logBasic(t, "Unsupported resolve"))
		return eINVAL
	}
}

func (v *verifier) fail(e *ValidationError) errno {
	v.emit(e)
	return eINVAL
}

// refResolve is btf_modifier_resolve, btf_ptr_resolve and
// btf_var_resolve, which differ in two points: a PTR or VAR whose target
// is a modifier resolved (while resolving a struct or array) to a pointer
// goes on with that pointer, and a modifier or PTR may end at a type
// without size (void, FWD, FUNC_PROTO) where a VAR may not.
func (v *verifier) refResolve(t *Type) errno {
	k := t.Kind()
	next := TypeID(t.SizeType)
	nt := v.byID(next)
	if nt == nil || sourceOnly(nt) {
		return v.fail(v.logType(t, "Invalid type_id"))
	}
	if !v.isSink(nt) && !v.isResolved(next) {
		return v.push(nt, next)
	}
	if (k == KindPtr || k == KindVar) && isModifier(nt) {
		rid := v.resolvedID(next)
		if rt := v.byID(rid); rt != nil && rt.Kind() == KindPtr && !v.isSink(rt) && !v.isResolved(rid) {
			return v.push(rt, rid)
		}
	}
	if sid, _, ok := v.idSize(next); ok {
		next = sid
	} else {
		if k == KindVar {
			return v.fail(v.logType(t, "Invalid type_id"))
		}
		if v.isResolved(next) {
			next = v.resolvedID(next)
			nt = v.byID(next)
		}
		// "typedef void new_void", "const void", pointers to FWD and
		// FUNC_PROTO.
		if nt == nil || !isVoid(nt) && nt.Kind() != KindFwd && nt.Kind() != KindFuncProto {
			return v.fail(v.logType(t, "Invalid type_id"))
		}
	}
	return v.popResolved(next, 0)
}

// arrayResolve is btf_array_resolve.
func (v *verifier) arrayResolve(t *Type) errno {
	elem, index, n := t.Array()
	it := v.byID(index)
	if noSize(it) || sourceOnly(it) {
		return v.fail(v.logType(t, "Invalid index"))
	}
	if !v.isSink(it) && !v.isResolved(index) {
		return v.push(it, index)
	}
	if sid, _, ok := v.idSize(index); !ok || v.byID(sid).Kind() != KindInt || !intRegular(v.byID(sid)) {
		return v.fail(v.logType(t, "Invalid index"))
	}
	et := v.byID(elem)
	if noSize(et) || sourceOnly(et) {
		return v.fail(v.logType(t, "Invalid elem"))
	}
	if !v.isSink(et) && !v.isResolved(elem) {
		return v.push(et, elem)
	}
	sid, size, ok := v.idSize(elem)
	if !ok {
		return v.fail(v.logType(t, "Invalid elem"))
	}
	if st := v.byID(sid); st.Kind() == KindInt && !intRegular(st) {
		return v.fail(v.logType(t, "Invalid array of int"))
	}
	if n != 0 && size > (1<<32-1)/n {
		return v.fail(v.logType(t, "Array size overflows U32_MAX"))
	}
	return v.popResolved(sid, size*n)
}

// structResolve is btf_struct_resolve: each member's type resolved, then
// checked by the check_member of its kind.
func (v *verifier) structResolve(x vertex) errno {
	t := x.t
	d := t.elems(0, 3)
	member := func(i int) Member { return Member{d[3*i], TypeID(d[3*i+1]), d[3*i+2]} }
	if x.next > 0 {
		m := member(x.next - 1)
		if e := v.checkMember(t, m, v.byID(m.Type)); e != eOK {
			return e
		}
	}
	for i := x.next; 3*i+2 < len(d); i++ {
		m := member(i)
		mt := v.byID(m.Type)
		if noSize(mt) || sourceOnly(mt) {
			return v.fail(v.logMember(t, m, "Invalid member"))
		}
		if !v.isSink(mt) && !v.isResolved(m.Type) {
			v.setNext(i + 1)
			return v.push(mt, m.Type)
		}
		if e := v.checkMember(t, m, mt); e != eOK {
			return e
		}
	}
	return v.popResolved(0, 0)
}

// checkMember is the check_member (or, for a struct with kind_flag,
// check_kflag_member) callback of the member type's kind.
func (v *verifier) checkMember(st *Type, m Member, mt *Type) errno {
	kflag := st.KindFlag()
	switch mt.Kind() {
	case KindInt:
		if kflag {
			return v.intKflagMember(st, m, mt)
		}
		return v.intMember(st, m, mt)
	case KindEnum, KindEnum64:
		if kflag {
			return v.enumKflagMember(st, m)
		}
	case KindTypedef, KindVolatile, KindConst, KindRestrict, KindTypeTag:
		// btf_modifier_check_member: the resolved type's callback.
		sid, _, ok := v.idSize(m.Type)
		if !ok {
			return v.fail(v.logMember(st, m, "Invalid member"))
		}
		m.Type = sid
		return v.checkMember(st, m, v.byID(sid))
	case KindPtr, KindArray, KindStruct, KindUnion, KindFloat:
		// btf_generic_check_kflag_member: no bitfield, then check_member.
		if kflag && m.Offset>>24 != 0 {
			return v.fail(v.logMember(st, m, "Invalid member bitfield_size"))
		}
	default:
		if kflag {
			return v.fail(v.logBasic(st, "Unsupported check_kflag_member"))
		}
		return v.fail(v.logBasic(st, "Unsupported check_member"))
	}
	// check_member proper, on the member's bit offset (u32 arithmetic,
	// as in the kernel).
	off, size := m.Offset, st.SizeType
	var need uint32
	switch mt.Kind() {
	case KindFloat:
		align := uint64(min(kernelPtrSize, mt.SizeType)) * 8
		if align != 0 && uint64(off)%align != 0 {
			return v.fail(v.logMember(st, m, "Member is not properly aligned"))
		}
		if uint64(off)/8+uint64(mt.SizeType) > uint64(size) {
			return v.fail(v.logMember(st, m, "Member exceeds struct_size"))
		}
		return eOK
	case KindPtr:
		need = kernelPtrSize
	case KindArray:
		_, need, _ = v.idSize(m.Type)
	default: // STRUCT, UNION, ENUM, ENUM64
		need = mt.SizeType
	}
	if off%8 != 0 {
		return v.fail(v.logMember(st, m, "Member is not byte aligned"))
	}
	if size-off/8 < need {
		return v.fail(v.logMember(st, m, "Member exceeds struct_size"))
	}
	return eOK
}

// intMember is btf_int_check_member.
func (v *verifier) intMember(st *Type, m Member, mt *Type) errno {
	d := mt.word(0)
	ioff := d >> 16 & 0xff
	if 1<<32-1-m.Offset < ioff {
		return v.fail(v.logMember(st, m, "bits_offset exceeds U32_MAX"))
	}
	off := m.Offset + ioff
	return v.copyBits(st, m, off/8, d&0xff+off%8)
}

// copyBits is the tail of the int member checks: the bits copied from
// byte bytesOff on fit in 128 bits and in the struct.
func (v *verifier) copyBits(st *Type, m Member, bytesOff, nrCopy uint32) errno {
	if nrCopy > bitsPerU128 {
		return v.fail(v.logMember(st, m, "nr_copy_bits exceeds 128"))
	}
	if st.SizeType < bytesOff || st.SizeType-bytesOff < (nrCopy+7)/8 {
		return v.fail(v.logMember(st, m, "Member exceeds struct_size"))
	}
	return eOK
}

// intKflagMember is btf_int_check_kflag_member.
func (v *verifier) intKflagMember(st *Type, m Member, mt *Type) errno {
	if !intRegular(mt) {
		return v.fail(v.logMember(st, m, "Invalid member base type"))
	}
	bits, off, ibits := m.Offset>>24, m.Offset&0xffffff, mt.word(0)&0xff
	if bits == 0 {
		if off%8 != 0 {
			return v.fail(v.logMember(st, m, "Invalid member offset"))
		}
		bits = ibits
	} else if bits > ibits {
		return v.fail(v.logMember(st, m, "Invalid member bitfield_size"))
	}
	return v.copyBits(st, m, off/8, bits+off%8)
}

// enumKflagMember is btf_enum_check_kflag_member (a bitfield of at most
// the bits of an int).
func (v *verifier) enumKflagMember(st *Type, m Member) errno {
	bits, off := m.Offset>>24, m.Offset&0xffffff
	if bits == 0 {
		if off%8 != 0 {
			return v.fail(v.logMember(st, m, "Member is not byte aligned"))
		}
		bits = 32
	} else if bits > 32 {
		return v.fail(v.logMember(st, m, "Invalid member bitfield_size"))
	}
	if st.SizeType < (off+bits+7)/8 {
		return v.fail(v.logMember(st, m, "Member exceeds struct_size"))
	}
	return eOK
}

// datasecResolve is btf_datasec_resolve.
func (v *verifier) datasecResolve(x vertex) errno {
	t := x.t
	v.mode = resolveTBD
	d := t.elems(0, 3)
	for i := x.next; 3*i+2 < len(d); i++ {
		si := VarSecinfo{TypeID(d[3*i]), d[3*i+1], d[3*i+2]}
		vt := v.byID(si.Type)
		if vt == nil || vt.Kind() != KindVar || isVoid(vt) {
			return v.fail(v.logEntry(t, vsiLine(si), "Not a VAR kind member"))
		}
		if !v.isSink(vt) && !v.isResolved(si.Type) {
			v.setNext(i + 1)
			return v.push(vt, si.Type)
		}
		_, size, ok := v.idSize(TypeID(vt.SizeType))
		if !ok {
			return v.fail(v.logEntry(t, vsiLine(si), "Invalid type"))
		}
		if si.Size < size {
			return v.fail(v.logEntry(t, vsiLine(si), "Invalid size"))
		}
	}
	return v.popResolved(0, 0)
}

// funcCheck is btf_func_check: a FUNC's type is a FUNC_PROTO whose
// parameters are named.
func (v *verifier) funcCheck(t *Type) errno {
	pt := v.byID(TypeID(t.SizeType))
	if pt == nil || isVoid(pt) || pt.Kind() != KindFuncProto {
		return v.fail(v.logType(t, "Invalid type_id"))
	}
	d := pt.elems(0, 2)
	for i := 0; 2*i+1 < len(d); i++ {
		if d[2*i] == 0 && d[2*i+1] != 0 {
			return v.fail(v.logType(t, fmt.Sprintf("Invalid arg#%d", i+1)))
		}
	}
	return eOK
}

// declTagResolve is btf_decl_tag_resolve.
func (v *verifier) declTagResolve(t *Type) errno {
	next := TypeID(t.SizeType)
	nt := v.byID(next)
	if nt == nil || isVoid(nt) {
		return v.fail(v.logType(t, "Invalid type_id"))
	}
	switch nt.Kind() {
	case KindFunc, KindStruct, KindUnion, KindVar, KindTypedef:
	default:
		return v.fail(v.logType(t, "Invalid type_id"))
	}
	if !v.isSink(nt) && !v.isResolved(next) {
		return v.push(nt, next)
	}
	if idx := t.ComponentIdx(); idx != -1 {
		var n int
		switch nt.Kind() {
		case KindVar, KindTypedef:
			return v.fail(v.logType(t, "Invalid component_idx"))
		case KindStruct, KindUnion:
			n = nt.Vlen()
		default: // FUNC: its FUNC_PROTO, checked by the FUNC's resolve
			if pt := v.byID(TypeID(nt.SizeType)); pt != nil {
				n = pt.Vlen()
			}
		}
		if uint32(idx) >= uint32(n) {
			return v.fail(v.logType(t, "Invalid component_idx"))
		}
	}
	return v.popResolved(next, 0)
}

// locProtoResolve is btf_loc_proto_resolve.
func (v *verifier) locProtoResolve(t *Type) errno {
	if t.SizeType != 0 {
		return v.fail(v.logType(t, "Invalid loc_proto type"))
	}
	for i, w := range t.elems(0, 1) {
		p := TypeID(w)
		if p == 0 {
			continue
		}
		if pt := v.byID(p); pt == nil || isVoid(pt) || pt.Kind() != KindLocParam {
			return v.fail(v.logType(t, fmt.Sprintf("Invalid loc_param#%d", i+1)))
		}
	}
	return v.popResolved(0, 0)
}

// locsecResolve is btf_locsec_resolve: each entry's FUNC (resolved: its
// FUNC_PROTO's parameters are named) and LOC_PROTO, of as many entries as
// the FUNC_PROTO has parameters.
func (v *verifier) locsecResolve(x vertex) errno {
	t := x.t
	if t.SizeType != 0 {
		return v.fail(v.logType(t, "Invalid locsec type"))
	}
	v.mode = resolveTBD
	d := t.elems(0, 3)
	for i := x.next; 3*i+2 < len(d); i++ {
		e := LocEntry{TypeID(d[3*i]), TypeID(d[3*i+1]), d[3*i+2]}
		fn := v.byID(e.Func)
		if fn == nil || isVoid(fn) || fn.Kind() != KindFunc {
			return v.fail(v.logType(t, fmt.Sprintf("Invalid func#%d", i+1)))
		}
		pt := v.byID(TypeID(fn.SizeType))
		if pt == nil || isVoid(pt) || pt.Kind() != KindFuncProto {
			return v.fail(v.logType(t, fmt.Sprintf("Invalid func#%d", i+1)))
		}
		if !v.isResolved(e.Func) {
			v.setNext(i)
			return v.push(fn, e.Func)
		}
		lp := v.byID(e.LocProto)
		if lp == nil || isVoid(lp) || lp.Kind() != KindLocProto {
			return v.fail(v.logType(t, fmt.Sprintf("Invalid loc_proto#%d", i+1)))
		}
		if pt.Vlen() != lp.Vlen() {
			return v.fail(v.logType(t, fmt.Sprintf("Mismatched vlen for loc_proto#%d", i+1)))
		}
		if !v.isResolved(e.LocProto) {
			v.setNext(i + 1)
			return v.push(lp, e.LocProto)
		}
	}
	return v.popResolved(0, 0)
}

// resolveValid is btf_resolve_valid, the final sanity check of a resolve.
func (v *verifier) resolveValid(t *Type, id TypeID) bool {
	if !v.isResolved(id) {
		return false
	}
	rid, rsize := v.resolvedID(id), v.resolvedSize(id)
	switch k := t.Kind(); {
	case isStructOrUnion(t), k == KindDatasec, k == KindLocProto, k == KindLocSec:
		return rid == 0 && rsize == 0
	case k == KindDeclTag, k == KindFunc:
		return rid != 0 && rsize == 0
	case isModifier(t), k == KindPtr, k == KindVar:
		rt := v.byID(rid)
		return rt != nil && !isModifier(rt) && rt.Kind() != KindVar && rt.Kind() != KindDatasec
	case k == KindArray:
		elem, _, n := t.Array()
		sid, size, ok := v.idSize(elem)
		return ok && !isModifier(v.byID(sid)) && n*size == rsize
	}
	return false
}

// funcProtoCheck is btf_func_proto_check: the return type and every
// argument resolve to a type with a size; the last argument may be void
// (varargs) if unnamed; named arguments have identifier names.
func (v *verifier) funcProtoCheck(t *Type) errno {
	if ret := TypeID(t.SizeType); ret != 0 {
		rt := v.byID(ret)
		if rt == nil || sourceOnly(rt) {
			return v.fail(v.logType(t, "Invalid return type"))
		}
		if needsResolve(rt) && !v.isResolved(ret) {
			if e := v.resolve(rt, ret); e != eOK {
				return e
			}
		}
		if _, _, ok := v.idSize(ret); !ok {
			return v.fail(v.logType(t, "Invalid return type"))
		}
	}
	d := t.elems(0, 2)
	n := len(d) / 2
	if n > 0 && d[2*n-1] == 0 {
		if d[2*n-2] != 0 {
			return v.fail(v.logType(t, fmt.Sprintf("Invalid arg#%d", n)))
		}
		n--
	}
	for i := range n {
		p := Param{d[2*i], TypeID(d[2*i+1])}
		bad := func() errno { return v.fail(v.logType(t, fmt.Sprintf("Invalid arg#%d", i+1))) }
		at := v.byID(p.Type)
		if at == nil || sourceOnly(at) || p.NameOff != 0 && (!v.nameOffValid(p.NameOff) || !v.ident(p.NameOff)) {
			return bad()
		}
		if needsResolve(at) && !v.isResolved(p.Type) {
			if e := v.resolve(at, p.Type); e != eOK {
				return e
			}
		}
		if _, _, ok := v.idSize(p.Type); !ok {
			return bad()
		}
	}
	return eOK
}

// modifierChains is btf_check_modifier_chain_length over the own types:
// no chain of more than 32 modifiers (or a cycle). A chain that reaches a
// type id the chain does not have is rejected with -EINVAL and no log.
func (v *verifier) modifierChains() {
	s := v.s
	good := s.firstID - 1
	for i := range s.types {
		id := s.firstID + TypeID(i)
		t := &s.types[i]
		if !isModifier(t) || v.state[i] == failed {
			continue
		}
		v.logID = id
		v.taint = false
		cur, limit := id, 32
		for t != nil && isModifier(t) {
			if limit == 0 {
				v.emit(v.plain(id, s.types[i].Kind(), "Max chain length or cycle detected"))
				break
			}
			limit--
			if cur <= good {
				break
			}
			cur = TypeID(t.SizeType)
			if t = v.byID(cur); t == nil {
				line := v.typeLine(id, &s.types[i], true)
				v.emit(v.plain(id, s.types[i].Kind(), "(-EINVAL, nothing logged) %s: its modifier chain reaches type_id %d, which does not exist", line, cur))
			}
		}
		good = id
	}
	v.taint = false
}
