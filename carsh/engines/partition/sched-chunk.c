/* Chunk sizes, rounded to the granule, and taking a chunk from a range (sched-int.h). */
#include <math.h>

#include "engines/partition/logfit.h"
#include "engines/partition/sched-int.h"
#include "engines/partition/sched-learn.h"

/* x rounded to a multiple of the granule, at least one granule, at most avail (a multiple
 * of the granule itself). */
size_t sched_round_chunk(const struct sched *s, double x, size_t avail)
{
	size_t g = s->c.granule, n;

	if (!(x > 0))
		x = 0;
	if (x >= (double)avail)
		return avail;
	n = (size_t)(x / (double)g + 0.5) * g;
	if (n < g)
		n = g;
	return n < avail ? n : avail;
}

/* x rounded down to a multiple of the granule (at least one, at most avail): a core that
 * ends early takes another chunk, one that ends late holds up the step. */
size_t sched_floor_chunk(const struct sched *s, double x, size_t avail)
{
	size_t g = s->c.granule;

	if (!(x > 0))
		x = 0;
	if (x >= (double)avail)
		return avail;
	return (size_t)(x / (double)g) * g > g ? (size_t)(x / (double)g) * g : g;
}

/* The next n items of r (fewer where fewer are left); SCHED_DONE when there are none. */
enum sched_answer sched_take(struct sched *s, struct range *r, size_t n, enum sched_phase ph,
                             struct sched_chunk *out)
{
	if (n == 0 || left(r) == 0)
		return SCHED_DONE;
	if (n > left(r))
		n = left(r);
	*out = (struct sched_chunk){r->next, n, ph};
	r->next += n;
	if (n > s->widest)
		s->widest = n;
	s->assigned += n;
	return SCHED_CHUNK;
}

/* The smallest chunk the cost model allows, in a core's ms with a map, else in items (0:
 * none). Once what is left (rest) cannot give every one of p cores a chunk that large, the
 * cores' equal share of it, one round. */
static double guided_least(struct learn *l, bool map, double rest, double p)
{
	double m;

	if (!l)
		return 0;
	m = map ? sched_cost_min_ms(l) : sched_cost_min_chunk(l);
	if (m > 0 && rest < p * m) {
		if (!(l->ctail > 0))
			l->ctail = map ? rest / p : ceil(rest / p);
		m = l->ctail;
	}
	return m;
}

/* Guided self-scheduling with factor 2 (factoring): half of what is left, shared among the
 * cores. The CPU cores' part of every scheduler but HDSS, and the cpu scheduler. Where the
 * scheduler learns the cores' fixed cost (LogFit, Marrow: l, sched-learn.h), no chunk is below the
 * smallest it allows (sched-cost.c), and once what is left cannot give every core a chunk that
 * large it is shared among them in equal chunks, one round: capped at an equal share of what is
 * left at each ask instead, every ask shrank the next core's chunk by 1/cores, and the simulated 16
 * cores of a Jacobi grid took 44.9 ms for 10 steps where they take 41.4 now (Static: 56.5). Those
 * schedulers measure all this in a core's time from the cost map once there is one (sched-map.c),
 * not in items: half of what is left is half of its cost. */
enum sched_answer sched_take_guided(struct sched *s, struct learn *l, struct range *r,
                                    enum sched_phase ph, struct sched_chunk *out)
{
	bool map = l && sched_map_ready(l);
	double p = s->c.ncpu ? s->c.ncpu : 1,
	       rest = map ? sched_map_cost(l, r->next, r->end) : (double)left(r),
	       n = rest / (2.0 * p), m = guided_least(l, map, rest, p);

	if (map) /* the smallest chunk as it is: it is there to be wide */
		n = fmax(sched_map_cap(l, s->widest, sched_map_reach(l, r->next, n)),
		         m > 0 ? sched_map_reach(l, r->next, m) : 0);
	else
		n = fmax(ceil(n), m);
	return sched_take(s, r, sched_round_chunk(s, n, left(r)), ph, out);
}

/* 003 §4: x_k = nEU·2^(k-1), with nEU rounded up to a multiple of the granule so that the
 * four sizes stay distinct (a fit needs two different sizes at least). LogFit's samples,
 * Concord's smallest GPU chunk, HDSS's first training chunks. */
double sched_sample(const struct sched *s, const struct gst *g, unsigned k)
{
	size_t gr = s->c.granule, neu = (g->neu + gr - 1) / gr * gr;

	return logfit_sample_size((unsigned)neu, k);
}

double sched_first_sample(const struct sched *s, const struct gst *g)
{
	return sched_sample(s, g, 1);
}
