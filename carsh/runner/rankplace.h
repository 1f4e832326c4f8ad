/*
 * Which MPI rank runs a job (docs/scale-out.md "Placement"). Every rank computes the same
 * answer from the same batch and the same replica table, so no rank tells another where a
 * job goes. A batch places its background <Exec> steps round robin, starting again at rank
 * 0 after each <Sync/>; a step keeps the rank it got the first time, so a <Repeat> body
 * runs where its data already is. Everything else runs on rank 0, the shell.
 */
#ifndef CARSH_RUNNER_RANKPLACE_H
#define CARSH_RUNNER_RANKPLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "exec/jobplan.h"
#include "runner/context.h"

/* run_ctx.rank: the rank that holds most of the bytes the job reads (the lowest on a tie). */
#define RANK_AUTO (-1)

/* The placements of one batch's steps. */
struct placement {
	const void **steps;
	int *ranks;
	size_t n, cap;
	int next; /* the next round-robin rank */
};

#define PLACEMENT_INIT              \
	{                           \
		NULL, NULL, 0, 0, 0 \
	}

/* The rank of a step (key: its address): asked, rank="N" (STEP_RANK_* of model/batch.h,
 * taken modulo the number of ranks so that a batch written for 4 ranks runs on fewer), or
 * round robin for a background step, the shell's rank 0 for a foreground one. */
int placement_step(struct placement *p, const void *step, int asked, bool background);
/* A <Sync/>: the next background step starts again at rank 0. */
void placement_sync(struct placement *p);
void placement_free(struct placement *p);

/* The rank that runs jp in context c: c->rank resolved; a job that reads standard input
 * or writes standard output runs on rank 0, which has them. */
int placement_job(const struct run_ctx *c, const struct job_plan *jp);

/* Pipeline graphs and the engines do not run across ranks yet (docs/scale-out.md): with
 * more than one rank, -1 with "WHAT: not across MPI ranks yet; ..." (what may be NULL). */
int placement_one_rank(const char *what, struct cs_err *e);

#endif
