/*
 * Plans kept for reuse: a batch runs the same executable with the same parameters again and
 * again (the FFT filter: 38 steps from 7 executables), and planning — evaluating every
 * parameter and expression, resolving the bindings — was a third of the shell's work per
 * flow-model on the thread executor. A plan is reused when its executable (the file cache's
 * object, which a changed file replaces) and every parameter the caller's scope holds are
 * those it was made with; its <Buffer> bindings are resolved again each time, since
 * `virtbuf swap` moves the names.
 *
 * Only the shell's own thread uses the cache (foreground jobs of the thread executor, and the
 * process executor's jobs of a batch), and only plans whose streams are all bound to virtual
 * buffers are kept.
 */
#ifndef CARSH_RUNNER_PLANCACHE_H
#define CARSH_RUNNER_PLANCACHE_H

#include "data/vbuf.h"
#include "exec/jobplan.h"
#include "model/exe.h"
#include "model/planner.h"

struct plancache;

struct plancache *plancache_new(void);
void plancache_free(struct plancache *pc);

/* A plan for exe under env, as plan_exe makes it; env resolves <Buffer> names in vbufs. *kept
 * tells whether the cache keeps it (then the caller must not free it, and must not keep it
 * past the job). */
int plancache_plan(struct plancache *pc, struct vbuf_table *vbufs, const struct exe *exe,
                   const struct plan_env *env, struct job_plan **jp, bool *kept, struct cs_err *e);

/* As plancache_plan, for the process executor's jobs of a batch's window, which keep their
 * plan while they are in flight: a plan kept is lent (several copies of one, one to each job
 * in flight), and job_plan_free gives it back (exec/jobplan.h); a plan not kept is the
 * caller's. Either way the caller frees *jp when the job is done with it. */
int plancache_lend(struct plancache *pc, struct vbuf_table *vbufs, const struct exe *exe,
                   const struct plan_env *env, struct job_plan **jp, struct cs_err *e);

#endif
