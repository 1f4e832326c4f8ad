/*
 * One item through the pipeline (000 §II, §III-E): the serial Input stage (the item's number,
 * and its file read in order), every parallel stage where the policy sends it as the item
 * reaches it, and the item's result brought to the host for the serial Output stage (a CSV
 * file, written by whoever the caller says). Under DP an item whose first stage finds the GPU idle
 * stays on the GPU for every stage; under CP each stage mapped to the GPU takes it when it is idle;
 * an item that finds the GPU busy goes on on the CPU — a core the thread leases (CG) or the whole
 * CPU device, one item at a time (MG). The baseline of 000 §VI-B waits for the GPU instead.
 *
 * Cores are leased, not owned: a thread takes the least used core for an item's CPU stages
 * and gives it back when the item leaves the CPU, so that n threads on the CPU use n
 * different cores (n <= nC) whichever of them is the GPU thread; nC+1 threads share one core
 * (000's oversubscription).
 *
 * A generator makes item i from its number alone: it is no serial work, and runs as the
 * first part of the item's first stage, on that stage's device (its time counts in that
 * stage's), so that a GPU item is made on the GPU and a CPU item on its thread's own core —
 * no thread waits for another's kernel to get its input (PoCL 3's pthread device runs a
 * single-core sub-device's commands on that core's thread only).
 */
#ifndef CARSH_ENGINES_PIPELINE_PIPESTAGE_H
#define CARSH_ENGINES_PIPELINE_PIPESTAGE_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

#include "engines/pipeline/pipedev.h"
#include "engines/pipeline/pipeitem.h"
#include "engines/pipeline/pipemodel.h"

struct prun_env {
	const struct pipe_plan *pp;
	const struct pipe_devs *dv;
	struct pd_slot *slots; /* nC+1 of them */
	unsigned nslots;
	struct pitem_pool *pool;
	volatile sig_atomic_t *interrupted; /* Ctrl-C, or NULL */
	pthread_mutex_t gpu;                /* held while a stage runs on the GPU */
	pthread_mutex_t mg;                 /* held while a stage runs on the whole CPU */
	pthread_mutex_t cores;              /* guards users */
	unsigned *users;                    /* per CG core: the threads holding it */
	/* Called (under the run's lock) as items complete; may be NULL. */
	void (*progress)(void *arg, size_t done);
	void *progress_arg;
};

struct prun_policy {
	struct pm_config c;
	bool strict;  /* GPU stages wait for the GPU instead of falling back (the baseline) */
	bool gpu_all; /* the GPU experiment: every stage that may runs on the GPU, waiting */
	bool xfer;    /* time GPU stages' transfers apart (and move every stage's data) */
	double delay; /* seconds a stream's worker waits after each item: the test hook
	                 CARSH_PIPELINE_SKEW's +MS (docs/pipeline.md); 0 else */
};

/* Times of one item, seconds. */
struct prun_item {
	double t_in;                   /* the serial Input stage */
	double stage[PIPE_MAX_STAGES]; /* the kernel, with its transfers unless xfer (and the
	                                  generator's kernel in the first) */
	double h2d[PIPE_MAX_STAGES], d2h[PIPE_MAX_STAGES];
	double wall; /* the whole item in pstage_item: stages, waits, the result to the host */
	bool gpu;    /* some stage ran on the GPU */
};

/* A worker thread: its slot, under a policy, and the core it holds. */
struct pworker {
	struct prun_env *env;
	const struct prun_policy *pol;
	struct pd_slot *slot;
	int core;      /* the CG core this thread holds now, or -1 */
	unsigned last; /* the core it held last: preferred among the least used */
	int pin;       /* >= 0: always this core (the warm-up) */
};

void pworker_init(struct pworker *w, struct prun_env *env, const struct prun_policy *pol,
                  struct pd_slot *slot, unsigned home);
/* Give the held core back (nothing when none is held). */
void pworker_release(struct pworker *w);
/* How this thread moves item buffers (engines/pipeline/pipeitem.h). */
struct pitem_q pworker_queues(struct pworker *w);

/* The serial Input stage: the token now holds item index; a file source's file is read into
 * its host copy. Host work only: any thread may run it. */
int pstage_read(const struct pipe_plan *pp, struct pitem *it, size_t index, struct cs_err *e);

/* The parallel stages (a generator's kernel first), times into rec; then the sink's buffer
 * to the host, and the core given back. */
int pstage_item(struct pworker *w, struct pitem *it, struct prun_item *rec, struct cs_err *e);

/* The serial Output stage: the token's result (on the host after pstage_item) to its file.
 * Host work only: any thread may run it. */
int pstage_write(const struct pipe_plan *pp, struct pitem *it, struct cs_err *e);

#endif
