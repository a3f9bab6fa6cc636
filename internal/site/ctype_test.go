package site

import (
	"strings"
	"testing"
)

func TestCTypeString(t *testing.T) {
	named := func(n string) *CType { return &CType{Name: n} }
	ptr := func(e *CType) *CType { return &CType{Kind: CPtr, Elem: e} }
	qual := func(q string, e *CType) *CType { return &CType{Kind: CQual, Name: q, Elem: e} }
	arr := func(n int64, e *CType) *CType { return &CType{Kind: CArray, N: n, Elem: e} }
	fn := func(ret *CType, args ...*CType) *CType {
		return &CType{Kind: CFunc, Elem: ret, Args: args}
	}
	for _, c := range []struct {
		t    *CType
		want string
	}{
		{nil, "void"},
		{named("u32"), "u32"},
		{ptr(named("struct tcp_sock")), "struct tcp_sock *"},
		{ptr(qual("const", named("char"))), "const char *"},
		{qual("const", ptr(named("char"))), "char * const"},
		{ptr(ptr(named("int"))), "int **"},
		{ptr(fn(nil, ptr(named("struct sock")), named("int"))), "void (*)(struct sock *, int)"},
		{ptr(fn(ptr(nil), ptr(nil))), "void *(*)(void *)"},
		{ptr(fn(named("int"))), "int (*)(void)"},
		{ptr(&CType{Kind: CFunc, Elem: named("int"), Args: []*CType{named("int")}, Variadic: true}), "int (*)(int, ...)"},
		{arr(4, named("int")), "int[4]"},
		{arr(-1, named("int")), "int[]"},
		{ptr(arr(256, named("u32"))), "u32 (*)[256]"},
		{qual("const", ptr(arr(256, named("u32")))), "u32 (* const)[256]"},
		{arr(2, arr(3, named("char"))), "char[2][3]"},
		{&CType{Kind: CPtr, Name: "&", Elem: named("int")}, "int &"},
	} {
		if got := c.t.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// TestCTypeSharedSubtrees: a type tree that shares subtrees (from
// malformed input: a prototype whose parameters are the previous
// prototype, 30 levels) is spelled in bounded time, cut short with "?".
func TestCTypeSharedSubtrees(t *testing.T) {
	var ct *CType
	for i := 0; i < 30; i++ {
		ct = &CType{Kind: CPtr, Elem: &CType{Kind: CFunc, Args: []*CType{ct, ct, ct}}}
	}
	s := ct.String()
	if !strings.Contains(s, "?") || len(s) > 64*maxCTypeNodes {
		t.Errorf("spelled %d bytes, want a bounded spelling with ?", len(s))
	}
}
