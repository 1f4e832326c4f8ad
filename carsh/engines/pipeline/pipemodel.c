/* The analytical model of 000 §V (engines/pipeline/pipemodel.h). */
#include "engines/pipeline/pipemodel.h"

#include <math.h>
#include <string.h>

#include "engines/pipeline/pipechain.h"
#include "engines/pipeline/pipefit.h"
#include "engines/pipeline/pipemove.h"
#include "util/alloc.h"

static struct pm_energy e_add(struct pm_energy a, struct pm_energy b)
{
	return (struct pm_energy){a.c + b.c, a.g + b.g, a.u + b.u};
}

static struct pm_energy e_scale(struct pm_energy a, double k)
{
	return (struct pm_energy){a.c * k, a.g * k, a.u * k};
}

static double rate(double t)
{
	return t > 0 ? 1.0 / t : INFINITY;
}

struct pm_energy pm_energy_balance(struct pm_energy gpu, struct pm_energy cpu)
{
	return (struct pm_energy){fmax(gpu.c, cpu.c), fmax(gpu.g, cpu.g), fmax(gpu.u, cpu.u)};
}

double pm_effective_energy(double tdp, double lambda, struct pm_energy sum)
{
	double e = sum.c + sum.g + sum.u;

	return tdp > 0 && lambda > 0 ? fmin(tdp / lambda, e) : e;
}

unsigned pm_max_threads(const struct pm_shape *sh)
{
	return sh->gpu ? sh->nc + 1 : sh->nc;
}

static bool on_gpu(const struct pm_config *c, unsigned k)
{
	return (c->mask >> k) & 1u;
}

/* What a run of GPU stages that ends at stage k pays to bring its outputs back: the GPU
 * experiment timed stage k's outputs coming back (d2h) and, their device copies dropped, stage
 * k + 1's inputs going in again (h2d) — the same buffer over the same bus where k + 1 reads
 * what k wrote. The two differ up to threefold, and the stream's moves bear out the smaller
 * (docs/pipeline.md, "The model"); the last stage's outputs, or a next stage that never ran on
 * the GPU, have d2h alone. */
static double gpu_to_cpu(const struct pm_meas *m, unsigned k)
{
	double back = m->st[k].d2h_g;

	if (k + 1 < m->sh.s && ((m->sh.gpu_ok >> (k + 1)) & 1u) && m->st[k + 1].h2d_g > 0)
		return fmin(back, m->st[k + 1].h2d_g);
	return back;
}

/* The queues of the GPU stages: their kernels, plus 000 §V-C's transfers: every buffer's move
 * where the training knows which stage reads and writes which (pipemove.h), else the moves at
 * the two ends of every run of consecutive GPU stages. One GPU serves them all, so their times add
 * up into one service rate (docs/pipeline.md: where 000 takes the minimum over the queues). */
static double gpu_time_timed(const struct pm_meas *m, uint32_t mask, struct pm_energy *eps)
{
	double t = 0, moves;
	bool by_buffer = pmove_gpu_time(m, mask, &moves);
	struct pm_config one = {false, false, 1, mask}, *c = &one;

	*eps = (struct pm_energy){0, 0, 0};
	for (unsigned k = 0; k < m->sh.s; k++) {
		if (!on_gpu(c, k))
			continue;
		t += m->st[k].t_g;
		*eps = e_add(*eps, m->st[k].e_g);
		if (by_buffer)
			continue; /* every buffer's move, below */
		if (k == 0 || !on_gpu(c, k - 1))
			t += m->st[k].h2d_g;
		if (k + 1 == m->sh.s || !on_gpu(c, k + 1))
			t += gpu_to_cpu(m, k);
	}
	return by_buffer ? t + moves : t;
}

/* The GPU stages' time. The GPU path of a DP configuration (every stage on the GPU) runs the
 * item the feeder beside the CG experiment ran, one right after the other as a stream does:
 * its mean item where measured. The GPU experiment waits for each stage and transfer apart to
 * time it, which a stream does not (ViVid LD, measured: 0.080-0.089 ms an item in the DP-CG
 * runs, 0.115 from the GPU experiment's figures). Coupled mappings keep the GPU experiment's
 * figures: scaled by the feeder's ratio they moved SRAD's choice to worse mappings
 * (docs/pipeline.md). */
