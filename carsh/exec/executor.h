/*
 * Running job plans (the process executor, DESIGN §5): each flow-model execution is a forked
 * child that stages its data, runs the kernel plan and delivers the outputs.
 */
#ifndef CARSH_EXEC_EXECUTOR_H
#define CARSH_EXEC_EXECUTOR_H

#include <signal.h>

#include "exec/jobplan.h"
#include "exec/jobs.h"
#include "exec/process.h"

/* Run in the foreground and wait. Returns the job's status (0, 1, or 128+signal), with the
 * message in e; *st receives the statistics when *has_stats. */
int exec_plan_foreground(struct job_plan *jp, const struct child_io *io,
                         volatile sig_atomic_t *interrupted, struct run_stats *st, bool *has_stats,
                         struct cs_err *e);

/* Start in the background as a job of js; *id and *pid identify it. */
int exec_plan_background(struct jobs *js, struct job_plan *jp, const char *label,
                         const struct child_io *io, int *id, pid_t *pid, struct cs_err *e);

/* Run fn(arg) in a foreground child (for builtins that need OpenCL, like `devices`). */
int exec_child_foreground(child_fn fn, void *arg, const struct child_io *io,
                          volatile sig_atomic_t *interrupted, struct cs_err *e);

#endif
