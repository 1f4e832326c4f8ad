/* A split of the space made in advance (static, marrow, gpu, and concord after profiling):
 * the GPUs' part at the front, one part per GPU, the cores' the rest (sched-int.h). */
#include <math.h>

#include "engines/partition/gpusplit.h"
#include "engines/partition/sched-int.h"

/* [begin, begin + n) to the GPUs, one part each (engines/partition/gpusplit.h): by their
 * compute units, or, with measured set, by their last throughputs (the parts then end
 * together if the work is as before). With measured set and a GPU not measured yet, the
 * GPUs share it in chunks instead (guided self-scheduling among them, no chunk below an
 * eighth of a GPU's share: a GPU's small chunks run below its peak): compute units do
 * not say how fast a GPU runs this kernel, and a split by them held the step for the
 * slower of two GPUs three times apart. */
void sched_split_gpus(struct sched *s, size_t begin, size_t n, bool measured)
{
	bool all = measured;

	for (unsigned i = 0; i < s->ng; i++)
		all = all && s->lambda[s->c.ncpu + i] > 0;
	s->gshared = measured && !all && s->ng > 1;
	s->gpool = (struct range){begin, begin + n};
	s->gpart = n;
	for (unsigned i = 0; i < s->ng; i++)
		s->w[i] = all ? s->lambda[s->c.ncpu + i] : (double)s->g[i].neu;
	gpu_split(begin, n, s->c.granule, s->w, s->ng, s->bound);
	for (unsigned i = 0; i < s->ng; i++)
		s->g[i].r = (struct range){s->bound[i], s->bound[i + 1]};
}

/* One GPU chunk of share of the space at offset 0 (with several GPUs one chunk each, shared
 * as sched_split_gpus says), the rest to the cores. */
void sched_split_static(struct sched *s, double share, bool measured)
{
	size_t n = s->c.items, g = s->c.granule, gs;

	if (s->c.ncpu == 0)
		gs = n;
	else
		gs = (size_t)(share * (double)(n / g) + 0.5) * g;
	if (gs > n)
		gs = n;
	sched_split_gpus(s, 0, gs, measured);
	s->cpu_r = (struct range){gs, n};
	s->pool.next = n;
}

/* A GPU's one chunk of a split: its whole part. */
enum sched_answer sched_take_part(struct sched *s, unsigned dev, enum sched_phase ph,
                                  struct sched_chunk *out)
{
	struct gst *g = gpu_of(s, dev);

	if (s->gshared) {
		double x = fmax(ceil((double)left(&s->gpool) / (2.0 * s->ng)),
		                ceil((double)s->gpart / (8.0 * s->ng)));

		return sched_take(s, &s->gpool, sched_round_chunk(s, x, left(&s->gpool)), ph, out);
	}
	return sched_take(s, &g->r, left(&g->r), ph, out);
}
