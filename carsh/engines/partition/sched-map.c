/* The cores' cost map of the space (sched-learn.h): what an item of each region cost a core,
 * learnt from the chunks of the steps before. Guided self-scheduling sizes a chunk by items,
 * which on irregular work is blind to where the work is: the neighbour benchmark's dense
 * cells come in guided chunks that hold a core for most of a step while the other cores are
 * done and idle (Static and LogFit alike). The same space comes back at every step, so the last
 * step's chunks tell what each region costs. A core standing in for the GPU measures it too,
 * and each device's pace on it (cost done per ms) sizes a primed GPU share by cost. */
#include <math.h>
#include <stdlib.h>

#include "engines/partition/sched-learn.h"
#include "util/alloc.h"

/* At most this many regions: each step's sizes are found by a search over them. */
#define MAP_BINS 1024

void sched_map_init(struct learn *l)
{
	struct cmap *m = &l->map;
	size_t g = l->granule, granules = l->items / g;

	m->bin = (granules + MAP_BINS - 1) / MAP_BINS * g;
	m->n = (l->items + m->bin - 1) / m->bin;
	m->ms = xcalloc(m->n, sizeof(*m->ms));
	m->sum_ms = xcalloc(m->n, sizeof(*m->sum_ms));
	m->sum_items = xcalloc(m->n, sizeof(*m->sum_items));
	m->cum = xcalloc(m->n + 1, sizeof(*m->cum));
	for (size_t b = 0; b < m->n; b++)
		m->ms[b] = -1;
	l->work = xcalloc(l->ndev, sizeof(*l->work));
	l->work_ms = xcalloc(l->ndev, sizeof(*l->work_ms));
	l->pace = xcalloc(l->ndev, sizeof(*l->pace));
}

void sched_map_free(struct learn *l)
{
	free(l->map.ms);
	free(l->map.sum_ms);
	free(l->map.sum_items);
	free(l->map.cum);
	free(l->work);
	free(l->work_ms);
	free(l->pace);
}

/* The items of region b in chunk c. */
static double overlap(const struct cmap *m, size_t b, const struct sched_chunk *c)
{
	size_t lo = b * m->bin > c->offset ? b * m->bin : c->offset,
	       hi = (b + 1) * m->bin < c->offset + c->size ? (b + 1) * m->bin : c->offset + c->size;

	return (double)(hi - lo);
}

/* A core spent ms on the chunk's items besides its fixed cost (< 0: its fixed cost is not
 * known, and the time of a small chunk, mostly fixed cost, would make its items look dear).
 * The time goes to its regions in the shape the map already has there, where it has one
 * for all of them: a chunk says what its regions cost together, not how that is spread, and
 * spread evenly, the half of Mandelbrot's space a core standing in for the GPU took in one
 * chunk lost the shape its cores' small chunks had measured, and the next step's share by
 * cost came out at 42-57 % of the items where half is right. */
void sched_map_add(struct learn *l, const struct sched_chunk *c, double ms)
{
	struct cmap *m = &l->map;
	size_t first, end = c->offset + c->size;
	double known = 0;
	bool shaped = true;

	if (!m->n || c->size == 0 || !(ms >= 0)) /* a chunk all fixed cost: its items cost 0 */
		return;
	first = c->offset / m->bin;
	for (size_t b = first; b * m->bin < end && shaped; b++) {
		shaped = m->ms[b] >= 0;
		known += shaped ? m->ms[b] * overlap(m, b, c) : 0;
	}
	shaped = shaped && known > 0;
	for (size_t b = first; b * m->bin < end; b++) {
		double k = overlap(m, b, c);

		m->sum_ms[b] += shaped ? ms * m->ms[b] * k / known : ms * k / (double)c->size;
		m->sum_items[b] += k;
	}
}

static size_t bin_items(const struct cmap *m, size_t b, size_t items)
{
	return b + 1 < m->n ? m->bin : items - b * m->bin;
}

/* A step begins: the regions the last one measured take its cost, the others keep theirs,
 * and those never measured cost the mean of the rest; no map until the cores' chunks have
 * covered half of the space. Each device's pace is the last step's. */
void sched_map_step(struct learn *l)
{
	struct cmap *m = &l->map;
	double ms = 0, items = 0, mean;

	for (unsigned d = 0; m->n && d < l->ndev; d++) {
		if (l->work_ms[d] > 0)
			l->pace[d] = l->work[d] / l->work_ms[d];
		l->work[d] = l->work_ms[d] = 0;
	}
	m->ready = false;
	for (size_t b = 0; b < m->n; b++) {
		if (m->sum_items[b] > 0)
			m->ms[b] = m->sum_ms[b] / m->sum_items[b];
		m->sum_ms[b] = m->sum_items[b] = 0;
		if (m->ms[b] >= 0) {
			ms += m->ms[b] * (double)bin_items(m, b, l->items);
			items += (double)bin_items(m, b, l->items);
		}
	}
	if (!(ms > 0) || items < (double)l->items / 2)
		return;
	mean = ms / items;
	for (size_t b = 0; b < m->n; b++)
		m->cum[b + 1] = m->cum[b] + (m->ms[b] >= 0 ? m->ms[b] : mean) *
		                                    (double)bin_items(m, b, l->items);
	m->ready = true;
}

