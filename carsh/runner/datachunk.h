/*
 * Streams of any length: a flow-model whose every stream is split by work-item (1-D, each
 * count the work size, no Local, no swap) runs over a CSV standard input too long to count
 * whole as a series of jobs, one a chunk of whole lines, in constant memory, the reading and
 * parsing of the next chunk overlapped with the current one's job.
 */
#ifndef CARSH_RUNNER_DATACHUNK_H
#define CARSH_RUNNER_DATACHUNK_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "data/params.h"
#include "model/exe.h"
#include "util/error.h"

/* 0 when exe can run in chunks with `endless` reading standard input, else -1 with why in
 * why ("stream 'y' has count 'N*2', not the work size 'N'"). */
int datachunk_why_not(const struct exe *exe, const struct fm_arg *endless, char *why, size_t len);

/* Where counting standard input gives way to chunks: four chunks (CARSH_CHUNK_BYTES × 4, 64
 * MiB by default), so that one job serves what fits and a longer input keeps its memory. */
unsigned long long datachunk_start_bytes(void);

/* One chunk's job, its count already in the parameters: `in` holds the chunk's values, raw
 * in the stream's type (the job reads its stream from "-:raw"). */
typedef int (*chunk_fn)(void *arg, FILE *in, struct cs_err *e);

/* Read head, then rest, in chunks of whole lines of at most CARSH_CHUNK_BYTES bytes (16 MiB
 * by default), cut early where rest pauses with whole lines read (a `tail -f` feed); for
 * each, set the count parameter in args and call run. A thread reads and parses the next
 * chunk while run runs over the current one. type: the stream's (resolved); *interrupted
 * (Ctrl-C; may be NULL) stops the reading: -1, "<stdin>: interrupted". */
int datachunk_run(const struct fm_arg *endless, const struct cs_type *type, FILE *head, FILE *rest,
                  struct params *args, volatile sig_atomic_t *interrupted, chunk_fn run, void *arg,
                  struct cs_err *e);

#endif
