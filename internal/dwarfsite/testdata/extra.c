/* Second compilation unit of the fixture: its own inline functions, so the
 * reader has several units to spread over workers. EXPECT comments as in
 * sites.c. */
#include <stdint.h>

#define NOINLINE __attribute__((noinline, noclone))
#define ALWAYS static inline __attribute__((always_inline))

extern volatile long sink;
long opaque(long v);

ALWAYS long mix(long a, unsigned short s, long c)
{
	sink = a;
	sink = s;
	sink = c;
	return a ^ s ^ c;
}

ALWAYS long twice(long v)
{
	sink = v;
	return mix(v, 7, v * 2) + 1; // EXPECT a=31 s=7 c=62
}

NOINLINE long extra_entry(long v)
{
	return twice(v + 1) + mix(v, 9, -4); // EXPECT v=31 a=30 s=9 c=-4
}
