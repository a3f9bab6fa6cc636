/* A __weak definition that another object overrides (weak_strong.c): the
 * linker keeps its code but drops its symbol, like pcpu_populate_pte or
 * bpf_jit_free in vmlinux. Its inline site is dead code. */
volatile int sink;

static inline int scale(int a, int b, int c)
{
	return a * b + c;
}

__attribute__((weak, noinline)) void hook(int x)
{
	sink = scale(x, sink, 7);
}

__attribute__((noinline)) void live(int x)
{
	sink = scale(x, sink, 9);
}

void _start(void)
{
	hook(sink);
	live(sink);
	for (;;)
		;
}
