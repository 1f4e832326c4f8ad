/* partition across MPI ranks (mpi/partranks.h). */
#include "mpi/partranks.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "mpi/ranks.h"

struct part_ranks {
	struct part_share share;
	int n, me;
	size_t rows, granule;
	size_t *first;  /* n + 1 entries: rank r runs rows [first[r], first[r + 1]) */
	bool split;     /* first holds a split */
	double *ms;     /* rank 0: each rank's time in the step that ended last */
	double *lambda; /* rank 0: each rank's throughput, rows per ms (0: not known yet) */
};

/* Every rank's outcome, then whether they all run as many whole runs: static's profile runs
 * 12 of them where a rank has a GPU and cores, one elsewhere, and ranks that differ would
 * wait for each other's steps in vain. */
static int ranks_ready(void *arg, int rc, unsigned runs, size_t rows, size_t granule,
                       struct cs_err *e)
{
	struct part_ranks *pr = arg;
	unsigned runs0 = runs;

	rc = ranks_agree(rc, e);
	if (rc)
		return rc;
	pr->rows = rows;
	pr->granule = granule ? granule : 1;
	ranks_bcast(&runs0, sizeof(runs0), 0);
	rc = 0;
	if (runs != runs0) {
		err_set(e,
		        "--sched static profiles %u shares here and %u on rank 0 (the ranks' "
		        "devices differ): give --gpu-share P",
		        runs > 1 ? runs - 1 : 0, runs0 > 1 ? runs0 - 1 : 0);
		rc = 1;
	}
	return ranks_agree(rc, e);
}

/* Granules split as evenly as they go, the first ranks taking one more. */
static void equal_split(struct part_ranks *pr)
{
	size_t units = pr->rows / pr->granule, at = 0;

	for (int r = 0; r < pr->n; r++) {
		pr->first[r] = at * pr->granule;
		at += units / (size_t)pr->n + ((size_t)r < units % (size_t)pr->n ? 1 : 0);
	}
	pr->first[pr->n] = pr->rows;
	pr->split = true;
}

/* Throughputs in rows per ms, each the mean of its last two measurements: one step's time
 * of a few milliseconds varies by a fourth from step to step on a shared machine, and a split
 * that followed it alone swung from step to step. A rank that ran nothing keeps what it had,
 * or is taken as the mean of the others (as fast as all of them when none ran), so that it
 * gets rows to measure again. */
static void throughputs(struct part_ranks *pr)
{
	double sum = 0;
	int known = 0;

	for (int r = 0; r < pr->n; r++) {
		size_t len = pr->first[r + 1] - pr->first[r];
		double now = len && pr->ms[r] > 0 ? (double)len / pr->ms[r] : 0;

		if (now > 0)
			pr->lambda[r] = pr->lambda[r] > 0 ? (pr->lambda[r] + now) / 2 : now;
		sum += pr->lambda[r];
		known += pr->lambda[r] > 0;
	}
	for (int r = 0; r < pr->n; r++)
		if (pr->lambda[r] == 0)
			pr->lambda[r] = known ? sum / known : 1;
}

/* 003's proportional rule one level up (docs/scale-out.md says why not the log fit): rank
 * r's share of the next step is λr / Σλ, in granules, at least one where there are enough
 * (a rank without rows measures nothing), the rest to the fastest rank. */
static void proportional_split(struct part_ranks *pr)
{
	size_t units = pr->rows / pr->granule, given = 0, *u = xcalloc((size_t)pr->n, sizeof(*u));
	const double *lambda = pr->lambda;
	double total = 0;
	int fastest = 0;

	throughputs(pr);
	for (int r = 0; r < pr->n; r++) {
		total += lambda[r];
		if (lambda[r] > lambda[fastest])
			fastest = r;
	}
	for (int r = 0; r < pr->n; r++) {
		u[r] = (size_t)(lambda[r] / total * (double)units);
		if (u[r] == 0 && units >= (size_t)pr->n)
			u[r] = 1;
		given += u[r];
	}
	while (given > units) { /* the minimums took more than was left: the largest gives */
		int big = 0;

		for (int r = 1; r < pr->n; r++)
			if (u[r] > u[big])
				big = r;
		u[big]--;
		given--;
	}
	u[fastest] += units - given;
	for (int r = 0; r < pr->n; r++)
		pr->first[r + 1] = pr->first[r] + u[r] * pr->granule;
	free(u);
}

/* Rank 0 decides, since the times differ from rank to rank, and tells every rank. */
static void ranks_rows(void *arg, bool first, size_t *begin, size_t *end)
{
	struct part_ranks *pr = arg;

	if (!pr->split) {
		equal_split(pr);
	} else if (!first) {
		if (pr->me == 0)
			proportional_split(pr);
		ranks_bcast(pr->first, ((size_t)pr->n + 1) * sizeof(*pr->first), 0);
	}
	*begin = pr->first[pr->me];
	*end = pr->first[pr->me + 1];
}

/* Blocks the next step reads go to every rank; after a run's last step every block goes to
 * rank 0, which delivers the outputs. */
static int ranks_step_end(void *arg, int rc, double ms, bool last, const struct part_block *b,
                          size_t nb, struct cs_err *e)
{
	struct part_ranks *pr = arg;

	rc = ranks_agree(rc, e);
	if (rc)
		return rc;
	ranks_gather_double(ms, pr->ms, 0);
	for (size_t i = 0; i < nb; i++)
		if (last)
			ranks_gather_rows(b[i].data, b[i].row_bytes, pr->first, 0);
		else if (b[i].next)
			ranks_allgather_rows(b[i].data, b[i].row_bytes, pr->first);
	return 0;
}

struct part_ranks *part_ranks_new(void)
{
	struct part_ranks *pr;

	if (ranks_size() == 1)
		return NULL;
	pr = xcalloc(1, sizeof(*pr));
	pr->n = ranks_size();
	pr->me = ranks_rank();
	pr->first = xcalloc((size_t)pr->n + 1, sizeof(*pr->first));
	pr->ms = xcalloc((size_t)pr->n, sizeof(*pr->ms));
	pr->lambda = xcalloc((size_t)pr->n, sizeof(*pr->lambda));
	pr->share = (struct part_share){pr, ranks_ready, ranks_rows, ranks_step_end, pr->me == 0};
	return pr;
}

void part_ranks_free(struct part_ranks *pr)
{
	if (!pr)
		return;
	free(pr->first);
	free(pr->ms);
	free(pr->lambda);
	free(pr);
}

const struct part_share *part_ranks_share(const struct part_ranks *pr)
{
	return &pr->share;
}

void part_ranks_result(const struct part_ranks *pr, struct part_result *res)
{
	res->nranks = (unsigned)pr->n;
	res->rank_rows = xcalloc((size_t)pr->n, sizeof(*res->rank_rows));
	res->rank_ms = xcalloc((size_t)pr->n, sizeof(*res->rank_ms));
	for (int r = 0; r < pr->n; r++) {
		res->rank_rows[r] = pr->first[r + 1] - pr->first[r];
		res->rank_ms[r] = pr->ms[r];
	}
}
