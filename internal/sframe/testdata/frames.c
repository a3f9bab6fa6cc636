/* Fixture for SFrame emission: prologue/epilogue shapes GNU as has to
 * translate — leaf and non-leaf functions, many callee-saved registers,
 * alloca and VLAs, over-aligned locals (stack realignment), noreturn calls,
 * recursion, varargs and a tail call. */
#include <alloca.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile int sink;

__attribute__((noinline)) int leaf(int a, int b) { return a * b + 3; }

__attribute__((noinline)) long many_saved(long a, long b, long c, long d, long e, long f)
{
	long x1 = a * 3, x2 = b * 5, x3 = c * 7, x4 = d * 11, x5 = e * 13, x6 = f * 17;
	for (int i = 0; i < a; i++) {
		x1 += leaf(x2, x3);
		x2 += leaf(x3, x4);
		x3 += leaf(x4, x5);
		x4 += leaf(x5, x6);
		x5 += leaf(x6, x1);
		x6 += leaf(x1, x2);
	}
	return x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6;
}

__attribute__((noinline)) int use_alloca(int n)
{
	char *p = alloca(n + 1);
	memset(p, 'a', n);
	p[n] = 0;
	sink = p[n / 2];
	return (int)strlen(p);
}

__attribute__((noinline)) int use_vla(int n)
{
	int v[n];
	for (int i = 0; i < n; i++)
		v[i] = leaf(i, n);
	int s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

__attribute__((noinline)) int aligned_local(int n)
{
	int buf[16] __attribute__((aligned(64)));
	for (int i = 0; i < 16; i++)
		buf[i] = leaf(i, n);
	int vla[n];
	for (int i = 0; i < n; i++)
		vla[i] = buf[i % 16];
	return vla[n - 1] + buf[3];
}

__attribute__((noreturn, noinline)) void die(const char *msg)
{
	fprintf(stderr, "%s\n", msg);
	exit(2);
}

__attribute__((noinline)) int checked(int x)
{
	if (x < 0)
		die("negative");
	if (x > 1000)
		abort();
	return leaf(x, x);
}

__attribute__((noinline)) long fib(long n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) int sum(int n, ...)
{
	va_list ap;
	int s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

__attribute__((noinline)) int tail(int x) { return checked(x + 1); }

static __attribute__((noinline, cold)) void cold_path(int x)
{
	printf("cold %d\n", x);
}

__attribute__((noinline)) int maybe_cold(int x)
{
	if (__builtin_expect(x == 12345, 0))
		cold_path(x);
	return leaf(x, 2);
}

int main(int argc, char **argv)
{
	(void)argv;
	long r = many_saved(argc, 2, 3, 4, 5, 6);
	r += use_alloca(argc + 10) + use_vla(argc + 5) + aligned_local(argc + 3);
	r += checked(argc) + fib(10) + sum(3, 1, 2, 3) + tail(argc) + maybe_cold(argc);
	printf("%ld\n", r);
	return 0;
}
