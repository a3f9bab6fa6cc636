/* A "vmlinux" unrelated to types.h, as base for mod-other.ko. */
struct other { char c; short s; struct other *o; };
struct other glob_other;
unsigned long long u;
void _start(void) { for (;;) glob_other.s++; }
