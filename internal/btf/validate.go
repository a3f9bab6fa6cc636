package btf

// Validation is the kernel's BTF verifier (kernel/bpf/btf.c, linux-next
// with the LOC kinds and "bpf: Verify BTF_KIND_LOC_PARAM vlen, flags"),
// rule for rule and in the kernel's words, for two of its callers:
//
//   - LoaderBTFLoad, BPF_BTF_LOAD (btf_parse): btf_parse_hdr,
//     btf_parse_str_sec, btf_parse_layout_sec, btf_parse_type_sec (the
//     per-type check_meta pass, then the resolve pass over every type with
//     the FUNC_PROTO checks) and btf_check_modifier_chain_length;
//   - LoaderKernel, the loader of vmlinux and module BTF (btf_parse_base,
//     btf_parse_module): the header, the string section, the check_meta
//     pass and the modifier-chain check; no resolve, no layout section.
//
// The kernel returns at its first error. Here a failing type stops where
// the kernel stops (one violation per type), and the walk goes on over the
// other types: a type that failed is marked, and a type whose resolve runs
// into a marked type is not reported again (its verdict is the earlier
// violation's). Each pass runs even when an earlier one failed, since
// Parse has already made the blob decodable. Violations come in the order
// of the kernel's passes. Messages are the kernel's verifier log lines
// (btf_verifier_log_type and friends), with the 1-based indices the kernel
// prints ("arg#1", "loc_proto#1"); a rejection the kernel does not log is
// written in parentheses, naming its errno.
//
// Not modelled: btf_parse's struct-meta step (special fields such as
// bpf_spin_lock or kptrs, for BPF programs' maps; it logs nothing), and
// checks of blob shapes Parse already refuses (header shorter than 24
// bytes, sections beyond the data), which are reported by Parse.
// BPF_BTF_LOAD takes base BTF only; for split BTF its rules are applied on
// the base chain, whose types count as resolved, as in btf_parse's code.

import (
	"fmt"
	"strconv"
)

// Loader names the kernel code whose rules ValidateFor applies.
type Loader uint8

const (
	// LoaderBTFLoad is BPF_BTF_LOAD (btf_parse): header, strings, layout
	// section, metas, resolve of every type, FUNC_PROTO checks, modifier
	// chains.
	LoaderBTFLoad Loader = iota
	// LoaderKernel is the loader of vmlinux BTF at boot and of module BTF
	// at module load (btf_parse_base, btf_parse_module): header, strings,
	// metas, modifier chains; no resolve, the layout section not parsed.
	LoaderKernel
)

var loaderNames = [...]string{LoaderBTFLoad: "load", LoaderKernel: "module"}

// String returns "load" or "module" (the names of dump --validate).
func (l Loader) String() string {
	if int(l) < len(loaderNames) {
		return loaderNames[l]
	}
	return "Loader(" + strconv.Itoa(int(l)) + ")"
}

// ParseLoader returns the Loader named by String.
func ParseLoader(name string) (Loader, error) {
	for i, n := range loaderNames {
		if n == name {
			return Loader(i), nil
		}
	}
	return 0, fmt.Errorf("btf: unknown loader %q (load or module)", name)
}

// Kernel limits the verifier uses (besides enum btf_max).
const (
	maxResolveDepth = 32       // MAX_RESOLVE_DEPTH
	ksymNameLen     = 512      // KSYM_NAME_LEN
	btfMaxSize      = 16 << 20 // BTF_MAX_SIZE, BPF_BTF_LOAD only
	kernelPtrSize   = 8        // sizeof(void *) of a 64-bit kernel
	bitsPerU128     = 128
)

// Validate checks s with BPF_BTF_LOAD's rules (ValidateFor(LoaderBTFLoad))
// and returns every violation as a *ValidationError.
func (s *Spec) Validate() []error { return s.ValidateFor(LoaderBTFLoad) }

// ValidateFor checks s's header (for a blob from Parse that has not
// changed shape since), string section and own types with the rules of
// loader l, and returns every violation as a *ValidationError, in the
// order of the kernel's passes.
func (s *Spec) ValidateFor(l Loader) []error {
	v := &verifier{s: s, loader: l, state: make([]vstate, len(s.types))}
	// The blob's frame (header and sections) gets at most one violation,
	// the first the kernel meets; the types are checked in any case.
	hdr := s.headerAsParsed()
	frame := []func(bool){v.header, v.stringSection}
	if l == LoaderBTFLoad {
		frame = append(frame, v.layoutSection, v.typeSection)
	}
	for _, f := range frame {
		if f(hdr); len(v.errs) > 0 {
			break
		}
	}
	v.metas()
	if l == LoaderBTFLoad {
		v.checkAllTypes()
	}
	v.modifierChains()
	return v.errs
}

