/* The strong definition that overrides weak.c's hook. */
extern volatile int sink;

__attribute__((noinline)) void hook(int x)
{
	sink = x + 1;
}
