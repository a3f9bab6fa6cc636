/* Types shared by the "kernel" (kern.c) and the "module" (mod.c) fixtures:
 * the inline functions' prototypes use every kind of type package dedup
 * must match against the base BTF. */
#include <stdint.h>
#include <stdarg.h>

#define NOINLINE __attribute__((noinline, noclone))
#define ALWAYS static inline __attribute__((always_inline))

typedef uint32_t u32;
typedef uint64_t u64;
typedef _Bool bool;

enum state { ST_IDLE, ST_RUN = 3, ST_NEG = -1 };
enum big { BIG_A = 1, BIG_B = 0x100000000ULL };

struct sock;                         /* only ever a declaration here */
struct list { struct list *next, *prev; };

struct flags {
	unsigned int a : 3;
	unsigned int b : 5;
	signed int c : 7;
	bool d;
};

struct tcp_sock {
	struct list node;
	u32 snd_cwnd;
	union {                      /* anonymous union member */
		u64 stamp;
		struct { u32 lo, hi; } parts;
	};
	struct flags fl;
	enum state st;
	const char *name;
	void (*cb)(struct tcp_sock *tp, int ev);
	char tag[8];
	long matrix[2][3];
	float ratio;
	double avg;
	struct sock *sk;
};

typedef struct { int x, y; } point_t;  /* typedef of an anonymous struct */
typedef int (*cmp_fn)(const void *, const void *);

extern volatile long sink;
NOINLINE void escape(const void *p);
NOINLINE long opaque(long v);
