// SPDX-License-Identifier: GPL-2.0
/*
 * btfi_e2e: the end-to-end test module of btfinline (see e2e/README.md).
 *
 * Every static inline function below is forced inline into noinline callers
 * and prints its true arguments when it runs, one line per call:
 *
 *   btfi: fn=NAME key=0xVALUE key=0xVALUE ...
 *
 * That line is the reference a kprobe placed at the inline site is checked
 * against: the value printed for "key" must equal the kprobe argument named
 * "key" (compared on the width of the kprobe fetch type). A key written
 * "*key" is optional: compared only when the resolver fetched it.
 *
 * Writing a number N to /proc/btfi_e2e runs every caller once with arguments
 * derived from N, so that nothing but the deliberate constants is folded.
 * The module parameter "seed" feeds the inline site in .init.text.
 *
 * Writing "loop N" runs btfi_hot N times in a tight loop and prints
 * "btfi: loop n=N ns=T", the time it took: the per-hit cost of a probe
 * on btfi_hot is the difference with and without it, over N.
 */
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define BTFI_V(x) ((unsigned long long)(x))

/*
 * Make a value exist, in a register, in memory or as an immediate, at the
 * start of the inline body, as the arguments of real kernel helpers do when
 * the helper does work with them; without it gcc computes most arguments
 * straight into printk's argument registers and describes no location.
 */
#define BTFI_KEEP(x) asm volatile("" : : "g"(x))
/* The same, in memory: the value must be in a stack slot here. */
#define BTFI_KEEP_MEM(x) asm volatile("" : : "m"(x))

struct btfi_pair {
	u32 a;
	u32 b;
};

/* 16 bytes by value: travels in two registers. */
struct btfi_wide {
	u64 lo;
	u64 hi;
};

static unsigned int seed = 1;
module_param(seed, uint, 0444);
MODULE_PARM_DESC(seed, "argument source of the inline site in .init.text");

static u64 btfi_sink;

/* Takes an address so that the argument behind it must live in memory. */
static noinline void btfi_escape(void *p)
{
	barrier_data(p);
}

/* Values in registers, three widths and a signed one. */
static __always_inline u64 btfi_add3(u32 a, u64 b, s32 c)
{
	BTFI_KEEP(a);
	BTFI_KEEP(b);
	BTFI_KEEP(c);
	pr_info("btfi: fn=btfi_add3 a=%#llx b=%#llx c=%#llx\n",
		BTFI_V(a), BTFI_V(b), BTFI_V((s64)c));
	return a + b + c;
}

/*
 * Called with fields of a caller's stack object whose address escaped: the
 * values are used straight from their stack slots.
 */
static __always_inline u64 btfi_stack(u64 v, u32 w)
{
	BTFI_KEEP_MEM(v);
	BTFI_KEEP_MEM(w);
	pr_info("btfi: fn=btfi_stack v=%#llx w=%#llx\n", BTFI_V(v), BTFI_V(w));
	return v ^ w;
}

/*
 * Eight values live across printk: more than the six callee-saved
 * registers, so some of them are spilled to the stack.
 */
static __always_inline u64 btfi_spill(u64 a, u64 b, u64 c, u64 d,
				      u64 e, u64 f, u64 g, u64 h)
{
	pr_info("btfi: fn=btfi_spill a=%#llx b=%#llx c=%#llx d=%#llx e=%#llx f=%#llx g=%#llx h=%#llx\n",
		a, b, c, d, e, f, g, h);
	btfi_escape(NULL);
	return a * 3 + b * 5 + c * 7 + d * 11 + e * 13 + f * 17 + g * 19 + h * 23;
}

/* A pointer argument; the fields behind it are optional extras. */
static __always_inline u32 btfi_deref(const struct btfi_pair *p)
{
	BTFI_KEEP(p);
	pr_info("btfi: fn=btfi_deref p=%#llx *p_a=%#llx *p_b=%#llx\n",
		BTFI_V((unsigned long)p), BTFI_V(p->a), BTFI_V(p->b));
	return p->a * p->b;
}

