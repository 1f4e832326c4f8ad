/* A core's fixed cost per chunk, and the smallest chunk worth launching (sched-learn.h). The
 * engine measures the fixed cost of each chunk: its time outside the chunk's commands
 * (part-chunk.c). With 16 PoCL cores busy a Jacobi chunk spends 0.2-0.3 ms besides 0.011 ms
 * a row, under every scheduler; with 2 cores 0.04-0.1 ms. A fit of chunk
 * time against size over the run, tried first, found fixed costs of -0.8 to 3.3 ms on the irregular
 * benchmarks (each size met other work) and sent 4480-item chunks into the neighbour benchmark's
 * dense cells for 100-300 ms each. */
#include <math.h>

#include "engines/partition/sched-learn.h"

/* A chunk spends at most this fraction of its time on the fixed cost. */
#define COST_FRAC 0.25
/* The fewest chunks whose fixed costs are averaged before any counts. */
#define COST_MIN_CHUNKS 4

void sched_cost_fixed(struct learn *l, unsigned dev, double ms)
{
	if (dev < l->ncpu && ms >= 0)
		l->fixed_ms[dev] = ms;
}

/* A core finished a chunk of items in ms: its fixed cost, and the rest of its time and its
 * items, join the run's. */
double sched_cost_add(struct learn *l, unsigned dev, size_t items, double ms)
{
	double f = l->fixed_ms[dev];

	if (f < 0) /* none reported */
		return -1;
	l->fixed_ms[dev] = -1;
	l->cost_step.n++;
	l->cost_step.fixed += f;
	l->cost_step.rest += ms > f ? ms - f : 0;
	l->cost_step.items += (double)items;
	return ms > f ? ms - f : 0;
}

static struct cost cost_plus(struct cost a, const struct cost *b)
{
	return (struct cost){a.n + b->n, a.fixed + b->fixed, a.rest + b->rest, a.items + b->items};
}

void sched_cost_step(struct learn *l)
{
	l->cost = cost_plus(l->cost, &l->cost_step);
	l->cost_step = (struct cost){0, 0, 0, 0};
}

/* The smallest chunk c allows (0: too few chunks in it). The cost an item is the mean over
 * the cores and the steps done, whole steps: a core's own last chunk's, tried first, came
 * from Mandelbrot's light rows at 1/100 of the mean, and its next chunk, 25472 items in the
 * set's middle, took 151 ms where the others' took 1-5; the mean of the first step's first
 * chunks, from the same light rows, made 35840-item chunks that took 160 ms. */
static double min_chunk_of(const struct cost *c)
{
	if (c->n < COST_MIN_CHUNKS || !(c->rest > 0))
		return 0;
	return c->fixed / c->n * (1 - COST_FRAC) / (COST_FRAC * (c->rest / c->items));
}

double sched_cost_min_chunk(const struct learn *l)
{
	return min_chunk_of(&l->cost);
}

double sched_cost_min_ms(const struct learn *l)
{
	const struct cost *c = &l->cost;

	if (c->n < COST_MIN_CHUNKS || !(c->rest > 0))
		return 0;
	return c->fixed / c->n * (1 - COST_FRAC) / COST_FRAC;
}

bool sched_cost_of_cores(const struct learn *l, double *fixed_ms, double *min_chunk)
{
	struct cost all = cost_plus(l->cost, &l->cost_step);

	if (all.n < COST_MIN_CHUNKS)
		return false;
	*fixed_ms = all.fixed / all.n;
	*min_chunk = min_chunk_of(&all);
	return true;
}

/* A throughput measured on chunks far larger than a granule spreads their fixed cost thin:
 * on SpMV a core's 1000-item chunks run at 2500-8000 items/ms, one granule at that pace
 * 0.01-0.03 ms, while any chunk there spends 0.2-0.3 ms besides its items. */
double sched_least_chunk_ms(const struct learn *l, double lc)
{
	double fixed, min;

	if (!sched_cost_of_cores(l, &fixed, &min))
		fixed = 0; /* too few chunks yet */
	return fmax((double)l->granule / lc, fixed);
}
