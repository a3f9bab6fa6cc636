/* Inline-site fixture for the DWARF reader's runtime check.
 *
 * Every call of an inline function that the test checks carries an
 * "EXPECT" comment on its call line: name=value pairs the parameters hold
 * when the inlined body starts.  Values are decimal or 0x hex integers,
 * &symbol (the symbol's address) or lo:hi (a 16-byte value as two 64-bit
 * words).  inline_test.go parses these comments, runs the program under
 * ptrace with a breakpoint at every site address the reader reports, and
 * reads each located parameter back from registers, memory or the
 * reported constant.
 */
#include <stdint.h>

/* Freestanding: no libc, so the objects are small and every DIE is ours. */
#if defined(__x86_64__)
__asm__(".globl _start\n_start:\n\txor %ebp, %ebp\n\tand $-16, %rsp\n"
	"\tcall main\n\tmov %eax, %edi\n\tmov $60, %eax\n\tsyscall\n");
#elif defined(__aarch64__)
__asm__(".globl _start\n_start:\n\tbl main\n\tmov x8, #93\n\tsvc #0\n");
#endif

#define NOINLINE __attribute__((noinline, noclone))
#define ALWAYS static inline __attribute__((always_inline))

typedef uint32_t u32;
typedef uint64_t u64;

struct pair { long lo; long hi; };
struct cwnd { u32 snd_cwnd; u32 clamp; long pad[4]; };

volatile long sink;
long glob_counter = 7;
struct cwnd glob_cwnd = { 10, 100, {0} };

/* Opaque to the optimiser: forces values to exist and memory to escape. */
NOINLINE void escape(void *p) { __asm__ volatile("" : : "r"(p) : "memory"); }
NOINLINE long opaque(long v) { __asm__ volatile("" : "+r"(v)); return v; }

ALWAYS void cwnd_set(struct cwnd *tp, u32 val)
{
	tp->snd_cwnd = val < tp->clamp ? val : tp->clamp;
	sink = tp->snd_cwnd;
}

ALWAYS long scale(long value, int factor)
{
	sink = value;
	return value * factor + opaque(value);
}

ALWAYS long add3(long a, long b, long c)
{
	sink = a;
	sink = b;
	sink = c;
	return a + b + c;
}

ALWAYS long pair_sum(struct pair p)
{
	sink = p.lo;
	sink = p.hi;
	return p.lo ^ p.hi;
}

ALWAYS long deref_mem(long v)
{
	escape(&v);
	return v + 1;
}

ALWAYS long bump_ptr(long *p)
{
	sink = (long)p;
	return *p;
}

ALWAYS int inner(int x, int y)
{
	sink = x;
	sink = y;
	return x * y;
}

ALWAYS int outer(int x)
{
	sink = x;
	return inner(x, 3) + 1; // EXPECT x=9 y=3
}

ALWAYS long big_sum(struct pair p, long k)
{
	escape(&p);
	return p.lo + p.hi + k;
}

long extra_entry(long v);

NOINLINE long c_reg(long x, long y)
{
	return add3(x, y, x + y); // EXPECT a=11 b=22 c=33
}

NOINLINE long c_const(long x)
{
	return scale(x, 10); // EXPECT value=5 factor=10
}

NOINLINE void c_global(u32 v)
{
	cwnd_set(&glob_cwnd, v); // EXPECT tp=&glob_cwnd val=42
}

NOINLINE long c_pair(long a, long b)
{
	struct pair p = { a, b };
	return pair_sum(p); // EXPECT p=3:4
}

NOINLINE long c_mem(long v)
{
	return deref_mem(v * 3); // EXPECT v=21
}

NOINLINE long c_offset(long *arr)
{
	return bump_ptr(arr + 2); // EXPECT p=&glob_arr+16
}

NOINLINE int c_nested(int x)
{
	return outer(x + 1); // EXPECT x=9
}

NOINLINE long c_big(long a, long b, long k)
{
	struct pair p = { a, b };
	escape(&p);
	return big_sum(p, k); // EXPECT p=5:6 k=77
}

long glob_arr[4] = { 1, 2, 3, 4 };
static const char greeting[] = "hello";

ALWAYS int clampi(int v, int lo)
{
	sink = v;
	sink = lo;
	return v < lo ? lo : v;
}

ALWAYS unsigned small_args(unsigned char c, uint16_t h, _Bool b)
{
	sink = c;
	sink = h;
	sink = b;
	return c + h + b;
}

