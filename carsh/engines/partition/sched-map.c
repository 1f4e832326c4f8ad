/* The cores' cost map of the space (sched-int.h): what an item of each region cost a core,
 * learnt from the chunks of the steps before. Guided self-scheduling sizes a chunk by items,
 * which on irregular work is blind to where the work is: on the H200 machine's 16 cores the
 * neighbour benchmark's dense cells came in guided chunks of 576-1152 items that took 80-100
 * ms of a 124 ms step while other cores finished at 86 ms (Static and LogFit alike; the
 * cores were busy for 0.81 of the run). The same space comes back at every step, so the last
 * step's chunks tell what each region costs. */
#include <math.h>
#include <stdlib.h>

#include "engines/partition/sched-int.h"
#include "util/alloc.h"

/* At most this many regions: each step's sizes are found by a search over them. */
#define MAP_BINS 1024

void sched_map_init(struct sched *s)
{
	struct cmap *m = &s->map;
	size_t g = s->c.granule, granules = s->c.items / g;

	if (!s->learn_cost)
		return;
	m->bin = (granules + MAP_BINS - 1) / MAP_BINS * g;
	m->n = (s->c.items + m->bin - 1) / m->bin;
	m->ms = xcalloc(m->n, sizeof(*m->ms));
	m->sum_ms = xcalloc(m->n, sizeof(*m->sum_ms));
	m->sum_items = xcalloc(m->n, sizeof(*m->sum_items));
	m->cum = xcalloc(m->n + 1, sizeof(*m->cum));
	for (size_t b = 0; b < m->n; b++)
		m->ms[b] = -1;
}

void sched_map_free(struct sched *s)
{
	free(s->map.ms);
	free(s->map.sum_ms);
	free(s->map.sum_items);
	free(s->map.cum);
}

/* A core spent ms on the chunk's items besides its fixed cost (< 0: its fixed cost is not
 * known, and the time of a small chunk, mostly fixed cost, would make its items look dear). */
void sched_map_add(struct sched *s, const struct sched_chunk *c, double ms)
{
	struct cmap *m = &s->map;
	double per = ms / (double)c->size;

	if (!m->n || c->size == 0 || !(ms > 0))
		return;
	for (size_t b = c->offset / m->bin, end = c->offset + c->size; b * m->bin < end; b++) {
		size_t lo = b * m->bin > c->offset ? b * m->bin : c->offset,
		       hi = (b + 1) * m->bin < end ? (b + 1) * m->bin : end;

		m->sum_ms[b] += per * (double)(hi - lo);
		m->sum_items[b] += (double)(hi - lo);
	}
}

static size_t bin_items(const struct cmap *m, size_t b, size_t items)
{
	return b + 1 < m->n ? m->bin : items - b * m->bin;
}

/* A step begins: the regions the last one measured take its cost, the others keep theirs,
 * and those never measured cost the mean of the rest. No map until every core's chunks
 * have covered a step's worth of the space at least once. */
void sched_map_step(struct sched *s)
{
	struct cmap *m = &s->map;
	double ms = 0, items = 0, mean;

	m->ready = false;
	for (size_t b = 0; b < m->n; b++) {
		if (m->sum_items[b] > 0)
			m->ms[b] = m->sum_ms[b] / m->sum_items[b];
		m->sum_ms[b] = m->sum_items[b] = 0;
		if (m->ms[b] >= 0) {
			ms += m->ms[b] * (double)bin_items(m, b, s->c.items);
			items += (double)bin_items(m, b, s->c.items);
		}
	}
	if (!(ms > 0) || items < (double)s->c.items / 2)
		return;
	mean = ms / items;
	for (size_t b = 0; b < m->n; b++)
		m->cum[b + 1] = m->cum[b] + (m->ms[b] >= 0 ? m->ms[b] : mean) *
		                                    (double)bin_items(m, b, s->c.items);
	m->ready = true;
}

bool sched_map_ready(const struct sched *s)
{
	return s->map.ready;
}

/* The cost of items [0, x). */
static double cost_to(const struct cmap *m, size_t items, size_t x)
{
	size_t b = x / m->bin;

	if (b >= m->n)
		return m->cum[m->n];
	return m->cum[b] + (m->cum[b + 1] - m->cum[b]) * (double)(x - b * m->bin) /
	                           (double)bin_items(m, b, items);
}

double sched_map_cost(const struct sched *s, size_t from, size_t to)
{
	return cost_to(&s->map, s->c.items, to) - cost_to(&s->map, s->c.items, from);
}

/* The items from from on that cost ms (all that are left where they cost less). */
double sched_map_reach(const struct sched *s, size_t from, double ms)
{
	const struct cmap *m = &s->map;
	double want = cost_to(m, s->c.items, from) + ms;
	size_t lo = from / m->bin, hi = m->n;

	if (want >= m->cum[m->n])
		return (double)(s->c.items - from);
	while (lo + 1 < hi) { /* the bin whose end first reaches want */
		size_t mid = (lo + hi) / 2;

		if (m->cum[mid] <= want)
			lo = mid;
		else
			hi = mid;
	}
	return (double)(lo * m->bin) +
	       (double)bin_items(m, lo, s->c.items) * (want - m->cum[lo]) /
	               fmax(m->cum[lo + 1] - m->cum[lo], 1e-12) -
	       (double)from;
}
