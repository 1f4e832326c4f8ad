/* Which MPI rank runs a job (mpi/placement.h). */
#include "mpi/placement.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/batch.h"
#include "mpi/rankforecast.h"
#include "mpi/replicas.h"
#include "util/alloc.h"
#include "util/path.h"
#include "mpi/ranks.h"

static int remembered(const struct placement *p, const void *step)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->steps[i] == step)
			return p->ranks[i];
	return -1;
}

static void remember(struct placement *p, const void *step, int rank)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		p->steps = xrealloc(p->steps, p->cap * sizeof(*p->steps));
		p->ranks = xrealloc(p->ranks, p->cap * sizeof(*p->ranks));
	}
	p->steps[p->n] = step;
	p->ranks[p->n++] = rank;
}

int placement_step(struct placement *p, const void *step, int asked, bool background)
{
	int size = ranks_size(), rank = remembered(p, step);

	if (asked == STEP_RANK_AUTO)
		return RANK_AUTO;
	if (asked >= 0)
		return asked % size;
	if (!background)
		return 0;
	if (rank < 0) {
		rank = p->next;
		p->next = (p->next + 1) % size;
		remember(p, step, rank);
	}
	return rank;
}

void placement_sync(struct placement *p)
{
	p->next = 0;
	if (p->queued_ms)
		memset(p->queued_ms, 0, (size_t)ranks_size() * sizeof(*p->queued_ms));
}

void placement_free(struct placement *p)
{
	free(p->steps);
	free(p->ranks);
	free(p->queued_ms);
	*p = (struct placement)PLACEMENT_INIT;
}

static bool uses_stdio(const struct job_plan *jp)
{
	for (size_t i = 0; i < jp->kp.nargs; i++)
		if (jp->binds[i].how == BIND_FILE && jp->binds[i].path &&
		    path_is_stdio(jp->binds[i].path))
			return true;
	return false;
}

/* The rank that holds most of the bytes jp reads (the fewest to move), the lowest on a tie. */
static int fewest_missing(const size_t *missing, int n, char *why, size_t len)
{
	int best = 0;

	for (int r = 1; r < n; r++)
		if (missing[r] < missing[best])
			best = r;
	snprintf(why, len, "auto: rank %d, most of the bytes it reads there (no profile yet)",
	         best);
	return best;
}

/* rank="auto", on rank 0: the earliest forecast end, else the most bytes. */
static int auto_rank(const struct placement_ask *a, const struct job_plan *jp, bool known,
                     double job_ms, char *why, size_t len)
{
	int n = ranks_size(), rank;
	size_t *missing = xcalloc((size_t)n, sizeof(*missing));
	double *queued = xcalloc((size_t)n, sizeof(*queued));

	for (int r = 0; r < n; r++)
		missing[r] = rank_missing_bytes(a->replicas, jp, r);
	if (a->placed && a->placed->queued_ms)
		memcpy(queued, a->placed->queued_ms, (size_t)n * sizeof(*queued));
	if (known)
		rank = rank_pick(queued, missing, n, job_ms, RANK_MOVE_BYTES_PER_MS, why, len);
	else
		rank = fewest_missing(missing, n, why, len);
	free(queued);
	free(missing);
	return rank;
}

/* Rank 0 keeps the forecast of a background job of a batch with rank="auto" steps. */
static void queue_job(struct placement *p, int rank, double job_ms)
{
	if (!p->queued_ms)
		p->queued_ms = xcalloc((size_t)ranks_size(), sizeof(*p->queued_ms));
	p->queued_ms[rank] += job_ms;
}

int placement_job(const struct placement_ask *a, const struct job_plan *jp, char *why, size_t len)
{
	bool queue = a->placed && a->placed->forecast && a->background;
	bool known = false;
	double job_ms = 0;
	int rank = 0;

	why[0] = '\0';
	if (!a->replicas || uses_stdio(jp))
		return 0;
	if (ranks_rank() == 0 && (queue || a->rank == RANK_AUTO))
		known = a->forecast(a->arg, jp, &job_ms);
	if (a->rank != RANK_AUTO)
		rank = a->rank % ranks_size();
	else if (ranks_rank() == 0)
		rank = auto_rank(a, jp, known, job_ms, why, len);
	if (a->rank == RANK_AUTO)
		ranks_bcast(&rank, sizeof(rank), 0);
	if (queue && known)
		queue_job(a->placed, rank, job_ms);
	return rank;
}

int placement_one_rank(const char *what, struct cs_err *e)
{
	if (ranks_size() == 1)
		return 0;
	err_set(e, "not across MPI ranks yet; run it on one rank (mpirun -np 1), or without MPI "
	           "(docs/scale-out.md)");
	return what ? err_prefix(e, "%s: ", what) : -1;
}
