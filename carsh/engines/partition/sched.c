#include "engines/partition/sched.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engines/partition/gpusplit.h"
#include "engines/partition/logfit.h"
#include "util/alloc.h"

/* Concord (003 §5.1): profiling stops once the GPU's fraction of the work changes by less
 * than this between two profiling chunks, or once half the space is handed out. */
#define CONCORD_STABLE 0.05
#define CONCORD_LIMIT  0.5
/* HDSS (003 §5.1): training stops once the relative speed changes by less than 1 %, or once
 * 20 % of the space is handed out. */
#define HDSS_STABLE      0.01
#define HDSS_LIMIT       0.2
#define HDSS_MAX_SAMPLES 64
/* LogFit's exploration (not in 003): the GPU stops sampling after two samples once they
 * have taken more than this fraction of the step's predicted time; a core whose one-granule
 * chunk is out of work comes back when the GPU's throughput changes by this factor. */
#define EXPLORE_FRAC  0.02
#define REGION_FACTOR 2.0
/* Marrow (001 §3.2-3.3): a step is balanced when the finish times differ by at most
 * MARROW_TOL of the later; lbt(n) = unbalanced·W + lbt(n-1)·(1-W) with unbalanced meaning
 * a difference over MARROW_MAXDEV, and a new search starts when lbt reaches MARROW_LBT
 * (with W = 2/3, 001's default, three unbalanced steps in a row). */
#define MARROW_TOL    0.05
#define MARROW_MAXDEV 0.10
#define MARROW_W      (2.0 / 3.0)
#define MARROW_LBT    0.9
#define MARROW_REFINE (1.0 / 16) /* the first move from a known split */

struct range {
	size_t next, end;
};

/* One GPU's part of logfit's state (003 §4 per accelerator: each has its own samples and
 * fit), kept across steps; hdss keeps its pooled fit in the first GPU's. */
struct gst {
	unsigned neu;
	struct range r; /* its part of a split (static, concord, marrow, gpu) */
	double sx[LOGFIT_SAMPLES], sy[LOGFIT_SAMPLES];
	unsigned nsamp;
	bool fitted;
	double a, b, grec;
	bool off;           /* the rest of this step is not worth a chunk of it */
	bool running;       /* it has a chunk (handed out, not done) */
	unsigned samp_goal; /* samples to take: LOGFIT_SAMPLES, fewer when they cost too much */
	double samp_ms;     /* the samples' time so far */
	size_t last;        /* the size of its current or last chunk */
	size_t items;       /* its items in this step */
	size_t big_size;    /* its largest chunk in this step */
	double big_lg;      /* that chunk's throughput (of the step before, until there is one) */
};

struct sched {
	struct sched_cfg c;
	enum sched_kind kind; /* what runs: the requested kind, or its fallback */
	unsigned ndev, ng;    /* devices; GPUs (devices ncpu .. ncpu+ng-1) */
	struct range pool;    /* the front of the space still to hand out */
	struct range cpu_r;   /* the cores' part of a split (static, concord, marrow) */
	struct range gpool;   /* the GPUs' part, while they share it in chunks (split_gpus) */
	bool gshared;
	size_t gpart; /* its size: a GPU's chunk of it is at least an eighth of a GPU's share */
	bool split;
	size_t assigned; /* items handed out in this step */
	double *lambda;  /* each device's last throughput, items/ms; 0: not measured yet */
	struct gst *g;   /* per GPU */
	double *w;       /* per GPU: weights of a split (scratch) */
	size_t *bound;   /* ng + 1: the split's bounds (scratch) */

	/* logfit */
	bool cores_out;     /* a core sat out the rest of this step: the GPUs take it all */
	unsigned cpu_fresh; /* chunks the cores have finished in this step */
	bool primed;        /* started from a known profile: no samples, no fit */
	bool *out;          /* per core: sits out the rest of this step */
	bool *probe;        /* per core: its next chunk is a probe (it sat out before) */
	double *out_lg;     /* per core: the GPUs' throughput when it sat out */
	size_t *clast;      /* per core: its last chunk's size */
	double *busy;       /* per device: ms in chunks in this step */

	/* marrow: the split, kept across steps */
	double share, delta, best_share, best_ms, lbt, last_tg, last_tc;
	bool searching, shifting;
	int dir;
	unsigned same;

	/* concord: the GPUs' fraction, kept across steps */
	bool have_frac;
	double frac, prev_frac;

	/* hdss: nothing kept across steps; the GPUs are one pool */
	bool training;
	double hx[HDSS_MAX_SAMPLES], hy[HDSS_MAX_SAMPLES];
	unsigned nh;
	double rel, prev_rel;
	unsigned *cpu_k; /* training chunks each core has had */
};

static bool is_gpu(const struct sched *s, unsigned dev)
{
	return s->c.gpu && dev >= s->c.ncpu && dev < s->ndev;
}

/* The GPU state of device dev (a GPU). */
static struct gst *gpu_of(struct sched *s, unsigned dev)
{
	return &s->g[dev - s->c.ncpu];
}

static size_t left(const struct range *r)
{
	return r->end - r->next;
}

/* x rounded to a multiple of the granule, at least one granule, at most avail (a multiple
 * of the granule itself). */
static size_t round_chunk(const struct sched *s, double x, size_t avail)
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
static size_t floor_chunk(const struct sched *s, double x, size_t avail)
{
	size_t g = s->c.granule;

	if (!(x > 0))
		x = 0;
	if (x >= (double)avail)
		return avail;
	return (size_t)(x / (double)g) * g > g ? (size_t)(x / (double)g) * g : g;
}

