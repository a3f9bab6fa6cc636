/*
 * The demo object of "btfinline demo": a small program whose static inline
 * functions are expanded at several call sites, so that its DWARF holds
 * inline sites with parameters in registers, on the stack, and constant.
 * Built with gcc -O2 -g; pahole -J adds the .BTF that the inline BTF is
 * split on.
 */
#include <stdio.h>
#include <stdlib.h>

struct pkt {
	unsigned int len;
	unsigned int mark;
	unsigned long flags;
};

static volatile unsigned int sink;

static inline __attribute__((always_inline)) void pkt_set_len(struct pkt *p, unsigned int len)
{
	p->len = len;
	sink = len;
}

static inline __attribute__((always_inline)) unsigned int scale(unsigned int value, unsigned int factor)
{
	sink = value;
	return value * factor;
}

static inline __attribute__((always_inline)) unsigned long mix(unsigned long a, unsigned long b, int shift)
{
	sink = (unsigned int)shift;
	return (a << shift) ^ b;
}

__attribute__((noinline)) unsigned int build(struct pkt *p, unsigned int n)
{
	pkt_set_len(p, n);
	pkt_set_len(p, 10);
	return scale(n, 2) + scale(p->mark, n);
}

__attribute__((noinline)) unsigned long hash(struct pkt *p, unsigned long seed)
{
	unsigned long h = mix(seed, p->flags, 7);

	return mix(h, p->len, 3);
}

int main(int argc, char **argv)
{
	struct pkt p = { .mark = (unsigned int)argc, .flags = 0x5a };
	unsigned int n = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 0) : 3;

	printf("%u %lu\n", build(&p, n), hash(&p, n));
	return 0;
}
