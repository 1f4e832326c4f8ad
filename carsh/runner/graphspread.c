/*
 * A graph run spread over MPI ranks as its inputs arrive: whether it may be, and the
 * hand-over to mpi/graphranks.c, which walks the schedule and moves the slots' data. What
 * the runner does on this rank meanwhile (fill, run, dump) is graphbufs.c's, called back.
 */
#include <stdlib.h>

#include "mpi/graphranks.h"
#include "mpi/ranks.h"
#include "runner/graphrun-int.h"
#include "util/alloc.h"
#include "util/path.h"

bool grun_ranks_async(const struct grun *r)
{
	if (ranks_size() == 1 || r->o->go->serial || getenv("CARSH_GRAPH_STEPS"))
		return false;
	for (size_t x = 0; x < r->g->nnodes; x++) {
		const struct exe *exe = r->nodes[x].exe;

		for (size_t b = 0; b < exe->nbinds; b++) {
			const struct exe_bind *eb = &exe->binds[b];

			if (ring_port_find(&r->rp, x, eb->stream) >= 0)
				continue;
			if (eb->how == BIND_BUFFER || (eb->path && path_is_stdio(eb->path)))
				return false;
		}
	}
	return true;
}

static int fill_entrance(void *r, size_t i, size_t item)
{
	return grun_fill_entrance(r, i, item);
}

static int start_run(void *r, size_t node, size_t item)
{
	return grun_start_run(r, node, item);
}

static int dump_exit(void *r, size_t i, size_t item)
{
	return grun_dump_exit(r, i, item);
}

static bool exit_dumped(const void *r, size_t i, size_t item)
{
	return grun_exit_dumped(r, i, item);
}

static struct graphranks hand_over(struct grun *r, struct graphranks_node *nodes)
{
	for (size_t x = 0; x < r->g->nnodes; x++)
		nodes[x] = (struct graphranks_node){r->nodes[x].rank, r->nodes[x].ports,
		                                    r->nodes[x].nports};
	return (struct graphranks){.g = r->g,
	                           .plan = &r->plan,
	                           .rp = &r->rp,
	                           .names = &r->names,
	                           .nodes = nodes,
	                           .constant = r->constant,
	                           .buf = r->buf,
	                           .items = r->items,
	                           .steps = grun_steps(r),
	                           .stage_of = grun_stage_of,
	                           .vbufs = r->c.s->vbufs,
	                           .replicas = r->c.s->replicas,
	                           .hz = r->c.s->hz,
	                           .homes = r->c.s->homes,
	                           .workers = r->c.s->workers,
	                           .jobs = r->c.jobs,
	                           .interrupted = r->c.interrupted,
	                           .fill_entrance = fill_entrance,
	                           .start_run = start_run,
	                           .dump_exit = dump_exit,
	                           .exit_dumped = exit_dumped,
	                           .arg = r,
	                           .e = r->e};
}

/* Fills and dumps go to this rank's buffers alone, and each run to its rank, which has its
 * inputs already: the moves are mpi/graphranks.c's. */
int grun_run_ranks(struct grun *r)
{
	struct graphranks_node *nodes = xcalloc(r->g->nnodes + 1, sizeof(*nodes));
	struct graphranks gr = hand_over(r, nodes);
	int rc;

	r->here = true;
	r->c.moves_by_caller = true;
	rc = graphranks_run(&gr);
	r->c.moves_by_caller = false;
	r->here = false;
	free(nodes);
	r->tm.startup_ms = gr.first_ms;
	r->tm.full = gr.results > 1 ? gr.results - 1 : 0;
	r->tm.full_ms = gr.last_ms - gr.first_ms;
	r->tm.ranks = ranks_size();
	return rc;
}
