/*
 * Inside the chunk schedulers (sched.h): the state they share and the helpers more than one
 * of them calls. sched.c holds the interface and hands each call to the running scheduler's
 * entry (struct sched_ops), one file each: sched-logfit.c (with sched-logfit-cpu.c, the
 * cores' side), sched-static.c (static, cpu, gpu), sched-concord.c, sched-hdss.c,
 * sched-marrow.c. What they share: sched-chunk.c (rounding to the granule, taking a chunk),
 * sched-lambda.c (the devices' throughputs), sched-cost.c (the cores' fixed cost per chunk,
 * and the smallest chunk it allows), sched-map.c (what each region costs a core),
 * sched-split.c (a split made in advance, the
 * GPUs' part shared among them).
 */
#ifndef CARSH_ENGINES_PARTITION_SCHED_INT_H
#define CARSH_ENGINES_PARTITION_SCHED_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "engines/partition/logfit.h"
#include "engines/partition/sched.h"

/* HDSS keeps every training sample of a step (sched-hdss.c). */
#define HDSS_MAX_SAMPLES 64

struct range {
	size_t next, end;
};

/* One GPU's part of logfit's state (003 §4 per accelerator: each has its own samples and
 * fit), kept across steps; hdss keeps its pooled fit in the first GPU's. */
struct gst {
	unsigned neu;
	struct range r; /* its part of a split (static, concord, marrow, gpu) */
	double sx[LOGFIT_SAMPLES], sy[LOGFIT_SAMPLES];
	unsigned nsamp;
	bool fitted;
	double a, b, grec;
	bool off;           /* the rest of this step is not worth a chunk of it */
	bool running;       /* it has a chunk (handed out, not done) */
	unsigned samp_goal; /* samples to take: LOGFIT_SAMPLES, fewer when they cost too much */
	double samp_ms;     /* the samples' time so far */
	size_t last;        /* the size of its current or last chunk */
	size_t items;       /* its items in this step */
	size_t big_size;    /* its largest chunk in this step */
	double big_lg;      /* that chunk's throughput (of the step before, until there is one) */
};

/* The cores' fixed cost per chunk over the run (sched-cost.c). */
struct cost {
	double n;     /* chunks that reported one */
	double fixed; /* their fixed costs, ms */
	double rest;  /* the rest of their time, ms */
	double items; /* their items */
};

/* The cores' cost of each region of the space, from the steps before (sched-map.c). */
struct cmap {
	size_t bin; /* items a region: a multiple of the granule */
	size_t n;   /* regions; 0: the scheduler keeps no map */
	double *ms; /* per region: a core's ms an item besides its fixed cost; < 0: unknown */
	double *sum_ms, *sum_items; /* per region, in this step: the cores' chunks on it */
	double *cum;                /* n + 1: the cost of regions [0, i), for this step */
	bool ready;                 /* cum holds a map for this step */
};

/* A scheduler's entry: what it adds to the interface's calls (sched.h), each after the
 * bookkeeping every scheduler shares (sched.c). A NULL hook: nothing to add (uses: every
 * device takes part; next: nothing for anyone; profile: nothing learnt). */
struct sched_ops {
	void (*init)(struct sched *s); /* before the first step */
	void (*step_begin)(struct sched *s);
	enum sched_answer (*next)(struct sched *s, unsigned dev, struct sched_chunk *out);
	/* lambda: the chunk's throughput, items/ms */
	void (*done)(struct sched *s, unsigned dev, const struct sched_chunk *c, double lambda);
	void (*step_end)(struct sched *s);
	void (*prime)(struct sched *s, const struct sched_prior *p); /* share is 0 to 1 */
	bool (*profile)(const struct sched *s, struct sched_prior *p);
	bool (*uses)(const struct sched *s, unsigned dev);
	/* A device's copy-stream time goes into its first chunk after the samples (sched_copied) */
	bool counts_copies;
};

extern const struct sched_ops sched_logfit_ops, sched_static_ops, sched_concord_ops, sched_hdss_ops,
        sched_cpu_ops, sched_gpu_ops, sched_marrow_ops;

struct sched {
	struct sched_cfg c;
	enum sched_kind kind; /* what runs: the requested kind, or its fallback */
	const struct sched_ops *ops;
	unsigned ndev, ng;  /* devices; GPUs (devices ncpu .. ncpu+ng-1) */
	struct range pool;  /* the front of the space still to hand out */
	struct range cpu_r; /* the cores' part of a split (static, concord, marrow) */
	struct range gpool; /* the GPUs' part, while they share it in chunks (sched_split_gpus) */
	bool gshared;
	size_t gpart; /* its size: a GPU's chunk of it is at least an eighth of a GPU's share */
	bool split;
	size_t assigned; /* items handed out in this step */
	double *lambda;  /* each device's last throughput, items/ms; 0: not measured yet */
	struct gst *g;   /* per GPU */
	double *w;       /* per GPU: weights of a split (scratch) */
	size_t *bound;   /* ng + 1: the split's bounds (scratch) */

