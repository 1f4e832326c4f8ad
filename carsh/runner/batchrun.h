/* Running a batch (DESIGN §3.4). */
#ifndef CARSH_RUNNER_BATCHRUN_H
#define CARSH_RUNNER_BATCHRUN_H

#include "data/params.h"
#include "runner/context.h"

/* Run the batch file path with the parameters args (strongest) in context c: its steps in
 * order, stopping at the first that fails; the background jobs it started end before it
 * does. Returns the status with every file:line on the way in e. */
int batch_run_file(struct run_ctx *c, const char *path, const struct params *args,
                   struct cs_err *e);

#endif
