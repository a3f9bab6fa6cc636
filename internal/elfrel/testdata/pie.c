/* A position-independent image whose data holds absolute pointers: the
 * linker turns them into R_*_RELATIVE dynamic relocations, as in the arm64
 * vmlinux. */
int target[4];
int *table[] = { &target[0], &target[2] };

void _start(void)
{
	for (;;)
		;
}
