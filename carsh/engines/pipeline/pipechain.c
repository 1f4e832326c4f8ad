/* The closed pool of threads of a coupled configuration (engines/pipeline/pipechain.h). */
#include "engines/pipeline/pipechain.h"

#include <math.h>
#include <stdlib.h>

#include "util/alloc.h"

/* States: GPU idle with a threads on the GPU-CPU path's CPU stages and n - a on the CPU path
 * (index a - 1, a = 1 .. n: the GPU falls idle only as a thread leaves it for its CPU stages,
 * so a = 0 with the GPU idle is never entered), or GPU busy with a and n - 1 - a (index
 * n + a, a = 0 .. n - 1). */
struct chain {
	unsigned n, size;
	bool shared; /* the CPU work shares one server (MG) instead of a core per thread (CG) */
	double *q; /* size x size, row i: the balance equation of state i (π Q = 0, transposed) */
};

/* Rate r from state `from` to state `to`: π_from leaves at r and π_to gains it. */
static void flow(struct chain *c, unsigned from, unsigned to, double r)
{
	if (r <= 0 || from == to)
		return;
	c->q[(size_t)from * c->size + from] -= r;
	c->q[(size_t)to * c->size + from] += r;
}

/* The rate at which the a threads on one path's CPU work finish, all of them together, the
 * other path having b there: a core each, or under MG the one CPU shared by the a + b items
 * on it. */
static double done(const struct chain *c, unsigned a, unsigned b, double mu)
{
	if (a == 0)
		return 0;
	return c->shared ? mu * a / (a + b) : mu * a;
}

static void build(struct chain *c, double mu_g, double mu_a, double mu_b)
{
	unsigned n = c->n, busy = n;

	for (unsigned a = 1; a <= n; a++) { /* GPU idle: whoever finishes next takes it */
		flow(c, a - 1, busy + (a - 1), done(c, a, n - a, mu_a));
		if (a < n)
			flow(c, a - 1, busy + a, done(c, n - a, a, mu_b));
	}
	for (unsigned a = 0; a < n; a++) { /* GPU busy */
		flow(c, busy + a, a, mu_g);
		if (a > 0) /* back from its CPU stages, the thread finds the GPU busy */
			flow(c, busy + a, busy + (a - 1), done(c, a, n - 1 - a, mu_a));
	}
}

/* Gaussian elimination with partial pivoting of q·π = rhs, where the last equation is
 * replaced by Σ π = 1. Returns -1 when the system is singular. */
static int solve(struct chain *c, double *pi)
{
	unsigned s = c->size;
	double *q = c->q;

	for (unsigned j = 0; j < s; j++)
		q[(size_t)(s - 1) * s + j] = 1;
	for (unsigned i = 0; i < s; i++)
		pi[i] = i + 1 == s ? 1 : 0;
	for (unsigned col = 0; col < s; col++) {
		unsigned piv = col;

		for (unsigned r = col + 1; r < s; r++)
			if (fabs(q[(size_t)r * s + col]) > fabs(q[(size_t)piv * s + col]))
				piv = r;
		if (fabs(q[(size_t)piv * s + col]) < 1e-300)
			return -1;
		if (piv != col) {
			for (unsigned j = 0; j < s; j++) {
				double t = q[(size_t)col * s + j];

				q[(size_t)col * s + j] = q[(size_t)piv * s + j];
				q[(size_t)piv * s + j] = t;
			}
			double t = pi[col];
			pi[col] = pi[piv];
			pi[piv] = t;
		}
		for (unsigned r = col + 1; r < s; r++) {
			double f = q[(size_t)r * s + col] / q[(size_t)col * s + col];

			if (f == 0)
				continue;
			for (unsigned j = col; j < s; j++)
				q[(size_t)r * s + j] -= f * q[(size_t)col * s + j];
			pi[r] -= f * pi[col];
		}
	}
	for (unsigned i = s; i-- > 0;) {
		double v = pi[i];

		for (unsigned j = i + 1; j < s; j++)
			v -= q[(size_t)i * s + j] * pi[j];
		pi[i] = v / q[(size_t)i * s + i];
	}
	return 0;
}

double pchain_throughput(unsigned n, bool shared, double t_gpu, double t_cpua, double t_cpu,
                         double *lambda_gc)
{
	double mu_g = 1 / t_gpu, mu_a = 1 / t_cpua, mu_b = isfinite(t_cpu) ? 1 / t_cpu : 0;
	double x = 0, gc = 0, *pi;
	struct chain c = {n, 2 * n, shared, NULL};

	*lambda_gc = 0;
	if (n == 0 || !(t_gpu > 0) || !(t_cpua > 0) || !(t_cpu > 0))
		return 0;
	c.q = xcalloc((size_t)c.size * c.size, sizeof(double));
	pi = xcalloc(c.size, sizeof(double));
	build(&c, mu_g, mu_a, mu_b);
	if (solve(&c, pi) == 0)
		for (unsigned a = 0; a <= n; a++) {
			double idle = a > 0 ? pi[a - 1] : 0, busy = a < n ? pi[n + a] : 0;

			/* Items end where a thread leaves its CPU stages or its CPU item. */
			gc += idle * done(&c, a, n - a, mu_a) +
			      (a < n ? busy * done(&c, a, n - 1 - a, mu_a) : 0);
			x += idle * done(&c, n - a, a, mu_b) +
			     (a < n ? busy * done(&c, n - 1 - a, a, mu_b) : 0);
		}
	free(c.q);
	free(pi);
	*lambda_gc = gc;
	return gc + x;
}