static enum sched_answer take(struct sched *s, struct range *r, size_t n, enum sched_phase ph,
                              struct sched_chunk *out)
{
	if (n == 0 || left(r) == 0)
		return SCHED_DONE;
	if (n > left(r))
		n = left(r);
	*out = (struct sched_chunk){r->next, n, ph};
	r->next += n;
	s->assigned += n;
	return SCHED_CHUNK;
}

/* Guided self-scheduling with factor 2 (factoring): half of what is left, shared among the
 * cores. The CPU cores' part of static and concord, and the cpu scheduler. */
static enum sched_answer take_guided(struct sched *s, struct range *r, enum sched_phase ph,
                                     struct sched_chunk *out)
{
	double n = ceil((double)left(r) / (2.0 * (s->c.ncpu ? s->c.ncpu : 1)));

	return take(s, r, round_chunk(s, n, left(r)), ph, out);
}

/* Mean throughput of the cores measured so far (0 when none is). */
static double cpu_mean(const struct sched *s)
{
	double sum = 0;
	unsigned n = 0;

	for (unsigned d = 0; d < s->c.ncpu; d++)
		if (s->lambda[d] > 0) {
			sum += s->lambda[d];
			n++;
		}
	return n ? sum / n : 0;
}

/* A core's throughput: its own last one, else the mean of the others (0: none known). */
static double cpu_lambda(const struct sched *s, unsigned dev)
{
	return s->lambda[dev] > 0 ? s->lambda[dev] : cpu_mean(s);
}

/* Sum of the cores' throughputs, a core not measured yet counted at the mean of the others
 * (0 when none is measured). */
static double cpu_total(const struct sched *s)
{
	double t = 0;

	for (unsigned d = 0; d < s->c.ncpu; d++)
		t += cpu_lambda(s, d);
	return t;
}

/* The GPUs' throughputs together (one GPU: its own), 0 when none is measured. */
static double gpu_lambda(const struct sched *s)
{
	double t = 0;

	for (unsigned i = 0; s->c.gpu && i < s->ng; i++)
		t += s->lambda[s->c.ncpu + i];
	return t;
}

/* The same over the GPUs that still take work in this step (logfit: not off). */
static double gpu_lambda_on(const struct sched *s)
{
	double t = 0;

	for (unsigned i = 0; s->c.gpu && i < s->ng; i++)
		if (!s->g[i].off)
			t += s->lambda[s->c.ncpu + i];
	return t;
}

static unsigned gpu_index(const struct sched *s, const struct gst *g)
{
	return (unsigned)(g - s->g);
}

static double lambda_of(const struct sched *s, const struct gst *g)
{
	return s->lambda[s->c.ncpu + gpu_index(s, g)];
}

/* ---- logfit (003 §4) ---- */

/* 003 §4: x_k = nEU·2^(k-1), with nEU rounded up to a multiple of the granule so that the
 * four sizes stay distinct (a fit needs two different sizes at least). */
static double sample(const struct sched *s, const struct gst *g, unsigned k)
{
	size_t gr = s->c.granule, neu = (g->neu + gr - 1) / gr * gr;

	return logfit_sample_size((unsigned)neu, k);
}

static double first_sample(const struct sched *s, const struct gst *g)
{
	return sample(s, g, 1);
}

/* The fit of the sample set, and the recommended GPU chunk a/thld. Where the fit says
 * nothing (a <= 0: the throughput does not grow with the chunk; 003 leaves the case open)
 * the chunk stays as it was, and after the first fit it is the best measured sample's size;
 * it is never below the first sample, nEU. */
static void logfit_refit(struct sched *s, struct gst *g)
{
	double a, b;

	if (g->grec <= 0) {
		unsigned best = 0;

		for (unsigned i = 1; i < g->nsamp; i++)
			if (g->sy[i] > g->sy[best])
				best = i;
		g->grec = g->sx[best];
	}
	if (logfit_fit(g->sx, g->sy, g->nsamp, &a, &b) == 0) {
		g->fitted = true;
		g->a = a;
		g->b = b;
		if (logfit_gpu_chunk(a, s->c.thld) > 0)
			g->grec = logfit_gpu_chunk(a, s->c.thld);
	}
	if (g->grec < first_sample(s, g))
		g->grec = first_sample(s, g);
}

/* The GPU's time for a chunk of x items by its fit (or its last throughput before the
 * first fit). Where the fit predicts no throughput (a log curve below its samples' range),
 * the slowest sample's throughput stands in: a chunk that small costs what the smallest
 * sample cost at least. */
static double gpu_chunk_ms(const struct sched *s, const struct gst *g, double x)
{
	double y = g->fitted ? logfit_eval(g->a, g->b, x) : lambda_of(s, g);

	for (unsigned i = 0; !(y > 0) && i < g->nsamp; i++)
		if (g->sy[i] > 0 && (!(y > 0) || g->sy[i] < y))
			y = g->sy[i];
	return y > 0 ? x / y : INFINITY;
}

/* The GPU's chunk when the others (lc items/ms together: the cores, and the other GPUs)
 * take part: its recommended chunk G, but no more than ends with the others' rest of what is
 * left, c/λG(c) = (r - c)/lc, found by bisection (the GPU's time grows with c, the others'
 * shrinks); 0 when even the smallest chunk the fit knows, nEU, would end after the others
 * have done all of r. Where G ≥ r 003 gives the GPU all of what is left or nothing (003
 * §5.2); either left one side idle while the other ran, a third of a step on a Jacobi grid
 * where an H100 is as fast as 16 cores (docs/partition.md). */
