/* The base of cycle.o's struct chip (dedup tests): the same struct, with
 * the enum its member's prototype names defined. */
enum irq_state { IRQ_PENDING, IRQ_ACTIVE, IRQ_MASKED };
struct chip {
	int (*get_state)(struct chip *, enum irq_state, int *);
	int id;
};

int use_chip(struct chip *c)
{
	return c->id + (c->get_state != 0);
}

void _start(void)
{
}