static double gpu_time(const struct pm_meas *m, const struct pm_config *c, struct pm_energy *eps)
{
	uint32_t all = m->sh.s >= 32 ? UINT32_MAX : (1u << m->sh.s) - 1;
	double t = gpu_time_timed(m, c->mask, eps);

	return m->t_gpu_fed > 0 && c->mask == all ? m->t_gpu_fed : t;
}

/* How much longer stage k takes on a core beside n - 1 other threads than alone, as the CG
 * experiments' contention line has it (pipefit.h), else as the CG experiment with n threads
 * measured it (1 where it did not). */
static double cg_crowding(const struct pm_meas *m, const struct pm_cgfit *f, unsigned k, unsigned n)
{
	double alone = m->st[k].t_cg, crowded = n <= PM_MAX_CORES + 1 ? m->t_cgn_stage[n][k] : 0;

	if (f->ok)
		crowded = pm_cgfit_stage(f, k, n);

	return n > 1 && alone > 0 && crowded > 0 ? crowded / alone : 1;
}

/* How much longer a CPU-path item takes on a core in a run of n threads beside the GPU's than
 * beside as many threads of a homogeneous run. The CG experiment beside the GPU (beside_n CPU
 * threads and the GPU's thread, a coupled run of beside_n + 1 threads) gives the whole item's
 * ratio to the homogeneous time with as many threads — the contention line's where it is
 * fitted, else the CG experiment's — kept between 1 and PM_BESIDE_MAX. Each of its threads
 * times one item, its first, as the CG experiment with as many threads does: per stage, the
 * two disagreed with the stream by up to fivefold on a short stage (SRAD's `stats`, measured:
 * 1.27-1.60 ms beside the GPU, 1.81 in the 16-thread batch, 0.26 in the stream's
 * homogeneous run, 0.46 on DP-CG:16's CPU path); the item as a whole, bounded, is what the
 * stream bears out (docs/pipeline.md, "The model"). Between n = 1 (no CPU thread beside the
 * GPU's) and beside_n + 1 it grows in proportion to the CPU threads beside the GPU's, n - 1.
 * 1 where not measured. */
static double beside_ratio(const struct pm_meas *m, const struct pm_cgfit *f)
{
	unsigned ref = m->beside_n + 1;
	double beside = 0, plain = 0;

	if (m->beside_n == 0 || ref > PM_MAX_CORES + 1)
		return 0;
	for (unsigned k = 0; k < m->sh.s; k++) {
		double p = f->ok ? pm_cgfit_stage(f, k, ref) : m->t_cgn_stage[ref][k];

		if (!(p > 0) || !(m->t_beside_stage[k] > 0))
			return 0;
		beside += m->t_beside_stage[k];
		plain += p;
	}
	return beside / plain;
}

/* The ratio as the model takes it: 1 where not measured. */
static double bounded(double ratio)
{
	return ratio > 0 ? fmin(PM_BESIDE_MAX, fmax(1.0, ratio)) : 1;
}

double pm_beside_ratio(const struct pm_meas *m, double *used)
{
	struct pm_cgfit f;
	double ratio;

	pm_cgfit(m, &f);
	ratio = beside_ratio(m, &f);
	*used = bounded(ratio);
	return ratio;
}

/* The slowdown of a CPU-path item beside the GPU's thread and n - 1 threads (above). */
static double coupled_slowdown(const struct pm_meas *m, const struct pm_cgfit *f, unsigned n)
{
	double rho = bounded(beside_ratio(m, f));

	if (m->beside_n == 0 || n <= 1)
		return 1;
	return 1 + (rho - 1) * fmin(1.0, (double)(n - 1) / m->beside_n);
}

/* A coupled CG run's CPU-path item: n · T^CG(n), as much longer as coupled_slowdown has it.
 * The GPU-CPU path's CPU stages keep the contention line's time (docs/pipeline.md). */
static double coupled_item(const struct pm_meas *m, const struct pm_cgfit *f, unsigned n,
                           double item)
{
	return item * coupled_slowdown(m, f, n);
}

/* MG's stages in a stream: each holds a lock of its own (How items run), so items in different
 * stages overlap. A stage that ran faster on the whole CPU than on one core spread its
 * work-groups over every core and holds them all while it runs; one that did not ran on one
 * core and leaves the others to the other stages. The CPU then takes one item per the longest
 * stage (its lock) or per the time of the stages that hold every core, whichever is longer;
 * 000's μ_CPU^MG = 1 / Σ_k T_k^MG has every stage hold the CPU (docs/pipeline.md). */
