/* rustmain.c: a freestanding C program linked with the Rust library
   sink.rs, with C inline sites beside the Rust ones. */
unsigned int rust_mix(unsigned int a, unsigned char b, unsigned long *acc);

static inline __attribute__((always_inline)) unsigned int twice(unsigned int x)
{
	return x * 2 + 1;
}

unsigned long acc;
volatile unsigned int sink_out;

__attribute__((noinline)) unsigned int c_mix(unsigned int a, unsigned int b)
{
	return twice(a) ^ twice(b + 3);
}

void _start(void)
{
	sink_out = rust_mix(c_mix(sink_out, 5), 9, &acc);
	for (;;)
		;
}