type vstate uint8

const (
	notVisited vstate = iota // NOT_VISITED
	visited                  // VISITED: on the resolve stack
	resolved                 // RESOLVED
	failed                   // reported, or stopped by a reported type
)

type verifier struct {
	s      *Spec
	loader Loader
	errs   []error

	logID TypeID // env->log_type_id
	// Own types, indexed by id-FirstID(): visit state and, after
	// resolve, resolved_ids and resolved_sizes.
	state []vstate
	rid   []TypeID
	rsize []uint32
	stack []vertex
	mode  resolveMode
	// taint: the current resolve looked at a type that failed; its
	// violation is then not reported (the verdict is the earlier one's).
	taint bool
	// identOK: bit off-strStart, the own string at off is an identifier.
	identOK []uint64
}

// emit records a violation unless the current resolve is tainted.
func (v *verifier) emit(e *ValidationError) {
	if e != nil && !v.taint {
		v.errs = append(v.errs, e)
	}
}

// plain is a btf_verifier_log line without a type: header and section
// messages, "[%u] Invalid kind:%u".
func (v *verifier) plain(id TypeID, k Kind, format string, a ...any) *ValidationError {
	msg := fmt.Sprintf(format, a...)
	return &ValidationError{ID: id, Kind: k, Msg: msg, Log: msg}
}

// headerAsParsed reports whether s.hdr still describes s: it came from
// Parse and its sections have kept their sizes.
func (s *Spec) headerAsParsed() bool {
	if !s.parsed || len(s.types) != s.origNT || len(s.strings) != s.origSL || (s.layout != nil) != s.origHasL {
		return false
	}
	n := uint64(0)
	for i := range s.types {
		n += typeHdrSize + 4*uint64(len(s.types[i].Data))
	}
	return n == uint64(s.hdr.typeLen)
}

// blobSize is the btf_data_size of a parsed blob, as Parse measured it.
func (s *Spec) blobSize() uint64 {
	h := &s.hdr
	end := max(uint64(h.typeOff)+uint64(h.typeLen), uint64(h.strOff)+uint64(h.strLen))
	if h.layoutLen != 0 || h.layoutOff != 0 {
		end = max(end, uint64(h.layoutOff)+uint64(h.layoutLen))
	}
	return uint64(h.hdrLen) + end + uint64(h.trailing)
}

// header is btf_parse_hdr and btf_check_sec_info (and, for BPF_BTF_LOAD,
// the BTF_MAX_SIZE limit of btf_parse).
func (v *verifier) header(known bool) {
	s := v.s
	if !known {
		return
	}
	h := &s.hdr
	size := s.blobSize()
	if v.loader == LoaderBTFLoad && size > btfMaxSize {
		v.emit(v.plain(0, 0, "(-E2BIG, nothing logged) btf_size %d is larger than BTF_MAX_SIZE %d", size, btfMaxSize))
		return
	}
	if h.hdrLen > hdrLenLayout {
		for _, b := range h.extra {
			if b != 0 {
				v.emit(v.plain(0, 0, "Unsupported btf_header"))
				return
			}
		}
	}
	switch {
	case h.version != 1:
		v.emit(v.plain(0, 0, "Unsupported version"))
	case h.flags != 0:
		v.emit(v.plain(0, 0, "Unsupported flags"))
	case s.base == nil && size == uint64(h.hdrLen):
		v.emit(v.plain(0, 0, "No data"))
	default:
		if msg := secInfo(h, size); msg != "" {
			v.emit(v.plain(0, 0, "%s", msg))
		}
	}
}