/* Arguments read from memory at the call: x and y come from *src. */
static __always_inline u64 btfi_fields(u32 x, u32 y, u64 z)
{
	BTFI_KEEP(x);
	BTFI_KEEP(y);
	BTFI_KEEP(z);
	pr_info("btfi: fn=btfi_fields x=%#llx y=%#llx z=%#llx\n",
		BTFI_V(x), BTFI_V(y), BTFI_V(z));
	return (u64)x * y + z;
}

/* k is always called with a constant. */
static __always_inline u32 btfi_konst(u32 x, u32 k)
{
	BTFI_KEEP(x);
	BTFI_KEEP(k);
	pr_info("btfi: fn=btfi_konst x=%#llx k=%#llx\n", BTFI_V(x), BTFI_V(k));
	return x * k;
}

/* A 16-byte struct by value: two registers (DW_OP_piece). */
static __always_inline u64 btfi_wide(struct btfi_wide w, u32 tag)
{
	BTFI_KEEP(w.lo);
	BTFI_KEEP(w.hi);
	BTFI_KEEP(tag);
	pr_info("btfi: fn=btfi_wide w_lo=%#llx w_hi=%#llx tag=%#llx\n",
		BTFI_V(w.lo), BTFI_V(w.hi), BTFI_V(tag));
	return w.lo + w.hi * tag;
}

/* Nested: btfi_inner is inlined into btfi_outer, itself inlined. */
static __always_inline u32 btfi_inner(u32 p, u32 q)
{
	BTFI_KEEP(p);
	BTFI_KEEP(q);
	pr_info("btfi: fn=btfi_inner p=%#llx q=%#llx\n", BTFI_V(p), BTFI_V(q));
	return p - q;
}

static __always_inline u32 btfi_outer(u32 x, u32 y)
{
	BTFI_KEEP(x);
	BTFI_KEEP(y);
	pr_info("btfi: fn=btfi_outer x=%#llx y=%#llx\n", BTFI_V(x), BTFI_V(y));
	return btfi_inner(x * 3, y) + 1;
}

/*
 * Sixteen values live across a call in the caller: more than the
 * callee-saved registers of either architecture, so at the inline site
 * some arguments are still in the caller's stack slots, described as
 * memory at the frame base (DW_OP_fbreg): the kprobe fetches them as
 * +N(%sp) through the CFA (x86-64: ten of them, arm64: three).
 */
static __always_inline u64 btfi_frame(u64 a, u64 b, u64 c, u64 d,
				      u64 e, u64 f, u64 g, u64 h,
				      u64 i, u64 j, u64 k, u64 l,
				      u64 m, u64 n, u64 o, u64 p)
{
	pr_info("btfi: fn=btfi_frame a=%#llx b=%#llx c=%#llx d=%#llx e=%#llx f=%#llx g=%#llx h=%#llx i=%#llx j=%#llx k=%#llx l=%#llx m=%#llx n=%#llx o=%#llx p=%#llx\n",
		a, b, c, d, e, f, g, h,
		i, j, k, l, m, n, o, p);
	return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h ^ i ^ j ^ k ^ l ^ m ^ n ^ o ^ p;
}

/* Only called from the module's init function (.init.text). */
static __always_inline u32 btfi_initfn(u32 s, u64 t)
{
	BTFI_KEEP(s);
	BTFI_KEEP(t);
	pr_info("btfi: fn=btfi_initfn s=%#llx t=%#llx\n", BTFI_V(s), BTFI_V(t));
	return s + t;
}

/* The per-hit benchmark: no printk, one inline site per iteration. */
static __always_inline u64 btfi_hot(u64 i, u64 acc)
{
	BTFI_KEEP(i);
	BTFI_KEEP(acc);
	return acc * 31 + i;
}

static noinline u64 btfi_loop(u64 n)
{
	u64 i, acc = 0;

	for (i = 0; i < n; i++) {
		acc = btfi_hot(i, acc);
		/* Let a reader of the events run on a one-CPU machine. */
		if ((i & 1023) == 1023)
			cond_resched();
	}
	return acc;
}

