/* Types with the names of types.h but other layouts, for package dedup's
 * negative tests: none of these may match kern.elf's BTF. */
#include <stdint.h>
typedef uint32_t u32;                     /* same as types.h: matches */
struct list { struct list *next, *prev; }; /* same: matches */
struct tcp_sock { struct list node; u32 snd_cwnd; int extra; };  /* other members */
struct flags { unsigned int a : 4; unsigned int b : 4; };        /* other bitfields */
enum state { ST_IDLE, ST_RUN = 4 };                               /* other values */
typedef struct { int x; long y; } point_t;                       /* other member type */
typedef int (*cmp_fn)(const void *, void *);                      /* other params */

struct tcp_sock v_tp;
struct flags v_fl;
enum state v_st;
point_t v_pt;
cmp_fn v_cmp;
u32 v_u;
