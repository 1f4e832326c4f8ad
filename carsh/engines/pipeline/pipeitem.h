/*
 * The items in flight (000 §III-A, §III-D): a pool of tokens, each holding one set of the
 * item buffers, reused from item to item. A buffer has its host copy and a copy in each
 * buffer space (context) that used it, each marked current or not, like 000's DataBuffer:
 * data moves only when a stage needs it where it is not current, through the host.
 */
#ifndef CARSH_ENGINES_PIPELINE_PIPEITEM_H
#define CARSH_ENGINES_PIPELINE_PIPEITEM_H

#include <pthread.h>
#include <stdbool.h>

#include "engines/pipeline/pipedev.h"
#include "model/pipeplan.h"

#define PITEM_SPACES 3

struct pitem_buf {
	void *host;
	size_t bytes;
	cl_mem mem[PITEM_SPACES];
	unsigned valid; /* bit 0: the host copy; bit 1+s: space s */
};

struct pitem {
	struct pitem_buf *b; /* one per item buffer */
	size_t nb;
	size_t index;  /* the item it holds */
	double t_take; /* when a stream took it from the Input stage (seconds from its start) */
};

struct pitem_pool {
	struct pitem *tok;
	size_t n;
	size_t *free_list;
	size_t nfree;
	size_t limit; /* most tokens out at once (--tokens); training may raise it */
	size_t out;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* How data moves: a queue in the context of buffer space s, and the queue of domain d, where
 * the kernels that read a move run (the caller's thread uses them). */
struct pitem_q {
	cl_command_queue (*queue)(void *arg, unsigned space);
	cl_command_queue (*domain)(void *arg, enum pd_dom d);
	void *arg;
};

int pitem_pool_new(const struct pipe_plan *pp, size_t n, struct pitem_pool **out, struct cs_err *e);
void pitem_pool_free(struct pitem_pool *p);
/* Create every token's buffer in every buffer space now and fill it with zeros: allocating
 * and first touching them in a timed experiment of the training would count in the stages'
 * times. */
int pitem_pool_prepare(struct pitem_pool *p, const struct pipe_devs *dv, const struct pitem_q *q,
                       struct cs_err *e);
/* A free token, waiting while `limit` are out. */
struct pitem *pitem_get(struct pitem_pool *p);
void pitem_put(struct pitem_pool *p, struct pitem *it);

/* The token now holds item index: no buffer holds its data yet. */
void pitem_reset(struct pitem *it, size_t index);

/* Make buffer i of it usable in domain d: its device copy exists and, when read, holds the
 * current data (moved there, through the host, when it does not). The move into the device
 * copy is enqueued on d's queue, not waited for: it is done once that queue is finished, and
 * the host copy must not change before. */
int pitem_ensure(const struct pipe_devs *dv, const struct pitem_q *q, struct pitem *it, size_t i,
                 enum pd_dom d, bool read, cl_mem *mem, struct cs_err *e);
/* A kernel in domain d wrote buffer i: that copy is the current one. */
void pitem_wrote(const struct pipe_devs *dv, struct pitem *it, size_t i, enum pd_dom d);
/* The host copy of buffer i is current after this. */
int pitem_to_host(const struct pipe_devs *dv, const struct pitem_q *q, struct pitem *it, size_t i,
                  struct cs_err *e);
/* The host wrote buffer i. */
void pitem_host_wrote(struct pitem *it, size_t i);

#endif
