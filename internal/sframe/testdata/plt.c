/* PLT variants for the linked-SFrame test: built with -fcf-protection=full
 * and linked with -z ibtplt, ld splits the PLT into .plt (lazy stubs) and
 * .plt.sec (IBT entries the calls go to); puts, both called and taken by
 * address through the GOT, gets a .plt.got entry. ld writes its own CFI
 * for all three (and SFrame from --gsframe objects), so they are the ld
 * paths our linker-style PLT entries must match. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int (*say)(const char *) = puts;

__attribute__((noinline)) static char *dup_arg(const char *s)
{
	char *p = malloc(strlen(s) + 1);

	if (p)
		strcpy(p, s);
	return p;
}

int main(int argc, char **argv)
{
	char *p = dup_arg(argv[0]);

	printf("%s %d\n", p, atoi(argc > 1 ? argv[1] : "1"));
	say(p);
	puts("done");
	free(p);
	return 0;
}
