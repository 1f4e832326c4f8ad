/* Concord (003 §5.1): a fixed GPU chunk while the cores pick chunks (profiling) until the
 * relative speed is stable, then one split of the rest by it, kept across steps (sched.h). */
#include <math.h>
#include <stdlib.h>

#include "engines/partition/logfit.h"
#include "engines/partition/sched-int.h"
#include "util/alloc.h"

/* Profiling stops once the GPU's fraction of the work changes by less than this between two
 * profiling chunks, or once half the space is handed out. */
#define CONCORD_STABLE 0.05
#define CONCORD_LIMIT  0.5

/* Concord's own state: the GPUs' fraction, kept across steps. */
struct concord {
	bool have_frac;
	double frac, prev_frac;
	bool split; /* this step's rest is split by it */
};

static struct concord *concord_of(const struct sched *s)
{
	return s->priv;
}

/* The fixed GPU profiling chunk: a twentieth of the space, at least the largest LogFit
 * sample (8·nEU); the cores profile with chunks of an eighth of it each. */
static double concord_gpu_chunk(const struct sched *s)
{
	double x = (double)s->c.items / 20.0;

	return fmax(x, sched_sample(s, &s->g[0], LOGFIT_SAMPLES));
}

static double concord_cpu_chunk(const struct sched *s)
{
	return concord_gpu_chunk(s) / (8.0 * (s->c.ncpu ? s->c.ncpu : 1));
}

/* The GPU a profiling chunk is for: several GPUs profile with the chunk of the first (Concord
 * knows one GPU; they are a pool here). */
static double concord_chunk(const struct sched *s, unsigned dev)
{
	return is_gpu(s, dev) ? concord_gpu_chunk(s) : concord_cpu_chunk(s);
}

/* One split of what is left: the GPUs' fraction as one chunk (one each, by their
 * throughputs), the rest to the cores. */
static void concord_split(struct sched *s)
{
	struct concord *cc = concord_of(s);
	size_t r = left(&s->pool), g = s->c.granule, gs;

	gs = s->c.ncpu == 0 ? r : (size_t)(cc->frac * (double)(r / g) + 0.5) * g;
	if (gs > r)
		gs = r;
	sched_split_gpus(s, s->pool.next, gs, true);
	s->cpu_r = (struct range){s->pool.next + gs, s->pool.end};
	s->pool.next = s->pool.end;
	cc->split = true;
	cc->have_frac = true;
}

static void concord_gpu_done(struct sched *s)
{
	struct concord *cc = concord_of(s);
	double lg = sched_gpu_lambda(s), lc = sched_cpu_total(s), f;

	if (cc->split || s->c.ncpu == 0)
		return;
	/* No core has finished a chunk yet: the relative speed is unknown, keep profiling. */
	if (!(lc > 0) || !(lg > 0))
		return;
	f = lg / (lg + lc);
	if ((cc->prev_frac > 0 && fabs(f - cc->prev_frac) < CONCORD_STABLE * cc->prev_frac) ||
	    (double)s->pool.next >= CONCORD_LIMIT * (double)s->c.items) {
		cc->frac = f;
		concord_split(s);
		return;
	}
	cc->prev_frac = f;
}

static void concord_init(struct sched *s)
{
	s->priv = xcalloc(1, sizeof(struct concord));
}

static void concord_fini(struct sched *s)
{
	free(s->priv);
}

/* The fraction learnt in an earlier step splits the space at once. */
static void concord_step_begin(struct sched *s)
{
	struct concord *cc = concord_of(s);

	cc->split = false;
	cc->prev_frac = 0;
	if (s->c.ncpu == 0)
		cc->frac = 1.0;
	if (cc->have_frac || s->c.ncpu == 0)
		concord_split(s);
}

static enum sched_answer concord_next(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	struct concord *cc = concord_of(s);

	if (cc->split)
		return is_gpu(s, dev) ? sched_take_part(s, dev, PHASE_SPLIT, out)
		                      : sched_take_guided(s, NULL, &s->cpu_r, PHASE_SPLIT, out);
	return sched_take(s, &s->pool, sched_round_chunk(s, concord_chunk(s, dev), left(&s->pool)),
	                  PHASE_PROFILE, out);
}

static void concord_done(struct sched *s, unsigned dev, const struct sched_chunk *c, double ms,
                         double lambda)
{
	(void)ms;
	(void)lambda;
	if (is_gpu(s, dev) && c->phase == PHASE_PROFILE)
		concord_gpu_done(s);
}

const struct sched_ops sched_concord_ops = {
        .init = concord_init,
        .fini = concord_fini,
        .step_begin = concord_step_begin,
        .next = concord_next,
        .done = concord_done,
};

double sched_gpu_fraction(const struct sched *s)
{
	const struct concord *cc;

	if (s->kind != SCHED_CONCORD)
		return 0;
	cc = concord_of(s);
	return cc->have_frac ? cc->frac : 0;
}
