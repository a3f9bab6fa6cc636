/* "vmlinux" fixture for encode: inline functions whose prototypes use
 * every kind of type, inlined at several sites, plus one function that is
 * also kept out of line (partially inlined: its FUNC must be reused from
 * .BTF). Linked as an ET_EXEC without libc; never run. */
#include "types.h"

volatile long sink;
struct tcp_sock glob_tp;
NOINLINE void escape(const void *p) { __asm__ volatile("" : : "r"(p) : "memory"); }
NOINLINE long opaque(long v) { __asm__ volatile("" : "+r"(v)); return v; }

ALWAYS void cwnd_set(struct tcp_sock *tp, u32 val)
{
	tp->snd_cwnd = val < tp->fl.a ? val : tp->fl.a;
	sink = tp->snd_cwnd;
}

ALWAYS long point_len(const point_t *p, enum state st, bool neg)
{
	sink = st;
	return neg ? -(p->x + p->y) : p->x + p->y;
}

ALWAYS int sorter(cmp_fn cmp, const void *a, const void *b, enum big w)
{
	sink = w;
	return cmp(a, b);
}

ALWAYS long mat(long m[2][3], struct flags f, struct sock *sk)
{
	escape(sk);
	return m[1][2] + f.b + f.c;
}

ALWAYS double avg(struct tcp_sock *tp, float r, double d)
{
	return tp->avg * r + d;
}

ALWAYS const char *named(const char *s, struct list *l, char c)
{
	escape(l);
	sink = c;
	return s + 1;
}

ALWAYS long mem_big(long a, long b, long c, long d, long e, long f, long g, long h)
{
	escape(&h);
	return a + b + c + d + e + f + g + h;
}

/* Inlined into run() and also called through a pointer: partially
 * inlined, out of line as well. */
static long partial(long x, int k)
{
	sink = x;
	return opaque(x) * k;
}

NOINLINE int cmp_long(const void *a, const void *b)
{
	return *(const long *)a - *(const long *)b;
}

long (*volatile partial_ptr)(long, int) = partial;

NOINLINE long run(long v)
{
	point_t p = { (int)v, 2 };
	long m[2][3] = { { 1, 2, 3 }, { 4, 5, (long)v } };
	struct flags f = { 1, 2, -3, 1 };
	long r = 0;

	cwnd_set(&glob_tp, (u32)v);
	cwnd_set(&glob_tp, 7);
	r += point_len(&p, ST_RUN, v > 3);
	r += point_len(&p, ST_NEG, 0);
	r += sorter(cmp_long, &v, &r, BIG_B);
	r += mat(m, f, glob_tp.sk);
	r += (long)avg(&glob_tp, 0.5f, (double)v);
	r += (long)named("abc", &glob_tp.node, 'x');
	r += named(glob_tp.name, glob_tp.node.next, (char)v)[0];
	r += mem_big(v, 1, 2, 3, 4, 5, 6, opaque(v));
	r += partial(v, 3);
	r += partial(opaque(r), -5);
	return r;
}

void _start(void)
{
	sink = run(opaque(42)) + partial_ptr(1, 2);
	for (;;)
		;
}

__attribute__((section(".init.text"))) NOINLINE long init_fn(long v)
{
	cwnd_set(&glob_tp, (u32)(v + 1));
	return point_len((point_t *)&glob_tp, ST_IDLE, 1);
}