static noinline void btfi_call_regs(u64 n)
{
	btfi_sink += btfi_add3(n + 5, n * 7 + 0x100000000ULL, -(s32)n - 3);
}

static noinline void btfi_call_stack(u64 n)
{
	struct btfi_wide slot = { .lo = n * 11 + 0xabc, .hi = n + 2 };

	btfi_escape(&slot);
	btfi_sink += btfi_stack(slot.lo, slot.hi);
}

static noinline void btfi_call_regs2(u64 n)
{
	/* A second site of btfi_add3 in another caller. */
	btfi_sink += btfi_add3(n ^ 0x55, n << 4, (s32)n);
}

static noinline void btfi_call_spill(u64 n)
{
	btfi_sink += btfi_spill(n + 1, n * 2 + 3, n * 5 + 7, n ^ 0x1111,
				n * n, n + 0x2222, n * 9 + 1, ~n);
	btfi_sink += n * 29;
}

static noinline void btfi_call_mem(const struct btfi_pair *src, u64 n)
{
	btfi_sink += btfi_deref(src);
	btfi_sink += btfi_fields(src->a, src->b, n + 9);
}

static noinline void btfi_call_misc(u64 n)
{
	struct btfi_wide w = { .lo = n * 13, .hi = ~n };

	btfi_sink += btfi_konst(n + 1, 10);
	btfi_sink += btfi_wide(w, n & 0xff);
	btfi_sink += btfi_outer(n + 4, n * 2);
}

static noinline void btfi_call_frame(u64 v)
{
	u64 a = v * 3 + 1, b = v ^ 0x77, c = v * 5, d = v + 9;
	u64 e = v * v, f = v - 3, g = v << 3, h = ~v;
	u64 i = v * 7 + 2, j = v ^ 0x1234, k = v * 11, l = v + 0x5555;
	u64 m = v * 13 + 5, n = v >> 1, o = v * 17, p = v ^ 0xabcd;

	btfi_escape(NULL);
	btfi_sink += btfi_frame(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p);
	btfi_sink += a + b + c + d + e + f + g + h + i + j + k + l + m + n + o + p;
}

static void btfi_run(u64 n)
{
	struct btfi_pair pair = { .a = n + 21, .b = n * 3 + 1 };

	btfi_call_regs(n);
	btfi_call_regs2(n);
	btfi_call_stack(n);
	btfi_call_spill(n);
	btfi_call_mem(&pair, n);
	btfi_call_misc(n);
	btfi_call_frame(n);
}

static ssize_t btfi_write(struct file *f, const char __user *ubuf,
			  size_t len, loff_t *pos)
{
	char buf[32];
	u64 n, t0;
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (!strncmp(buf, "loop ", 5)) {
		err = kstrtou64(strim(buf + 5), 0, &n);
		if (err)
			return err;
		t0 = ktime_get_ns();
		btfi_sink += btfi_loop(n);
		pr_info("btfi: loop n=%llu ns=%llu\n", n, ktime_get_ns() - t0);
		return len;
	}
	err = kstrtou64(strim(buf), 0, &n);
	if (err)
		return err;
	pr_info("btfi: run n=%#llx\n", n);
	btfi_run(n);
	pr_info("btfi: done n=%#llx\n", n);
	return len;
}

static const struct proc_ops btfi_ops = {
	.proc_write = btfi_write,
};

static struct proc_dir_entry *btfi_entry;

static int __init btfi_init(void)
{
	btfi_sink += btfi_initfn(seed, (u64)seed << 20 | 7);
	btfi_entry = proc_create("btfi_e2e", 0200, NULL, &btfi_ops);
	return btfi_entry ? 0 : -ENOMEM;
}

static void __exit btfi_exit(void)
{
	proc_remove(btfi_entry);
}

module_init(btfi_init);
module_exit(btfi_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("btfinline end-to-end test: inline sites with known arguments");
