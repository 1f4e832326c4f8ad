/*
 * Plans kept for reuse: a batch runs the same executable with the same parameters again and
 * again (the FFT filter: 38 steps from 7 executables), and planning — evaluating every
 * parameter and expression, resolving the bindings — was a third of the shell's work per
 * flow-model on the thread executor. A plan is reused when its executable (the file cache's
 * object, which a changed file replaces) and every parameter the caller's scope holds are
 * those it was made with; its <Buffer> bindings are resolved again each time, since
 * `virtbuf swap` moves the names.
 *
 * Only the shell's own thread uses the cache (foreground jobs of the thread executor), and
 * only plans whose streams are all bound to virtual buffers are kept.
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

#endif