// secInfo is btf_check_sec_info: the sections, sorted by offset, tile
// the data after the header exactly.
func secInfo(h *header, size uint64) string {
	type sec struct{ off, len uint32 }
	secs := []sec{{h.typeOff, h.typeLen}, {h.strOff, h.strLen}}
	if h.hdrLen >= hdrLenLayout && h.layoutLen != 0 {
		secs = append(secs, sec{h.layoutOff, h.layoutLen})
	}
	// btf_sec_info_cmp: the int of the u32 difference of the offsets,
	// then of the lengths.
	less := func(a, b sec) bool {
		if d := int32(a.off - b.off); d != 0 {
			return d < 0
		}
		return int32(a.len-b.len) < 0
	}
	for i := 1; i < len(secs); i++ {
		for j := i; j > 0 && less(secs[j], secs[j-1]); j-- {
			secs[j], secs[j-1] = secs[j-1], secs[j]
		}
	}
	total, expected := uint32(0), uint32(size-uint64(h.hdrLen))
	for _, sc := range secs {
		switch {
		case expected < sc.off:
			return "Invalid section offset"
		case total < sc.off:
			return "Unsupported section found"
		case total > sc.off:
			return "Section overlap found"
		case expected-total < sc.len:
			return "Total section length too long"
		}
		total += sc.len
	}
	if expected != total {
		return "Unsupported section found"
	}
	return ""
}

// stringSection is btf_parse_str_sec.
func (v *verifier) stringSection(known bool) {
	s := v.s
	if known {
		h := &s.hdr
		if h.hdrLen < hdrLenLayout && uint64(h.hdrLen)+uint64(h.strOff)+uint64(h.strLen) != s.blobSize() {
			v.emit(v.plain(0, 0, "String section is not at the end"))
			return
		}
	}
	str := s.strings
	if s.base != nil && len(str) == 0 {
		return
	}
	if len(str) == 0 || len(str)-1 > MaxNameOffset || str[len(str)-1] != 0 || s.base == nil && str[0] != 0 {
		v.emit(v.plain(0, 0, "Invalid string section"))
	}
}

// layoutSection is btf_parse_layout_sec (BPF_BTF_LOAD only).
func (v *verifier) layoutSection(known bool) {
	h := &v.s.hdr
	if !known || h.hdrLen < hdrLenLayout || h.layoutLen == 0 {
		return
	}
	var msg string
	switch {
	case h.layoutOff%4 != 0:
		msg = "Unaligned layout_off"
	case h.layoutLen < 4:
		msg = "Layout section is too small"
	case h.layoutLen%4 != 0:
		msg = "layout_len is not multiple of 4"
	case uint64(h.hdrLen)+uint64(h.layoutOff)+uint64(h.layoutLen) > v.s.blobSize():
		msg = "Layout section is too big"
	default:
		return
	}
	v.emit(v.plain(0, 0, "%s", msg))
}

// typeSection is the start of btf_parse_type_sec (BPF_BTF_LOAD only).
func (v *verifier) typeSection(known bool) {
	s := v.s
	if known && s.hdr.typeOff%4 != 0 {
		v.emit(v.plain(0, 0, "Unaligned type_off"))
		return
	}
	if s.base == nil && len(s.types) == 0 {
		v.emit(v.plain(0, 0, "No type found"))
	}
}

// metas is btf_check_all_metas: btf_check_meta and the kind's check_meta
// for every own type, in order. meta_left is what is left of the type
// section from the type's record on.
func (v *verifier) metas() {
	s := v.s
	left := uint64(0)
	for i := range s.types {
		left += typeHdrSize + 4*uint64(len(s.types[i].Data))
	}
	for i := range s.types {
		t := &s.types[i]
		v.logID = s.firstID + TypeID(i)
		if e := v.checkMeta(t, uint32(min(left, 1<<32-1))); e != nil {
			v.state[i] = failed
			v.emit(e)
		}
		left -= typeHdrSize + 4*uint64(len(t.Data))
	}
}

// checkMeta is btf_check_meta.
func (v *verifier) checkMeta(t *Type, left uint32) *ValidationError {
	if left < typeHdrSize {
		return v.plain(v.logID, t.Kind(), "[%d] meta_left:%d meta_needed:%d", v.logID, left, typeHdrSize)
	}
	left -= typeHdrSize
	k := t.Kind()
	if k == KindUnknown || k >= NumKinds {
		return v.plain(v.logID, k, "[%d] Invalid kind:%d", v.logID, uint8(k))
	}
	if !v.nameOffValid(t.NameOff) {
		return v.plain(v.logID, k, "[%d] Invalid name_offset:%d", v.logID, t.NameOff)
	}
	return v.kindMeta(t, left)
}

