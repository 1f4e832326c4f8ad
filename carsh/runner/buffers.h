/*
 * The typed buffer service: every operation on virtual buffers that a builtin, a batch, a
 * graph run, an engine or the C API performs, with typed arguments. Each operation takes a
 * hazard claim like a job (so host access never races a running job) and keeps the thread
 * executor's device copies right (a dump reads the newest copy; a fill makes device copies
 * stale). Messages name the operation as `virtbuf` does ("virtbuf fill re: ..."), whoever
 * asked for it. Under MPI every rank makes the same calls: files are read and written by
 * rank 0, the shell, and the buffers' data moves between ranks as mpi/bufmoves.h says.
 */
#ifndef CARSH_RUNNER_BUFFERS_H
#define CARSH_RUNNER_BUFFERS_H

#include <stddef.h>

#include "data/types.h"
#include "exec/hazard.h"
#include "exec/jobplan.h"
#include "runner/context.h"

/* A zero-filled buffer of count elements of type. */
/* A buffer's element type as `virtbuf create` and <Virtbuf op="create"> give it. A struct
 * is refused with the way out: a buffer holds a stream of structs as its bytes ("'struct
 * Node': ... create it as uchar ..."). */
int buffers_parse_type(const char *text, struct cs_type *t, struct cs_err *e);
int buffers_create(struct run_ctx *c, const char *name, struct cs_type type, size_t count,
                   struct cs_err *e);
/* The buffer's contents from a CSV or PGM file ("-": standard input), read in full before
 * the buffer changes: a bad file leaves it as it was. */
int buffers_fill_file(struct run_ctx *c, const char *name, const char *file, struct cs_err *e);
/* Every element set to value (a scalar, or a vector "1,2,3,4"). */
int buffers_fill_value(struct run_ctx *c, const char *name, const char *value, struct cs_err *e);
/* The buffer as CSV (or PGM by the file's name) to file, or to c->out when file is NULL or
 * "-"; columns scalars per row, 0 for the type's width (a PGM needs its width). */
int buffers_dump(struct run_ctx *c, const char *name, const char *file, size_t columns,
                 struct cs_err *e);
/* buffers_fill_file (value NULL) or buffers_fill_value, and buffers_dump, on this rank's
 * copy alone, whatever the ranks: for a caller that moves the data between ranks itself
 * (a pipeline graph across ranks, mpi/graphranks.c) and leaves the replica table be. */
int buffers_fill_here(struct run_ctx *c, const char *name, const char *file, const char *value,
                      struct cs_err *e);
int buffers_dump_here(struct run_ctx *c, const char *name, const char *file, size_t columns,
                      struct cs_err *e);
/* Exchange the names of a and b (no copy). */
int buffers_swap(struct run_ctx *c, const char *a, const char *b, struct cs_err *e);
/* Delete the named buffers, or every buffer when all; every name is checked (it exists, no
 * registered job uses it) before any buffer goes, so a refusal deletes nothing. */
int buffers_delete(struct run_ctx *c, char *const *names, size_t n, struct cs_err *e);
int buffers_delete_all(struct run_ctx *c, struct cs_err *e);

/* A job plan's buffers, for an engine that reads and writes them in this process: claimed
 * as a foreground job's (waiting for earlier jobs that conflict; 130 when interrupted), the
 * thread executor's newer device copies of what it reads brought to shared memory first.
 * Returns 0 with *cl to release, else the status with the message in e. */
int buffers_claim_plan(struct run_ctx *c, const struct job_plan *jp, struct claim **cl,
                       struct cs_err *e);
/* After the engine ran: device copies of what the plan writes are stale; the claim goes. */
void buffers_release_plan(struct run_ctx *c, const struct job_plan *jp, struct claim *cl);

/* Under MPI with several ranks (c->s->replicas), for every job on every rank, before the
 * job runs on rank: the buffers it reads are brought there, and what it writes will be
 * current there only (docs/scale-out.md). These two are mpi/bufmoves.h's, given the
 * host access of bufhost.c. */
void buffers_place_plan(struct run_ctx *c, const struct job_plan *jp, int rank);
/* The same for a job every rank runs a part of (partition across ranks): what it reads is
 * brought to every rank, what it writes will be current on rank 0 only, which gathers it. */
void buffers_place_everywhere(struct run_ctx *c, const struct job_plan *jp);

struct buffer_info {
	char *name;
	struct cs_type type;
	size_t count;
	size_t bytes;
	char users[512]; /* the jobs that use it, or empty */
};

/* Every buffer, in name order; free with buffers_list_free. */
size_t buffers_list(struct run_ctx *c, struct buffer_info **out);
void buffers_list_free(struct buffer_info *list, size_t n);

#endif
