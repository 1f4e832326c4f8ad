/* Statistics of foreground jobs, for `time` and `set stats=on`. */
#ifndef CARSH_RUNNER_STATS_H
#define CARSH_RUNNER_STATS_H

#include <stdbool.h>
#include <stdio.h>

#include "runner/context.h"

/* Add one job's statistics. */
void stats_add(struct stats_acc *acc, const struct run_stats *st);
/* Add the device times of work that completed after its job returned (thread executor). */
void stats_add_queued(struct stats_acc *acc, const struct run_stats *st);
/* A job whose device `auto` chose, and why (`time` prints the last). */
void stats_place(struct stats_acc *acc, const char *why);
/* Add everything src holds to dst (a nested `time`). */
void stats_merge(struct stats_acc *dst, const struct stats_acc *src);
/* The wall time (when >= 0), the jobs and, when profiled, their OpenCL times. */
void stats_print(FILE *f, const struct stats_acc *acc, double wall_ms, bool profiled);
/* The same as one JSON object on one line (`time --json`). */
void stats_print_json(FILE *f, const struct stats_acc *acc, double wall_ms, bool profiled);

/* Wait for the thread executor's work queued by this context's jobs, adding its times to
 * c->stats; its error, if any, goes to e. */
int run_flush(struct run_ctx *c, struct cs_err *e);

#endif
