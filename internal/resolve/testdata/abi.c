/*
 * Fixture for the calling-convention placement of arguments at a
 * function's entry (resolve/abi.go): out-of-line functions taking
 * integers, structs by value of every psABI class, floats, a 16-byte
 * integer and arguments that spill to the stack. The test compares each
 * argument's place with gcc's DWARF location at the function's entry.
 * See Makefile.
 */
typedef unsigned long u64;

struct two { long x, y; };
struct big { long x[3]; };
struct mixed { long x; double y; };
struct small { int a; short b; };
struct fs { float a, b; };
struct dd { double a, b; };
struct bits { unsigned a:3, b:20; };
struct empty_ish { char c[3]; };

volatile long sink;
volatile double fsink;

#define N __attribute__((noinline, used))

N long f_int(int a, long b, char *c, short d, long e, long g, long h, long i)
{
	sink = a; sink = b; sink = (long)c; sink = d; sink = e; sink = g; sink = h; sink = i;
	return 0;
}

N long f_pair(struct two s, long b)
{
	sink = s.x; sink = s.y; sink = b;
	return 0;
}

N long f_big(struct big s, long b)
{
	sink = s.x[0]; sink = s.x[2]; sink = b;
	return 0;
}

N long f_float(double d, long b, float f, long c)
{
	fsink = d; sink = b; fsink = f; sink = c;
	return 0;
}

N long f_mixed(struct mixed s, long b)
{
	sink = s.x; fsink = s.y; sink = b;
	return 0;
}

N long f_spill(long a, long b, long c, long d, long e, struct two s, long g)
{
	sink = a; sink = b; sink = c; sink = d; sink = e; sink = s.x; sink = s.y; sink = g;
	return 0;
}

N long f_small(struct small s, long b)
{
	sink = s.a; sink = s.b; sink = b;
	return 0;
}

N long f_fs(struct fs s, long b)
{
	fsink = s.a; fsink = s.b; sink = b;
	return 0;
}

N long f_dd(struct dd s, long b)
{
	fsink = s.a; fsink = s.b; sink = b;
	return 0;
}

N long f_i128(long a, __int128 b, long c)
{
	sink = a; sink = (long)b; sink = (long)(b >> 64); sink = c;
	return 0;
}

N long f_bits(struct bits s, struct empty_ish e, long b)
{
	sink = s.a; sink = s.b; sink = e.c[1]; sink = b;
	return 0;
}

N long f_many(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j)
{
	sink = a; sink = b; sink = c; sink = d; sink = e; sink = f; sink = g; sink = h; sink = i; sink = j;
	return 0;
}

void _start(void)
{
	struct two t = {1, 2};
	struct big bg = {{1, 2, 3}};
	struct mixed m = {1, 2.0};
	struct small sm = {1, 2};
	struct fs f = {1, 2};
	struct dd d = {1, 2};
	struct bits bt = {1, 2};
	struct empty_ish e = {{1, 2, 3}};
	f_int(1, 2, 0, 4, 5, 6, 7, 8);
	f_pair(t, 3);
	f_big(bg, 3);
	f_float(1.0, 2, 3.0f, 4);
	f_mixed(m, 3);
	f_spill(1, 2, 3, 4, 5, t, 7);
	f_small(sm, 3);
	f_fs(f, 3);
	f_dd(d, 3);
	f_i128(1, 2, 3);
	f_bits(bt, e, 3);
	f_many(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
	for (;;)
		;
}
