/* A variable whose constant gcc 16 writes as DW_FORM_sdata in 10 bytes
   (Linux mm/hmm.c, hmm_dma_unmap_pfn's valid_dma), ahead of inline sites
   in the same unit. */
static inline __attribute__((always_inline)) int pick(unsigned long x, int y)
{
	return x > 10 ? y : -y;
}

int second(unsigned long x, int y)
{
	return pick(x, y) + pick(x + 1, y * 2);
}

int first(unsigned long x)
{
	const unsigned long valid_dma = 0x9000000000000000UL;
	volatile unsigned long keep = x & valid_dma;
	return pick(keep, 3);
}

int third(unsigned long x, int y)
{
	return pick(x ^ 5, y) - pick(x, 7);
}

/* The argument itself is such a constant: DW_AT_const_value on the
   inlined parameter, 65 bits as a signed LEB128, of a 64-bit type. */
static inline __attribute__((always_inline)) int tag(unsigned long mask, int y)
{
	asm volatile("" : "+r"(y));
	return y + (mask > 10);
}

int fourth(int y)
{
	return tag(0x9000000000000000UL, y);
}
