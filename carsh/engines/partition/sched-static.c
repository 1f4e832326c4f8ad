/* The schedulers that split the space before a step starts: static (003 §5.1), the CPU
 * cores alone, the GPU alone (sched.h). */
#include "engines/partition/sched-int.h"
#include "engines/partition/sched-learn.h"

/* ---- static (003 §5.1) ---- */

static void static_step_begin(struct sched *s)
{
	/* 003's Static is static: the GPUs share by compute units, not by a measurement. */
	sched_split_static(s, s->c.gpu_share, false);
}

static enum sched_answer static_next(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	return is_gpu(s, dev) ? sched_take_part(s, dev, PHASE_STATIC, out)
	                      : sched_take_guided(s, NULL, &s->cpu_r, PHASE_STATIC, out);
}

/* A share of 0 or 100 % leaves a side without work. */
static bool static_uses(const struct sched *s, unsigned dev)
{
	return is_gpu(s, dev) ? left(&s->g[dev - s->c.ncpu].r) > 0 : left(&s->cpu_r) > 0;
}

const struct sched_ops sched_static_ops = {
        .step_begin = static_step_begin,
        .next = static_next,
        .uses = static_uses,
};

/* ---- cpu: the cores alone, guided self-scheduling ---- */

/* LogFit and Marrow without a GPU run here too, and keep their chunks above what a core's
 * fixed cost per chunk allows (sched_take_guided): the cpu scheduler then owns their cost
 * model, its private state (NULL when it runs as asked). */
static void cpu_init(struct sched *s)
{
	if (s->c.kind == SCHED_LOGFIT || s->c.kind == SCHED_MARROW)
		s->priv = learn_new(&s->c, s->ndev);
}

static void cpu_fini(struct sched *s)
{
	learn_free(s->priv);
}

static struct learn *cpu_learner(const struct sched *s)
{
	return s->priv;
}

static void cpu_step_begin(struct sched *s)
{
	if (s->priv)
		learn_step(s->priv);
}

static enum sched_answer cpu_next(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	return is_gpu(s, dev) ? SCHED_DONE
	                      : sched_take_guided(s, s->priv, &s->pool, PHASE_GUIDED, out);
}

static void cpu_done(struct sched *s, unsigned dev, const struct sched_chunk *c, double ms,
                     double lambda)
{
	(void)lambda;
	if (s->priv)
		learn_done(s->priv, dev, is_gpu(s, dev), c, ms);
}

static bool cpu_uses(const struct sched *s, unsigned dev)
{
	return !is_gpu(s, dev);
}

const struct sched_ops sched_cpu_ops = {
        .init = cpu_init,
        .fini = cpu_fini,
        .step_begin = cpu_step_begin,
        .next = cpu_next,
        .done = cpu_done,
        .learner = cpu_learner,
        .uses = cpu_uses,
};

/* ---- gpu: the GPU alone; several share the space by their throughputs ---- */

static void gpu_step_begin(struct sched *s)
{
	if (s->ng > 1)
		sched_split_static(s, 1.0, true);
}

static enum sched_answer gpu_next(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	if (!is_gpu(s, dev))
		return SCHED_DONE;
	if (s->ng > 1)
		return sched_take_part(s, dev, PHASE_ALONE, out);
	return sched_take(s, &s->pool, left(&s->pool), PHASE_ALONE, out);
}

static bool gpu_uses(const struct sched *s, unsigned dev)
{
	return is_gpu(s, dev);
}

const struct sched_ops sched_gpu_ops = {
        .step_begin = gpu_step_begin,
        .next = gpu_next,
        .uses = gpu_uses,
};
