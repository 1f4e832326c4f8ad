/*
 * A warm worker's resident buffers (issue 36, docs/executors.md "What moves when"): the
 * device copies of virtual buffers that its jobs used, kept from one job to the next. The
 * shell says, with each job, which of the job's buffers are current here (data/vhome.h);
 * the others are current in shared memory and are copied to the device when the job reads
 * them. What a job writes stays on the device until the shell asks for it back.
 */
#ifndef CARSH_EXEC_WORKERRES_H
#define CARSH_EXEC_WORKERRES_H

#include <stdint.h>

#include "exec/jobplan.h"
#include "exec/planmemo.h"
#include "exec/process.h"
#include "exec/workerwire.h"
#include "runtime/session.h"

struct wres;

struct wres *wres_new(void);
void wres_free(struct wres *w);

/* Run jp on s: streams bound to virtual buffers on the device copies (homes: one per
 * argument), the others staged from and delivered to their files. The statistics and the
 * message go to res; returns the job's exit status, 0 or 1. Unless profile (its times are
 * read), a job whose outputs all stay on the device returns with its kernels queued: the
 * in-order queue orders the next job, and a fault is found at the next wait — the next job
 * that waits (an output on the host) or write-back fails with it. bound: the device and
 * kernel kept with a kept plan (exec/planmemo.h), used when set and set when not; NULL:
 * looked up in s. */
int wres_run(struct wres *w, struct rt_session *s, struct job_plan *jp, struct plan_bound *bound,
             const struct job_home *homes, bool profile, struct job_result *res);

/* Write the copy of shm at generation gen back to its shared memory, after the work
 * queued for it. */
int wres_write_back(struct wres *w, const char *shm, uint64_t gen, struct cs_err *e);

/* Narrow the copy of shm (a float buffer) at generation gen into its pixels
 * (data/vpixels.h) on its device, after the work queued for it. */
int wres_narrow(struct wres *w, const char *shm, uint64_t gen, struct cs_err *e);

/* Wait for the work jobs left queued: -1 with e when it failed (wres_faulted is then true). */
int wres_finish(struct wres *w, struct cs_err *e);

/* Whether queued work failed: the device copies here are not to be trusted, and the worker
 * ends after its answer (what it held is lost, as with a worker that crashed). */
bool wres_faulted(const struct wres *w);

/* Release the device copies of shm (NULL: of every buffer). */
void wres_drop(struct wres *w, const char *shm);

#endif