ALWAYS long str_first(const char *s, long n)
{
	sink = (long)s;
	return s[n];
}

/* Nested expansions starting at one address: told apart by location views. */
ALWAYS int lvl3(int z, int k) { sink = z; sink = k; return z * k; }
ALWAYS int lvl2(int y) { return lvl3(y, 4) + 1; } // EXPECT z=3 k=4
ALWAYS int lvl1(int x) { return lvl2(x) * 3; } // EXPECT y=3

NOINLINE int c_views(int v)
{
	return lvl1(v); // EXPECT x=3
}

/* The parameter is modified at the very address the second expansion
 * starts at; only the entry view tells the argument from the new value. */
ALWAYS long dbl(long a) { a = a * 2; sink = a; a += 3; sink = a; return a; }

NOINLINE long c_dbl(long v)
{
	long r = dbl(v); // EXPECT a=4
	return r + dbl(v + 1); // EXPECT a=5
}

/* Inlined at one call, also emitted out of line (its address escapes):
 * the out-of-line copy is a subprogram with DW_AT_abstract_origin. */
static inline long tri(long a) { sink = a; return a * 3; }
long (*volatile tri_ptr)(long) = tri;

NOINLINE long c_tri(long a)
{
	return tri(a) + tri_ptr(a); // EXPECT a=12
}

NOINLINE int c_signed(int v)
{
	return clampi(v, -5); // EXPECT v=-9 lo=-5
}

NOINLINE unsigned c_small(unsigned x)
{
	return small_args((unsigned char)x, 300, 1); // EXPECT c=200 h=300 b=1
}

NOINLINE long c_string(long n)
{
	return str_first(greeting, n); // EXPECT s=&greeting n=1
}

/* Past the entry pc (ProbeBlock).  The argument of dec_shift is
 * computed only after the expansion's entry pc (n << 4), and the body
 * then changes the parameter (size--): the one address that holds the
 * argument is the one between the two. */
ALWAYS unsigned long dec_shift(unsigned long size)
{
	size--;
	size >>= 12;
	sink = size;
	return size;
}

NOINLINE unsigned long c_decshift(unsigned long n)
{
	return dec_shift(n << 4); // EXPECT size=0x12340
}

/* Linux's refcount_inc, reduced: plain static inline functions whose
 * constant arguments gcc binds at the view after the entry view. */
typedef struct { int counter; } atomic_t;
typedef struct { atomic_t refs; } refcount_t;
struct ns { long pad[16]; refcount_t count; };
struct ns ns_a, ns_b;

NOINLINE void warn_saturate(refcount_t *r, int t) { sink = t; escape(r); }
ALWAYS int fetch_add(int i, atomic_t *v)
{
	__asm__ volatile("" : "+r"(i), "+m"(v->counter) : : "memory");
	return i;
}
static inline void ref_add(int i, refcount_t *r, int *oldp)
{
	int old = fetch_add(i, &r->refs); // EXPECT i=1 v=&ns_b+128

	if (oldp)
		*oldp = old;
	if (__builtin_expect(!old, 0))
		warn_saturate(r, 2);
	else if (__builtin_expect(old < 0 || old + i < 0, 0))
		warn_saturate(r, 1);
}
static inline void ref_inc_old(refcount_t *r, int *oldp) { ref_add(1, r, oldp); } // EXPECT i=1 r=&ns_b+128 oldp=0
static inline void ref_inc(refcount_t *r) { ref_inc_old(r, 0); } // EXPECT r=&ns_b+128 oldp=0

NOINLINE struct ns *c_refinc(struct ns *n)
{
	if (n != &ns_a)
		ref_inc(&n->count); // EXPECT r=&ns_b+128
	return n;
}

int main(void)
{
	long r = 0;
	r += c_reg(opaque(11), opaque(22));
	r += c_const(opaque(5));
	c_global((u32)opaque(42));
	r += c_pair(opaque(3), opaque(4));
	r += c_mem(opaque(7));
	r += c_offset(glob_arr);
	r += c_nested((int)opaque(8));
	r += c_big(opaque(5), opaque(6), opaque(77));
	r += c_signed((int)opaque(-9));
	r += c_small((unsigned)opaque(200));
	r += c_string(opaque(1));
	r += extra_entry(opaque(30));
	r += c_views((int)opaque(3));
	r += c_dbl(opaque(4));
	r += c_tri(opaque(12));
	r += (long)c_decshift(opaque(0x1234));
	r += (long)c_refinc((struct ns *)opaque((long)&ns_b));
	sink = r;
	return 0;
}
