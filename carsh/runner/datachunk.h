/*
 * Streams of any length: a flow-model whose every stream is split by work-item (1-D, each
 * count the work size, no Local, no swap) runs over a CSV standard input too long to count
 * whole as a series of jobs, one a chunk of whole lines, in constant memory.
 */
#ifndef CARSH_RUNNER_DATACHUNK_H
#define CARSH_RUNNER_DATACHUNK_H

#include <stddef.h>
#include <stdio.h>

#include "data/params.h"
#include "model/exe.h"
#include "util/error.h"

/* 0 when exe can run in chunks with `endless` reading standard input, else -1 with why in
 * why ("stream 'y' has count 'N*2', not the work size 'N'"). */
int datachunk_why_not(const struct exe *exe, const struct fm_arg *endless, char *why, size_t len);

/* One chunk's job, its input in `in` and its count already in the parameters. */
typedef int (*chunk_fn)(void *arg, FILE *in, struct cs_err *e);

/* Read head, then rest, in chunks of whole lines of at most CARSH_CHUNK_BYTES bytes (16 MiB
 * by default); for each, set the count parameter in args and call run. */
int datachunk_run(const struct fm_arg *endless, FILE *head, FILE *rest, struct params *args,
                  chunk_fn run, void *arg, struct cs_err *e);

#endif
