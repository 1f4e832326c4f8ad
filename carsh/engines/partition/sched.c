/* The schedulers' interface (sched.h): the bookkeeping every scheduler shares, each call
 * then handed to the running scheduler's entry (sched-int.h), which keeps its own state. */
#include <stdlib.h>
#include <string.h>

#include "engines/partition/logfit.h"
#include "engines/partition/sched-int.h"
#include "engines/partition/sched-learn.h"
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
	for (unsigned i = 0; i < s->ng; i++)
		s->g[i].neu = neus && neus[i] ? neus[i] : s->c.neu;
}

/* The per-device and per-core arrays. */
static void devices_new(struct sched *s)
{
	unsigned nc = s->c.ncpu ? s->c.ncpu : 1;

	s->lambda = xcalloc(s->ndev, sizeof(*s->lambda));
	s->busy = xcalloc(s->ndev, sizeof(*s->busy));
	s->copy_ms = xcalloc(s->ndev, sizeof(*s->copy_ms));
	s->cdone = xcalloc(nc, sizeof(*s->cdone));
	s->cms = xcalloc(nc, sizeof(*s->cms));
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
	/* Without a GPU every heterogeneous scheduler is the CPU cores sharing the space. */
	if (!cfg->gpu)
		s->kind = SCHED_CPU;
	s->ops = (size_t)s->kind < ARRAY_SIZE(kind_ops) ? kind_ops[s->kind] : &no_ops;
	gpus_new(s, cfg, ngpu, neus);
	s->ndev = cfg->ncpu + s->ng;
	devices_new(s);
	if (s->ops->init)
		s->ops->init(s);
	return s;
}

void sched_free(struct sched *s)
{
	if (!s)
		return;
	if (s->ops->fini)
		s->ops->fini(s);
	free(s->lambda);
	free(s->busy);
	free(s->copy_ms);
	free(s->cdone);
	free(s->cms);
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
	s->cpu_r = s->gpool = (struct range){0, 0};
	s->gshared = false;
	for (unsigned i = 0; i < s->ng; i++) {
		s->g[i].r = (struct range){0, 0};
		s->g[i].running = false;
		s->g[i].items = 0;
	}
	memset(s->busy, 0, s->ndev * sizeof(*s->busy));
	memset(s->copy_ms, 0, s->ndev * sizeof(*s->copy_ms));
	memset(s->cdone, 0, nc * sizeof(*s->cdone));
	memset(s->cms, 0, nc * sizeof(*s->cms));
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

		g->running = false;
		g->items += c->size;
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
		s->ops->done(s, dev, c, ms, lambda);
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

/* The running scheduler's cost model, NULL where it keeps none. */
static struct learn *learner(const struct sched *s)
{
	return s->ops->learner ? s->ops->learner(s) : NULL;
}

void sched_fixed(struct sched *s, unsigned dev, double ms)
{
	struct learn *l = learner(s);

	if (l)
		sched_cost_fixed(l, dev, ms);
}

bool sched_learns_fixed(const struct sched *s)
{
	return learner(s) != NULL;
}

bool sched_core_cost(const struct sched *s, double *fixed_ms, double *min_chunk)
{
	const struct learn *l = learner(s);

	return l && sched_cost_of_cores(l, fixed_ms, min_chunk);
}

void sched_prime_map(struct sched *s, const double *map, unsigned n)
{
	struct learn *l = learner(s);

	if (l)
		sched_map_prime(l, map, n);
}

bool sched_profile_map(const struct sched *s, double *map, unsigned n)
{
	const struct learn *l = learner(s);

	return l && sched_map_profile(l, map, n);
}

void sched_widest_known(struct sched *s, size_t n)
{
	if (n > s->widest)
		s->widest = n;
}

bool sched_logfit_state_of(const struct sched *s, unsigned gpu, double *a, double *b,
                           double *gpu_chunk)
{
	const struct fit *f;

	if (gpu >= s->ng || !s->ops->fit || !(f = s->ops->fit(s, gpu)) || !f->fitted)
		return false;
	*a = f->a;
	*b = f->b;
	*gpu_chunk = f->grec;
	return true;
}

bool sched_logfit_state(const struct sched *s, double *a, double *b, double *gpu_chunk)
{
	return sched_logfit_state_of(s, 0, a, b, gpu_chunk);
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
