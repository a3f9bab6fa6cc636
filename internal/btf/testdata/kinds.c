/* Fixture for package btf: one object covering as many BTF kinds as gcc
 * and pahole produce (INT, PTR, ARRAY, STRUCT with bitfields, UNION, ENUM
 * signed/unsigned, ENUM64, FWD, TYPEDEF, VOLATILE, CONST, RESTRICT, FUNC,
 * FUNC_PROTO with varargs, VAR, DATASEC, FLOAT). DECL_TAG, TYPE_TAG and
 * the LOC kinds are built in Go tests (gcc 12 emits no btf tags). */
#include <stdarg.h>
#include <stdint.h>

struct fwd_only;

enum color { RED, GREEN = 5, BLUE = 0x7fffffff };
enum sign { NEG = -3, ZERO = 0, POS = 3 };
enum wide { SMALL = 1, BIG = 0x100000000ULL, HUGE = 0xffffffffffffffffULL };
enum swide { SNEG = -0x100000000LL, SPOS = 1 };

typedef unsigned long ulong_t;
typedef const volatile ulong_t cv_ulong;
typedef int (*binop_fn)(int, int);

struct bits {
	unsigned int a : 3;
	unsigned int b : 5;
	signed int c : 7;
	unsigned long long d : 33;
	_Bool flag : 1;
	char tail;
};

union num {
	int i;
	float f;
	double d;
	long double ld;
	unsigned char bytes[16];
};

struct node {
	struct node *next;
	const char *name;
	volatile int counter;
	cv_ulong cv;
	union num value;
	struct bits bf;
	enum color color;
	enum sign sign;
	enum wide wide;
	enum swide swide;
	binop_fn op;
	struct fwd_only *opaque;
	int matrix[3][4];
	char flex[];
};

struct node global_node;
int global_array[8] = { 1, 2 };
static double static_d = 1.5;
__int128 big_int;
unsigned __int128 big_uint;
float fl;
_Bool truth = 1;
const char *const names[] = { "a", "b" };

int add(int a, int b) { return a + b; }

int sum(int n, ...)
{
	va_list ap;
	int s = 0;
	va_start(ap, n);
	while (n-- > 0)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

__attribute__((noinline)) static int apply(binop_fn f, int *restrict x, const int *restrict y)
{
	return f(*x, *y);
}

int use_node(struct node *n, struct fwd_only *o)
{
	int x = n->bf.a, y = n->bf.c;
	n->opaque = o;
	return apply(add, &x, &y) + (int)static_d + n->matrix[1][2];
}

void *memcopy(void *restrict dst, const void *restrict src, uint64_t len)
{
	char *d = dst;
	const char *s = src;
	while (len--)
		*d++ = *s++;
	return dst;
}
