/*
 * Fixture for package resolve: a tiny "kernel" with inline sites in plain
 * text, in .noinstr.text, in .init.text and in a NOKPROBE_SYMBOL function,
 * an inline function that also has an out-of-line copy, and a gcc clone.
 * Built twice per architecture: linked with kernel.lds (like vmlinux) and
 * as a relocatable object (like a module). See Makefile.
 */
typedef unsigned int u32;
typedef unsigned long u64;

struct sock {
	u32 cwnd;
	u32 flags;
	long stamp;
};

#define __noinline __attribute__((noinline))
#define __always_inline inline __attribute__((always_inline))
#define __section(s) __attribute__((section(s)))
#define NOKPROBE_SYMBOL(fn) \
	static unsigned long __attribute__((used, section("_kprobe_blacklist"))) _kbl_addr_##fn = (unsigned long)fn

volatile u32 sink;
volatile long lsink;

static __always_inline void cwnd_set(struct sock *sk, u32 val)
{
	sk->cwnd = val;
	sink = val;
}

static __always_inline void stamp_set(struct sock *sk, long t, u32 flags)
{
	sk->stamp = t;
	sk->flags |= flags;
}

__noinline void disconnect(struct sock *sk)
{
	cwnd_set(sk, 10);
	sk->flags = 0;
}

__noinline void ack(struct sock *sk, u32 n)
{
	if (n > sk->cwnd)
		cwnd_set(sk, n * 2);
	stamp_set(sk, -5, n);
}

__noinline __section(".noinstr.text") void enter_idle(struct sock *sk)
{
	cwnd_set(sk, 3);
}

__noinline void nmi_handler(struct sock *sk, u32 v)
{
	cwnd_set(sk, v + 1);
}
NOKPROBE_SYMBOL(nmi_handler);

__noinline __section(".init.text") void setup(struct sock *sk)
{
	cwnd_set(sk, 1);
	stamp_set(sk, 0, 4);
}

/* Inlined into use_mul3 and also emitted out of line (address taken). */
static inline long mul3(long x, long y)
{
	lsink = x;
	return x * 3 + y;
}

long (*mul3_ptr)(long, long) = mul3;

__noinline long use_mul3(long a)
{
	return mul3(a, 7) + 1;
}

/* Called with a constant k everywhere: gcc makes scale.constprop.0. */
static __noinline u32 scale(struct sock *sk, u32 k)
{
	sink = k;
	return sk->cwnd * k;
}

__noinline u32 grow(struct sock *sk)
{
	return scale(sk, 5) + 1;
}

__noinline u32 grow2(struct sock *sk)
{
	return scale(sk, 5) + 2;
}

struct sock the_sock;

void _start(void)
{
	setup(&the_sock);
	disconnect(&the_sock);
	ack(&the_sock, sink);
	enter_idle(&the_sock);
	nmi_handler(&the_sock, sink);
	lsink = use_mul3(lsink) + mul3_ptr(1, 2);
	sink = grow(&the_sock) + grow2(&the_sock);
	for (;;)
		;
}
