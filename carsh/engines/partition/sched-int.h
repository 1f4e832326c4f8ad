/*
 * Inside the chunk schedulers (sched.h): the state they share and the helpers more than one
 * of them calls. sched.c holds the interface and hands each call to the running scheduler's
 * entry (struct sched_ops), one file each, each with its own state: sched-logfit.c (with
 * sched-logfit-cpu.c, the cores' side, and sched-logfit-int.h, their state), sched-static.c
 * (static, cpu, gpu), sched-concord.c, sched-hdss.c, sched-marrow.c. What they share:
 * sched-chunk.c (rounding to the granule, taking a chunk), sched-lambda.c (the devices'
 * throughputs), sched-split.c (a split made in advance, the GPUs' part shared among them).
 * LogFit and Marrow (and the cpu scheduler standing in for them) own a model of the cores'
 * cost, sched-learn.h: reached through them only.
 */
#ifndef CARSH_ENGINES_PARTITION_SCHED_INT_H
#define CARSH_ENGINES_PARTITION_SCHED_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "engines/partition/sched.h"

struct learn;

struct range {
	size_t next, end;
};

/* What every scheduler keeps of one GPU: its compute units, its part of a split, and what
 * it did in this step. */
struct gst {
	unsigned neu;
	struct range r; /* its part of a split (static, concord, marrow, gpu) */
	bool running;   /* it has a chunk (handed out, not done) */
	size_t items;   /* its items in this step */
};

/* A log fit of a GPU's throughput against its chunk size and the chunk it recommends
 * (logfit per GPU, hdss for the GPUs' pool). */
struct fit {
	bool fitted;
	double a, b, grec;
};

/* A scheduler's entry: the calls of the interface (sched.h) it answers, each after the
 * bookkeeping every scheduler shares (sched.c), and its private state in s->priv, which
 * init makes and fini frees. A NULL hook: nothing to add (uses: every device takes part;
 * next: nothing for anyone; profile: nothing learnt; learner: no cost model; fit: none). */
struct sched_ops {
	void (*init)(struct sched *s); /* before the first step */
	void (*fini)(struct sched *s);
	void (*step_begin)(struct sched *s);
	enum sched_answer (*next)(struct sched *s, unsigned dev, struct sched_chunk *out);
	/* ms: the chunk's time (copies included where counted); lambda: its items/ms */
	void (*done)(struct sched *s, unsigned dev, const struct sched_chunk *c, double ms,
	             double lambda);
	void (*step_end)(struct sched *s);
	void (*prime)(struct sched *s, const struct sched_prior *p); /* share is 0 to 1 */
	bool (*profile)(const struct sched *s, struct sched_prior *p);
	bool (*uses)(const struct sched *s, unsigned dev);
	/* The cores' cost model the scheduler owns (sched-learn.c), NULL where it keeps none. */
	struct learn *(*learner)(const struct sched *s);
	/* GPU gpu's fit, NULL where there is none. */
	const struct fit *(*fit)(const struct sched *s, unsigned gpu);
	/* A device's copy-stream time goes into its first chunk after the samples (sched_copied) */
	bool counts_copies;
};

extern const struct sched_ops sched_logfit_ops, sched_static_ops, sched_concord_ops, sched_hdss_ops,
        sched_cpu_ops, sched_gpu_ops, sched_marrow_ops;

/* What every scheduler shares; what one keeps for itself is in priv (struct sched_ops). */
struct sched {
	struct sched_cfg c;
	enum sched_kind kind; /* what runs: the requested kind, or its fallback */
	const struct sched_ops *ops;
	void *priv;         /* the running scheduler's own state */
	unsigned ndev, ng;  /* devices; GPUs (devices ncpu .. ncpu+ng-1) */
	struct range pool;  /* the front of the space still to hand out */
	struct range cpu_r; /* the cores' part of a split (static, concord, marrow) */
	struct range gpool; /* the GPUs' part, while they share it in chunks (sched_split_gpus) */
	bool gshared;
	size_t gpart;    /* its size: a GPU's chunk of it is at least an eighth of a GPU's share */
	size_t assigned; /* items handed out in this step */
	size_t widest;   /* the largest chunk handed out in the run (sched_widest_known) */
	double *lambda;  /* each device's last throughput, items/ms; 0: not measured yet */
	struct gst *g;   /* per GPU */
	double *w;       /* per GPU: weights of a split (scratch) */
	size_t *bound;   /* ng + 1: the split's bounds (scratch) */
	double *cdone;   /* per core: items of its chunks in this step */
	double *cms;     /* per core: ms of its chunks in this step (core_lambda) */
	double *busy;    /* per device: ms in chunks in this step */
	double *copy_ms; /* per device: its copy streams' time, not yet in a chunk's */
};

static inline bool is_gpu(const struct sched *s, unsigned dev)
{
	return s->c.gpu && dev >= s->c.ncpu && dev < s->ndev;
}

/* The GPU state of device dev (a GPU). */
static inline struct gst *gpu_of(struct sched *s, unsigned dev)
{
	return &s->g[dev - s->c.ncpu];
}

static inline size_t left(const struct range *r)
{
	return r->end - r->next;
}

/* The last throughput of GPU g. */
static inline double lambda_of(const struct sched *s, const struct gst *g)
{
	return s->lambda[s->c.ncpu + (unsigned)(g - s->g)];
}

/* ---- sched-chunk.c ---- */

size_t sched_round_chunk(const struct sched *s, double x, size_t avail);
size_t sched_floor_chunk(const struct sched *s, double x, size_t avail);
enum sched_answer sched_take(struct sched *s, struct range *r, size_t n, enum sched_phase ph,
                             struct sched_chunk *out);
/* l: the scheduler's cost model (sched-learn.h), NULL where it keeps none. */
enum sched_answer sched_take_guided(struct sched *s, struct learn *l, struct range *r,
                                    enum sched_phase ph, struct sched_chunk *out);
double sched_sample(const struct sched *s, const struct gst *g, unsigned k);
double sched_first_sample(const struct sched *s, const struct gst *g);

/* ---- sched-lambda.c ---- */

double sched_cpu_mean(const struct sched *s);
double sched_cpu_lambda(const struct sched *s, unsigned dev);
double sched_cpu_total(const struct sched *s);
double sched_gpu_lambda(const struct sched *s);

/* ---- sched-split.c ---- */

void sched_split_gpus(struct sched *s, size_t begin, size_t n, bool measured);
void sched_split_static(struct sched *s, double share, bool measured);
enum sched_answer sched_take_part(struct sched *s, unsigned dev, enum sched_phase ph,
                                  struct sched_chunk *out);

#endif
