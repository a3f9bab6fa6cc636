/* A small program with the usual sections, for the ELF section writer. */
#include <stdio.h>

static int counter = 3;
const char banner[] = "hello from the elfwrite fixture";

int bump(int x)
{
	counter += x;
	return counter;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%s %d\n", banner, bump(argc));
	return 0;
}
