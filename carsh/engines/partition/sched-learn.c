/* The cores' cost model's life, and what a finished chunk adds to it (sched-learn.h). */
#include <stdlib.h>

#include "engines/partition/sched-learn.h"
#include "util/alloc.h"

struct learn *learn_new(const struct sched_cfg *cfg, unsigned ndev)
{
	struct learn *l = xcalloc(1, sizeof(*l));

	l->items = cfg->items;
	l->granule = cfg->granule;
	l->ncpu = cfg->ncpu;
	l->ndev = ndev;
	l->gpu_is_core = cfg->gpu_is_core;
	l->fixed_ms = xcalloc(l->ncpu ? l->ncpu : 1, sizeof(*l->fixed_ms));
	for (unsigned d = 0; d < l->ncpu; d++)
		l->fixed_ms[d] = -1; /* none reported yet */
	sched_map_init(l);
	return l;
}

void learn_free(struct learn *l)
{
	if (!l)
		return;
	sched_map_free(l);
	free(l->fixed_ms);
	free(l);
}

void learn_step(struct learn *l)
{
	l->ctail = 0;
	sched_cost_step(l);
	sched_map_step(l);
}

void learn_done(struct learn *l, unsigned dev, bool gpu, const struct sched_chunk *c, double ms)
{
	double rest;

	if (gpu) {
		/* A core standing in for the GPU is a core: its chunks measure the map too. */
		sched_map_pace(l, dev, c, ms);
		if (l->gpu_is_core)
			sched_map_add(l, c, ms);
		return;
	}
	rest = sched_cost_add(l, dev, c->size, ms);
	/* A core's pace leaves out its fixed cost: Mandelbrot's light rows, mostly fixed cost,
	 * gave a core half the pace of a core standing in for the GPU that took the set in one
	 * chunk, and the next step's set-aside share 57 % of the items. */
	sched_map_pace(l, dev, c, rest >= 0 ? rest : ms);
	sched_map_add(l, c, rest);
}