// metaNeeded checks the record's extra bytes against meta_left.
func (v *verifier) metaNeeded(t *Type, left, needed uint32) *ValidationError {
	if left < needed {
		return v.logBasic(t, fmt.Sprintf("meta_left:%d meta_needed:%d", left, needed))
	}
	return nil
}

// kindMeta is the check_meta of t's kind.
func (v *verifier) kindMeta(t *Type, left uint32) *ValidationError {
	vlen := uint32(t.Vlen())
	switch t.Kind() {
	case KindInt:
		if e := v.metaNeeded(t, left, 4); e != nil {
			return e
		}
		if vlen != 0 {
			return v.logType(t, "vlen != 0")
		}
		if t.KindFlag() {
			return v.logType(t, "Invalid btf_info kind_flag")
		}
		d := t.word(0)
		if d&^0x0fffffff != 0 {
			return v.logBasic(t, fmt.Sprintf("Invalid int_data:%x", d))
		}
		bits := d&0xff + d>>16&0xff
		switch {
		case bits > bitsPerU128:
			return v.logType(t, "nr_bits exceeds 128")
		case (bits+7)/8 > t.SizeType:
			return v.logType(t, "nr_bits exceeds type_size")
		}
		if enc := d >> 24 & 0x0f; enc != 0 && enc != 1 && enc != 2 && enc != 4 {
			return v.logType(t, "Unsupported encoding")
		}
	case KindPtr, KindTypedef, KindVolatile, KindConst, KindRestrict, KindTypeTag:
		switch k := t.Kind(); {
		case vlen != 0:
			return v.logType(t, "vlen != 0")
		case t.KindFlag() && k != KindTypeTag:
			return v.logType(t, "Invalid btf_info kind_flag")
		case t.SizeType > MaxType:
			return v.logType(t, "Invalid type_id")
		case k == KindTypedef && (t.NameOff == 0 || !v.ident(t.NameOff)),
			k == KindTypeTag && len(v.str(t.NameOff)) == 0,
			k != KindTypedef && k != KindTypeTag && t.NameOff != 0:
			return v.logType(t, "Invalid name")
		}
	case KindFwd:
		switch {
		case vlen != 0:
			return v.logType(t, "vlen != 0")
		case t.SizeType != 0:
			return v.logType(t, "type != 0")
		case t.NameOff == 0 || !v.ident(t.NameOff):
			return v.logType(t, "Invalid name")
		}
	case KindArray:
		if e := v.metaNeeded(t, left, 12); e != nil {
			return e
		}
		elem, index, _ := t.Array()
		switch {
		case t.NameOff != 0:
			return v.logType(t, "Invalid name")
		case vlen != 0:
			return v.logType(t, "vlen != 0")
		case t.KindFlag():
			return v.logType(t, "Invalid btf_info kind_flag")
		case t.SizeType != 0:
			return v.logType(t, "size != 0")
		case elem == 0 || elem > MaxType:
			return v.logType(t, "Invalid elem")
		case index == 0 || index > MaxType:
			return v.logType(t, "Invalid index")
		}
	case KindStruct, KindUnion:
		return v.structMeta(t, left)
	case KindEnum, KindEnum64:
		return v.enumMeta(t, left)
	case KindFuncProto, KindLocProto:
		elem := uint32(8) // struct btf_param; a LOC_PROTO has type ids
		if t.Kind() == KindLocProto {
			elem = 4
		}
		if e := v.metaNeeded(t, left, elem*vlen); e != nil {
			return e
		}
		switch {
		case t.NameOff != 0:
			return v.logType(t, "Invalid name")
		case t.KindFlag():
			return v.logType(t, "Invalid btf_info kind_flag")
		}
	case KindFunc:
		switch {
		case t.NameOff == 0 || !v.ident(t.NameOff):
			return v.logType(t, "Invalid name")
		case vlen > 1: // BTF_FUNC_GLOBAL
			return v.logType(t, "Invalid func linkage")
		case t.KindFlag():
			return v.logType(t, "Invalid btf_info kind_flag")
		}
	case KindVar:
		if e := v.metaNeeded(t, left, 4); e != nil {
			return e
		}
		switch l := t.word(0); {
		case vlen != 0:
			return v.logType(t, "vlen != 0")
		case t.KindFlag():
			return v.logType(t, "Invalid btf_info kind_flag")
		case t.NameOff == 0 || !v.ident(t.NameOff):
			return v.logType(t, "Invalid name")
		case t.SizeType == 0 || t.SizeType > MaxType:
			return v.logType(t, "Invalid type_id")
		case l != 0 && l != 1: // BTF_VAR_STATIC, BTF_VAR_GLOBAL_ALLOCATED
			return v.logType(t, "Linkage not supported")
		}
	case KindDatasec:
		return v.datasecMeta(t, left)
	case KindFloat:
		switch {
		case vlen != 0:
			return v.logType(t, "vlen != 0")
		case t.KindFlag():
			return v.logType(t, "Invalid btf_info kind_flag")
		}
		switch t.SizeType {
		case 2, 4, 8, 12, 16:
		default:
			return v.logType(t, "Invalid type_size")
		}
	case KindDeclTag:
		if e := v.metaNeeded(t, left, 4); e != nil {
			return e
		}
		switch {
		case len(v.str(t.NameOff)) == 0:
			return v.logType(t, "Invalid value")
		case vlen != 0:
			return v.logType(t, "vlen != 0")
		case t.ComponentIdx() < -1:
			return v.logType(t, "Invalid component_idx")
		}
	case KindLocParam:
		if e := v.metaNeeded(t, left, 4+4*vlen); e != nil {
			return e
		}
		flags, _ := t.LocParam()
		if t.NameOff != 0 {
			return v.logType(t, "Invalid name")
		}
		if msg := locParamRule(t.SizeType, flags, t.KindFlag(), int(vlen)); msg != "" {
			return v.logType(t, msg)
		}
	case KindLocSec:
		if e := v.metaNeeded(t, left, 12*vlen); e != nil {
			return e
		}
		switch {
		case t.KindFlag():
			return v.logType(t, "Invalid btf_info kind_flag")
		case t.NameOff == 0 || !v.section(t.NameOff):
			return v.logType(t, "Invalid name")
		}
		d := t.elems(0, 3)
		for i := 0; 3*i+2 < len(d); i++ {
			fn, lp := d[3*i], d[3*i+1]
			switch {
			case fn == 0 || fn > MaxType:
				return v.logEntry(t, v.locLine(d[3*i:]), "Invalid func")
			case lp == 0 || lp > MaxType:
				return v.logEntry(t, v.locLine(d[3*i:]), "Invalid loc_proto")
			}
		}
	}
	return nil
}

