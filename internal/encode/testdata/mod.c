/* "module" fixture: an ET_REL object whose .BTF is split on kern.elf's,
 * with its own type (struct mod_priv) in inline prototypes. */
#include "types.h"

struct mod_priv { struct tcp_sock *tp; int id; enum state st; };

ALWAYS void priv_set(struct mod_priv *p, struct tcp_sock *tp, int id)
{
	p->tp = tp;
	p->id = id;
	escape(p);
}

ALWAYS u32 priv_cwnd(const struct mod_priv *p, u64 scale)
{
	return p->tp->snd_cwnd * scale;
}

NOINLINE long mod_run(struct tcp_sock *tp, long v)
{
	struct mod_priv p;

	priv_set(&p, tp, (int)v);
	priv_set(&p, tp, 3);
	return priv_cwnd(&p, v) + priv_cwnd(&p, 0x123456789ULL);
}
