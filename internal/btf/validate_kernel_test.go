package btf

// The verifier's rules, one case each, on mutated real blobs: the
// vmlinux-like and module-like objects of resolve/testdata (gcc + pahole
// .BTF, btfinline .BTF.inline). Each case changes the parsed blob (or its
// bytes), marshals it, parses it back on its base chain and validates it
// with both loaders; the expected lines are the kernel's verifier log
// (kernel/bpf/btf.c, linux-next with the LOC kinds and "bpf: Verify
// BTF_KIND_LOC_PARAM vlen, flags"), worked out from the kernel's code, and
// nil where the kernel accepts the blob. Ids are the fixture's, filled in
// with %[n]d from what the case added.

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const resolveFixtures = "../resolve/testdata"

// kfix is the fixture chain: vmlinux (x86_64.elf .BTF), vmlinux.inline
// (its .BTF.inline), module (x86_64.o .BTF on vmlinux) and module.inline
// (x86_64.o .BTF.inline on module).
type kfix struct {
	raw  map[string][]byte
	base map[string]*Spec
}

var (
	kfixOnce sync.Once
	kfixVal  *kfix
	kfixErr  error
)

func loadKFix(tb testing.TB) *kfix {
	tb.Helper()
	kfixOnce.Do(func() {
		k := &kfix{raw: map[string][]byte{}, base: map[string]*Spec{}}
		sec := func(file, name string) []byte {
			f, err := elf.Open(filepath.Join(resolveFixtures, file))
			if err != nil {
				kfixErr = err
				return nil
			}
			defer f.Close()
			b, err := f.Section(name).Data()
			if err != nil {
				kfixErr = err
			}
			return b
		}
		parse := func(name string, data []byte, base *Spec) *Spec {
			s, err := Parse(data, base)
			if err != nil && kfixErr == nil {
				kfixErr = fmt.Errorf("%s: %w", name, err)
			}
			k.raw[name], k.base[name] = data, base
			return s
		}
		vm := parse("vmlinux", sec("x86_64.elf", ".BTF"), nil)
		parse("vmlinux.inline", sec("x86_64.elf", ".BTF.inline"), vm)
		mod := parse("module", sec("x86_64.o", ".BTF"), vm)
		parse("module.inline", sec("x86_64.o", ".BTF.inline"), mod)
		kfixVal = k
	})
	if kfixErr != nil {
		tb.Fatal(kfixErr)
	}
	return kfixVal
}

// ed edits a fresh copy of one fixture blob.
type ed struct {
	tb testing.TB
	s  *Spec
}

func (e *ed) str(s string) uint32 { return e.s.AddString(s) }

func (e *ed) add(t Type) TypeID { return mustAdd(e.tb, e.s, t) }

// t returns own type id, to change in place.
func (e *ed) t(id TypeID) *Type {
	i := int(id - e.s.firstID)
	if id < e.s.firstID || i >= len(e.s.types) {
		e.tb.Fatalf("type %d is not the blob's own", id)
	}
	return &e.s.types[i]
}

// first returns the first own type of kind k that ok accepts.
func (e *ed) first(k Kind, ok func(*Type) bool) TypeID {
	for i := range e.s.types {
		if t := &e.s.types[i]; t.Kind() == k && (ok == nil || ok(t)) {
			return e.s.firstID + TypeID(i)
		}
	}
	e.tb.Fatalf("no %s in the fixture", k)
	return 0
}

// named returns the type of kind k named name, anywhere in the chain.
func (e *ed) named(k Kind, name string) TypeID {
	for p := e.s; p != nil; p = p.base {
		for i := range p.types {
			if t := &p.types[i]; t.Kind() == k && p.Name(t) == name {
				return p.firstID + TypeID(i)
			}
		}
	}
	e.tb.Fatalf("no %s %q in the chain", k, name)
	return 0
}

func vlenIs(n int) func(*Type) bool { return func(t *Type) bool { return t.Vlen() == n } }

// entry returns the first entry of the blob's first LOCSEC: a FUNC and a
// LOC_PROTO that match.
func (e *ed) entry() LocEntry {
	return e.t(e.first(KindLocSec, nil)).LocSecEntries()[0]
}

type kernelCase struct {
	name string
	blob string
	// edit changes the parsed blob and returns what the expected lines
	// refer to (%[1]d ...); raw changes the marshaled bytes instead.
	edit         func(e *ed) []any
	raw          func(b []byte) ([]byte, []any)
	load, module []string // the kernel's log lines; nil: accepted
}

// ids returns its arguments as the []any of an edit.
func ids(a ...any) []any { return a }

// both is the same verdict for both loaders.
func both(lines ...string) [2][]string { return [2][]string{lines, lines} }

func loadOnly(lines ...string) [2][]string { return [2][]string{lines, nil} }

func kc(name, blob string, edit func(e *ed) []any, want [2][]string) kernelCase {
	return kernelCase{name: name, blob: blob, edit: edit, load: want[0], module: want[1]}
}

func kcRaw(name, blob string, raw func(b []byte) ([]byte, []any), want [2][]string) kernelCase {
	c := kc(name, blob, nil, want)
	c.raw = raw
	return c
}

var accepted = [2][]string{}

const (
	vmB  = "vmlinux"
	viB  = "vmlinux.inline"
	moB  = "module"
	miB  = "module.inline"
	bad  = 0xfffff0 // a name offset below BTF_MAX_NAME_OFFSET, past the strings
	big  = 1 << 20  // a type id above BTF_MAX_TYPE
	miss = 9999     // a type id the chain does not have
)