// locParamRule is btf_loc_param_check_meta after the name check: the
// kernel's message for size, kind_flag, flags and vlen, "" if valid.
func locParamRule(size uint32, flags LocFlags, kflag bool, vlen int) string {
	if size == 0 || size > 16 {
		return "Unexpected size"
	}
	if kflag {
		return "Invalid btf_info kind_flag"
	}
	if vlen < 1 {
		return "Invalid vlen"
	}
	ok := true
	switch flags {
	case LocConst, LocConst | LocSigned, LocConst | LocAddr, LocConst | LocAddr | LocSigned:
		ok = vlen <= 2 && (size <= 4 || vlen == 2) && size <= 8
	case LocReg:
		ok = vlen <= 2
	case LocReg | LocDeref:
		ok = vlen == 1
	case LocReg | LocOffset, LocReg | LocOffset | LocSigned,
		LocReg | LocDeref | LocOffset, LocReg | LocDeref | LocOffset | LocSigned:
		ok = vlen >= 2 && vlen <= 3
	default:
		return "Invalid flags"
	}
	if !ok {
		return "Invalid vlen"
	}
	return ""
}

// structMeta is btf_struct_check_meta.
func (v *verifier) structMeta(t *Type, left uint32) *ValidationError {
	vlen := uint32(t.Vlen())
	if e := v.metaNeeded(t, left, 12*vlen); e != nil {
		return e
	}
	if t.NameOff != 0 && !v.ident(t.NameOff) {
		return v.logType(t, "Invalid name")
	}
	union := t.Kind() == KindUnion
	last := uint32(0)
	d := t.elems(0, 3)
	for j := 0; j+2 < len(d); j += 3 {
		m := Member{d[j], TypeID(d[j+1]), d[j+2]}
		switch off, _ := t.MemberBitOffset(m); {
		case !v.nameOffValid(m.NameOff):
			return v.logMember(t, m, fmt.Sprintf("Invalid member name_offset:%d", m.NameOff))
		case m.NameOff != 0 && !v.ident(m.NameOff):
			return v.logMember(t, m, "Invalid name")
		case m.Type == 0 || m.Type > MaxType:
			return v.logMember(t, m, "Invalid type_id")
		case union && off != 0, last > off:
			return v.logMember(t, m, "Invalid member bits_offset")
		case (uint64(off)+7)/8 > uint64(t.SizeType):
			return v.logMember(t, m, "Member bits_offset exceeds its struct size")
		default:
			last = off
		}
	}
	return nil
}

