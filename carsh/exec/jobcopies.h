/* What both executors' resident paths ask of a job's streams and device copies. */
#ifndef CARSH_EXEC_JOBCOPIES_H
#define CARSH_EXEC_JOBCOPIES_H

#include <stdbool.h>
#include <stddef.h>

#include "exec/jobplan.h"
#include "runtime/session.h"
#include "util/error.h"

/* Stream i is bound to a virtual buffer. */
bool job_bound_to_buffer(const struct job_plan *jp, size_t i);
/* Stream i is the input of a swap pair. */
bool job_pair_input(const struct kernel_plan *kp, size_t i);
/* A private device copy of *mem, which replaces it and which the job owns: the swaps of a
 * pair write into its input's buffer, which must not change a buffer the job only reads. */
int job_private_copy(struct rt_dev *dev, cl_mem *mem, size_t bytes, struct cs_err *e);

#endif