func kernelCases() []kernelCase {
	lp := func(e *ed) TypeID { return e.first(KindLocParam, nil) }
	lpr := func(e *ed) TypeID { return e.first(KindLocProto, nil) }
	u32 := func(e *ed) TypeID { return e.named(KindInt, "unsigned int") }
	long := func(e *ed) TypeID { return e.named(KindInt, "long int") }
	sock := func(e *ed) TypeID { return e.named(KindStruct, "sock") }
	addLP := func(size uint32, flags LocFlags, vals ...uint32) func(e *ed) []any {
		return func(e *ed) []any { return ids(e.add(NewLocParam(size, flags, vals...))) }
	}
	addT := func(f func(e *ed) Type) func(e *ed) []any {
		return func(e *ed) []any { return ids(e.add(f(e))) }
	}
	// on adds the type mk makes of the type target finds: ids (new, target).
	on := func(target func(e *ed) TypeID, mk func(e *ed, id TypeID) Type) func(e *ed) []any {
		return func(e *ed) []any { id := target(e); return ids(e.add(mk(e, id)), id) }
	}
	ls := func(e *ed) TypeID { return e.first(KindLocSec, nil) }
	kflag := func(t Type) Type { t.Info |= 1 << 31; return t }
	named := func(t Type, n uint32) Type { t.NameOff = n; return t }
	withSize := func(t Type, n uint32) Type { t.SizeType = n; return t }
	locsec := func(e *ed, name string, es ...LocEntry) TypeID { return e.add(NewLocSec(e.str(name), es)) }
	var cs []kernelCase
	add := func(c ...kernelCase) { cs = append(cs, c...) }

	// The kernel rejects, btfinline accepted (issue 18): LOC_PROTO and
	// LOCSEC are source-only in resolve, the LOC kinds have no size.
	add(
		kc("typedef of LOC_PARAM", viB, on(lp, func(e *ed, p TypeID) Type { return NewTypedef(e.str("lp_t"), p) }),
			loadOnly("[%[1]d] TYPEDEF lp_t type_id=%[2]d Invalid type_id")),
		kc("const of LOC_PROTO", miB, on(lpr, func(e *ed, p TypeID) Type { return NewConst(p) }),
			loadOnly("[%[1]d] CONST (anon) type_id=%[2]d Invalid type_id")),
		kc("type_tag of LOC_PARAM", miB, on(lp, func(e *ed, p TypeID) Type { return NewTypeTag(e.str("user"), p) }),
			loadOnly("[%[1]d] TYPE_TAG user type_id=%[2]d Invalid type_id")),
		kc("ptr to LOC_PROTO", viB, on(lpr, func(e *ed, p TypeID) Type { return NewPtr(p) }),
			loadOnly("[%[1]d] PTR (anon) type_id=%[2]d Invalid type_id")),
		kc("decl_tag on LOCSEC", viB, on(ls, func(e *ed, l TypeID) Type { return NewDeclTag(e.str("tag"), l, -1, false) }),
			loadOnly("[%[1]d] DECL_TAG tag type=%[2]d component_idx=-1 Invalid type_id")),
		kc("func_proto arg LOC_PARAM", viB, on(lp, func(e *ed, p TypeID) Type { return NewFuncProto(0, []Param{{e.str("x"), p}}) }),
			loadOnly("[%[1]d] FUNC_PROTO (anon) return=0 args=(%[2]d x) Invalid arg#1")),
		kc("func_proto arg#2 FUNC", miB, func(e *ed) []any {
			l, f := long(e), e.named(KindFunc, "cwnd_set")
			return ids(e.add(NewFuncProto(0, []Param{{e.str("n"), l}, {e.str("f"), f}})), l, f)
		}, loadOnly("[%[1]d] FUNC_PROTO (anon) return=0 args=(%[2]d n, %[3]d f) Invalid arg#2")),
		kc("func_proto returns LOC_PROTO", viB, on(lpr, func(e *ed, p TypeID) Type { return NewFuncProto(p, nil) }), loadOnly("[%[1]d] FUNC_PROTO (anon) return=%[2]d args=(void) Invalid return type")),
	)
	// btfinline rejected, the kernel accepts: section names need only be
	// isprint (space included), names use the kernel's ctype.
	add(
		kc("locsec name with a space", viB, func(e *ed) []any {
			e.t(e.first(KindLocSec, nil)).NameOff = e.str("inline text")
			return nil
		}, accepted),
		kc("locsec name Latin-1", miB, func(e *ed) []any {
			e.t(e.first(KindLocSec, nil)).NameOff = e.str("inline.caf\xe9")
			return nil
		}, accepted),
		kc("locsec name of 512 bytes", viB, func(e *ed) []any {
			locsec(e, strings.Repeat("x", 512), e.entry())
			return nil
		}, accepted),
		kc("func name Latin-1", viB, func(e *ed) []any {
			e.add(NewFunc(e.str("caf\xe9"), TypeID(e.t(e.entry().Func).SizeType), 0))
			return nil
		}, accepted),
		kc("int size 3, anonymous", vmB, addT(func(e *ed) Type { return NewInt(0, 3, 0, 0, 24) }), accepted),
		kc("datasec without entries", vmB, addT(func(e *ed) Type { return NewDatasec(e.str(".bss"), 4, nil) }), accepted),
		kc("datasec name with a space", vmB, func(e *ed) []any {
			v := e.add(NewVar(e.str("v"), u32(e), 0))
			e.add(NewDatasec(e.str(".data x"), 4, []VarSecinfo{{v, 0, 4}}))
			return nil
		}, accepted),
		kc("typedef of a FUNC (resolves to its FUNC_PROTO)", vmB, func(e *ed) []any {
			e.add(NewTypedef(e.str("fn_t"), e.named(KindFunc, "ack")))
			return nil
		}, accepted),
	)

	// LOC_PARAM: btf_loc_param_check_meta, both loaders.
	add(
		kc("loc_param name", viB, addT(func(e *ed) Type { return named(NewLocParam(4, LocReg, 1), e.str("x")) }),
			both("[%[1]d] LOC_PARAM x size=4 vlen=1 flags=0x8, 1 Invalid name")),
		kc("loc_param size 0", viB, addLP(0, LocReg, 1), both("[%[1]d] LOC_PARAM (anon) size=0 vlen=1 flags=0x8, 1 Unexpected size")),
		kc("loc_param size 17", miB, addLP(17, LocReg, 1, 2), both("[%[1]d] LOC_PARAM (anon) size=17 vlen=2 flags=0x8, 1, 2 Unexpected size")),
		kc("loc_param kind_flag", viB, addT(func(e *ed) Type { return kflag(NewLocParam(4, LocReg, 1)) }),
			both("[%[1]d] LOC_PARAM (anon) size=4 vlen=1 flags=0x8, 1 Invalid btf_info kind_flag")),
		kc("loc_param vlen 0", viB, addLP(8, LocReg), both("[%[1]d] LOC_PARAM (anon) size=8 vlen=0 flags=0x8 Invalid vlen")),
		kc("loc_param const size 8 vlen 1", viB, addLP(8, LocConst, 1), both("[%[1]d] LOC_PARAM (anon) size=8 vlen=1 flags=0x2, 1 Invalid vlen")),
		kc("loc_param const vlen 3", miB, addLP(4, LocConst|LocSigned, 1, 2, 3), both("[%[1]d] LOC_PARAM (anon) size=4 vlen=3 flags=0x3, 1, 2, 3 Invalid vlen")),
		kc("loc_param const size 16", viB, addLP(16, LocConst|LocAddr, 1, 2), both("[%[1]d] LOC_PARAM (anon) size=16 vlen=2 flags=0x6, 1, 2 Invalid vlen")),
		kc("loc_param reg vlen 3", viB, addLP(8, LocReg, 1, 2, 3), both("[%[1]d] LOC_PARAM (anon) size=8 vlen=3 flags=0x8, 1, 2, 3 Invalid vlen")),
		kc("loc_param reg|deref vlen 2", viB, addLP(8, LocReg|LocDeref, 1, 2), both("[%[1]d] LOC_PARAM (anon) size=8 vlen=2 flags=0x18, 1, 2 Invalid vlen")),
		kc("loc_param reg|offset vlen 1", miB, addLP(8, LocReg|LocOffset, 1), both("[%[1]d] LOC_PARAM (anon) size=8 vlen=1 flags=0x28, 1 Invalid vlen")),
		kc("loc_param reg|deref|offset|signed vlen 4", viB, addLP(8, LocReg|LocDeref|LocOffset|LocSigned, 1, 2, 3, 4),
			both("[%[1]d] LOC_PARAM (anon) size=8 vlen=4 flags=0x39, 1, 2, 3, 4 Invalid vlen")),
		kc("loc_param addr|reg", viB, addLP(8, LocAddr|LocReg, 1), both("[%[1]d] LOC_PARAM (anon) size=8 vlen=1 flags=0xc, 1 Invalid flags")),
		kc("loc_param deref alone", viB, addLP(8, LocDeref, 1), both("[%[1]d] LOC_PARAM (anon) size=8 vlen=1 flags=0x10, 1 Invalid flags")),
		kc("loc_param no flags", viB, addLP(4, 0, 1), both("[%[1]d] LOC_PARAM (anon) size=4 vlen=1 flags=0x0, 1 Invalid flags")),
		kc("loc_param signed reg", miB, addLP(4, LocReg|LocSigned, 1), both("[%[1]d] LOC_PARAM (anon) size=4 vlen=1 flags=0x9, 1 Invalid flags")),
		kc("loc_param kernel accepts", viB, func(e *ed) []any {
			e.add(NewLocParam(16, LocReg, 1, 2))
			e.add(NewLocParam(4, LocConst, 1, 0))
			e.add(NewLocParam(8, LocReg|LocDeref|LocOffset|LocSigned, LocFBReg, 0xfffffff0, 0xffffffff))
			e.add(NewLocParam(8, LocConst|LocAddr|LocSigned, 1, 2))
			return nil
		}, accepted),
	)

	// LOC_PROTO: check_meta for both loaders, btf_loc_proto_resolve for
	// BPF_BTF_LOAD.
	add(
		kc("loc_proto name", viB, func(e *ed) []any {
			p := lp(e)
			return ids(e.add(named(NewLocProto([]TypeID{p}), e.str("p"))), p)
		}, both("[%[1]d] LOC_PROTO p vlen=1, %[2]d Invalid name")),
		kc("loc_proto kind_flag", miB, func(e *ed) []any {
			p := lp(e)
			return ids(e.add(kflag(NewLocProto([]TypeID{p}))), p)
		}, both("[%[1]d] LOC_PROTO (anon) vlen=1, %[2]d Invalid btf_info kind_flag")),
		kc("loc_proto type", viB, func(e *ed) []any {
			p := lp(e)
			return ids(e.add(withSize(NewLocProto([]TypeID{p}), 1)), p)
		}, loadOnly("[%[1]d] LOC_PROTO (anon) vlen=1, %[2]d Invalid loc_proto type")),
		kc("loc_proto param#2 an INT", viB, func(e *ed) []any {
			p, i := lp(e), u32(e)
			return ids(e.add(NewLocProto([]TypeID{p, i})), p, i)
		}, loadOnly("[%[1]d] LOC_PROTO (anon) vlen=2, %[2]d, %[3]d Invalid loc_param#2")),
		kc("loc_proto param missing", miB, addT(func(e *ed) Type { return NewLocProto([]TypeID{miss}) }),
			loadOnly("[%[1]d] LOC_PROTO (anon) vlen=1, 9999 Invalid loc_param#1")),
		kc("loc_proto unavailable param", viB, func(e *ed) []any {
			e.add(NewLocProto([]TypeID{0, lp(e)}))
			return nil
		}, accepted),
	)

	// LOCSEC: check_meta for both, btf_locsec_resolve for BPF_BTF_LOAD.
	add(
		kc("locsec anonymous", viB, func(e *ed) []any { return ids(e.add(NewLocSec(0, []LocEntry{e.entry()}))) },
			both("[%[1]d] LOCSEC (anon) vlen=1 Invalid name")),
		kc("locsec name with a tab", viB, func(e *ed) []any { return ids(locsec(e, "inline\ttext", e.entry())) },
			both("[%[1]d] LOCSEC inline\ttext vlen=1 Invalid name")),
		kc("locsec name of 513 bytes", miB, func(e *ed) []any { return ids(locsec(e, strings.Repeat("x", 513), e.entry())) },
			both("[%[1]d] LOCSEC "+strings.Repeat("x", 513)+" vlen=1 Invalid name")),
		kc("locsec kind_flag", viB, func(e *ed) []any {
			return ids(e.add(kflag(NewLocSec(e.str("inline.x"), []LocEntry{e.entry()}))))
		}, both("[%[1]d] LOCSEC inline.x vlen=1 Invalid btf_info kind_flag")),
		kc("locsec type", viB, func(e *ed) []any {
			return ids(e.add(withSize(NewLocSec(e.str("inline.x"), []LocEntry{e.entry()}), 8)))
		}, loadOnly("[%[1]d] LOCSEC inline.x vlen=1 Invalid locsec type")),
		kc("locsec func 0", viB, func(e *ed) []any {
			en := e.entry()
			return ids(locsec(e, "inline.x", LocEntry{0, en.LocProto, 16}), en.LocProto)
		}, both("[%[1]d] LOCSEC inline.x vlen=1\n\t func=0 loc_proto=%[2]d offset=16 Invalid func")),
		kc("locsec func above BTF_MAX_TYPE", miB, func(e *ed) []any {
			en := e.entry()
			return ids(locsec(e, "inline.x", en, LocEntry{big, en.LocProto, 16}), en.LocProto)
		}, both("[%[1]d] LOCSEC inline.x vlen=2\n\t func=1048576 loc_proto=%[2]d offset=16 Invalid func")),
		kc("locsec loc_proto 0", viB, func(e *ed) []any {
			en := e.entry()
			return ids(locsec(e, "inline.x", LocEntry{en.Func, 0, 16}), en.Func)
		}, both("[%[1]d] LOCSEC inline.x vlen=1\n\t func=%[2]d loc_proto=0 offset=16 Invalid loc_proto")),
		kc("locsec func#2 a FUNC_PROTO", viB, func(e *ed) []any {
			en := e.entry()
			return ids(locsec(e, "inline.x", en, LocEntry{TypeID(e.t(en.Func).SizeType), en.LocProto, 8}))
		}, loadOnly("[%[1]d] LOCSEC inline.x vlen=2 Invalid func#2")),
		kc("locsec func missing", miB, func(e *ed) []any {
			return ids(locsec(e, "inline.x", LocEntry{miss, e.entry().LocProto, 0}))
		}, loadOnly("[%[1]d] LOCSEC inline.x vlen=1 Invalid func#1")),
		kc("locsec loc_proto#1 a LOC_PARAM", viB, func(e *ed) []any {
			return ids(locsec(e, "inline.x", LocEntry{e.entry().Func, lp(e), 0}))
		}, loadOnly("[%[1]d] LOCSEC inline.x vlen=1 Invalid loc_proto#1")),
		kc("locsec mismatched vlen", viB, func(e *ed) []any {
			three := e.first(KindLocProto, vlenIs(3))
			return ids(locsec(e, "inline.x", LocEntry{e.named(KindFunc, "cwnd_set"), three, 0}))
		}, loadOnly("[%[1]d] LOCSEC inline.x vlen=1 Mismatched vlen for loc_proto#1")),
		kc("locsec entry#3 of the real LOCSEC mismatched", viB, func(e *ed) []any {
			id := e.named(KindLocSec, "inline.text")
			t := e.t(id)
			if t.Vlen() < 3 || TypeID(t.Data[3*2]) != e.named(KindFunc, "cwnd_set") {
				e.tb.Fatal("fixture: entry 3 of inline.text is not cwnd_set")
			}
			t.Data[3*2+1] = uint32(e.first(KindLocProto, vlenIs(3)))
			return ids(id, t.Vlen())
		}, loadOnly("[%[1]d] LOCSEC inline.text vlen=%[2]d Mismatched vlen for loc_proto#3")),
		kc("locsec on a FUNC with an unnamed param", viB, func(e *ed) []any {
			fp := e.add(NewFuncProto(0, []Param{{0, long(e)}}))
			lpx := e.add(NewLocProto([]TypeID{lp(e)}))
			fn := e.s.NextID() + 1 // after the LOCSEC: the LOCSEC's resolve pushes it
			locsec(e, "inline.x", LocEntry{fn, lpx, 0})
			e.add(NewFunc(e.str("h"), fp, 0))
			return ids(fn, fp)
		}, loadOnly("[%[1]d] FUNC h type_id=%[2]d Invalid arg#1")),
		kc("locsec after a FUNC of an INT", viB, func(e *ed) []any {
			i := u32(e)
			fn := e.add(NewFunc(e.str("g"), i, 0))
			locsec(e, "inline.x", LocEntry{fn, e.entry().LocProto, 0})
			return ids(fn, i)
		}, loadOnly("[%[1]d] FUNC g type_id=%[2]d Invalid type_id")), // the LOCSEC runs into it: not again
		kc("locsec before a FUNC of an INT", viB, func(e *ed) []any {
			i := u32(e)
			l := locsec(e, "inline.x", LocEntry{e.s.NextID() + 1, e.entry().LocProto, 0})
			return ids(l, e.add(NewFunc(e.str("g"), i, 0)), i)
		}, loadOnly("[%[1]d] LOCSEC inline.x vlen=1 Invalid func#1", "[%[2]d] FUNC g type_id=%[3]d Invalid type_id")),
		kc("locsec on an extern FUNC", miB, func(e *ed) []any {
			p := TypeID(e.t(e.entry().Func).SizeType)
			fn := e.add(NewFunc(e.str("g"), p, 2))
			locsec(e, "inline.x", LocEntry{fn, e.entry().LocProto, 0})
			return ids(fn, p)
		}, both("[%[1]d] FUNC g type_id=%[2]d Invalid func linkage")),
	)

	// INT: btf_int_check_meta.
	add(
		kc("int vlen", vmB, addT(func(e *ed) Type { t := NewInt(e.str("i"), 4, 1, 0, 32); t.Info |= 1; return t }),
			both("[%[1]d] INT i size=4 bits_offset=0 nr_bits=32 encoding=SIGNED vlen != 0")),
		kc("int kind_flag", vmB, addT(func(e *ed) Type { return kflag(NewInt(e.str("i"), 4, 0, 0, 32)) }),
			both("[%[1]d] INT i size=4 bits_offset=0 nr_bits=32 encoding=(none) Invalid btf_info kind_flag")),
		kc("int data", vmB, addT(func(e *ed) Type { t := NewInt(e.str("i"), 4, 0, 0, 32); t.Data[0] |= 1 << 28; return t }),
			both("[%[1]d] INT i Invalid int_data:10000020")),
		kc("int bits 129", vmB, addT(func(e *ed) Type { return NewInt(e.str("i"), 16, 0, 0, 129) }),
			both("[%[1]d] INT i size=16 bits_offset=0 nr_bits=129 encoding=(none) nr_bits exceeds 128")),
		kc("int offset+bits 164", vmB, addT(func(e *ed) Type { return NewInt(e.str("i"), 16, 0, 100, 64) }),
			both("[%[1]d] INT i size=16 bits_offset=100 nr_bits=64 encoding=(none) nr_bits exceeds 128")),
		kc("int bits beyond size", vmB, addT(func(e *ed) Type { return NewInt(e.str("i"), 2, 0, 0, 32) }),
			both("[%[1]d] INT i size=2 bits_offset=0 nr_bits=32 encoding=(none) nr_bits exceeds type_size")),
		kc("int encoding 3", vmB, addT(func(e *ed) Type { return NewInt(e.str("i"), 4, 3, 0, 32) }),
			both("[%[1]d] INT i size=4 bits_offset=0 nr_bits=32 encoding=UNKN Unsupported encoding")),
	)

	// PTR and modifiers: btf_ref_type_check_meta, btf_modifier_resolve,
	// btf_ptr_resolve, btf_check_modifier_chain_length.
	add(
		kc("ptr named", vmB, addT(func(e *ed) Type { return named(NewPtr(u32(e)), e.str("p")) }),
			both("[%[1]d] PTR p type_id=3 Invalid name")),
		kc("ptr vlen", vmB, addT(func(e *ed) Type { t := NewPtr(u32(e)); t.Info |= 1; return t }),
			both("[%[1]d] PTR (anon) type_id=3 vlen != 0")),
		kc("const kind_flag", vmB, addT(func(e *ed) Type { return kflag(NewConst(u32(e))) }),
			both("[%[1]d] CONST (anon) type_id=3 Invalid btf_info kind_flag")),
		kc("type_tag kind_flag", vmB, addT(func(e *ed) Type { return kflag(NewTypeTag(e.str("attr"), u32(e))) }), accepted),
		kc("typedef type above BTF_MAX_TYPE", vmB, addT(func(e *ed) Type { return NewTypedef(e.str("t"), big) }),
			both("[%[1]d] TYPEDEF t type_id=1048576 Invalid type_id")),
		kc("typedef anonymous", vmB, addT(func(e *ed) Type { return NewTypedef(0, u32(e)) }),
			both("[%[1]d] TYPEDEF (anon) type_id=3 Invalid name")),
		kc("typedef name not an identifier", vmB, addT(func(e *ed) Type { return NewTypedef(e.str("a b"), u32(e)) }),
			both("[%[1]d] TYPEDEF a b type_id=3 Invalid name")),
		kc("type_tag empty", vmB, addT(func(e *ed) Type { return NewTypeTag(0, u32(e)) }),
			both("[%[1]d] TYPE_TAG (anon) type_id=3 Invalid name")),
		kc("name offset past the strings", vmB, addT(func(e *ed) Type { return named(NewPtr(u32(e)), bad) }),
			both("[%[1]d] Invalid name_offset:16777200")),
		kc("ptr to a missing type", vmB, addT(func(e *ed) Type { return NewPtr(miss) }),
			loadOnly("[%[1]d] PTR (anon) type_id=9999 Invalid type_id")),
		kc("typedef of a missing type", vmB, addT(func(e *ed) Type { return NewTypedef(e.str("t"), miss) }), [2][]string{
			{"[%[1]d] TYPEDEF t type_id=9999 Invalid type_id"},
			{"(-EINVAL, nothing logged) [%[1]d] TYPEDEF t type_id=9999: its modifier chain reaches type_id 9999, which does not exist"}}),
		kc("typedef of void, const of a FUNC_PROTO, ptr to a FWD", vmB, func(e *ed) []any {
			e.add(NewTypedef(e.str("void_t"), 0))
			e.add(NewConst(e.first(KindFuncProto, nil)))
			e.add(NewPtr(e.add(NewFwd(e.str("opaque"), false))))
			return nil
		}, accepted),
		kc("modifier loop", vmB, func(e *ed) []any {
			a := e.s.NextID()
			e.add(NewTypedef(e.str("a"), a+1))
			e.add(NewConst(a))
			return ids(a, a+1)
		}, [2][]string{{"[%[1]d] TYPEDEF a type_id=%[2]d Loop detected"}, {"Max chain length or cycle detected"}}),
		kc("33 typedefs", vmB, func(e *ed) []any {
			first := e.s.NextID()
			for i := range 33 {
				next := e.s.NextID() + 1
				if i == 32 {
					next = u32(e)
				}
				e.add(NewTypedef(e.str(fmt.Sprintf("t%d", i)), next))
			}
			return ids(first, first+1)
		}, [2][]string{{"[%[1]d] TYPEDEF t0 type_id=%[2]d Exceeded max resolving depth:32"}, {"Max chain length or cycle detected"}}),
		kc("32 typedefs", vmB, func(e *ed) []any {
			for i := range 32 {
				next := e.s.NextID() + 1
				if i == 31 {
					next = u32(e)
				}
				e.add(NewTypedef(e.str(fmt.Sprintf("t%d", i)), next))
			}
			return nil
		}, accepted),
	)

	// FWD, ARRAY.
	add(
		kc("fwd type", vmB, addT(func(e *ed) Type { return withSize(NewFwd(e.str("f"), false), 1) }),
			both("[%[1]d] FWD f struct type != 0")),
		kc("fwd anonymous union", vmB, addT(func(e *ed) Type { return NewFwd(0, true) }),
			both("[%[1]d] FWD (anon) union Invalid name")),
		kc("array named", vmB, addT(func(e *ed) Type { return named(NewArray(u32(e), u32(e), 4), e.str("a")) }),
			both("[%[1]d] ARRAY a type_id=3 index_type_id=3 nr_elems=4 Invalid name")),
		kc("array size", vmB, addT(func(e *ed) Type { return withSize(NewArray(u32(e), u32(e), 4), 16) }),
			both("[%[1]d] ARRAY (anon) type_id=3 index_type_id=3 nr_elems=4 size != 0")),
		kc("array elem 0", vmB, addT(func(e *ed) Type { return NewArray(0, u32(e), 4) }),
			both("[%[1]d] ARRAY (anon) type_id=0 index_type_id=3 nr_elems=4 Invalid elem")),
		kc("array index 0", vmB, addT(func(e *ed) Type { return NewArray(u32(e), 0, 4) }),
			both("[%[1]d] ARRAY (anon) type_id=3 index_type_id=0 nr_elems=4 Invalid index")),
		kc("array index a struct", vmB, func(e *ed) []any { s := sock(e); return ids(e.add(NewArray(u32(e), s, 4)), s) },
			loadOnly("[%[1]d] ARRAY (anon) type_id=3 index_type_id=%[2]d nr_elems=4 Invalid index")),
		kc("array index a bitfield int", vmB, func(e *ed) []any {
			b := e.add(NewInt(e.str("b3"), 1, 0, 0, 3))
			return ids(e.add(NewArray(u32(e), b, 4)), b)
		}, loadOnly("[%[1]d] ARRAY (anon) type_id=3 index_type_id=%[2]d nr_elems=4 Invalid index")),
		kc("array of a FWD", vmB, func(e *ed) []any {
			f := e.add(NewFwd(e.str("f"), false))
			return ids(e.add(NewArray(f, u32(e), 4)), f)
		}, loadOnly("[%[1]d] ARRAY (anon) type_id=%[2]d index_type_id=3 nr_elems=4 Invalid elem")),
		kc("array of a bitfield int", vmB, func(e *ed) []any {
			b := e.add(NewInt(e.str("b3"), 1, 0, 0, 3))
			return ids(e.add(NewArray(b, u32(e), 4)), b)
		}, loadOnly("[%[1]d] ARRAY (anon) type_id=%[2]d index_type_id=3 nr_elems=4 Invalid array of int")),
		kc("array size overflow", vmB, func(e *ed) []any { s := sock(e); return ids(e.add(NewArray(s, u32(e), 1<<28)), s) },
			loadOnly("[%[1]d] ARRAY (anon) type_id=%[2]d index_type_id=3 nr_elems=268435456 Array size overflows U32_MAX")),
		kc("array of 0 structs", vmB, addT(func(e *ed) Type { return NewArray(sock(e), u32(e), 0) }), accepted),
	)

	// STRUCT, UNION: btf_struct_check_meta, btf_struct_resolve and the
	// member checks of each member kind.
	st := func(name string, size uint32, union bool, ms ...Member) func(e *ed) Type {
		return func(e *ed) Type {
			n := uint32(0)
			if name != "" {
				n = e.str(name)
			}
			return NewStruct(n, size, ms, union)
		}
	}
	m := func(e *ed, name string, t TypeID, off uint32) Member {
		n := uint32(0)
		if name != "" {
			n = e.str(name)
		}
		return Member{n, t, off}
	}
	add(
		kc("member name offset", vmB, addT(func(e *ed) Type { return st("s", 8, false, Member{bad, u32(e), 0})(e) }),
			both("[%[1]d] STRUCT s size=8 vlen=1\n\t(invalid-name-offset) type_id=3 bits_offset=0 Invalid member name_offset:16777200")),
		kc("member name not an identifier", vmB, addT(func(e *ed) Type { return st("s", 8, false, m(e, "1x", u32(e), 0))(e) }),
			both("[%[1]d] STRUCT s size=8 vlen=1\n\t1x type_id=3 bits_offset=0 Invalid name")),
		kc("member of void", vmB, addT(func(e *ed) Type { return st("s", 8, false, m(e, "m", 0, 0))(e) }),
			both("[%[1]d] STRUCT s size=8 vlen=1\n\tm type_id=0 bits_offset=0 Invalid type_id")),
		kc("union member offset", vmB, addT(func(e *ed) Type { return st("u", 8, true, m(e, "m", u32(e), 32))(e) }),
			both("[%[1]d] UNION u size=8 vlen=1\n\tm type_id=3 bits_offset=32 Invalid member bits_offset")),
		kc("member offsets decreasing", vmB, addT(func(e *ed) Type { return st("s", 8, false, m(e, "a", u32(e), 32), m(e, "b", u32(e), 0))(e) }),
			both("[%[1]d] STRUCT s size=8 vlen=2\n\tb type_id=3 bits_offset=0 Invalid member bits_offset")),
		kc("member offset beyond the size", vmB, addT(func(e *ed) Type { return st("s", 4, false, m(e, "m", u32(e), 40))(e) }),
			both("[%[1]d] STRUCT s size=4 vlen=1\n\tm type_id=3 bits_offset=40 Member bits_offset exceeds its struct size")),
		kc("member of a FWD", vmB, func(e *ed) []any {
			f := e.add(NewFwd(e.str("f"), false))
			return ids(e.add(st("s", 8, false, m(e, "m", f, 0))(e)), f)
		}, loadOnly("[%[1]d] STRUCT s size=8 vlen=1\n\tm type_id=%[2]d bits_offset=0 Invalid member")),
		kc("member of a VAR", vmB, func(e *ed) []any {
			v := e.add(NewVar(e.str("v"), u32(e), 0))
			return ids(e.add(st("s", 8, false, m(e, "m", v, 0))(e)), v)
		}, loadOnly("[%[1]d] STRUCT s size=8 vlen=1\n\tm type_id=%[2]d bits_offset=0 Invalid member")),
		kc("int member exceeds the struct", vmB, addT(func(e *ed) Type { return st("s", 4, false, m(e, "m", long(e), 0))(e) }),
			loadOnly("[%[1]d] STRUCT s size=4 vlen=1\n\tm type_id=6 bits_offset=0 Member exceeds struct_size")),
		kc("typedef member: logged with the resolved type id", vmB, addT(func(e *ed) Type {
			return st("s", 4, false, m(e, "m", e.named(KindTypedef, "u32"), 32))(e)
		}), loadOnly("[%[1]d] STRUCT s size=4 vlen=1\n\tm type_id=3 bits_offset=32 Member exceeds struct_size")),
		kc("struct member not byte aligned", vmB, func(e *ed) []any {
			s := sock(e)
			return ids(e.add(st("s", 32, false, m(e, "m", s, 4))(e)), s)
		}, loadOnly("[%[1]d] STRUCT s size=32 vlen=1\n\tm type_id=%[2]d bits_offset=4 Member is not byte aligned")),
		kc("ptr member exceeds the struct", vmB, func(e *ed) []any {
			p := e.first(KindPtr, nil)
			return ids(e.add(st("s", 8, false, m(e, "m", p, 32))(e)), p)
		}, loadOnly("[%[1]d] STRUCT s size=8 vlen=1\n\tm type_id=%[2]d bits_offset=32 Member exceeds struct_size")),
		kc("bitfield of a struct", vmB, func(e *ed) []any {
			s := sock(e)
			return ids(e.add(st("s", 32, false, m(e, "m", s, 3<<24))(e)), s)
		}, loadOnly("[%[1]d] STRUCT s size=32 vlen=1\n\tm type_id=%[2]d bitfield_size=3 bits_offset=0 Invalid member bitfield_size")),
		kc("bitfield wider than its int", vmB, addT(func(e *ed) Type { return st("s", 8, false, m(e, "m", u32(e), 33<<24))(e) }),
			loadOnly("[%[1]d] STRUCT s size=8 vlen=1\n\tm type_id=3 bitfield_size=33 bits_offset=0 Invalid member bitfield_size")),
		kc("bitfield of a bitfield int", vmB, func(e *ed) []any {
			b := e.add(NewInt(e.str("b3"), 1, 0, 0, 3))
			return ids(e.add(st("s", 8, false, m(e, "m", b, 2<<24))(e)), b)
		}, loadOnly("[%[1]d] STRUCT s size=8 vlen=1\n\tm type_id=%[2]d bitfield_size=2 bits_offset=0 Invalid member base type")),
		kc("float member misaligned", vmB, func(e *ed) []any {
			f := e.add(NewFloat(e.str("double"), 8))
			return ids(e.add(st("s", 16, false, m(e, "m", f, 32))(e)), f)
		}, loadOnly("[%[1]d] STRUCT s size=16 vlen=1\n\tm type_id=%[2]d bits_offset=32 Member is not properly aligned")),
		kc("struct of itself", vmB, func(e *ed) []any {
			id := e.s.NextID()
			e.add(st("s", 8, false, m(e, "m", id, 0))(e))
			return ids(id)
		}, loadOnly("[%[1]d] STRUCT s size=8 vlen=1 Loop detected")),
	)

	// ENUM, ENUM64, FUNC, FUNC_PROTO.
	add(
		kc("enum size 3", vmB, addT(func(e *ed) Type { return NewEnum(e.str("e"), 3, []EnumValue{{e.str("A"), 1}}, false) }),
			both("[%[1]d] ENUM e size=3 vlen=1 Unexpected size")),
		kc("enum64 size 5", vmB, addT(func(e *ed) Type { return withSize(NewEnum(e.str("e"), 8, []EnumValue{{e.str("A"), 1}}, false), 5) }),
			both("[%[1]d] ENUM64 e size=5 vlen=1 Unexpected size")),
		kc("enumerator anonymous", vmB, addT(func(e *ed) Type { return NewEnum(e.str("e"), 4, []EnumValue{{0, 1}}, false) }),
			both("[%[1]d] ENUM e size=4 vlen=1 Invalid name")),
		kc("enumerator name offset", vmB, addT(func(e *ed) Type { return NewEnum(e.str("e"), 4, []EnumValue{{bad, 1}}, false) }),
			both("[%[1]d] ENUM e size=4 vlen=1\n\tInvalid name_offset:16777200")),
		kc("func extern", vmB, func(e *ed) []any {
			p := TypeID(e.t(e.named(KindFunc, "ack")).SizeType)
			return ids(e.add(NewFunc(e.str("f"), p, 2)), p)
		}, both("[%[1]d] FUNC f type_id=%[2]d Invalid func linkage")),
		kc("func kind_flag", vmB, func(e *ed) []any {
			p := TypeID(e.t(e.named(KindFunc, "ack")).SizeType)
			return ids(e.add(kflag(NewFunc(e.str("f"), p, 0))), p)
		}, both("[%[1]d] FUNC f type_id=%[2]d Invalid btf_info kind_flag")),
		kc("func anonymous", vmB, func(e *ed) []any {
			p := TypeID(e.t(e.named(KindFunc, "ack")).SizeType)
			return ids(e.add(NewFunc(0, p, 0)), p)
		}, both("[%[1]d] FUNC (anon) type_id=%[2]d Invalid name")),
		kc("func of an INT", vmB, addT(func(e *ed) Type { return NewFunc(e.str("f"), u32(e), 0) }),
			loadOnly("[%[1]d] FUNC f type_id=3 Invalid type_id")),
		kc("func of a FUNC_PROTO with unnamed params", vmB, func(e *ed) []any {
			p := e.first(KindFuncProto, func(t *Type) bool { return t.Vlen() == 2 && t.Params()[0].NameOff == 0 })
			return ids(e.add(NewFunc(e.str("f"), p, 1)), p)
		}, loadOnly("[%[1]d] FUNC f type_id=%[2]d Invalid arg#1")),
		kc("func_proto named", vmB, addT(func(e *ed) Type { return named(NewFuncProto(0, nil), e.str("p")) }),
			both("[%[1]d] FUNC_PROTO p return=0 args=(void) Invalid name")),
		kc("func_proto kind_flag", vmB, addT(func(e *ed) Type { return kflag(NewFuncProto(0, nil)) }),
			both("[%[1]d] FUNC_PROTO (anon) return=0 args=(void) Invalid btf_info kind_flag")),
		kc("func_proto void arg#1", vmB, addT(func(e *ed) Type { return NewFuncProto(0, []Param{{0, 0}, {e.str("x"), u32(e)}}) }),
			loadOnly("[%[1]d] FUNC_PROTO (anon) return=0 args=(0 (anon), 3 x) Invalid arg#1")),
		kc("func_proto named vararg", vmB, addT(func(e *ed) Type { return NewFuncProto(0, []Param{{e.str("x"), u32(e)}, {e.str("y"), 0}}) }),
			loadOnly("[%[1]d] FUNC_PROTO (anon) return=0 args=(3 x, vararg) Invalid arg#2")),
		kc("func_proto arg name not an identifier", vmB, addT(func(e *ed) Type { return NewFuncProto(0, []Param{{e.str("1x"), u32(e)}}) }),
			loadOnly("[%[1]d] FUNC_PROTO (anon) return=0 args=(3 1x) Invalid arg#1")),
		kc("func_proto returns a FWD", vmB, func(e *ed) []any {
			f := e.add(NewFwd(e.str("f"), false))
			return ids(e.add(NewFuncProto(f, nil)), f)
		}, loadOnly("[%[1]d] FUNC_PROTO (anon) return=%[2]d args=(void) Invalid return type")),
		kc("func_proto varargs only, unnamed params", vmB, func(e *ed) []any {
			e.add(NewFuncProto(0, []Param{{0, 0}}))
			e.add(NewFuncProto(u32(e), []Param{{0, u32(e)}, {0, 0}}))
			return nil
		}, accepted),
	)

	// VAR, DATASEC, FLOAT, DECL_TAG, unknown kinds.
	add(
		kc("var extern", vmB, addT(func(e *ed) Type { return NewVar(e.str("v"), u32(e), 2) }),
			both("[%[1]d] VAR v type_id=3 linkage=2 Linkage not supported")),
		kc("var of void", vmB, addT(func(e *ed) Type { return NewVar(e.str("v"), 0, 0) }),
			both("[%[1]d] VAR v type_id=0 linkage=0 Invalid type_id")),
		kc("var anonymous", vmB, addT(func(e *ed) Type { return NewVar(0, u32(e), 0) }),
			both("[%[1]d] VAR (anon) type_id=3 linkage=0 Invalid name")),
		kc("var of a FWD", vmB, func(e *ed) []any {
			f := e.add(NewFwd(e.str("f"), false))
			return ids(e.add(NewVar(e.str("v"), f, 0)), f)
		}, loadOnly("[%[1]d] VAR v type_id=%[2]d linkage=0 Invalid type_id")),
		kc("datasec size 0", vmB, func(e *ed) []any {
			v := e.add(NewVar(e.str("v"), u32(e), 0))
			return ids(e.add(NewDatasec(e.str(".data"), 0, []VarSecinfo{{v, 0, 4}})))
		}, both("[%[1]d] DATASEC .data size=0 vlen=1 size == 0")),
		kc("datasec of an INT", vmB, addT(func(e *ed) Type { return NewDatasec(e.str(".data"), 4, []VarSecinfo{{u32(e), 0, 4}}) }),
			loadOnly("[%[1]d] DATASEC .data size=4 vlen=1\n\t type_id=3 offset=0 size=4 Not a VAR kind member")),
		kc("datasec entries overlap", vmB, func(e *ed) []any {
			v := e.add(NewVar(e.str("v"), u32(e), 0))
			return ids(e.add(NewDatasec(e.str(".data"), 8, []VarSecinfo{{v, 0, 4}, {v, 2, 4}})), v)
		}, both("[%[1]d] DATASEC .data size=8 vlen=2\n\t type_id=%[2]d offset=2 size=4 Invalid offset")),
		kc("datasec entry size 0", vmB, func(e *ed) []any {
			v := e.add(NewVar(e.str("v"), u32(e), 0))
			return ids(e.add(NewDatasec(e.str(".data"), 8, []VarSecinfo{{v, 0, 0}})), v)
		}, both("[%[1]d] DATASEC .data size=8 vlen=1\n\t type_id=%[2]d offset=0 size=0 Invalid size")),
		kc("datasec entry past the end", vmB, func(e *ed) []any {
			v := e.add(NewVar(e.str("v"), u32(e), 0))
			return ids(e.add(NewDatasec(e.str(".data"), 4, []VarSecinfo{{v, 2, 4}})), v)
		}, both("[%[1]d] DATASEC .data size=4 vlen=1\n\t type_id=%[2]d offset=2 size=4 Invalid offset+size")),
		kc("datasec entry smaller than its var", vmB, func(e *ed) []any {
			v := e.add(NewVar(e.str("v"), long(e), 0))
			return ids(e.add(NewDatasec(e.str(".data"), 8, []VarSecinfo{{v, 0, 4}})), v)
		}, loadOnly("[%[1]d] DATASEC .data size=8 vlen=1\n\t type_id=%[2]d offset=0 size=4 Invalid size")),
		kc("float size 3", vmB, addT(func(e *ed) Type { return NewFloat(e.str("f"), 3) }),
			both("[%[1]d] FLOAT f size=3 Invalid type_size")),
		kc("float anonymous", vmB, addT(func(e *ed) Type { return NewFloat(0, 8) }), accepted),
		kc("decl_tag empty", vmB, addT(func(e *ed) Type { return NewDeclTag(0, sock(e), -1, false) }),
			both("[%[1]d] DECL_TAG (anon) type=5 component_idx=-1 Invalid value")),
		kc("decl_tag component_idx -2", vmB, addT(func(e *ed) Type { return NewDeclTag(e.str("t"), sock(e), -2, false) }),
			both("[%[1]d] DECL_TAG t type=5 component_idx=-2 Invalid component_idx")),
		kc("decl_tag member past the struct's", vmB, addT(func(e *ed) Type { return NewDeclTag(e.str("t"), sock(e), 3, false) }),
			loadOnly("[%[1]d] DECL_TAG t type=5 component_idx=3 Invalid component_idx")),
		kc("decl_tag component of a typedef", vmB, func(e *ed) []any {
			td := e.named(KindTypedef, "u32")
			return ids(e.add(NewDeclTag(e.str("t"), td, 0, false)), td)
		}, loadOnly("[%[1]d] DECL_TAG t type=%[2]d component_idx=0 Invalid component_idx")),
		kc("decl_tag arg#2 of a FUNC of 2", vmB, func(e *ed) []any {
			f := e.named(KindFunc, "ack")
			return ids(e.add(NewDeclTag(e.str("t"), f, 2, false)), f)
		}, loadOnly("[%[1]d] DECL_TAG t type=%[2]d component_idx=2 Invalid component_idx")),
		kc("decl_tag on an INT", vmB, addT(func(e *ed) Type { return NewDeclTag(e.str("t"), u32(e), -1, true) }),
			loadOnly("[%[1]d] DECL_TAG t type=3 component_idx=-1 Invalid type_id")),
		kc("decl_tag arg#1 of a FUNC, attribute", vmB, func(e *ed) []any {
			e.add(NewDeclTag(e.str("t"), e.named(KindFunc, "ack"), 1, true))
			return nil
		}, accepted),
		kc("unknown kind 23 (sized by a layout)", vmB, func(e *ed) []any {
			e.s.layout = append(BuiltinLayout(), LayoutRecord{InfoSz: 4})
			return ids(e.add(Type{Info: MakeInfo(23, 0, false), Data: []uint32{7}}))
		}, both("[%[1]d] Invalid kind:23")),
		kc("layout section", vmB, func(e *ed) []any { e.s.layout = BuiltinLayout(); return nil }, accepted),
	)

	// Header, string section, type section: btf_parse_hdr,
	// btf_check_sec_info, btf_parse_str_sec, btf_parse_type_sec, on the
	// real vmlinux blob's bytes (24-byte header).
	bo := binary.LittleEndian
	grow := func(b []byte, at, n int) []byte {
		return append(append(append([]byte(nil), b[:at]...), make([]byte, n)...), b[at:]...)
	}
	hdr32 := func(b []byte) []byte { // layout fields, zero
		nb := grow(b, 24, 8)
		bo.PutUint32(nb[4:], 32)
		return nb
	}
	stringsFirst := func(b []byte) []byte {
		hl := bo.Uint32(b[4:])
		tl, sl := bo.Uint32(b[12:]), bo.Uint32(b[20:])
		str := append([]byte(nil), b[hl+tl:hl+tl+sl]...)
		for len(str)%4 != 0 {
			str = append(str, 0)
		}
		nb := append(append(append([]byte(nil), b[:hl]...), str...), b[hl:hl+tl]...)
		bo.PutUint32(nb[8:], uint32(len(str)))
		bo.PutUint32(nb[16:], 0)
		bo.PutUint32(nb[20:], uint32(len(str)))
		return nb
	}
	add(
		kcRaw("version 2", vmB, func(b []byte) ([]byte, []any) { b[2] = 2; return b, nil }, both("Unsupported version")),
		kcRaw("flags", vmB, func(b []byte) ([]byte, []any) { b[3] = 1; return b, nil }, both("Unsupported flags")),
		kcRaw("header bytes beyond the known header", vmB, func(b []byte) ([]byte, []any) {
			nb := grow(b, 24, 12)
			bo.PutUint32(nb[4:], 36)
			nb[35] = 1
			return nb, nil
		}, both("Unsupported btf_header")),
		kcRaw("32-byte header, no layout", vmB, func(b []byte) ([]byte, []any) { return hdr32(b), nil }, accepted),
		kcRaw("gap before the strings", vmB, func(b []byte) ([]byte, []any) {
			so := bo.Uint32(b[16:])
			nb := grow(b, 24+int(so), 4)
			bo.PutUint32(nb[16:], so+4)
			return nb, nil
		}, both("Unsupported section found")),
		// Wrong before: "Total section length too long". The kernel says
		// that only of a section running past the data.
		kcRaw("trailing bytes", vmB, func(b []byte) ([]byte, []any) { return append(b, 0, 0, 0, 0), nil },
			both("Unsupported section found")),
		// Wrong before: accepted. With the 24-byte header the strings
		// must end the blob.
		kcRaw("strings before the types, 24-byte header", vmB, func(b []byte) ([]byte, []any) { return stringsFirst(b), nil },
			both("String section is not at the end")),
		kcRaw("strings before the types, 32-byte header", vmB, func(b []byte) ([]byte, []any) { return stringsFirst(hdr32(b)), nil }, accepted),
		// Wrong before: rejected. A layout_off with layout_len 0 is no
		// section to the kernel.
		kcRaw("layout_off without layout_len", vmB, func(b []byte) ([]byte, []any) {
			nb := hdr32(b)
			bo.PutUint32(nb[24:], bo.Uint32(nb[12:]))
			return nb, nil
		}, accepted),
		kcRaw("no types", vmB, func(b []byte) ([]byte, []any) {
			tl, sl := bo.Uint32(b[12:]), bo.Uint32(b[20:])
			nb := append(append([]byte(nil), b[:24]...), b[24+tl:24+tl+sl]...)
			bo.PutUint32(nb[12:], 0)
			bo.PutUint32(nb[16:], 0)
			return nb, nil
		}, loadOnly("No type found")),
		kc("larger than BTF_MAX_SIZE", vmB, func(e *ed) []any {
			ms := make([]Member, 1<<20+1<<19) // 18 MiB of members, all valid
			for i := range ms {
				ms[i] = Member{0, 3, 0}
			}
			e.add(NewStruct(e.str("huge"), 4, ms, false))
			return ids(len(mustMarshal(e.tb, e.s, MarshalOptions{})))
		}, loadOnly("(-E2BIG, nothing logged) btf_size %[1]d is larger than BTF_MAX_SIZE 16777216")),
	)
	return cs
}

