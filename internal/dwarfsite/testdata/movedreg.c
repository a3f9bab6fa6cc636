/* A probe moved past the entry pc reads the location that holds there.
   Reduced from Linux's for_each_cpu, find_next_bit(addr, nr_cpu_ids, n + 1)
   with an int n (xfs_inodegc_shrinker_count in Debian's xfs.ko): at the
   entry pc of next_bit, offset is (long)(n + 1), which DWARF can only say
   as "rdx + 1, shifted left by 32 then arithmetically right by 32" (no
   LOC_PARAM); after the movslq that computes it, DWARF says rdx. size is
   likewise (unsigned long)nbits until "mov %esi,%esi", then rsi, so the
   site moves to the call for size, and offset must be rdx there. */
unsigned long find_bit_out(const unsigned long *addr, unsigned long size, unsigned long offset);

static inline __attribute__((always_inline)) unsigned long
next_bit(const unsigned long *addr, unsigned long size, unsigned long offset)
{
	return find_bit_out(addr, size, offset);
}

int first_after(const unsigned long *map, unsigned int nbits, int n)
{
	return next_bit(map, nbits, n + 1);
}