// enumMeta is btf_enum_check_meta and btf_enum64_check_meta.
func (v *verifier) enumMeta(t *Type, left uint32) *ValidationError {
	w := 2
	if t.Kind() == KindEnum64 {
		w = 3
	}
	vlen := uint32(t.Vlen())
	if e := v.metaNeeded(t, left, 4*uint32(w)*vlen); e != nil {
		return e
	}
	if sz := t.SizeType; sz > 8 || sz == 0 || sz&(sz-1) != 0 {
		return v.logType(t, "Unexpected size")
	}
	if t.NameOff != 0 && !v.ident(t.NameOff) {
		return v.logType(t, "Invalid name")
	}
	d := t.elems(0, w)
	for i := 0; w*i < len(d); i++ {
		name := d[w*i]
		if !v.nameOffValid(name) {
			return v.logEntry(t, fmt.Sprintf("\tInvalid name_offset:%d", name), "")
		}
		if name == 0 || !v.ident(name) {
			return v.logType(t, "Invalid name")
		}
	}
	return nil
}

// datasecMeta is btf_datasec_check_meta.
func (v *verifier) datasecMeta(t *Type, left uint32) *ValidationError {
	vlen := uint32(t.Vlen())
	if e := v.metaNeeded(t, left, 12*vlen); e != nil {
		return e
	}
	switch {
	case t.SizeType == 0:
		return v.logType(t, "size == 0")
	case t.KindFlag():
		return v.logType(t, "Invalid btf_info kind_flag")
	case t.NameOff == 0 || !v.section(t.NameOff):
		return v.logType(t, "Invalid name")
	}
	end, sum := uint64(0), uint64(0)
	d := t.elems(0, 3)
	for j := 0; j+2 < len(d); j += 3 {
		si := VarSecinfo{TypeID(d[j]), d[j+1], d[j+2]}
		var msg string
		switch {
		case si.Type == 0 || si.Type > MaxType:
			msg = "Invalid type_id"
		case uint64(si.Offset) < end || si.Offset >= t.SizeType:
			msg = "Invalid offset"
		case si.Size == 0 || si.Size > t.SizeType:
			msg = "Invalid size"
		case si.Offset+si.Size > t.SizeType:
			msg = "Invalid offset+size"
		}
		if msg != "" {
			return v.logEntry(t, vsiLine(si), msg)
		}
		end = uint64(si.Offset + si.Size) // a u32 sum, as in the kernel
		sum += uint64(si.Size)
	}
	if uint64(t.SizeType) < sum {
		return v.logType(t, "Invalid btf_info size")
	}
	return nil
}

// nameOffValid is btf_name_offset_valid: within BTF_MAX_NAME_OFFSET and
// within the string section of the blob of the chain that owns it.
func (v *verifier) nameOffValid(off uint32) bool {
	if off > MaxNameOffset {
		return false
	}
	p := v.s
	for p.base != nil && off < p.strStart {
		p = p.base
	}
	return uint64(off)-uint64(p.strStart) < uint64(len(p.strings))
}

// str is btf_str_by_offset: the string at off, nil if off is outside the
// chain's strings.
func (v *verifier) str(off uint32) []byte {
	p := v.s
	for p.base != nil && off < p.strStart {
		p = p.base
	}
	if off < p.strStart || uint64(off-p.strStart) >= uint64(len(p.strings)) {
		return nil
	}
	b := p.strings[off-p.strStart:]
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}

// ident is btf_name_valid_identifier on a valid offset, memoized for own
// strings (names repeat: member "next", param "sk").
func (v *verifier) ident(off uint32) bool {
	rel := int64(off) - int64(v.s.strStart)
	own := rel >= 0 && rel < int64(len(v.s.strings))
	if own {
		if v.identOK == nil {
			v.identOK = make([]uint64, len(v.s.strings)/64+1)
		}
		if v.identOK[rel/64]&(1<<(rel%64)) != 0 {
			return true
		}
	}
	if !validIdentifier(v.str(off)) {
		return false
	}
	if own {
		v.identOK[rel/64] |= 1 << (rel % 64)
	}
	return true
}

