/*
 * Lengths from the data: a stream whose count is one parameter's name (count="N"), read from a
 * file or standard input, gives that parameter its value when nothing else does (neither the
 * command line, the executable nor a shell variable; a <Param> default yields to the data), so
 * `seq 1 1000000 | carsh run scale.xml x=- y=-` needs no N=.
 */
#ifndef CARSH_RUNNER_DATALEN_H
#define CARSH_RUNNER_DATALEN_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "data/params.h"
#include "model/exe.h"
#include "util/error.h"

/* A counted CSV input's values, kept so that the job does not parse the text again: stream
 * `stream` reads `path` in place of its binding, as raw values of its type ("-:raw" for
 * standard input, whose spool then holds them; else a temporary .raw file, removed by
 * datalen_keep_free, or on a signal that stops carsh). */
struct datalen_kept {
	char *stream;
	char *path;
	bool temp;
	int slot; /* temp_track's (util/atomicfile.h), or -1 */
};

struct datalen_keep {
	struct datalen_kept *v;
	size_t n;
};

void datalen_keep_free(struct datalen_keep *k);

/* Where counting standard input for stream a of exe gives way to running in chunks: 0 when
 * exe cannot run in chunks (the copy goes on to CARSH_COUNT_MAX), else a size in bytes. A
 * copy that reaches it, or finds the input pausing with whole lines read (a `tail -f` feed,
 * a terminal), ends as one past CARSH_COUNT_MAX does (2 below). The caller knows how chunks
 * run (runner/datachunk.h); NULL: never. */
typedef unsigned long long (*datalen_chunk_from)(const struct exe *exe, const struct fm_arg *a);

/* Set in args each parameter a stream's data sizes. Standard input, when it must be counted,
 * is first copied whole into a temporary file: *spool is then that file, rewound, which the
 * job reads in place of `in` (the caller closes it), else NULL. caller: the weaker
 * parameters (shell variables), or NULL. Errors (-1): a reader's, or two streams of
 * different lengths for one parameter, both named. 2 when standard input is longer than
 * CARSH_COUNT_MAX bytes (e says so) or is to run in chunks (chunk_from): *endless is the stream
 * that reads it, *spool holds its first bytes, rewound, and `in` the rest (runner/datachunk.h runs
 * it in chunks). While standard input is copied, *interrupted (Ctrl-C; may be NULL) stops it: -1,
 * "interrupted". keep (zeroed by the caller; NULL: nothing kept) receives the Input streams whose
 * values were parsed to count them (see above); the caller frees it after the job. */
int datalen_apply(const struct exe *exe, const struct scope *caller, FILE *in, struct params *args,
                  volatile sig_atomic_t *interrupted, FILE **spool, const struct fm_arg **endless,
                  struct datalen_keep *keep, datalen_chunk_from chunk_from, struct cs_err *e);

/* The type of stream a of exe (a type="${T}" resolved) as the planner will see it with args
 * and the caller's parameters (NULL: none). */
int datalen_type(const struct exe *exe, const struct scope *caller, const struct params *args,
                 const struct fm_arg *a, struct cs_type *t, struct cs_err *e);

/* What `in` holds now, read without blocking: >0 bytes, 0 at its end, -1 when nothing is
 * there yet (poll its descriptor and try again), -2 on an error (errno set). */
ssize_t datalen_read_ready(FILE *in, char *buf, size_t len);

/* An unlinked temporary file in $TMPDIR (else /tmp), for reading and writing. */
FILE *datalen_temp(struct cs_err *e);
/* Back to the start, for the FILE and for a child reading its descriptor. */
int datalen_rewind(FILE *f, struct cs_err *e);
/* t (a temporary file open for update) holds just these bytes of values, rewound: 0, or -1
 * with errno (a full disk). */
int datalen_put_values(FILE *t, const void *values, size_t bytes);

#endif