static double gpu_balanced_chunk(const struct sched *s, const struct gst *g, size_t r, double lc)
{
	double lo = fmin(first_sample(s, g), (double)r), hi = fmin(g->grec, (double)r);

	if (gpu_chunk_ms(s, g, hi) <= ((double)r - hi) / lc)
		return hi;
	if (gpu_chunk_ms(s, g, lo) > ((double)r - lo) / lc)
		return 0;
	for (int i = 0; i < 40 && hi - lo > (double)s->c.granule; i++) {
		double mid = (lo + hi) / 2;

		if (gpu_chunk_ms(s, g, mid) <= ((double)r - mid) / lc)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The throughput of the GPUs other than g that can take a share of what is left (r): those
 * not running a chunk and not out of the step, at their fitted throughput at their chunk (up
 * to r), else their last one; 0 with one GPU. A GPU busy with a chunk is left out: counted,
 * two GPUs each left the rest of a step to the other and to the cores, which then finished
 * it alone (a tenth of a step in the simulation). */
static double other_gpus(const struct sched *s, const struct gst *g, size_t r)
{
	double t = 0;

	for (unsigned i = 0; i < s->ng; i++) {
		const struct gst *o = &s->g[i];
		double y = 0;

		if (o == g || o->off || o->running)
			continue;
		if (o->fitted)
			y = logfit_eval(o->a, o->b, fmin(o->grec, (double)r));
		if (!(y > 0))
			y = lambda_of(s, o);
		t += y > 0 ? y : 0;
	}
	return t;
}

/* 003 §4: the GPU's chunk is G = a/thld. Where less than that is left, the GPU takes what
 * is left if its fitted throughput there, a·ln(R) + b, beats the cores' together; else
 * nothing more in this step (003 §5.2: "the number of available iterations is not enough to
 * assign to the GPU a chunk sufficiently large to obtain the predicted GPU throughput, so
 * it's not scheduled on the GPU"). With several GPUs the others count as the cores do. */
static enum sched_answer logfit_gpu(struct sched *s, struct gst *g, struct sched_chunk *out)
{
	size_t r = left(&s->pool);
	double lc = cpu_total(s), lo;
	bool cores;

	if (r == 0 || g->off)
		return SCHED_DONE;
	if (!s->primed && g->nsamp < g->samp_goal)
		return take(s, &s->pool, round_chunk(s, sample(s, g, g->nsamp + 1), r),
		            PHASE_SAMPLE, out);
	/* Only on throughputs the cores measured in this step: the last step's may come from
	 * other work, and would take the GPU out of a whole step. */
	cores = s->c.ncpu > 0 && lc > 0 && s->cpu_fresh > 0 && !s->cores_out;
	lo = (cores ? lc : 0) + other_gpus(s, g, r);
	if (cores || lo > 0) {
		double c = gpu_balanced_chunk(s, g, r, lo);

		if (c <= 0) {
			g->off = true;
			return SCHED_DONE;
		}
		if (c < fmin(g->grec, (double)r))
			return take(s, &s->pool, round_chunk(s, c, r), PHASE_TAIL, out);
	}
	return take(s, &s->pool, round_chunk(s, g->grec, r), PHASE_FIT, out);
}

/* With several GPUs, their throughput together on what is left shared among those still
 * taking work: each at its fitted throughput for its part (else its last). A GPU's last
 * throughput comes from a full chunk; the end of a step gives it a small part, at a fraction
 * of that (the cores sat out and left 512 items to a GPU that took 5 ms for them). */
static double gpus_for_rest(const struct sched *s, size_t r)
{
	unsigned on = 0;
	double t = 0;

	for (unsigned i = 0; i < s->ng; i++)
		on += !s->g[i].off;
	for (unsigned i = 0; i < s->ng; i++) {
		const struct gst *g = &s->g[i];
		double y = 0;

		if (g->off)
			continue;
		if (g->fitted)
			y = logfit_eval(g->a, g->b, fmin(g->grec, (double)r / on));
		t += y > 0 ? y : lambda_of(s, g);
	}
	return t;
}

/* Every GPU still taking work has a chunk: none can take the rest now. */
static bool gpus_busy(const struct sched *s)
{
	for (unsigned i = 0; i < s->ng; i++)
		if (!s->g[i].off && !s->g[i].running)
			return false;
	return true;
}

static bool gpus_off(const struct sched *s)
{
	for (unsigned i = 0; i < s->ng; i++)
		if (!s->g[i].off)
			return false;
	return true;
}

/* Whether core dev sits out the rest of the step: its smallest chunk, one granule at its
 * throughput, would take longer than the GPUs alone need for all that is left, so it could
 * only make them wait. Not in 003, whose GPU was a few cores' worth; an H100 is 300
 * PoCL cores'. A core that sat out is asked again when the GPUs' throughput has changed by
 * REGION_FACTOR (another region of the space), and in the next step. */
static bool logfit_sits_out(struct sched *s, unsigned dev, size_t r)
{
	double lc = cpu_lambda(s, dev), lg = s->ng > 1 ? gpus_for_rest(s, r) : gpu_lambda(s);

	if (s->out[dev] && lg > 0 &&
	    (lg > REGION_FACTOR * s->out_lg[dev] || lg * REGION_FACTOR < s->out_lg[dev]))
		s->out[dev] = false;
	if (s->out[dev])
		return true;
	if (!(lc > 0) || !(lg > 0) || (double)s->c.granule / lc <= (double)r / lg ||
	    (s->ng > 1 && gpus_busy(s)))
		return false;
	s->out[dev] = s->probe[dev] = s->cores_out = true;
	s->out_lg[dev] = lg;
	return true;
}

/* The GPU chunk a core's chunk is sized against (003 §4: C = G·λC/λG): of the GPUs with a
 * throughput, the one whose next chunk (G, or what is left when that is less) ends first,
 * so that a core is back before any GPU waits. NULL when no GPU has a throughput. */
static const struct gst *pace_gpu(const struct sched *s, size_t r, double *gchunk)
{
	const struct gst *best = NULL;
	double best_ms = 0;

	for (unsigned i = 0; i < s->ng; i++) {
		const struct gst *g = &s->g[i];
		double lg = lambda_of(s, g), x;

		if (!(lg > 0) || (s->ng > 1 && g->off))
			continue;
		x = fmin(g->grec > 0 ? g->grec : (double)g->last, (double)r);
		if (!best || x / lg < best_ms) {
			best = g;
			best_ms = x / lg;
			*gchunk = x;
		}
	}
	return best;
}

/* 003 §4: C = G·λC/λG, the chunk a core ends in the time the GPU needs for its next chunk
 * (G, or what is left when that is less). A core never takes more than its share of what is
 * left in proportion to its throughput (the rule of [15] 003 §4 builds on): where the last
 * throughputs were measured on lighter work than a chunk meets, a chunk of G·λC/λG could
 * otherwise hold a core long after the others are done. Its first chunk is a probe of one
 * granule, and until a GPU's throughput is known its chunks double from there: sized
 * from the GPU's chunk, a core's first chunk beside an H100 took longer than the step. */
static enum sched_answer logfit_cpu(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	size_t r = left(&s->pool);
	double lc, lg = gpu_lambda_on(s), c, gchunk = 0;
	const struct gst *pace;

	if (r == 0)
		return SCHED_DONE;
	if (gpus_off(s))
		return take_guided(s, &s->pool, PHASE_FIT, out);
	if (logfit_sits_out(s, dev, r))
		return SCHED_DONE;
	if (s->lambda[dev] <= 0 || s->probe[dev]) {
		s->probe[dev] = false;
		return take(s, &s->pool, s->c.granule, PHASE_PROBE, out);
	}
	lc = s->lambda[dev];
	pace = pace_gpu(s, r, &gchunk);
	if (!(lg > 0) || !pace)
		c = 2.0 * (double)s->clast[dev];
	else
		c = fmin(logfit_cpu_chunk(gchunk, lc, lambda_of(s, pace)),
		         (double)r * lc / (lg + cpu_total(s)));
	/* Nor more than an equal share of it among the devices: a core is not faster than a
	 * GPU, and a larger chunk means its throughput came from lighter work than the GPU's. */
	c = fmin(c, ceil((double)r / (s->c.ncpu + s->ng)));
	return take(s, &s->pool, floor_chunk(s, c, r), PHASE_FIT, out);
}

/* The GPU's sample set is complete, or its samples cost too much (EXPLORE_FRAC of the step
 * at the last sample's throughput with the other GPUs', a pessimistic prediction since the
 * throughput grows with the chunk): fit what there is, two samples at least. */
static bool samples_enough(const struct sched *s, const struct gst *g, double lambda)
{
	return g->nsamp >= g->samp_goal ||
	       (g->nsamp >= 2 && g->samp_ms > EXPLORE_FRAC * (double)s->c.items /
	                                              (lambda + other_gpus(s, g, s->c.items)));
}

static void logfit_done(struct sched *s, struct gst *g, const struct sched_chunk *c, double lambda)
{
	if (s->primed)
		return; /* the chunk follows the throughputs (logfit_prime_step) */
	if (c->phase == PHASE_SAMPLE && g->nsamp < g->samp_goal) {
		g->sx[g->nsamp] = (double)c->size;
		g->sy[g->nsamp] = lambda;
		g->nsamp++;
		g->samp_ms += (double)c->size / lambda;
		if (samples_enough(s, g, lambda)) {
			g->samp_goal = g->nsamp;
			logfit_refit(s, g);
		}
		return;
	}
	/* 003 §4: the fourth sample is replaced by the last chunk and its throughput; but not
	 * by a chunk smaller than the fit recommends (the end of a step: what was left, or a
	 * tail sized against the cores), whose throughput is the small end of the curve's and
	 * would move the next chunk there: a 11-item rest made a 12629-item chunk 42. */
	if (c->phase == PHASE_TAIL || (double)c->size + (double)s->c.granule <= g->grec)
		return;
	g->sx[g->samp_goal - 1] = (double)c->size;
	g->sy[g->samp_goal - 1] = lambda;
	logfit_refit(s, g);
}

/* A primed run (a known profile) sizes each GPU's chunk as its share of the step by the
 * throughputs, counting only the cores that do not sit out at the start of the step. */
static void logfit_prime_step(struct sched *s)
{
	double lg = gpu_lambda(s), lc = 0;

	if (!s->primed || !(lg > 0))
		return;
	for (unsigned d = 0; d < s->c.ncpu; d++) {
		double l = cpu_lambda(s, d);

		if (l > 0 && (double)s->c.granule / l <= (double)s->c.items / lg)
			lc += l;
	}
	for (unsigned i = 0; i < s->ng; i++) {
		struct gst *g = &s->g[i];
		double li = s->ng == 1 ? lg : lambda_of(s, g);

		g->grec = fmax((double)s->c.items * li / (lg + lc), first_sample(s, g));
		/* The knowledge base shares the GPUs' throughput among them by compute units:
		 * until a GPU has measured its own, its share comes in halves, so that the
		 * second follows what the first measured. */
		if (s->ng > 1 && !(g->big_lg > 0))
			g->grec = fmax(g->grec / 2, first_sample(s, g));
	}
}

/* ---- static (003 §5.1) ---- */

/* [begin, begin + n) to the GPUs, one part each (engines/partition/gpusplit.h): by their
 * compute units, or, with measured set, by their last throughputs (the parts then end
 * together if the work is as before). With measured set and a GPU not measured yet, the
 * GPUs share it in chunks instead (guided self-scheduling among them, no chunk below an
 * eighth of a GPU's share: a GPU's small chunks run below its peak): compute units do
 * not say how fast a GPU runs this kernel, and a split by them held the step for the
 * slower of two GPUs three times apart. */
static void split_gpus(struct sched *s, size_t begin, size_t n, bool measured)
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
 * as split_gpus says), the rest to the cores. */
static void static_split(struct sched *s, double share, bool measured)
{
	size_t n = s->c.items, g = s->c.granule, gs;

	if (s->c.ncpu == 0)
		gs = n;
	else
		gs = (size_t)(share * (double)(n / g) + 0.5) * g;
	if (gs > n)
		gs = n;
	split_gpus(s, 0, gs, measured);
	s->cpu_r = (struct range){gs, n};
	s->pool.next = n;
	s->split = true;
}

/* A GPU's one chunk of a split: its whole part. */
static enum sched_answer take_part(struct sched *s, unsigned dev, enum sched_phase ph,
                                   struct sched_chunk *out)
{
	struct gst *g = gpu_of(s, dev);

	if (s->gshared)
		return take(s, &s->gpool,
		            round_chunk(s,
		                        fmax(ceil((double)left(&s->gpool) / (2.0 * s->ng)),
		                             ceil((double)s->gpart / (8.0 * s->ng))),
		                        left(&s->gpool)),
		            ph, out);
	return take(s, &g->r, left(&g->r), ph, out);
}

/* ---- marrow (001 §3.2-3.3) ---- */

/* The search is over: the split stays where the devices were balanced, else at the best
 * one seen; the transferable part for a later search is what the last move would have
 * been. */
static void marrow_settle(struct sched *s, bool balanced)
{
	if (!balanced && s->best_ms > 0)
		s->share = s->best_share;
	s->searching = false;
	s->lbt = 0;
}

/* 001 §3.2.2's binary search: move the split toward the device that finished first by the
 * transferable part, which halves with each move; in a search started by a drift (001
 * §3.3.1's adaptive binary search) it doubles instead after more than two moves in one
 * direction, so that the split can leave the interval it was in. */
static void marrow_move(struct sched *s, double tg, double tc)
{
	int d = tg > tc ? -1 : 1; /* the GPU finished later: less for it */
	double min = (double)s->c.granule / (double)s->c.items;

	s->same = d == s->dir ? s->same + 1 : 0;
	s->dir = d;
	if (s->shifting && s->same >= 2)
		s->delta = fmin(2.0 * s->delta, 0.5);
	if (s->delta < min || (d < 0 && s->share <= 0) || (d > 0 && s->share >= 1)) {
		marrow_settle(s, false);
		return;
	}
	s->share = fmin(1.0, fmax(0.0, s->share + d * s->delta));
	if (!(s->shifting && s->same >= 2))
		s->delta /= 2;
}

/* With several GPUs, the time their side would have taken balanced among themselves: their
 * items over their throughputs together. The split among them follows their throughputs at
 * the next step (split_gpus); were the latest of them compared with the cores, a step with
 * the GPUs out of balance (the first, split by compute units) would move the split between
 * the GPUs and the cores for a reason the next step no longer has. */
static double gpus_balanced_ms(const struct sched *s)
{
	size_t items = 0;
	double lg = 0;

	for (unsigned i = 0; i < s->ng; i++) {
		items += s->g[i].items;
		if (s->g[i].items > 0 && s->busy[s->c.ncpu + i] > 0)
			lg += (double)s->g[i].items / s->busy[s->c.ncpu + i];
	}
	return lg > 0 ? (double)items / lg : 0;
}

static void marrow_step_end(struct sched *s)
{
	double tg = 0, tc = 0, t, dev;

	if (s->ng == 1)
		tg = s->busy[s->c.ncpu];
	else if (s->ng > 1)
		tg = gpus_balanced_ms(s);
	for (unsigned d = 0; d < s->c.ncpu; d++)
		tc = fmax(tc, s->busy[d]);
	t = fmax(tg, tc);
	if (!(t > 0) || s->c.ncpu == 0)
		return;
	s->last_tg = tg;
	s->last_tc = tc;
	dev = fabs(tg - tc) / t;
	if (!s->searching) {
		/* 001 §3.3: lbt(n) = isUnbalanced(dev)·weight + lbt(n-1)·(1-weight). */
		s->lbt = (dev > MARROW_MAXDEV ? MARROW_W : 0) + s->lbt * (1 - MARROW_W);
		if (s->lbt < MARROW_LBT)
			return;
		s->searching = s->shifting = true;
		s->delta = MARROW_REFINE;
		s->same = 0;
		s->dir = 0;
		s->best_ms = 0;
	}
	if (s->best_ms <= 0 || t < s->best_ms) {
		s->best_ms = t;
		s->best_share = s->share;
	}
	if (dev <= MARROW_TOL)
		marrow_settle(s, true);
	else
		marrow_move(s, tg, tc);
}

/* ---- concord (003 §5.1) ---- */

/* The fixed GPU profiling chunk: a twentieth of the space, at least the largest LogFit
 * sample (8·nEU); the cores profile with chunks of an eighth of it each. */
static double concord_gpu_chunk(const struct sched *s)
{
	double x = (double)s->c.items / 20.0;

	return fmax(x, sample(s, &s->g[0], LOGFIT_SAMPLES));
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
	size_t r = left(&s->pool), g = s->c.granule, gs;

	gs = s->c.ncpu == 0 ? r : (size_t)(s->frac * (double)(r / g) + 0.5) * g;
	if (gs > r)
		gs = r;
	split_gpus(s, s->pool.next, gs, true);
	s->cpu_r = (struct range){s->pool.next + gs, s->pool.end};
	s->pool.next = s->pool.end;
	s->split = true;
	s->have_frac = true;
}

static void concord_gpu_done(struct sched *s)
{
	double lg = gpu_lambda(s), lc = cpu_total(s), f;

	if (s->split || s->c.ncpu == 0)
		return;
	/* No core has finished a chunk yet: the relative speed is unknown, keep profiling. */
	if (!(lc > 0) || !(lg > 0))
		return;
	f = lg / (lg + lc);
	if ((s->prev_frac > 0 && fabs(f - s->prev_frac) < CONCORD_STABLE * s->prev_frac) ||
	    (double)s->pool.next >= CONCORD_LIMIT * (double)s->c.items) {
		s->frac = f;
		concord_split(s);
		return;
	}
	s->prev_frac = f;
}

/* ---- hdss (003 §5.1) ---- */

/* The GPUs are one pool of equal devices here: one fit over all their samples (kept in the
 * first GPU's state), one relative speed, a GPU's throughput their mean. */
static void hdss_end_training(struct sched *s)
{
	struct gst *g = &s->g[0];
	double lc = cpu_mean(s), lg = gpu_lambda(s) / s->ng, est = lg;

	if (g->fitted) {
		double y = logfit_eval(g->a, g->b, g->grec);

		if (y > 0)
			est = y;
	}
	if (s->rel <= 0)
		s->rel = lc > 0 && est > 0 ? est / lc : 1.0;
	s->training = false;
}

static void hdss_gpu_done(struct sched *s, const struct sched_chunk *c, double lambda)
{
	double lc = cpu_mean(s);
	struct gst *g = &s->g[0];

	if (s->nh < HDSS_MAX_SAMPLES) {
		s->hx[s->nh] = (double)c->size;
		s->hy[s->nh] = lambda;
		s->nh++;
	}
	if (s->nh < LOGFIT_SAMPLES)
		return;
	/* A log fit of every sample: the recommended chunk and the throughput there (where the
	 * fit says nothing, as logfit_refit: the last chunk's size). */
	if (g->grec <= 0)
		g->grec = s->hx[s->nh - 1];
	if (logfit_fit(s->hx, s->hy, s->nh, &g->a, &g->b) == 0) {
		g->fitted = true;
		if (logfit_gpu_chunk(g->a, s->c.thld) > 0)
			g->grec = logfit_gpu_chunk(g->a, s->c.thld);
	}
	if (g->grec < first_sample(s, g))
		g->grec = first_sample(s, g);
	if (lc > 0) {
		double y = g->fitted ? logfit_eval(g->a, g->b, g->grec) : lambda;

		s->rel = (y > 0 ? y : lambda) / lc;
		if (s->prev_rel > 0 && fabs(s->rel - s->prev_rel) < HDSS_STABLE * s->prev_rel)
			hdss_end_training(s);
		s->prev_rel = s->rel;
	}
}

static enum sched_answer hdss_next(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	size_t r = left(&s->pool);
	double x;

	if (r == 0)
		return SCHED_DONE;
	if (s->training && is_gpu(s, dev)) {
		x = s->nh < LOGFIT_SAMPLES ? sample(s, gpu_of(s, dev), s->nh + 1) : s->g[0].grec;
		return take(s, &s->pool, round_chunk(s, x, r), PHASE_TRAIN, out);
	}
	if (s->training) {
		x = ldexp((double)s->c.granule, (int)(s->cpu_k[dev] < 40 ? s->cpu_k[dev] : 40));
		s->cpu_k[dev]++;
		return take(s, &s->pool, round_chunk(s, x, r), PHASE_TRAIN, out);
	}
	/* Weighted guided self-scheduling: a device's share of what is left, by relative
	 * speed (a core weighs 1, a GPU rel), the largest chunk first. */
	{
		double w = is_gpu(s, dev) ? s->rel : 1.0;
		double total = (s->c.gpu ? s->ng * s->rel : 0) + s->c.ncpu;

		x = ceil((double)r * w / total);
		return take(s, &s->pool, round_chunk(s, x, r), PHASE_GUIDED, out);
	}
}

/* ---- the interface ---- */

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

struct sched *sched_new(const struct sched_cfg *cfg, const char **why)
{
	return sched_new_gpus(cfg, 1, NULL, why);
}

struct sched *sched_new_gpus(const struct sched_cfg *cfg, unsigned ngpu, const unsigned *neus,
                             const char **why)
{
	struct sched *s;
	unsigned nc = cfg->ncpu ? cfg->ncpu : 1;

	if (cfg->items == 0 || cfg->granule == 0 || cfg->items % cfg->granule) {
		*why = "the space must be a positive multiple of the granule";
		return NULL;
	}
	if (cfg->ncpu == 0 && !cfg->gpu) {
		*why = "no device takes part";
		return NULL;
	}
	if (cfg->kind == SCHED_GPU && !cfg->gpu) {
		*why = "the gpu scheduler needs a GPU";
		return NULL;
	}
	if (cfg->kind == SCHED_CPU && cfg->ncpu == 0) {
		*why = "the cpu scheduler needs at least one CPU core";
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
	gpus_new(s, cfg, ngpu, neus);
	s->ndev = cfg->ncpu + s->ng;
	s->lambda = xcalloc(s->ndev, sizeof(*s->lambda));
	s->busy = xcalloc(s->ndev, sizeof(*s->busy));
	s->cpu_k = xcalloc(nc, sizeof(*s->cpu_k));
	s->out = xcalloc(nc, sizeof(*s->out));
	s->probe = xcalloc(nc, sizeof(*s->probe));
	s->out_lg = xcalloc(nc, sizeof(*s->out_lg));
	s->clast = xcalloc(nc, sizeof(*s->clast));
	/* 001 §3.2.2: all the work is transferable at first: half of it to each side. */
	s->share = 0.5;
	s->delta = 0.25;
	s->searching = true;
	return s;
}

void sched_free(struct sched *s)
{
	if (!s)
		return;
	free(s->lambda);
	free(s->busy);
	free(s->cpu_k);
	free(s->out);
	free(s->probe);
	free(s->out_lg);
	free(s->clast);
	free(s->g);
	free(s->w);
	free(s->bound);
	free(s);
}

/* A step's last GPU chunk is often what was left, too small to fill the GPU: the next step
 * starts from the throughput of the step's largest GPU chunk (each GPU its own). */
static void logfit_step_begin(struct sched *s)
{
	for (unsigned i = 0; i < s->ng; i++) {
		struct gst *g = &s->g[i];

		if (g->big_lg > 0)
			s->lambda[s->c.ncpu + i] = g->big_lg;
		g->big_size = 0;
	}
	logfit_prime_step(s);
}

static void hdss_step_begin(struct sched *s)
{
	/* HDSS trains again in every step (003 §5.1: "HDSS does not re-use information"). */
	s->nh = 0;
	s->g[0].fitted = false;
	s->rel = s->prev_rel = 0;
	s->g[0].grec = 0;
	memset(s->cpu_k, 0, (s->c.ncpu ? s->c.ncpu : 1) * sizeof(*s->cpu_k));
	memset(s->lambda, 0, s->ndev * sizeof(*s->lambda));
	s->training = s->c.gpu && s->c.ncpu > 0;
	if (!s->training)
		s->rel = 1.0;
}

void sched_step_begin(struct sched *s)
{
	s->pool = (struct range){0, s->c.items};
	s->assigned = 0;
	s->cpu_fresh = 0;
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
	/* A new step may meet other work: every core is asked again (logfit). */
	memset(s->out, 0, (s->c.ncpu ? s->c.ncpu : 1) * sizeof(*s->out));
	switch (s->kind) {
	case SCHED_LOGFIT:
		logfit_step_begin(s);
		break;
	case SCHED_STATIC:
		/* 003's Static is static: the GPUs share by compute units, not by a measurement. */
		static_split(s, s->c.gpu_share, false);
		break;
	case SCHED_MARROW:
		static_split(s, s->share, true);
		break;
	case SCHED_GPU:
		if (s->ng > 1)
			static_split(s, 1.0, true);
		break;
	case SCHED_CONCORD:
		s->prev_frac = 0;
		if (s->c.ncpu == 0)
			s->frac = 1.0;
		if (s->have_frac || s->c.ncpu == 0)
			concord_split(s);
		break;
	case SCHED_HDSS:
		hdss_step_begin(s);
		break;
	default:
		break;
	}
}

static enum sched_answer concord_next(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	if (s->split)
		return is_gpu(s, dev) ? take_part(s, dev, PHASE_SPLIT, out)
		                      : take_guided(s, &s->cpu_r, PHASE_SPLIT, out);
	return take(s, &s->pool, round_chunk(s, concord_chunk(s, dev), left(&s->pool)),
	            PHASE_PROFILE, out);
}

static enum sched_answer gpu_alone(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	if (!is_gpu(s, dev))
		return SCHED_DONE;
	if (s->ng > 1)
		return take_part(s, dev, PHASE_ALONE, out);
	return take(s, &s->pool, left(&s->pool), PHASE_ALONE, out);
}

static enum sched_answer next_of(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	switch (s->kind) {
	case SCHED_LOGFIT:
		return is_gpu(s, dev) ? logfit_gpu(s, gpu_of(s, dev), out)
		                      : logfit_cpu(s, dev, out);
	case SCHED_STATIC:
		return is_gpu(s, dev) ? take_part(s, dev, PHASE_STATIC, out)
		                      : take_guided(s, &s->cpu_r, PHASE_STATIC, out);
	case SCHED_CONCORD:
		return concord_next(s, dev, out);
	case SCHED_HDSS:
		return hdss_next(s, dev, out);
	case SCHED_CPU:
		return is_gpu(s, dev) ? SCHED_DONE : take_guided(s, &s->pool, PHASE_GUIDED, out);
	case SCHED_GPU:
		return gpu_alone(s, dev, out);
	case SCHED_MARROW:
		return is_gpu(s, dev) ? take_part(s, dev, PHASE_BALANCE, out)
		                      : take_guided(s, &s->cpu_r, PHASE_BALANCE, out);
	}
	return SCHED_DONE;
}

enum sched_answer sched_next(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	enum sched_answer a;

	if (dev >= s->ndev)
		return SCHED_DONE;
	a = next_of(s, dev, out);
	if (a == SCHED_CHUNK && is_gpu(s, dev))
		gpu_of(s, dev)->running = true;
	return a;
}

void sched_done(struct sched *s, unsigned dev, const struct sched_chunk *c, double ms)
{
	double lambda;

	if (dev >= s->ndev || c->size == 0)
		return;
	/* A clock tick is the finest time there is: never divide by zero. */
	lambda = (double)c->size / (ms > 1e-4 ? ms : 1e-4);
	s->lambda[dev] = lambda;
	s->busy[dev] += ms;
	if (is_gpu(s, dev)) {
		struct gst *g = gpu_of(s, dev);

		g->running = false;
		g->last = c->size;
		g->items += c->size;
		if (c->size >= g->big_size) {
			g->big_size = c->size;
			g->big_lg = lambda;
		}
	} else {
		s->cpu_fresh++;
		s->clast[dev] = c->size;
	}
	switch (s->kind) {
	case SCHED_LOGFIT:
		if (is_gpu(s, dev))
			logfit_done(s, gpu_of(s, dev), c, lambda);
		break;
	case SCHED_CONCORD:
		if (is_gpu(s, dev) && c->phase == PHASE_PROFILE)
			concord_gpu_done(s);
		break;
	case SCHED_HDSS:
		if (s->training && is_gpu(s, dev))
			hdss_gpu_done(s, c, lambda);
		if (s->training && (double)s->pool.next >= HDSS_LIMIT * (double)s->c.items)
			hdss_end_training(s);
		break;
	default:
		break;
	}
}

void sched_step_end(struct sched *s)
{
	if (s->kind == SCHED_MARROW)
		marrow_step_end(s);
}

/* The GPUs' throughput together, shared among them by compute units (one GPU: all of it). */
static double prior_share_of(const struct sched *s, unsigned i, double lgpu)
{
	double cu = 0;

	if (s->ng == 1)
		return lgpu;
	for (unsigned k = 0; k < s->ng; k++)
		cu += s->g[k].neu;
	return lgpu * s->g[i].neu / cu;
}

void sched_prime(struct sched *s, const struct sched_prior *p)
{
	if (!(p->share >= 0 && p->share <= 1))
		return;
	if (s->kind == SCHED_MARROW) {
		/* A known split needs a refinement at most (001 §3.2.3). */
		s->share = p->share;
		s->delta = MARROW_REFINE;
		return;
	}
	if (s->kind != SCHED_LOGFIT || !(p->lgpu > 0) || !(p->lcpu > 0))
		return;
	s->primed = true;
	for (unsigned i = 0; i < s->ng; i++)
		s->lambda[s->c.ncpu + i] = prior_share_of(s, i, p->lgpu);
	for (unsigned d = 0; d < s->c.ncpu; d++)
		s->lambda[d] = p->lcpu;
}

bool sched_profile(const struct sched *s, struct sched_prior *p)
{
	double lc = cpu_mean(s), lg = gpu_lambda(s), big = 0;
	size_t items = 0;

	if (s->kind == SCHED_MARROW) {
		double share = s->searching && s->best_ms > 0 ? s->best_share : s->share;

		*p = (struct sched_prior){share, s->last_tg > 0 ? lg : 0, lc};
		return s->last_tg > 0 || s->last_tc > 0;
	}
	for (unsigned i = 0; i < s->ng; i++) {
		big += s->g[i].big_lg;
		items += s->g[i].items;
	}
	if (s->kind != SCHED_LOGFIT || !(big > 0) || s->assigned == 0)
		return false;
	*p = (struct sched_prior){(double)items / (double)s->assigned, big, lc};
	return true;
}

bool sched_uses(const struct sched *s, unsigned dev)
{
	if (dev >= s->ndev)
		return false;
	switch (s->kind) {
	case SCHED_STATIC:
		return is_gpu(s, dev) ? left(&s->g[dev - s->c.ncpu].r) > 0 : left(&s->cpu_r) > 0;
	case SCHED_CPU:
		return !is_gpu(s, dev);
	case SCHED_GPU:
		return is_gpu(s, dev);
	default:
		return true;
	}
}

size_t sched_assigned(const struct sched *s)
{
	return s->assigned;
}

enum sched_kind sched_running(const struct sched *s)
{
	return s->kind;
}

bool sched_logfit_state_of(const struct sched *s, unsigned gpu, double *a, double *b,
                           double *gpu_chunk)
{
	const struct gst *g;

	if (gpu >= s->ng || (s->kind != SCHED_LOGFIT && s->kind != SCHED_HDSS) ||
	    (s->kind == SCHED_HDSS && gpu > 0))
		return false;
	g = &s->g[gpu];
	if (!g->fitted)
		return false;
	*a = g->a;
	*b = g->b;
	*gpu_chunk = g->grec;
	return true;
}

bool sched_logfit_state(const struct sched *s, double *a, double *b, double *gpu_chunk)
{
	return sched_logfit_state_of(s, 0, a, b, gpu_chunk);
}

double sched_gpu_fraction(const struct sched *s)
{
	return s->kind == SCHED_CONCORD && s->have_frac ? s->frac : 0;
}

double sched_relative_speed(const struct sched *s)
{
	return s->kind == SCHED_HDSS ? s->rel : 0;
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
