/*
 * Which MPI rank runs a job (docs/scale-out.md "Placement"). Every rank computes the same
 * answer from the same batch and the same replica table, so no rank tells another where a
 * job goes, but for rank="auto". A batch places its background <Exec> steps round robin,
 * starting again at rank 0 after each <Sync/>; a step keeps the rank it got the first time,
 * so a <Repeat> body runs where its data already is. Everything else runs on rank 0, the
 * shell.
 *
 * rank="auto" goes where the step would end first (mpi/rankforecast.h), from forecasts
 * of rank 0's profile history, which changes as jobs end and is not the other ranks': rank
 * 0 decides and broadcasts the rank. Every rank meets that broadcast at the same step, as
 * it meets the step's moves (a background batch does not run across ranks, so no other
 * collective comes between). Where the history does not know the job, it goes where most
 * of the bytes it reads are current (the lowest rank on a tie), which every rank could
 * derive alone; rank 0 decides that too, so that every rank="auto" step is one broadcast.
 */
#ifndef CARSH_MPI_PLACEMENT_H
#define CARSH_MPI_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "exec/jobplan.h"
#include "mpi/replicas.h"

/* run_ctx.rank (runner/context.h): where the job would end first (above). */
#define RANK_AUTO (-1)

/* The placements of one batch's steps. */
struct placement {
	const void **steps;
	int *ranks;
	size_t n, cap;
	int next; /* the next round-robin rank */
	/* On rank 0, where the batch has a rank="auto" step: the forecasts of the background
	 * jobs placed on each rank since the last <Sync/> (ranks_size() entries). */
	bool forecast;
	double *queued_ms;
};

#define PLACEMENT_INIT                           \
	{                                        \
		NULL, NULL, 0, 0, 0, false, NULL \
	}

/* The rank of a step (key: its address): asked, rank="N" (STEP_RANK_* of model/batch.h,
 * taken modulo the number of ranks so that a batch written for 4 ranks runs on fewer), or
 * round robin for a background step, the shell's rank 0 for a foreground one. */
int placement_step(struct placement *p, const void *step, int asked, bool background);
/* A <Sync/>: the next background step starts again at rank 0, every rank's queue is empty. */
void placement_sync(struct placement *p);
void placement_free(struct placement *p);

/* What the runner knows of a job it places: its context's rank and batch. */
struct placement_ask {
	int rank;                  /* a rank, or RANK_AUTO */
	bool background;           /* the command ended with '&' */
	struct placement *placed;  /* the batch that placed its step, or NULL */
	struct replicas *replicas; /* NULL with one rank */
	/* On rank 0: the forecast of jp's run time from this rank's profile history
	 * (runner/devplace.h); 0 where the history does not know it, 1 with *ms set. */
	int (*forecast)(void *arg, const struct job_plan *jp, double *ms);
	void *arg;
};

/* The rank that runs jp: a->rank resolved; a job that reads standard input or writes
 * standard output runs on rank 0, which has them. On rank 0, why says why a rank="auto"
 * step went where it did ("" for any other job). */
int placement_job(const struct placement_ask *a, const struct job_plan *jp, char *why, size_t len);

/* Pipeline graphs and the engines do not run across ranks yet (docs/scale-out.md): with
 * more than one rank, -1 with "WHAT: not across MPI ranks yet; ..." (what may be NULL). */
int placement_one_rank(const char *what, struct cs_err *e);

#endif
