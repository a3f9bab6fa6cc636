/* Smallest object with an inline site and a location list: the seed of
 * FuzzReadELF (small seeds keep the fuzzer's minimisation fast). */
#define ALWAYS static inline __attribute__((always_inline))
volatile long sink;
ALWAYS long twice(long v, int k) { sink = v; return v * k; }
__attribute__((noinline)) long tiny(long v) { return twice(v + 1, 2) + twice(v, 3); }
