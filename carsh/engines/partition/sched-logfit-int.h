/*
 * LogFit's own state (sched-int.h: a scheduler's private data), shared by its two files:
 * sched-logfit.c, the GPUs' side and the entry, and sched-logfit-cpu.c, the cores' side.
 */
#ifndef CARSH_ENGINES_PARTITION_SCHED_LOGFIT_INT_H
#define CARSH_ENGINES_PARTITION_SCHED_LOGFIT_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "engines/partition/logfit.h"
#include "engines/partition/sched-int.h"

/* One GPU's samples and fit (003 §4 per accelerator: each has its own), kept across steps. */
struct lgpu {
	struct gst *com; /* what every scheduler keeps of it (struct sched's g) */
	struct fit fit;
	double sx[LOGFIT_SAMPLES], sy[LOGFIT_SAMPLES];
	unsigned nsamp;
	unsigned samp_goal; /* samples to take: LOGFIT_SAMPLES, fewer when they cost too much */
	double samp_ms;     /* the samples' time so far */
	bool off;           /* the rest of this step is not worth a chunk of it */
	size_t last;        /* the size of its current or last chunk */
	size_t big_size;    /* its largest chunk in this step */
	double big_lg;      /* that chunk's throughput (of the step before, until there is one) */
};

struct logfit {
	struct learn *learn; /* the cores' cost model (sched-learn.h) */
	struct lgpu *g;      /* per GPU */
	bool cores_out;      /* a core sat out the rest of this step: the GPUs take it all */
	unsigned cpu_fresh;  /* chunks the cores have finished in this step */
	bool primed;         /* started from a known profile: no samples, no fit */
	double primed_lc;    /* the profile's throughput of a core */
	double primed_share; /* the profile's share of the items the GPUs took */
	unsigned step;       /* steps begun */
	bool *out;           /* per core: sits out the rest of this step */
	unsigned *out_step;  /* per core: the step it last sat out in; 0: it took work since */
	bool *probe;         /* per core: its next chunk is a probe (it sat out before) */
	double *out_lg;      /* per core: the GPUs' throughput when it sat out */
	size_t *clast;       /* per core: its last chunk's size */
};

static inline struct logfit *logfit_of(const struct sched *s)
{
	return s->priv;
}

/* The LogFit state of device dev (a GPU). */
static inline struct lgpu *lgpu_of(const struct sched *s, unsigned dev)
{
	return &logfit_of(s)->g[dev - s->c.ncpu];
}

/* The last throughput of GPU g. */
static inline double lgpu_lambda(const struct sched *s, const struct lgpu *g)
{
	return lambda_of(s, g->com);
}

/* sched-logfit-cpu.c: a core's chunk. */
enum sched_answer sched_logfit_cpu(struct sched *s, unsigned dev, struct sched_chunk *out);

#endif
