/*
 * Running items under one configuration with worker threads (engines/pipeline/pipestage.h says how
 * one item runs). Two ways: a stream (the running phase, and --validate's runs), where the
 * threads take items from the serial Input stage in order, carry each through the stages and
 * hand it to the serial Output stage, a thread of its own that writes the results while the
 * workers go on; and a batch of n items started at once (the homogeneous experiments of the
 * training phase, 000 §IV-A).
 */
#ifndef CARSH_ENGINES_PIPELINE_PIPERUN_H
#define CARSH_ENGINES_PIPELINE_PIPERUN_H

#include <stdbool.h>

#include "engines/energy.h"
#include "engines/pipeline/pipestage.h"

struct prun_batch {
	double wall;              /* from the start of the n threads to the end of the last */
	double total;             /* the whole experiment, serial stages included */
	double t_in, t_out;       /* summed over the items */
	double cpu;               /* the worker threads' CPU time, summed (seconds) */
	struct prun_item *rec;    /* n of them (free it) */
	struct energy_reading en; /* over the wall time */
};

/* n items, first .. first+n-1: loaded one after the other, processed by n threads started
 * together (thread i on slot i, each on a core of its own up to nC), written one after the
 * other. m may be NULL. */
int prun_batch(struct prun_env *env, const struct prun_policy *pol, size_t first, size_t n,
               struct energy_meter *m, struct prun_batch *out, struct cs_err *e);

/* The GPU's feeder's items beside a batch, wall time in pstage_item, seconds (0: none). */
struct prun_fed {
	double item;   /* the mean item beside the batch's n threads */
	double median; /* the median of those items */
	double alone;  /* the median of three items alone, back to back, before the batch started */
};

/* The same n items with one more thread beside them that feeds the GPU, item after item,
 * from before the n start until they are done (the training's CG experiment beside the GPU):
 * it runs item first through every stage on the GPU again and again on slot n and throws its
 * results away, so it uses no item of the stream. Its first item warms up, untimed; three
 * more run alone before the n start. n + 1 slots needed. */
int prun_batch_beside(struct prun_env *env, const struct prun_policy *pol, size_t first, size_t n,
                      struct energy_meter *m, struct prun_batch *out, struct prun_fed *fed,
                      struct cs_err *e);

/* The same n items run by one thread, one right after the other (the training's one-item
 * experiments): what a thread that goes on taking items sees, where n items started apart
 * would each pay a device's waking up (an NVIDIA GPU's item took twice its steady time). */
int prun_sequence(struct prun_env *env, const struct prun_policy *pol, size_t first, size_t n,
                  struct energy_meter *m, struct prun_batch *out, struct cs_err *e);

/* Asked after every completion (under the run's lock): true stops taking new items. t:
 * seconds since the run started, done: items completed so far. */
typedef bool (*prun_stop_fn)(void *arg, double t, size_t done);

/* What bounds a stream besides its items. */
struct prun_limits {
	size_t tokens;     /* most items in flight (read and not yet written) */
	double deadline;   /* seconds from the start after which no item is taken; 0: none */
	prun_stop_fn stop; /* may be NULL */
	void *stop_arg;
};

/* The items of a stream on one of 000's two paths (§V-B): those with a stage on the GPU, or
 * the others; their summed times in pstage_item and in each stage (prun_item's). */
struct prun_path {
	size_t items;
	double wall;
	double stage[PIPE_MAX_STAGES];
};

struct prun_stream {
	size_t done;    /* items completed: first .. first+done-1 */
	double wall;    /* seconds */
	double *t_done; /* completion times, seconds from the start, ascending (malloc'ed) */
	double *t_take; /* when each of those items was taken from the Input stage (malloc'ed) */
	double t_fed;   /* when the Input stage stopped giving items (source, deadline or stop) */
	double t_in, t_out;
	struct prun_path gpu, cpu; /* where the items went */
	bool stopped;              /* stop() asked for it */
	struct energy_reading en;
};

/* Items first .. end-1 with the policy's threads, as lim bounds them. Returns 0, 1 on a
 * failure, 130 when interrupted. Free out->t_done and out->t_take. */
int prun_stream(struct prun_env *env, const struct prun_policy *pol, size_t first, size_t end,
                const struct prun_limits *lim, struct energy_meter *m, struct prun_stream *out,
                struct cs_err *e);

/* Run item index through every stage on each core, and on the whole CPU and the GPU with
 * every slot's queues, once, and throw the results away: PoCL and others compile a kernel
 * for its work-group size at its first launch, and a queue's first launches cost more. */
int prun_warm_up(struct prun_env *env, size_t index, struct cs_err *e);

/* Run item index through every stage on the GPU n times with the first slot's queues and throw
 * the results away: the GPU that the CG experiments left idle for a while runs its first
 * items below its clocks, and the GPU experiment times items of a GPU that streams. */
int prun_warm_gpu(struct prun_env *env, size_t index, unsigned n, struct cs_err *e);

/* The number of worker threads of a policy. */
unsigned prun_threads(const struct prun_env *env, const struct prun_policy *pol);

#endif