bool sched_map_ready(const struct learn *l)
{
	return l->map.ready;
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

double sched_map_cost(const struct learn *l, size_t from, size_t to)
{
	return cost_to(&l->map, l->items, to) - cost_to(&l->map, l->items, from);
}

/* The items from from on that cost ms (all that are left where they cost less). */
double sched_map_reach(const struct learn *l, size_t from, double ms)
{
	const struct cmap *m = &l->map;
	double want = cost_to(m, l->items, from) + ms;
	size_t lo = from / m->bin, hi = m->n;

	if (want >= m->cum[m->n])
		return (double)(l->items - from);
	while (lo + 1 < hi) { /* the bin whose end first reaches want */
		size_t mid = (lo + hi) / 2;

		if (m->cum[mid] <= want)
			lo = mid;
		else
			hi = mid;
	}
	return (double)(lo * m->bin) +
	       (double)bin_items(m, lo, l->items) * (want - m->cum[lo]) /
	               fmax(m->cum[lo + 1] - m->cum[lo], 1e-12) -
	       (double)from;
}

/* A chunk of the map's light regions can be far wider than any before, and on PoCL a launch
 * wider than any before of its kernel runs alone (runtime/launchguard.h): primed with the
 * neighbours' map, two cores' first wide chunks would run one after the other, each core
 * waiting for the other for a quarter of the step. So no chunk of the map is wider than the
 * widest before, or
 * than guided self-scheduling's first chunk, which is as wide as its chunks get (the widest
 * before can be the warm-up's one granule). */
double sched_map_cap(const struct learn *l, size_t widest, double items)
{
	double first = ceil((double)l->items / (2.0 * (l->ncpu ? l->ncpu : 1)));

	return fmin(items, fmax((double)widest, first));
}

/* What a region cost, with this step's chunks on it (< 0: unknown). */
static double bin_ms(const struct cmap *m, size_t b)
{
	return m->sum_items[b] > 0 ? m->sum_ms[b] / m->sum_items[b] : m->ms[b];
}

void sched_map_prime(struct learn *l, const double *map, unsigned n)
{
	struct cmap *m = &l->map;

	for (size_t b = 0; b < m->n && n > 0; b++) {
		size_t mid = b * m->bin + bin_items(m, b, l->items) / 2;
		double v = map[(size_t)((double)mid * n / (double)l->items)];

		if (v >= 0 && isfinite(v))
			m->ms[b] = v;
	}
}

bool sched_map_profile(const struct learn *l, double *map, unsigned n)
{
	const struct cmap *m = &l->map;

	if (!m->n || n == 0)
		return false;
	for (unsigned i = 0; i < n; i++) {
		size_t lo = (size_t)((double)l->items * i / n),
		       hi = (size_t)((double)l->items * (i + 1) / n);
		double ms = 0, w = 0;

		for (size_t b = lo / m->bin; b < m->n && b * m->bin < hi; b++) {
			size_t a = b * m->bin > lo ? b * m->bin : lo,
			       z = b * m->bin + bin_items(m, b, l->items);
			double v = bin_ms(m, b), k = (double)((z < hi ? z : hi) - a);

			if (v >= 0 && k > 0) {
				ms += v * k;
				w += k;
			}
		}
		if (!(w > 0))
			return false;
		map[i] = ms / w;
	}
	return true;
}

void sched_map_pace(struct learn *l, unsigned dev, const struct sched_chunk *c, double ms)
{
	if (!l->map.ready || !(ms > 0))
		return;
	l->work[dev] += sched_map_cost(l, c->offset, c->offset + c->size);
	l->work_ms[dev] += ms;
}

/* Items are not work where the work is irregular: a share of the step by throughputs in
 * items, learnt on other regions, set a core standing in for the GPU 82 % of Mandelbrot's
 * items, the set among them, while the core did the light rest in 4 ms of a 250 ms step (dev
 * VM). By the map, the share is of the cost of the items from `from` on, at the devices' paces
 * in it; before a pace is measured, a core standing in for the GPU goes at a core's, 1. */
double sched_map_gpu_share(const struct learn *l, unsigned gpu_dev, const bool *counts, size_t from)
{
	double one = l->gpu_is_core ? 1 : 0, pg = l->pace[gpu_dev] > 0 ? l->pace[gpu_dev] : one,
	       pc = 0, known = 0;
	unsigned n = 0, k = 0;

	if (!l->map.ready || !(pg > 0))
		return 0;
	for (unsigned d = 0; d < l->ncpu; d++) {
		if (!counts[d])
			continue;
		n++;
		if (l->pace[d] > 0) {
			known += l->pace[d];
			k++;
		}
	}
	if (n == 0 || (k == 0 && !(one > 0)))
		return 0;
	pc = k ? known / k * n : one * n; /* a core without a pace at the others' mean */
	return sched_map_reach(l, from, sched_map_cost(l, from, l->items) * pg / (pg + pc));
}
