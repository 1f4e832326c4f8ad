/* The schedulers' interface (sched.h): the bookkeeping every scheduler shares, each call
 * then handed to the running scheduler's entry (sched-int.h). */
#include <stdlib.h>
#include <string.h>

#include "engines/partition/sched-int.h"
#include "util/alloc.h"

/* By enum sched_kind. */
static const struct sched_ops *const kind_ops[] = {
        [SCHED_LOGFIT] = &sched_logfit_ops,   [SCHED_STATIC] = &sched_static_ops,
        [SCHED_CONCORD] = &sched_concord_ops, [SCHED_HDSS] = &sched_hdss_ops,
        [SCHED_CPU] = &sched_cpu_ops,         [SCHED_GPU] = &sched_gpu_ops,
        [SCHED_MARROW] = &sched_marrow_ops,
};
static const struct sched_ops no_ops; /* a kind that is none of these: nothing to do */

/* Why cfg cannot run, or NULL. */
static const char *cfg_refused(const struct sched_cfg *cfg)
{
	if (cfg->items == 0 || cfg->granule == 0 || cfg->items % cfg->granule)
		return "the space must be a positive multiple of the granule";
	if (cfg->ncpu == 0 && !cfg->gpu)
		return "no device takes part";
	if (cfg->kind == SCHED_GPU && !cfg->gpu)
		return "the gpu scheduler needs a GPU";
	if (cfg->kind == SCHED_CPU && cfg->ncpu == 0)
		return "the cpu scheduler needs at least one CPU core";
	return NULL;
}

static void gpus_new(struct sched *s, const struct sched_cfg *cfg, unsigned ngpu,
                     const unsigned *neus)
{
	s->ng = cfg->gpu ? (ngpu ? ngpu : 1) : 0;
	s->g = xcalloc(s->ng ? s->ng : 1, sizeof(*s->g));
	s->w = xcalloc(s->ng ? s->ng : 1, sizeof(*s->w));
	s->bound = xcalloc(s->ng + 1, sizeof(*s->bound));
	for (unsigned i = 0; i < s->ng; i++) {
		s->g[i].neu = neus && neus[i] ? neus[i] : s->c.neu;
		s->g[i].samp_goal = LOGFIT_SAMPLES;
	}
}

/* The per-device and per-core arrays. */
static void devices_new(struct sched *s)
{
	unsigned nc = s->c.ncpu ? s->c.ncpu : 1;

	s->lambda = xcalloc(s->ndev, sizeof(*s->lambda));
	s->busy = xcalloc(s->ndev, sizeof(*s->busy));
	s->copy_ms = xcalloc(s->ndev, sizeof(*s->copy_ms));
	s->cpu_k = xcalloc(nc, sizeof(*s->cpu_k));
	s->out = xcalloc(nc, sizeof(*s->out));
	s->out_step = xcalloc(nc, sizeof(*s->out_step));
	s->probe = xcalloc(nc, sizeof(*s->probe));
	s->out_lg = xcalloc(nc, sizeof(*s->out_lg));
	s->clast = xcalloc(nc, sizeof(*s->clast));
	s->cdone = xcalloc(nc, sizeof(*s->cdone));
	s->cms = xcalloc(nc, sizeof(*s->cms));
	s->fixed_ms = xcalloc(nc, sizeof(*s->fixed_ms));
}

struct sched *sched_new(const struct sched_cfg *cfg, const char **why)
{
	return sched_new_gpus(cfg, 1, NULL, why);
}

