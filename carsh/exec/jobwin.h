/*
 * A window of jobs in flight (docs/executors.md "What moves when"): a batch's consecutive
 * foreground jobs for one warm worker are sent without waiting for each answer; the answers
 * are collected when the batch needs them (a host step, a job for another worker, its end).
 * The worker runs the jobs in order and stops at the first that fails; the table of where
 * buffers are (data/vhome.h) counts each job as run when it is sent, and is put back where a
 * job did not run or did not end well, so that it says what a job-by-job run would have.
 */
#ifndef CARSH_EXEC_JOBWIN_H
#define CARSH_EXEC_JOBWIN_H

#include <stdbool.h>

#include "exec/execenv.h"
#include "exec/jobplan.h"
#include "exec/workers.h"

struct job_window;

/* Each window has its own hazard group (exec/hazard.h): its jobs never wait for each other.
 * Each job that succeeded passes its statistics to stats(ctx, st) when it is collected. */
struct job_window *jobwin_new(void (*stats)(void *ctx, const struct run_stats *st), void *ctx);
/* Collect it first (jobwin_collect): a window freed with jobs in flight leaves them alone. */
void jobwin_free(struct job_window *w);

/* Whether jp may join a window: a foreground process-executor job in a warm worker, every
 * stream bound to a buffer, a fill or nothing (no file, no standard input or output), no
 * time limit, no device chosen by `auto` (which learns from each job's end). */
bool jobwin_eligible(const struct exec_env *env, const struct job_plan *jp);
/* Whether the window holds a worker (jobs in flight, or the last job's worker kept). */
bool jobwin_open(const struct job_window *w);
/* wk ran an eligible job that succeeded (one that could not be sent, and ran as usual): the
 * window keeps it for the next jobs. */
void jobwin_adopt(struct job_window *w, struct worker *wk);

/* Send jp to the window's worker: 0, and jp is the window's (tag names it at collection); a
 * window without one opens with the worker workers_take gives for jp. 1 when it cannot go
 * there (no worker to be had, a worker that cannot run it, buffers held by another worker or
 * claimed by another job): collect the window and run it as usual. */
int jobwin_send(const struct exec_env *env, struct job_window *w, struct job_plan *jp,
                const struct child_io *io, const void *tag);

/* A host write of the buffer whose shared-memory object is shm (a `virtbuf fill`) about to
 * go between the window's jobs, without collecting them: allowed when the buffer's only
 * current copy is on the window's worker's device (the jobs in flight use that device copy;
 * the jobs sent after the write are told that shared memory is current). The jobs in flight
 * that were told to take it from shared memory are waited for first, and those before them.
 * It is entered in the window like a job, so that a job before it that fails undoes it too:
 * the table says again that the device copy is current (shared memory was stale before the
 * write, so nothing is lost), as if the batch had stopped before the write. Not for a buffer
 * that shared memory holds too: its worker counts shared memory as current for that copy,
 * and a write-back after the undo would copy nothing. Returns the window's hazard group for
 * the write's claim, or 0: collect first. */
uint64_t jobwin_host_write(const struct exec_env *env, struct job_window *w, const char *shm);

/* Wait for every job in flight, in order, and give the worker back. Returns 0, or the
 * status of the first job that failed, with its message in e and its tag in *tag; the jobs
 * after it did not run. Ctrl-C (env->interrupted) is passed on to the worker. At most 16
 * jobs are in flight: a send waits for the oldest beyond that. */
int jobwin_collect(const struct exec_env *env, struct job_window *w, const void **tag,
                   struct cs_err *e);

#endif