// section is btf_name_valid_section on a valid offset.
func (v *verifier) section(off uint32) bool { return validSection(v.str(off)) }

// ValidIdentifier reports whether the kernel accepts name as the name of
// a FUNC, a parameter or a member (btf_name_valid_identifier).
func ValidIdentifier(name string) bool { return validIdentifier([]byte(name)) }

// validIdentifier: isalpha, '_' or '.' first, then isalnum, '_' or '.',
// at most KSYM_NAME_LEN bytes, with the kernel's ctype (Latin-1 letters
// count).
func validIdentifier(b []byte) bool {
	if len(b) == 0 || len(b) > ksymNameLen || identChar[b[0]]&identFirst == 0 {
		return false
	}
	for _, c := range b[1:] {
		if identChar[c] == 0 {
			return false
		}
	}
	return true
}

// identChar: identFirst may start an identifier, identNext only follow.
const (
	identFirst = 1
	identNext  = 2
)

var identChar = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case kctype[c]&(ctU|ctL) != 0 || c == '_' || c == '.':
			t[c] = identFirst | identNext
		case kctype[c]&ctD != 0:
			t[c] = identNext
		}
	}
	return t
}()

// validSection: non-empty, isprint (space included), at most
// KSYM_NAME_LEN bytes.
func validSection(b []byte) bool {
	if len(b) == 0 || len(b) > ksymNameLen {
		return false
	}
	for _, c := range b {
		if kctype[c]&(ctP|ctU|ctL|ctD|ctSP) == 0 {
			return false
		}
	}
	return true
}

// The kernel's ctype classes (include/linux/ctype.h) and table
// (lib/ctype.c), which classifies Latin-1 0xa0-0xff too.
const (
	ctU  = 0x01
	ctL  = 0x02
	ctD  = 0x04
	ctP  = 0x10
	ctSP = 0x80
)

var kctype = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 'A' && c <= 'Z', c >= 0xc0 && c <= 0xde && c != 0xd7:
			t[c] = ctU
		case c >= 'a' && c <= 'z', c >= 0xdf && c != 0xf7:
			t[c] = ctL
		case c >= '0' && c <= '9':
			t[c] = ctD
		case c == ' ', c == 0xa0:
			t[c] = ctSP
		case c > ' ' && c < 0x7f, c > 0xa0:
			t[c] = ctP
		}
	}
	return t
}()

// Log lines, as __btf_verifier_log_type prints them: "[id] KIND name",
// then the kind's log_details, then the message.

// typeLine is "[id] KIND name" and, with details, the kind's details.
func (v *verifier) typeLine(id TypeID, t *Type, details bool) []byte {
	b := make([]byte, 0, 64)
	b = append(b, '[')
	b = strconv.AppendUint(b, uint64(id), 10)
	b = append(b, "] "...)
	b = append(b, kindString(t.Kind())...)
	b = append(b, ' ')
	b = v.appendName(b, t.NameOff)
	if details {
		b = append(b, ' ')
		b = v.appendDetails(b, t)
	}
	return b
}

// appendName is __btf_name_by_offset.
func (v *verifier) appendName(b []byte, off uint32) []byte {
	if off == 0 {
		return append(b, "(anon)"...)
	}
	if s := v.str(off); s != nil {
		return append(b, s...)
	}
	return append(b, "(invalid-name-offset)"...)
}

func (v *verifier) logType(t *Type, msg string) *ValidationError {
	b := v.typeLine(v.logID, t, true)
	if msg != "" {
		b = append(append(b, ' '), msg...)
	}
	return &ValidationError{ID: v.logID, Kind: t.Kind(), Msg: msg, Log: string(b)}
}

func (v *verifier) logBasic(t *Type, msg string) *ValidationError {
	b := append(append(v.typeLine(v.logID, t, false), ' '), msg...)
	return &ValidationError{ID: v.logID, Kind: t.Kind(), Msg: msg, Log: string(b)}
}

