/* Which MPI rank runs a job (runner/rankplace.h). */
#include "runner/rankplace.h"

#include <stdlib.h>
#include <string.h>

#include "model/batch.h"
#include "runner/replicas.h"
#include "util/alloc.h"
#include "util/path.h"
#include "util/ranks.h"

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
}

void placement_free(struct placement *p)
{
	free(p->steps);
	free(p->ranks);
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

/* The rank with the most bytes of jp's inputs current; the lowest on a tie. */
static int most_bytes(const struct replicas *r, const struct job_plan *jp)
{
	size_t best_bytes = 0;
	int best = 0;

	for (int rank = 0; rank < ranks_size(); rank++) {
		size_t bytes = 0;

		for (size_t i = 0; i < jp->kp.nargs; i++)
			if (jp->binds[i].how == BIND_BUFFER && arg_is_read(jp->kp.args[i].kind) &&
			    replicas_current(r, jp->binds[i].buffer, rank))
				bytes += jp->kp.args[i].bytes;
		if (bytes > best_bytes) {
			best_bytes = bytes;
			best = rank;
		}
	}
	return best;
}

int placement_job(const struct run_ctx *c, const struct job_plan *jp)
{
	if (!c->s->replicas || uses_stdio(jp))
		return 0;
	if (c->rank == RANK_AUTO)
		return most_bytes(c->s->replicas, jp);
	return c->rank % ranks_size();
}

int placement_one_rank(const char *what, struct cs_err *e)
{
	if (ranks_size() == 1)
		return 0;
	err_set(e, "not across MPI ranks yet; run it on one rank (mpirun -np 1), or without MPI "
	           "(docs/scale-out.md)");
	return what ? err_prefix(e, "%s: ", what) : -1;
}