// TestValidateKernelRules: each case's verdict and log for BPF_BTF_LOAD
// and for the vmlinux/module loader.
func TestValidateKernelRules(t *testing.T) {
	k := loadKFix(t)
	for _, c := range kernelCases() {
		t.Run(c.name, func(t *testing.T) {
			base := k.base[c.blob]
			b := append([]byte(nil), k.raw[c.blob]...)
			var args []any
			if c.edit != nil {
				s, err := Parse(b, base)
				if err != nil {
					t.Fatal(err)
				}
				args = c.edit(&ed{tb: t, s: s})
				b = mustMarshal(t, s, MarshalOptions{})
			}
			if c.raw != nil {
				b, args = c.raw(b)
			}
			s, err := Parse(b, base)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range [][]string{c.load, c.module} {
				l := []Loader{LoaderBTFLoad, LoaderKernel}[i]
				var exp []string
				for _, w := range want {
					if strings.Contains(w, "%") {
						w = fmt.Sprintf(w, args...)
					}
					exp = append(exp, w)
				}
				var got []string
				for _, e := range s.ValidateFor(l) {
					got = append(got, e.(*ValidationError).Log)
				}
				if strings.Join(got, "\n|") != strings.Join(exp, "\n|") {
					t.Errorf("%s: got\n%s\nwant\n%s", l, strings.Join(got, "\n"), strings.Join(exp, "\n"))
				}
			}
		})
	}
}

// TestValidateFixturesClean: the unchanged fixture blobs are accepted by
// both loaders.
func TestValidateFixturesClean(t *testing.T) {
	k := loadKFix(t)
	for name, raw := range k.raw {
		s, err := Parse(raw, k.base[name])
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []Loader{LoaderBTFLoad, LoaderKernel} {
			if errs := s.ValidateFor(l); len(errs) != 0 {
				t.Errorf("%s %s: %v", name, l, errs)
			}
		}
	}
}