struct mg_cyc {
	double longest, whole;
};

static void mg_add(struct mg_cyc *c, double t, bool spreads)
{
	c->longest = fmax(c->longest, t);
	if (spreads)
		c->whole += t;
}

static double mg_cycle(const struct mg_cyc *c)
{
	return fmax(c->longest, c->whole);
}

/* The CPU stages of the GPU-CPU path (Q_CPUA, Table IV), under CG or MG, with the moves of
 * their data from and to the GPU's stages (a CarSh extension, docs/pipeline.md: a discrete
 * GPU shares no memory with the CPU's contexts). Under CG, a stage and its moves take as
 * long as beside the configuration's other threads (cg_crowding). */
static double cpua_time(const struct pm_meas *m, const struct pm_cgfit *f,
                        const struct pm_config *c, struct pm_energy *eps)
{
	double t = 0;
	struct mg_cyc cyc = {0, 0};

	*eps = (struct pm_energy){0, 0, 0};
	for (unsigned k = 0; k < m->sh.s; k++) {
		const struct pm_stage *st = &m->st[k];
		double tk;

		if (on_gpu(c, k))
			continue;
		tk = c->mg ? st->t_mg : st->t_cg;
		*eps = e_add(*eps, c->mg ? st->e_mg : st->e_cg);
		if (k > 0 && on_gpu(c, k - 1))
			tk += c->mg ? st->h2d_mg : st->h2d_cg;
		if (k + 1 < m->sh.s && on_gpu(c, k + 1))
			tk += c->mg ? st->d2h_mg : st->d2h_cg;
		if (c->mg)
			mg_add(&cyc, tk, st->t_cg > st->t_mg);
		else
			t += tk * cg_crowding(m, f, k, c->threads);
	}
	return c->mg ? mg_cycle(&cyc) : t;
}

/* T^CG(1): one thread's item, the median of the one-thread experiment's and the two- and
 * three-thread batches' items per thread (n · T^CG(n)), where there are 3 cores or more. On
 * many cores a stream's thread runs its items about as fast with one, two or three threads
 * (measured within 1-9 % in nine of ten validations on 16 cores), so the three experiments
 * measure one item three times; the one-thread experiment, three items of a few milliseconds
 * back to back, read 28-34 % under the median of the three in two of those ten trainings, and
 * the stream's one thread 1.45-1.57 times it (docs/pipeline.md, "Checking the model
 * offline"). */
