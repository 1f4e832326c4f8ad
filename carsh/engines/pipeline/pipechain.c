/* The closed pool of threads of a coupled configuration (engines/pipeline/pipechain.h). */
#include "engines/pipeline/pipechain.h"

#include <math.h>

/*
 * States: I_a, the GPU idle with a threads on the GPU-CPU path's CPU stages and n - a on the
 * CPU path (a = 1 .. n: the GPU falls idle only as a thread leaves it for its CPU stages, so
 * a = 0 with the GPU idle is never entered), and B_a, the GPU busy with a and n - 1 - a
 * (a = 0 .. n - 1). From I_a a GPU-CPU thread finishes (rate A_I(a)) and takes the GPU, to
 * B_(a-1), or a CPU-path thread does (P(a)), to B_a; from B_a the GPU finishes (μ_GPU), to
 * I_(a+1), or a GPU-CPU thread finishes its CPU stages and finds the GPU busy (A_B(a)), to
 * B_(a-1); a CPU-path thread that finishes finds it busy too and stays on the CPU path.
 *
 * Order the states I_a at a and B_a at a + 1/2: every transition moves by at most one level,
 * so the flow across each cut between levels balances. Across a | a + 1/2: P(a)·I_a =
 * A_B(a)·B_a; across a + 1/2 | a + 1: μ_GPU·B_a = A_I(a+1)·I_(a+1) + A_B(a+1)·B_(a+1), which
 * with the first is (A_I(a+1) + P(a+1))·I_(a+1). So from B_0 the stationary distribution
 * follows state by state, exactly, in O(n).
 */
struct pool {
	unsigned n;
	bool shared;             /* MG: the items on the CPU share it */
	double mu_g, mu_a, mu_b; /* the GPU's rate, a GPU-CPU item's CPU stages', a CPU item's */
};

/* The rate at which the k threads on one path's CPU work finish, all of them together, the
 * other path having `others` there: a core each, or under MG the one CPU shared by them all. */
static double done(const struct pool *p, unsigned k, unsigned others, double mu)
{
	if (k == 0)
		return 0;
	return p->shared ? mu * k / (k + others) : mu * k;
}

/* Running sums of the unnormalized distribution, rescaled together when they grow: the
 * ratios between successive states can multiply past a double's range over hundreds of
 * threads. */
struct sums {
	double mass, gc, cpu, scale_at;
};

static void rescale(struct sums *s, double *b)
{
	if (*b < s->scale_at && s->mass < s->scale_at)
		return;
	s->mass /= s->scale_at;
	s->gc /= s->scale_at;
	s->cpu /= s->scale_at;
	*b /= s->scale_at;
}

double pchain_throughput(unsigned n, bool shared, double t_gpu, double t_cpua, double t_cpu,
                         double *lambda_gc)
{
	struct pool p = {n, shared, 1 / t_gpu, 1 / t_cpua, isfinite(t_cpu) ? 1 / t_cpu : 0};
	struct sums s = {0, 0, 0, 1e100};
	double b = 1; /* B_0 */

	*lambda_gc = 0;
	if (n == 0 || !(t_gpu > 0) || !(t_cpua > 0) || !(t_cpu > 0))
		return 0;
	for (unsigned a = 0;; a++) {
		double a_i, cpu_i, i;

		/* B_a: items end as GPU-CPU threads leave their CPU stages and CPU items end. */
		s.mass += b;
		s.gc += b * done(&p, a, n - 1 - a, p.mu_a);
		s.cpu += b * done(&p, n - 1 - a, a, p.mu_b);
		/* I_(a+1) from B_a, then B_(a+1) from I_(a+1). */
		a_i = done(&p, a + 1, n - a - 1, p.mu_a);
		cpu_i = done(&p, n - a - 1, a + 1, p.mu_b);
		i = p.mu_g * b / (a_i + cpu_i);
		s.mass += i;
		s.gc += i * a_i;
		s.cpu += i * cpu_i;
		if (a + 1 == n || cpu_i == 0)
			break; /* no B_(a+1): every thread is on the GPU-CPU path, or none is left
			        */
		b = cpu_i * i / done(&p, a + 1, n - a - 2, p.mu_a);
		rescale(&s, &b);
	}
	*lambda_gc = s.gc / s.mass;
	return (s.gc + s.cpu) / s.mass;
}