// logEntry is the type line, then a member, DATASEC or LOCSEC entry line
// with the message (the kernel prints the type line before the entries).
func (v *verifier) logEntry(t *Type, entry, msg string) *ValidationError {
	b := append(v.typeLine(v.logID, t, true), '\n')
	b = append(b, entry...)
	if msg != "" {
		b = append(append(b, ' '), msg...)
	} else {
		msg = entry[1:]
	}
	return &ValidationError{ID: v.logID, Kind: t.Kind(), Msg: msg, Log: string(b)}
}

// logMember is btf_verifier_log_member.
func (v *verifier) logMember(st *Type, m Member, msg string) *ValidationError {
	b := append([]byte{'\t'}, v.appendName(nil, m.NameOff)...)
	if st.KindFlag() {
		b = fmt.Appendf(b, " type_id=%d bitfield_size=%d bits_offset=%d", m.Type, m.Offset>>24, m.Offset&0xffffff)
	} else {
		b = fmt.Appendf(b, " type_id=%d bits_offset=%d", m.Type, m.Offset)
	}
	return v.logEntry(st, string(b), msg)
}

// vsiLine is btf_verifier_log_vsi's entry line.
func vsiLine(si VarSecinfo) string {
	return fmt.Sprintf("\t type_id=%d offset=%d size=%d", si.Type, si.Offset, si.Size)
}

// locLine is btf_verifier_log_loc's entry line.
func (v *verifier) locLine(w []uint32) string {
	return fmt.Sprintf("\t func=%d loc_proto=%d offset=%d", w[0], w[1], w[2])
}

// appendDetails is the kind's log_details callback.
func (v *verifier) appendDetails(b []byte, t *Type) []byte {
	vlen := t.Vlen()
	switch t.Kind() {
	case KindInt:
		enc, off, bits := t.IntEncoding()
		return fmt.Appendf(b, "size=%d bits_offset=%d nr_bits=%d encoding=%s", t.SizeType, off, bits, intEncString(enc))
	case KindPtr, KindTypedef, KindVolatile, KindConst, KindRestrict, KindTypeTag, KindFunc:
		return fmt.Appendf(b, "type_id=%d", t.SizeType)
	case KindArray:
		e, i, n := t.Array()
		return fmt.Appendf(b, "type_id=%d index_type_id=%d nr_elems=%d", e, i, n)
	case KindStruct, KindUnion, KindEnum, KindEnum64, KindDatasec:
		return fmt.Appendf(b, "size=%d vlen=%d", t.SizeType, vlen)
	case KindFwd:
		if t.KindFlag() {
			return append(b, "union"...)
		}
		return append(b, "struct"...)
	case KindFuncProto:
		return v.appendProto(b, t)
	case KindVar:
		return fmt.Appendf(b, "type_id=%d linkage=%d", t.SizeType, t.word(0))
	case KindFloat:
		return fmt.Appendf(b, "size=%d", t.SizeType)
	case KindDeclTag:
		return fmt.Appendf(b, "type=%d component_idx=%d", t.SizeType, t.ComponentIdx())
	case KindLocParam:
		flags, vals := t.LocParam()
		b = fmt.Appendf(b, "size=%d vlen=%d flags=0x%x", t.SizeType, vlen, uint32(flags))
		for _, w := range vals {
			b = fmt.Appendf(b, ", %d", w)
		}
		return b
	case KindLocProto:
		b = fmt.Appendf(b, "vlen=%d", vlen)
		for _, w := range t.elems(0, 1) {
			b = fmt.Appendf(b, ", %d", w)
		}
		return b
	case KindLocSec:
		return fmt.Appendf(b, "vlen=%d", vlen)
	}
	return b
}

// appendProto is btf_func_proto_log.
func (v *verifier) appendProto(b []byte, t *Type) []byte {
	b = fmt.Appendf(b, "return=%d args=(", t.SizeType)
	ps := t.Params()
	arg := func(b []byte, sep string, p Param) []byte {
		b = fmt.Appendf(b, "%s%d ", sep, p.Type)
		return v.appendName(b, p.NameOff)
	}
	switch n := len(ps); {
	case n == 0:
		b = append(b, "void"...)
	case n == 1 && ps[0].Type == 0:
		b = append(b, "vararg"...)
	default:
		b = arg(b, "", ps[0])
		for i := 1; i < n-1; i++ {
			b = arg(b, ", ", ps[i])
		}
		if n > 1 {
			if last := ps[n-1]; last.Type != 0 {
				b = arg(b, ", ", last)
			} else {
				b = append(b, ", vararg"...)
			}
		}
	}
	return append(b, ')')
}