	/* logfit */
	bool cores_out;        /* a core sat out the rest of this step: the GPUs take it all */
	unsigned cpu_fresh;    /* chunks the cores have finished in this step */
	bool primed;           /* started from a known profile: no samples, no fit */
	double primed_lc;      /* the profile's throughput of a core */
	double primed_share;   /* the profile's share of the items the GPUs took */
	bool *out;             /* per core: sits out the rest of this step */
	unsigned *out_step;    /* per core: the step it last sat out in; 0: it took work since */
	unsigned step;         /* steps begun */
	bool *probe;           /* per core: its next chunk is a probe (it sat out before) */
	double *out_lg;        /* per core: the GPUs' throughput when it sat out */
	size_t *clast;         /* per core: its last chunk's size */
	double *cdone;         /* per core: items of its chunks in this step */
	double *cms;           /* per core: ms of its chunks in this step (core_lambda) */
	double *busy;          /* per device: ms in chunks in this step */
	double *copy_ms;       /* per device: its copy streams' time, not yet in a chunk's */
	struct cost cost;      /* the cores' fixed cost per chunk, in the steps done */
	struct cost cost_step; /* in this step */
	double *fixed_ms;      /* per core: its next chunk's fixed cost (< 0: none) */
	double ctail;          /* the cores' equal chunk at this step's end */
	bool learn_cost;       /* logfit, marrow: cores' chunks cover their fixed cost, and
	                        * are sized by the cost map */
	struct cmap map;       /* logfit, marrow */
	size_t widest;         /* the largest chunk handed out in the run (sched_map_cap) */
	double *work,
	        *work_ms; /* per device, in this step: the map's cost of its chunks, their ms */
	double *pace;     /* per device: the last step's work / work_ms (0: none) */

	/* marrow: the split, kept across steps */
	double share, delta, best_share, best_ms, lbt, last_tg, last_tc;
	bool searching, shifting;
	int dir;
	unsigned same;

	/* concord: the GPUs' fraction, kept across steps */
	bool have_frac;
	double frac, prev_frac;

	/* hdss: nothing kept across steps; the GPUs are one pool */
	bool training;
	double hx[HDSS_MAX_SAMPLES], hy[HDSS_MAX_SAMPLES];
	unsigned nh;
	double rel, prev_rel;
	unsigned *cpu_k; /* training chunks each core has had */
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
enum sched_answer sched_take_guided(struct sched *s, struct range *r, enum sched_phase ph,
                                    struct sched_chunk *out);
double sched_sample(const struct sched *s, const struct gst *g, unsigned k);
double sched_first_sample(const struct sched *s, const struct gst *g);

/* ---- sched-lambda.c ---- */

double sched_cpu_mean(const struct sched *s);
double sched_cpu_lambda(const struct sched *s, unsigned dev);
double sched_cpu_total(const struct sched *s);
double sched_gpu_lambda(const struct sched *s);

/* ---- sched-cost.c ---- */

void sched_cost_init(struct sched *s); /* no fixed cost reported yet */
/* Returns the chunk's time besides its fixed cost (< 0: none was reported). */
double sched_cost_add(struct sched *s, unsigned dev, size_t items, double ms);
/* The least time a core's chunk of one granule takes at throughput lc: its items at lc, and
 * never less than the fixed cost of a chunk. */
double sched_least_chunk_ms(const struct sched *s, double lc);
/* A step begins: the last one's chunks join the steps done. */
void sched_cost_step(struct sched *s);
/* The smallest chunk whose fixed cost is at most a quarter of its time, at the cores' mean
 * cost an item (0: none learnt, or the scheduler does not learn it). */
double sched_cost_min_chunk(const struct sched *s);
/* That chunk's time besides its fixed cost, ms (0: none). */
double sched_cost_min_ms(const struct sched *s);

/* ---- sched-map.c ---- */

void sched_map_init(struct sched *s); /* learn_cost: the map, empty */
void sched_map_free(struct sched *s);
void sched_map_add(struct sched *s, const struct sched_chunk *c, double ms);
/* A step begins: the map for it from the chunks of the steps before. */
void sched_map_step(struct sched *s);
bool sched_map_ready(const struct sched *s);
/* With a map ready: a core's ms for items [from, to), and the items from on that take ms. */
double sched_map_cost(const struct sched *s, size_t from, size_t to);
double sched_map_reach(const struct sched *s, size_t from, double ms);
/* A device ran chunk c in ms: the map's cost of it counts in the device's pace. */
void sched_map_pace(struct sched *s, unsigned dev, const struct sched_chunk *c, double ms);
/* The GPU's share by cost of the items from `from` to the step's end: its pace against the
 * cores' (those for which counts says yes), as the items from `from` on; 0 where the map or a
 * pace is missing. */
double sched_map_gpu_share(const struct sched *s, unsigned gpu_dev, const bool *counts,
                           size_t from);
/* items, no more than the widest chunk so far or guided self-scheduling's first. */
double sched_map_cap(const struct sched *s, double items);

/* ---- sched-split.c ---- */

void sched_split_gpus(struct sched *s, size_t begin, size_t n, bool measured);
void sched_split_static(struct sched *s, double share, bool measured);
enum sched_answer sched_take_part(struct sched *s, unsigned dev, enum sched_phase ph,
                                  struct sched_chunk *out);

/* ---- sched-logfit-cpu.c ---- */

enum sched_answer sched_logfit_cpu(struct sched *s, unsigned dev, struct sched_chunk *out);

#endif
