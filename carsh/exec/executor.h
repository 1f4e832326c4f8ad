/*
 * Running job plans with the process executor (DESIGN §5): each flow-model execution is a
 * forked child that stages its data, runs the kernel plan and delivers the outputs. Jobs
 * that use virtual buffers take a hazard claim first (exec/hazard.h).
 */
#ifndef CARSH_EXEC_EXECUTOR_H
#define CARSH_EXEC_EXECUTOR_H

#include <signal.h>
#include <stdio.h>

#include "exec/execenv.h"
#include "exec/hazard.h"
#include "exec/jobplan.h"
#include "exec/jobstatus.h"
#include "exec/jobs.h"
#include "exec/process.h"
#include "data/vhome.h"

/* Run in the foreground and wait. Returns the job's status (0, 1, or 128+signal), with the
 * message in e; *st receives the statistics when *has_stats. */
int exec_plan_foreground(const struct exec_env *env, struct job_plan *jp, const struct child_io *io,
                         struct run_stats *st, bool *has_stats, struct cs_err *e);

/* Start in the background as a job of js. The child is forked at once (so its pid is
 * known) and its hazard claim is registered at once (so the order of commands decides), but
 * it starts only when the buffers it needs are free. label is the job's name ("x.exe.xml"). */
int exec_plan_background(const struct exec_env *env, struct jobs *js, struct job_plan *jp,
                         const char *label, const struct child_io *io, int *id, pid_t *pid,
                         struct cs_err *e);

/* Run fn(arg) in a foreground child (for builtins that need OpenCL, like `devices`). */
int exec_child_foreground(child_fn fn, void *arg, const struct child_io *io,
                          const struct exec_env *env, struct cs_err *e);

/* Both executors' steps around a job's claim. A foreground job registers its claim and waits
 * for it (130 with e set when Ctrl-C came first). A background job registers its claim as
 * the command is issued, named "job [N] LABEL" (jobs_start's on_id), and waits for it in its
 * thread. Waits are announced on env->notices. */
int exec_claim_foreground(const struct exec_env *env, const struct job_plan *jp, struct claim **c,
                          struct cs_err *e);
struct claim *exec_claim_background(struct hazards *hz, const struct job_plan *jp, int id,
                                    const char *label);
void exec_claim_wait(struct hazards *hz, struct claim *c, FILE *notices);

#endif
