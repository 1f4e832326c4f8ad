/* What a partition run hands back (struct part_result): each device's share, the trace, the
 * schedulers' state at the end; report.c prints it. */
#include <stdlib.h>
#include <string.h>

#include "engines/partition/partition-int.h"
#include "util/alloc.h"

/* The result of the timed run, which took ms; the trace moves into it. */
void part_fill_result(struct prun *r, struct part_result *res, double ms)
{
	res->label = xstrdup(r->kp->label);
	res->asked = r->o->sched;
	res->ran = sched_running(r->sched);
	res->items = r->items;
	res->granule = r->granule;
	res->steps = r->steps;
	res->ncpu = r->ncpu;
	res->gpu = r->gpu;
	res->standin = r->standin;
	res->threads = r->threads;
	res->time_ms = ms;
	res->ndev = r->ndev;
	res->dev = xcalloc(r->ndev ? r->ndev : 1, sizeof(*res->dev));
	for (unsigned i = 0; i < r->ndev; i++)
		res->dev[i] = r->dev[i].st;
	res->trace = r->trace;
	res->ntrace = r->ntrace;
	r->trace = NULL;
	res->gpu_share = r->share;
	res->fitted = sched_logfit_state(r->sched, &res->fit_a, &res->fit_b, &res->gpu_chunk);
	res->ngpu = r->ngpu;
	for (unsigned g = 0; g < r->ngpu; g++) {
		struct part_fit *f = &res->fits[g];

		f->fitted = sched_logfit_state_of(r->sched, g, &f->a, &f->b, &f->chunk);
	}
	res->core_cost = sched_core_cost(r->sched, &res->core_fixed_ms, &res->core_min_chunk);
	res->gpu_fraction = sched_gpu_fraction(r->sched);
	res->relative_speed = sched_relative_speed(r->sched);
}

void part_result_free(struct part_result *r)
{
	free(r->label);
	free(r->dev);
	free(r->trace);
	free(r->rank_rows);
	free(r->rank_ms);
	memset(r, 0, sizeof(*r));
}