double pm_one_thread_item(const struct pm_meas *m)
{
	double a = m->t_cgn[1], b = 2 * m->t_cgn[2], c = 3 * m->t_cgn[3];

	if (m->sh.nc < 3 || !(a > 0) || !(b > 0) || !(c > 0))
		return a;
	return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

/* The rates 1/T^CG(n), n = 1 .. last (each the faster of the measured one and the contention
 * line's, pipefit.h; T^CG(1) pm_one_thread_item's), made non-decreasing in n (pool adjacent
 * violators: each run of rates that falls is replaced by its mean). One batch of n items measures
 * each T^CG(n), and on a machine shared with other work one late item moves it by more than adding
 * a thread does (docs/pipeline.md); more threads on as many cores never serve fewer items. Up to nC
 * only: nC + 1 threads share a core. r[1 .. last]; 0 where not measured. */
static void cg_rates(const struct pm_meas *m, const struct pm_cgfit *f, unsigned last, double *r)
{
	double sum[PM_MAX_CORES + 2];
	unsigned len[PM_MAX_CORES + 2], nb = 0;

	for (unsigned n = 1; n <= last; n++) {
		double t = n == 1 ? pm_one_thread_item(m) : m->t_cgn[n];

		/* A batch faster than the line measured what the cores can do: it stays. One
		 * thread's time is no batch (three items back to back, as a stream's thread
		 * runs them): the line does not replace it. */
		if (f->ok && (!(t > 0) || (n > 1 && pm_cgfit_time(f, n) < t)))
			t = pm_cgfit_time(f, n);

		sum[nb] = t > 0 ? 1.0 / t : 0;
		len[nb++] = 1;
		while (nb > 1 && sum[nb - 2] / len[nb - 2] > sum[nb - 1] / len[nb - 1]) {
			sum[nb - 2] += sum[nb - 1];
			len[nb - 2] += len[nb - 1];
			nb--;
		}
	}
	for (unsigned b = 0, n = 1; b < nb; b++)
		for (unsigned i = 0; i < len[b]; i++)
			r[n++] = sum[b] / len[b];
}

/* T^CG(n) and E^CG(n); n = 0 is no thread at all. Fitted (pipefit.h), nC + 1 threads
 * share nC cores and serve what nC threads do; else nC + 1 is as measured. */
static double t_cg(const struct pm_meas *m, const struct pm_cgfit *f, unsigned n)
{
	double r[PM_MAX_CORES + 2];
	unsigned last = m->sh.nc < PM_MAX_CORES ? m->sh.nc : PM_MAX_CORES;

	if (n == 0)
		return INFINITY;
	if (n > last && !f->ok)
		return m->t_cgn[n];
	if (n > last)
		n = last;
	cg_rates(m, f, last, r);
	return r[n] > 0 ? 1.0 / r[n] : m->t_cgn[n];
}

static struct pm_energy e_cg(const struct pm_meas *m, unsigned n)
{
	return n == 0 ? (struct pm_energy){0, 0, 0} : m->e_cgn[n];
}

/* The cores' bound on a CPU path of `threads` threads whose n-thread rate is mu (items/s):
 * they cannot use more than the nC cores less `busy`, the cores' worth that the other path
 * keeps (its thread waiting for the GPU, its CPU stages). A core serves mu / min(threads, nC)
 * items a second (with more threads than cores, the cores are what the threads share). 000's
 * model counts every thread as a core of its own beside the GPU's thread (docs/pipeline.md). */
static double cores_bound(double mu, unsigned threads, double busy, unsigned nc)
{
	unsigned cores = threads < nc ? threads : nc;

	if (threads == 0 || cores == 0 || !isfinite(mu))
		return mu;
	return fmin(mu, mu / cores * fmax(0.0, (double)nc - busy));
}

/* Table III: a GPU path (all stages on the GPU) beside a CPU path. */
static void predict_dp(const struct pm_meas *m, const struct pm_cgfit *f, const struct pm_config *c,
                       struct pm_pred *p)
{
	struct pm_energy eps_g, eps_c = {0, 0, 0};
	double mu_g = rate(gpu_time(m, c, &eps_g)), mu_c;

	/* The GPU path is always busy (ρ = 1): its thread keeps gpu_host of a core. */
	if (c->mg) {
		mu_c = rate(cpua_time(m, f, &(struct pm_config){false, true, 0, 0}, &eps_c));
		mu_c = cores_bound(mu_c, m->sh.nc, m->gpu_host, m->sh.nc);
	} else {
		/* Its n - 1 CPU threads run beside the GPU's, as in a coupled run of n; the
		 * experiment that measured that left them a core each, the cores' bound is what
		 * binds where there are none to spare (not both at once). */
		double t = c->threads > 1 ? t_cg(m, f, c->threads - 1) : INFINITY;

		mu_c = c->threads > 1
		               ? fmin(rate(coupled_item(m, f, c->threads, t)),
		                      cores_bound(rate(t), c->threads - 1, m->gpu_host, m->sh.nc))
		               : 0;
		eps_c = e_cg(m, c->threads - 1);
	}
	p->lambda_q = mu_g + mu_c;                             /* eq. 3, ρ = 1 (eq. 6) */
	p->p_gpu = mu_g / p->lambda_q;                         /* eq. 4, 5 */
	p->e_sum = pm_energy_balance(e_scale(eps_g, p->p_gpu), /* eq. 7, 9 */
	                             e_scale(eps_c, 1.0 - p->p_gpu));
}

/* The pool of threads (pipechain.h) under CG: an item that finds the GPU busy holds its
 * thread for n · T^CG(n), a CPU item beside the n - 1 others. The GPU-CPU path keeps a core
 * busy for its CPU stages and, while its item is on the GPU, gpu_host of one: the CPU path
 * has the other cores only (what binds with more threads than cores). */
static double pool_cg_item(const struct pm_meas *m, const struct pm_cgfit *f,
                           const struct pm_config *c, double t_g, double t_a, double item,
                           double *lambda_gc)
{
	double x = pchain_throughput(c->threads, false, t_g, t_a, item, lambda_gc);

	/* The cores' bound on the homogeneous rate: the slowdown beside the GPU was measured with
	 * a core for each thread (coupled_slowdown), the bound is what binds without. */
	return fmin(fmax(0.0, x - *lambda_gc),
	            cores_bound(rate(t_cg(m, f, c->threads)), c->threads,
	                        *lambda_gc * (t_a + m->gpu_host * t_g), m->sh.nc));
}

/* The pool with the CPU items slowed beside the GPU, never faster than without: slower CPU
 * items hand the GPU-CPU path more of them in the chain, and where the cores' bound holds the
 * CPU path, the sum of the two then rose for some timings, which no pool of threads does. */
static double pool_cg(const struct pm_meas *m, const struct pm_cgfit *f, const struct pm_config *c,
                      double t_g, double t_a, double *lambda_gc)
{
	double plain = c->threads * t_cg(m, f, c->threads), gc_plain, mu_plain;
	double slowed = coupled_item(m, f, c->threads, plain);
	double mu = pool_cg_item(m, f, c, t_g, t_a, slowed, lambda_gc);

	if (slowed == plain) /* nothing measured beside the GPU: no second chain */
		return mu;
	mu_plain = pool_cg_item(m, f, c, t_g, t_a, plain, &gc_plain);
	if (gc_plain + mu_plain < *lambda_gc + mu) {
		*lambda_gc = gc_plain;
		return mu_plain;
	}
	return mu;
}

/* The pool under MG: an item that finds the GPU busy goes through every stage on the whole
 * CPU, which the GPU-CPU items' CPU stages share with it. */
static double pool_mg(const struct pm_meas *m, const struct pm_cgfit *f, const struct pm_config *c,
                      double t_g, double t_a, double *lambda_gc, struct pm_energy *eps_b)
{
	struct pm_config cpu_all = {false, true, c->threads, 0};
	double t_b = cpua_time(m, f, &cpu_all, eps_b);

	return fmax(0.0,
	            pchain_throughput(c->threads, true, t_g, t_a, t_b, lambda_gc) - *lambda_gc);
}

/* Table IV: a GPU-CPU path (the GPU stages, then the item's other stages on the CPU) beside
 * a CPU path. The two share the configuration's threads: an item that finds the GPU busy
 * holds its thread for a CPU item's time and meanwhile the GPU may sit idle. 000's
 * λ_GPU-CPU + μ_CPUB gives every thread to both paths at once, and nothing to the CPU path
 * under MG (docs/pipeline.md). Where a queue's time is not positive (no training measures
 * one so), the GPU-CPU path alone at min(μ_GPU, μ_CPUA). */
static void predict_cp(const struct pm_meas *m, const struct pm_cgfit *f, const struct pm_config *c,
                       struct pm_pred *p)
{
	struct pm_energy eps_g, eps_a, eps_b = {0, 0, 0}, cpu;
	double t_g = gpu_time(m, c, &eps_g), t_a = cpua_time(m, f, c, &eps_a);
	double lambda_gc = fmin(rate(t_g), rate(t_a)), mu_b = 0, p_b;

	if (!c->mg && c->mask == 0) {
		/* The homogeneous CPU: n threads, each an item at a time. */
		lambda_gc = 0;
		mu_b = rate(t_cg(m, f, c->threads));
		eps_b = e_cg(m, c->threads);
	} else if (t_g > 0 && t_a > 0 && !c->mg) {
		mu_b = pool_cg(m, f, c, t_g, t_a, &lambda_gc);
		eps_b = e_cg(m, c->threads);
	} else if (t_g > 0 && t_a > 0 && c->mask != 0) {
		mu_b = pool_mg(m, f, c, t_g, t_a, &lambda_gc, &eps_b);
	}
	p->lambda_q = lambda_gc + mu_b; /* eq. 3 */
	p->p_gpu = p->lambda_q > 0 ? lambda_gc / p->lambda_q : 0;
	p_b = p->lambda_q > 0 ? mu_b / p->lambda_q : 0;
	cpu = e_add(e_scale(eps_a, p->p_gpu), e_scale(eps_b, p_b));  /* eq. 7 */
	p->e_sum = pm_energy_balance(e_scale(eps_g, p->p_gpu), cpu); /* eq. 10 */
}

void pm_predict(const struct pm_meas *m, const struct pm_config *c, struct pm_pred *out)
{
	struct pm_cgfit f;

	memset(out, 0, sizeof(*out));
	pm_cgfit(m, &f);
	if (c->dp)
		predict_dp(m, &f, c, out);
	else
		predict_cp(m, &f, c, out);
	/* The serial Input and Output stages let no more items through than they serve. */
	out->lambda = out->lambda_q;
	if (m->t_in > 0)
		out->lambda = fmin(out->lambda, 1.0 / m->t_in);
	if (m->t_out > 0)
		out->lambda = fmin(out->lambda, 1.0 / m->t_out);
	out->energy = m->energy ? pm_effective_energy(m->tdp, out->lambda, out->e_sum) : -1.0;
}

size_t pm_enumerate(const struct pm_shape *sh, struct pm_config **out)
{
	uint32_t all = sh->s >= 32 ? UINT32_MAX : (1u << sh->s) - 1;
	unsigned maxt = pm_max_threads(sh);
	size_t n = 0, cap = 0;
	struct pm_config *v = NULL;

	/* Every subset of the GPU-capable stages: the full set of all stages is DP. */
	for (uint32_t mask = 0;; mask = (mask - sh->gpu_ok) & sh->gpu_ok) {
		bool dp = sh->gpu && mask == all;

		if (sh->gpu || mask == 0) {
			v = xgrow(v, &cap, n + maxt + 1, sizeof(*v));
			for (unsigned t = 1; t <= maxt; t++)
				v[n++] = (struct pm_config){dp, false, t, mask};
			v[n++] = (struct pm_config){dp, true, sh->nc + 1, mask};
		}
		if (!sh->gpu || mask == sh->gpu_ok)
			break;
	}
	*out = v;
	return n;
}

double pm_score(const struct pm_pred *p, enum pm_criterion crit)
{
	switch (crit) {
	case PM_ENERGY:
		return p->energy > 0 ? -p->energy : -INFINITY;
	case PM_TPE:
		return p->energy > 0 ? p->lambda / p->energy : -INFINITY;
	case PM_THROUGHPUT:
		break;
	}
	return p->lambda;
}

static unsigned threads_of(const struct pm_config *c, unsigned nc)
{
	return c->mg ? nc + 1 : c->threads;
}

size_t pm_choose(const struct pm_config *c, const struct pm_pred *p, size_t n,
                 enum pm_criterion crit, double tol, unsigned nc)
{
	size_t best = 0, pick;
	double top;

	for (size_t i = 1; i < n; i++)
		if (pm_score(&p[i], crit) > pm_score(&p[best], crit))
			best = i;
	top = pm_score(&p[best], crit);
	pick = best;
	for (size_t i = 0; i < n; i++) {
		double s = pm_score(&p[i], crit);
		bool near = top > 0 ? s >= top * (1 - tol) : s >= top * (1 + tol);
		unsigned ti = threads_of(&c[i], nc), tp = threads_of(&c[pick], nc);

		if (near && (ti < tp || (ti == tp && s > pm_score(&p[pick], crit))))
			pick = i;
	}
	return pick;
}

struct pm_config pm_baseline(const struct pm_meas *m)
{
	uint32_t all = (1u << m->sh.s) - 1, mask = 0;

	for (unsigned k = 0; m->sh.gpu && k < m->sh.s; k++)
		if (((m->sh.gpu_ok >> k) & 1u) && m->st[k].t_g < m->st[k].t_mg)
			mask |= 1u << k;
	return (struct pm_config){mask == all, true, m->sh.nc + 1, mask};
}

double pm_delta_t(const struct pm_meas *m, double lambda_c)
{
	return m->t_collect - (lambda_c > 0 ? (double)m->n_collect / lambda_c : 0.0);
}

bool pm_may_retrain(double t, double delta_t, double ov)
{
	return ov > 0 && ov < 1 && t > (1.0 - ov) / ov * delta_t;
}

const char *pm_criterion_name(enum pm_criterion c)
{
	static const char *const names[] = {"throughput", "energy", "tpe"};

	return names[c];
}

int pm_criterion_parse(const char *s, enum pm_criterion *c)
{
	for (int i = PM_THROUGHPUT; i <= PM_TPE; i++)
		if (strcmp(s, pm_criterion_name((enum pm_criterion)i)) == 0) {
			*c = (enum pm_criterion)i;
			return 0;
		}
	return -1;
}
