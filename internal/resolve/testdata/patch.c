/*
 * Fixture for the patch-site rules (jump labels, static calls, BUG()
 * traps): inline functions whose body starts with the patched
 * instruction, as arch_static_branch, static_call and BUG() do in the
 * kernel, each recording its site in the kernel's table format. Built
 * linked with patch.lds (tables between __start_ and __stop_ markers,
 * like vmlinux) and as a relocatable object (tables as relocations, like
 * a module). cwnd_clamp nests an inline expansion in another one
 * (resolve --nesting). See Makefile.
 */
typedef unsigned int u32;
typedef _Bool bool;

struct static_key {
	int enabled;
};

struct sock {
	u32 cwnd;
	u32 flags;
};

#define __noinline __attribute__((noinline))
#define __always_inline inline __attribute__((always_inline))

struct static_key key_a, key_b;
volatile u32 sink;
void call_target(void);

/* x86-64 struct jump_entry: s32 code, s32 target, long key (relative). */
static __always_inline bool arch_static_branch(struct static_key *key, bool branch)
{
	asm goto("1: .byte 0x0f,0x1f,0x44,0x00,0x00\n\t"
		 ".pushsection __jump_table, \"aw\"\n\t"
		 ".balign 8\n\t"
		 ".long 1b - ., %l[l_yes] - .\n\t"
		 ".quad %c0 + %c1 - .\n\t"
		 ".popsection\n\t"
		 : : "i"(key), "i"(branch) : : l_yes);
	return 0;
l_yes:
	return 1;
}

/* struct static_call_site: s32 addr, s32 key (relative). */
static __always_inline void static_call_run(struct sock *sk)
{
	asm volatile("1: call call_target\n\t"
		     ".pushsection .static_call_sites, \"aw\"\n\t"
		     ".long 1b - ., key_b - .\n\t"
		     ".popsection\n\t"
		     : : "D"(sk) : "memory");
}

/* struct bug_entry (CONFIG_DEBUG_BUGVERBOSE): s32 bug_addr_disp,
 * s32 file_disp, u16 line, u16 flags. */
static __always_inline void do_bug(u32 line)
{
	asm volatile("1: ud2\n\t"
		     ".pushsection __bug_table, \"aw\"\n\t"
		     "2: .long 1b - ., 0\n\t"
		     ".word %c0, 0\n\t"
		     ".org 2b + 12\n\t"
		     ".popsection\n\t"
		     : : "i"(line));
	__builtin_unreachable();
}

static __always_inline void cwnd_set(struct sock *sk, u32 val)
{
	sk->cwnd = val;
	sink = val;
}

__noinline void tick(struct sock *sk)
{
	if (arch_static_branch(&key_a, 0))
		cwnd_set(sk, 2);
	sink = 1;
}

__noinline void run(struct sock *sk)
{
	static_call_run(sk);
	cwnd_set(sk, 3);
}

__noinline void check(struct sock *sk)
{
	if (sk->flags == 7)
		do_bug(__LINE__);
	cwnd_set(sk, 4);
}

/* An inline expansion inside another: cwnd_set at depth 2 in clamp. */
static __always_inline void cwnd_clamp(struct sock *sk, u32 val)
{
	if (val > 100)
		val = 100;
	cwnd_set(sk, val);
}

__noinline void clamp(struct sock *sk, u32 v)
{
	cwnd_clamp(sk, v);
}

void call_target(void)
{
	sink = 9;
}

struct sock the_sock;

void _start(void)
{
	tick(&the_sock);
	run(&the_sock);
	check(&the_sock);
	clamp(&the_sock, sink);
	for (;;)
		;
}
