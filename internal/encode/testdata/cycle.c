/* Types whose conversion to BTF meets two rare paths (dedup tests):
 * a pointer reached again through its own pointee (gcc 14 gives
 * soundwire's struct sdw_bus one pointer DIE for its users and for the
 * parameter of its member int (*compute_params)(struct sdw_bus *); gcc 12
 * does the same within a unit), and a struct one of whose members cannot
 * be converted (a pointer nested deeper than the converter follows). */
struct bus;
struct bus_ops {
	int (*compute)(struct bus *);
};
struct bus {
	struct bus_ops ops;
	long id;
};

int use_bus(struct bus *b)
{
	return b->ops.compute(b) + (int)b->id;
}

struct deep {
	int x;
	int ********************************************************************************************************************************************************************************************************************************************************************p;
};

int use_deep(struct deep *d)
{
	return d->x + (d->p != 0);
}

/* An enum this unit declares and never defines, named in a member's
 * prototype (as linux/irq.h's struct irq_chip names enum
 * irqchip_irq_state): chip.elf, whose unit defines it, is the base. */
enum irq_state;
struct chip {
	int (*get_state)(struct chip *, enum irq_state, int *);
	int id;
};

int use_chip(struct chip *c)
{
	return c->id + (c->get_state != 0);
}
