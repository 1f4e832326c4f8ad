/*
 * The measurement collection step of the training phase (000 §IV-A, Tables I and II): nC+3
 * homogeneous experiments on the stream's own items — CG with 1 thread (time and energy per
 * stage), CG with n = 2 .. nC+1 threads processing n items at once (time and energy per
 * item), one item on the GPU and one item MG on the whole CPU (per stage; each one-item
 * experiment three times, for the median), nC - 1 CG items beside a thread that feeds the GPU
 * (per stage) — and the serial stages' times on the way.
 * Without a GPU: CG with 1 .. nC threads and MG.
 */
#ifndef CARSH_ENGINES_PIPELINE_PIPETRAIN_H
#define CARSH_ENGINES_PIPELINE_PIPETRAIN_H

#include "engines/pipeline/piperun.h"

struct ptrain {
	size_t first; /* the first item it used */
	size_t items; /* how many it processed (they are done: written to the sink) */
	double ms;
	bool complete; /* false: the stream ended before the last experiment */
	struct pm_meas m;
};

/* The one-item experiments (CG with one thread, the GPU, MG) run this many items one after
 * the other and keep each stage's median: one item of a fraction of a millisecond is at the
 * mercy of one late wake-up. */
#define PTRAIN_REPEAT 3

/* N_s: the items a complete training processes: 000 §IV-B's (nC+2)(nC+1)/2 + 2 with a GPU,
 * nC(nC+1)/2 + 1 without, plus PTRAIN_REPEAT - 1 for each one-item experiment. */
size_t ptrain_items(const struct pm_shape *sh);

/* The items of the CG experiment beside the GPU: nC - 1 threads on cores while one more feeds
 * the GPU (a coupled run of nC threads); none without a GPU or with one core. */
size_t ptrain_beside(const struct pm_shape *sh);

/* T^CG(n) from n items started together: the time per item of n threads that go on taking
 * items, 1 / Σ 1/R_i, where R_i is item i's wall time. Not the batch's wall time over n:
 * with one core slower, or two threads sharing one (nC+1 threads), the last item would set
 * the time of all, while in a running phase each thread takes its next item as soon as its
 * own is done. */
double ptrain_time_per_item(const struct prun_item *rec, size_t n);

/* Train on items first .. end-1 (as many as it needs). meter: NULL when energy is not
 * measured. label(arg, what) announces each experiment (may be NULL). */
int ptrain_run(struct prun_env *env, const struct pm_shape *sh, size_t first, size_t end,
               struct energy_meter *meter, double tdp, void (*label)(void *, const char *),
               void *arg, struct ptrain *t, struct cs_err *e);

#endif
