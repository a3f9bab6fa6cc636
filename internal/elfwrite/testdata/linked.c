/*
 * A program that carries an allocated .BTF.inline section, as a kernel
 * built with CONFIG_DEBUG_INFO_BTF_INLINE does, and prints what its loaded
 * image holds there: the section writer must rewrite it where the segment
 * maps it.
 */
#include <stdio.h>

__attribute__((section(".BTF.inline"), used))
const unsigned char inline_btf[32] = "placeholder, linked at its size";

int main(void)
{
	/* Read the loaded bytes, not what gcc knows of the initializer. */
	const volatile unsigned char *b = inline_btf;

	for (unsigned i = 0; i < sizeof(inline_btf); i++)
		putchar(b[i] >= 0x20 && b[i] < 0x7f ? b[i] : '.');
	putchar('\n');
	return 0;
}
