/*
 * A loop's stop condition (data/until.h) checked on a virtual buffer's current contents:
 * the buffer is read as `virtbuf dump` reads it (after the jobs that write it, from the
 * device copy when that is newer), by the batch's <Repeat until> and `repeat --until`.
 */
#ifndef CARSH_RUNNER_UNTILCHECK_H
#define CARSH_RUNNER_UNTILCHECK_H

#include <stddef.h>

#include "data/params.h"
#include "data/until.h"
#include "runner/context.h"

/* 1 when the condition holds, 0 when it does not (why gets "changed[3] is 1"), -1 on an
 * error (e set: no such buffer, a right-hand side that is not a number, an interrupt).
 * The right-hand side's parameter is looked up in sc. Under MPI every rank calls it and
 * every rank gets rank 0's answer. */
int until_check(struct run_ctx *c, const struct until *u, const struct scope *sc, char *why,
                size_t len, struct cs_err *e);

#endif