struct sched *sched_new_gpus(const struct sched_cfg *cfg, unsigned ngpu, const unsigned *neus,
                             const char **why)
{
	const char *refused = cfg_refused(cfg);
	struct sched *s;

	if (refused) {
		*why = refused;
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->c = *cfg;
	if (s->c.neu == 0)
		s->c.neu = 1;
	if (!(s->c.thld > 0))
		s->c.thld = LOGFIT_THLD;
	s->kind = cfg->kind;
	s->learn_cost = cfg->kind == SCHED_LOGFIT || cfg->kind == SCHED_MARROW;
	/* Without a GPU every heterogeneous scheduler is the CPU cores sharing the space. */
	if (!cfg->gpu)
		s->kind = SCHED_CPU;
	s->ops = (size_t)s->kind < ARRAY_SIZE(kind_ops) ? kind_ops[s->kind] : &no_ops;
	gpus_new(s, cfg, ngpu, neus);
	s->ndev = cfg->ncpu + s->ng;
	devices_new(s);
	sched_cost_init(s);
	sched_map_init(s);
	if (s->ops->init)
		s->ops->init(s);
	return s;
}

void sched_free(struct sched *s)
{
	if (!s)
		return;
	free(s->lambda);
	free(s->busy);
	free(s->copy_ms);
	free(s->cpu_k);
	free(s->out);
	free(s->out_step);
	free(s->probe);
	free(s->out_lg);
	free(s->clast);
	free(s->cdone);
	free(s->cms);
	free(s->fixed_ms);
	sched_map_free(s);
	free(s->g);
	free(s->w);
	free(s->bound);
	free(s);
}

void sched_step_begin(struct sched *s)
{
	size_t nc = s->c.ncpu ? s->c.ncpu : 1; /* the per-core arrays' length (devices_new) */

	s->pool = (struct range){0, s->c.items};
	s->assigned = 0;
	s->cpu_fresh = 0;
	s->ctail = 0;
	sched_cost_step(s);
	sched_map_step(s);
	s->cpu_r = s->gpool = (struct range){0, 0};
	s->gshared = false;
	s->split = false;
	s->cores_out = false;
	for (unsigned i = 0; i < s->ng; i++) {
		s->g[i].r = (struct range){0, 0};
		s->g[i].off = s->g[i].running = false;
		s->g[i].items = 0;
	}
	memset(s->busy, 0, s->ndev * sizeof(*s->busy));
	memset(s->copy_ms, 0, s->ndev * sizeof(*s->copy_ms));
	memset(s->cdone, 0, nc * sizeof(*s->cdone));
	memset(s->cms, 0, nc * sizeof(*s->cms));
	/* A new step may meet other work: every core is asked again (logfit). */
	memset(s->out, 0, nc * sizeof(*s->out));
	s->step++;
	if (s->ops->step_begin)
		s->ops->step_begin(s);
}

enum sched_answer sched_next(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	enum sched_answer a;

	if (dev >= s->ndev || !s->ops->next)
		return SCHED_DONE;
	a = s->ops->next(s, dev, out);
	if (a == SCHED_CHUNK && is_gpu(s, dev))
		gpu_of(s, dev)->running = true;
	return a;
}

/* A core's throughput: its items over its time in chunks in this step so far, not its last
 * chunk's items over its time. 16 PoCL cores on a Jacobi grid measured chunks at 6 to 145
 * rows/ms while each did 27 rows/ms over the step; the sum of their last throughputs, three
 * times what they did together, took the GPU out of steps it should have had a third of
 * (docs/partition.md). Until its first chunk of a step, a core's is the last step's. */
static double core_lambda(struct sched *s, unsigned dev, size_t items, double ms)
{
	s->cdone[dev] += (double)items;
	s->cms[dev] += ms;
	return s->cdone[dev] / (s->cms[dev] > 1e-4 ? s->cms[dev] : 1e-4);
}

/* What every scheduler keeps of a finished chunk. */
static void note_done(struct sched *s, unsigned dev, const struct sched_chunk *c, double ms,
                      double lambda)
{
	s->lambda[dev] = is_gpu(s, dev) ? lambda : core_lambda(s, dev, c->size, ms);
	s->busy[dev] += ms;
	if (is_gpu(s, dev)) {
		struct gst *g = gpu_of(s, dev);

		/* A core standing in for the GPU is a core: its chunks measure the map too. */
		sched_map_pace(s, dev, c, ms);
		if (s->c.gpu_is_core)
			sched_map_add(s, c, ms);
		g->running = false;
		g->last = c->size;
		g->items += c->size;
		if (c->size >= g->big_size) {
			g->big_size = c->size;
			g->big_lg = lambda;
		}
	} else {
		double rest = sched_cost_add(s, dev, c->size, ms);

		s->out_step[dev] = 0;
		s->cpu_fresh++;
		/* A core's pace leaves out its fixed cost: Mandelbrot's light rows, mostly fixed
		 * cost, gave a core half the pace of a core standing in for the GPU that took the
		 * set in one chunk, and the next step's set-aside share 57 % of the items. */
		sched_map_pace(s, dev, c, rest >= 0 ? rest : ms);
		sched_map_add(s, c, rest);
		s->clast[dev] = c->size;
	}
}

void sched_copied(struct sched *s, unsigned dev, double ms)
{
	if (dev < s->ndev && ms > 0)
		s->copy_ms[dev] += ms;
}

void sched_done(struct sched *s, unsigned dev, const struct sched_chunk *c, double ms)
{
	double lambda;

	if (dev >= s->ndev || c->size == 0)
		return;
	/* LogFit's throughputs are per chunk, transfers included (003 §4, footnote 1): the
	 * copies that held a GPU back from its first chunk belong to that chunk (a sample's
	 * throughput is the curve's, and left as it was). Without them a Jacobi step's 16 MiB
	 * copy over PCIe (2-3 ms) is nobody's time, the GPU's share of the next step grows
	 * from a throughput it cannot reach, and the cores take that share while it copies. */
	if (s->ops->counts_copies && c->phase != PHASE_SAMPLE) {
		ms += s->copy_ms[dev];
		s->copy_ms[dev] = 0;
	}
	/* A clock tick is the finest time there is: never divide by zero. */
	lambda = (double)c->size / (ms > 1e-4 ? ms : 1e-4);
	note_done(s, dev, c, ms, lambda);
	if (s->ops->done)
		s->ops->done(s, dev, c, lambda);
}

void sched_step_end(struct sched *s)
{
	if (s->ops->step_end)
		s->ops->step_end(s);
}

void sched_prime(struct sched *s, const struct sched_prior *p)
{
	if (!(p->share >= 0 && p->share <= 1))
		return;
	if (s->ops->prime)
		s->ops->prime(s, p);
}

bool sched_profile(const struct sched *s, struct sched_prior *p)
{
	return s->ops->profile && s->ops->profile(s, p);
}

bool sched_uses(const struct sched *s, unsigned dev)
{
	if (dev >= s->ndev)
		return false;
	return !s->ops->uses || s->ops->uses(s, dev);
}

size_t sched_assigned(const struct sched *s)
{
	return s->assigned;
}

enum sched_kind sched_running(const struct sched *s)
{
	return s->kind;
}

static const char *const kind_names[] = {"logfit", "static", "concord", "hdss",
                                         "cpu",    "gpu",    "marrow"};

const char *sched_name(enum sched_kind k)
{
	return (size_t)k < ARRAY_SIZE(kind_names) ? kind_names[k] : "?";
}

int sched_parse(const char *name, enum sched_kind *k)
{
	for (size_t i = 0; i < ARRAY_SIZE(kind_names); i++)
		if (strcmp(name, kind_names[i]) == 0) {
			*k = (enum sched_kind)i;
			return 0;
		}
	return -1;
}

const char *sched_phase_name(enum sched_phase p)
{
	static const char *const names[] = {"sample", "fit",     "static", "profile",
	                                    "split",  "train",   "guided", "alone",
	                                    "probe",  "balance", "tail"};

	return (size_t)p < ARRAY_SIZE(names) ? names[p] : "?";
}
