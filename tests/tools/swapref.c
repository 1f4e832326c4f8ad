/*
 * Independent C references and data generators for the swap examples (004 §5.2.2 and §5.3;
 * tests/shell/swap.sh, bench/swap.sh, examples/swap). Shares no code with carsh: plain stdio
 * CSV in and out, the arithmetic written out again here in float or double.
 *
 *   swapref iir-gen N SEED X A B          x (N samples), a and b (16 taps each; b_0 near -0.8
 *                                         and sum |b| < 0.95: stable, with a long memory)
 *   swapref iir PREC X A B [RUNS]         y: the sequential filter of 004 §5.2.2; with RUNS,
 *                                         what RUNS runs of kernels/iir.cl give from y = 0
 *   swapref jacobi-gen N SEED A B XTRUE   a diagonally dominant system (a_ii = 2 sum |a_ij| + 1)
 *                                         and its solution; b = A xtrue rounded to float
 *   swapref jacobi PREC ITERS A B XOUT ROUT
 *                                         ITERS Jacobi iterations from x = 0; ROUT the residual
 *                                         b - A x of the iterate before the last
 *   swapref lu-gen N SEED A               a diagonally dominant N x N matrix
 *   swapref lu PREC N A [STEPS]           in-place Doolittle LU after STEPS steps (default N-1),
 *                                         L below the diagonal, U on and above, N per row
 *   swapref lucheck N A LU TOL            max |(L U - A)_ij| / max |a_ij| <= TOL, in double
 *   swapref scenario-gen N SEED A B C P   four streams of N unsigned 32-bit integers
 *   swapref scenario SCEN START RUNS A B C P DIR
 *                                         kernels/scenario_abc.cl run RUNS times from scenario
 *                                         index START; writes DIR/{d,e,f,Aq,Bq,Cq,index}.csv
 *                                         (Aq, Bq, Cq: 0 where their program never ran)
 *   swapref pingpong RUNS A B DIR         tests/data/swap/pingpong.xml run RUNS times; writes
 *                                         DIR/{a,a2,b2}.csv
 *
 * PREC is float or double. Generated values are floats written exactly (%.17g of the float),
 * so a float and a double stream read the same numbers. Generators are deterministic
 * (xorshift64*, the same sequence on every machine).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvread.h"

#define IIR_TAPS 16

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "swapref: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory", NULL);
	return p;
}

static double *load(const char *path, size_t *n)
{
	return csv_read(path, n, die);
}

static double *load_n(const char *path, size_t want)
{
	return csv_read_n(path, want, die);
}

static size_t count_of(const char *path)
{
	size_t n;

	free(load(path, &n));
	return n;
}

static FILE *create(const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");

	if (!f)
		die("cannot write", path);
	return f;
}

static void finish(FILE *f, const char *path)
{
	if (fflush(f) != 0 || ferror(f) || (f != stdout && fclose(f) != 0))
		die("write error", path);
}

/* n values, `cols` per row; %.9g is enough for a float, %.17g for a double. */
static void write_values(const char *path, const double *v, size_t n, size_t cols, int dbl)
{
	FILE *f = create(path);

	for (size_t i = 0; i < n; i++)
		fprintf(f, dbl ? "%.17g%s" : "%.9g%s", v[i], (i + 1) % cols == 0 ? "\n" : ",");
	if (n % cols)
		fputc('\n', f);
	finish(f, path);
}

static void write_uints(const char *path, const uint32_t *v, size_t n)
{
	FILE *f = create(path);

	for (size_t i = 0; i < n; i++)
		fprintf(f, "%u\n", (unsigned)v[i]);
	finish(f, path);
}

static char *path_in(const char *dir, const char *name)
{
	char *p = xmalloc(strlen(dir) + strlen(name) + 2);

	sprintf(p, "%s/%s", dir, name);
	return p;
}

/* xorshift64*: the same sequence on every machine. */
static uint64_t rng_state;

static void rng_seed(const char *seed)
{
	rng_state = 0x9e3779b97f4a7c15ULL ^ strtoull(seed, NULL, 10);
	if (!rng_state)
		rng_state = 1;
}

static uint64_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

/* A float in [lo, hi), as a double that holds it exactly. */
static double rng_float(double lo, double hi)
{
	double u = (double)(rng_next() >> 11) / 9007199254740992.0;

	return (double)(float)(lo + (hi - lo) * u);
}

static size_t parse_size(const char *s, const char *what)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (!*s || *end || v == 0 || v > (1ULL << 40))
		die("not a positive count", what);
	return (size_t)v;
}

static long parse_long(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end)
		die("not an integer", what);
	return v;
}

static int parse_prec(const char *s)
{
	if (strcmp(s, "float") == 0)
		return 0;
	if (strcmp(s, "double") == 0)
		return 1;
	die("precision must be float or double", s);
	return 0;
}

/* ---- IIR filter ---- */

static int cmd_iir_gen(int argc, char **argv)
{
	size_t n;
	double *x, a[IIR_TAPS], b[IIR_TAPS];

	if (argc != 7)
		die("usage: iir-gen N SEED X A B", NULL);
	n = parse_size(argv[2], "N");
	rng_seed(argv[3]);
	x = xmalloc(n * sizeof(*x));
	for (size_t i = 0; i < n; i++)
		x[i] = rng_float(-1, 1);
	for (int i = 0; i < IIR_TAPS; i++)
		a[i] = rng_float(-1.0 / IIR_TAPS, 1.0 / IIR_TAPS);
	/* A strong first feedback tap, so that a run of the kernel changes every later sample
	 * visibly and N runs are needed; sum |b| < 0.95 keeps the filter stable. */
	b[0] = rng_float(-0.85, -0.75);
	for (int j = 1; j < IIR_TAPS; j++)
		b[j] = rng_float(-0.1 / (IIR_TAPS - 1), 0.1 / (IIR_TAPS - 1));
	write_values(argv[4], x, n, 1, 1);
	write_values(argv[5], a, IIR_TAPS, 1, 1);
	write_values(argv[6], b, IIR_TAPS, 1, 1);
	free(x);
	return 0;
}

/*
 * runs < 0: the sequential recursion. Otherwise the kernel's iteration: every run computes
 * all y_next[n] from the previous run's y, in the kernel's order of operations.
 */
#define DEFINE_IIR(T)                                                                       \
	static void iir_##T(const double *xd, const double *ad, const double *bd, size_t n, \
	                    long runs, double *out)                                         \
	{                                                                                   \
		T *x = xmalloc(n * sizeof(T)), *y = xmalloc(n * sizeof(T));                 \
		T *y2 = xmalloc(n * sizeof(T)), a[IIR_TAPS], b[IIR_TAPS];                   \
		for (size_t i = 0; i < n; i++) {                                            \
			x[i] = (T)xd[i];                                                    \
			y[i] = 0;                                                           \
		}                                                                           \
		for (int i = 0; i < IIR_TAPS; i++) {                                        \
			a[i] = (T)ad[i];                                                    \
			b[i] = (T)bd[i];                                                    \
		}                                                                           \
		for (long r = 0; r < (runs < 0 ? 1 : runs); r++) {                          \
			for (size_t k = 0; k < n; k++) {                                    \
				long m = (long)k;                                           \
				const T *yin = runs < 0 ? y2 : y;                           \
				T acc = 0;                                                  \
				for (long i = 0; i < IIR_TAPS && i <= m; i++)               \
					acc += a[i] * x[m - i];                             \
				for (long j = 0; j < IIR_TAPS && j < m; j++)                \
					acc -= b[j] * yin[m - j - 1];                       \
				y2[k] = acc;                                                \
			}                                                                   \
			memcpy(y, y2, n * sizeof(T));                                       \
		}                                                                           \
		for (size_t i = 0; i < n; i++)                                              \
			out[i] = (double)y[i];                                              \
		free(x);                                                                    \
		free(y);                                                                    \
		free(y2);                                                                   \
	}

DEFINE_IIR(float)
DEFINE_IIR(double)

static int cmd_iir(int argc, char **argv)
{
	int dbl;
	size_t n;
	long runs = -1;
	double *x, *a, *b, *y;

	if (argc != 6 && argc != 7)
		die("usage: iir PREC X A B [RUNS]", NULL);
	dbl = parse_prec(argv[2]);
	x = load(argv[3], &n);
	a = load_n(argv[4], IIR_TAPS);
	b = load_n(argv[5], IIR_TAPS);
	if (argc == 7 && (runs = parse_long(argv[6], "RUNS")) < 0)
		die("RUNS must not be negative", argv[6]);
	y = xmalloc(n * sizeof(*y));
	(dbl ? iir_double : iir_float)(x, a, b, n, runs, y);
	write_values("-", y, n, 1, dbl);
	free(x);
	free(a);
	free(b);
	free(y);
	return 0;
}

/* ---- Jacobi ---- */

static void dominant_matrix(double *A, size_t n, double factor)
{
	for (size_t i = 0; i < n; i++) {
		double off = 0;

		for (size_t j = 0; j < n; j++) {
			A[i * n + j] = i == j ? 0 : rng_float(-1, 1);
			off += fabs(A[i * n + j]);
		}
		A[i * n + i] = (double)(float)(factor * off + 1);
	}
}

static int cmd_jacobi_gen(int argc, char **argv)
{
	size_t n;
	double *A, *b, *x;

	if (argc != 7)
		die("usage: jacobi-gen N SEED A B XTRUE", NULL);
	n = parse_size(argv[2], "N");
	rng_seed(argv[3]);
	A = xmalloc(n * n * sizeof(*A));
	b = xmalloc(n * sizeof(*b));
	x = xmalloc(n * sizeof(*x));
	dominant_matrix(A, n, 2);
	for (size_t i = 0; i < n; i++)
		x[i] = rng_float(-1, 1);
	for (size_t i = 0; i < n; i++) {
		double s = 0;

		for (size_t j = 0; j < n; j++)
			s += A[i * n + j] * x[j];
		b[i] = (double)(float)s;
	}
	write_values(argv[4], A, n * n, n, 1);
	write_values(argv[5], b, n, 1, 1);
	write_values(argv[6], x, n, 1, 1);
	free(A);
	free(b);
	free(x);
	return 0;
}

/* The kernel's order: sigma over j != i in increasing j, then (b - sigma) / a_ii. */
#define DEFINE_JACOBI(T)                                                                 \
	static void jacobi_##T(const double *Ad, const double *bd, size_t n, long iters, \
	                       double *xout, double *rout)                               \
	{                                                                                \
		T *A = xmalloc(n * n * sizeof(T)), *b = xmalloc(n * sizeof(T));          \
		T *x = xmalloc(n * sizeof(T)), *x2 = xmalloc(n * sizeof(T));             \
		T *r = xmalloc(n * sizeof(T));                                           \
		for (size_t i = 0; i < n * n; i++)                                       \
			A[i] = (T)Ad[i];                                                 \
		for (size_t i = 0; i < n; i++) {                                         \
			b[i] = (T)bd[i];                                                 \
			x[i] = 0;                                                        \
			r[i] = 0;                                                        \
		}                                                                        \
		for (long k = 0; k < iters; k++) {                                       \
			for (size_t i = 0; i < n; i++) {                                 \
				T sigma = 0;                                             \
				for (size_t j = 0; j < n; j++)                           \
					if (j != i)                                      \
						sigma += A[i * n + j] * x[j];            \
				x2[i] = (b[i] - sigma) / A[i * n + i];                   \
				r[i] = b[i] - sigma - A[i * n + i] * x[i];               \
			}                                                                \
			memcpy(x, x2, n * sizeof(T));                                    \
		}                                                                        \
		for (size_t i = 0; i < n; i++) {                                         \
			xout[i] = (double)x[i];                                          \
			rout[i] = (double)r[i];                                          \
		}                                                                        \
		free(A);                                                                 \
		free(b);                                                                 \
		free(x);                                                                 \
		free(x2);                                                                \
		free(r);                                                                 \
	}

DEFINE_JACOBI(float)
DEFINE_JACOBI(double)

static int cmd_jacobi(int argc, char **argv)
{
	int dbl;
	size_t n;
	long iters;
	double *A, *b, *x, *r;

	if (argc != 8)
		die("usage: jacobi PREC ITERS A B XOUT ROUT", NULL);
	dbl = parse_prec(argv[2]);
	if ((iters = parse_long(argv[3], "ITERS")) < 1)
		die("ITERS must be at least 1", argv[3]);
	b = load(argv[5], &n);
	A = load_n(argv[4], n * n);
	x = xmalloc(n * sizeof(*x));
	r = xmalloc(n * sizeof(*r));
	(dbl ? jacobi_double : jacobi_float)(A, b, n, iters, x, r);
	write_values(argv[6], x, n, 1, dbl);
	write_values(argv[7], r, n, 1, dbl);
	free(A);
	free(b);
	free(x);
	free(r);
	return 0;
}

/* ---- LU decomposition ---- */

static int cmd_lu_gen(int argc, char **argv)
{
	size_t n;
	double *A;

	if (argc != 5)
		die("usage: lu-gen N SEED A", NULL);
	n = parse_size(argv[2], "N");
	rng_seed(argv[3]);
	A = xmalloc(n * n * sizeof(*A));
	dominant_matrix(A, n, 1);
	/* Random signs on the diagonal too: a dominant matrix need not be positive. */
	for (size_t i = 0; i < n; i++)
		if (rng_next() >> 63)
			A[i * n + i] = -A[i * n + i];
	write_values(argv[4], A, n * n, n, 1);
	free(A);
	return 0;
}

/* Step k in the kernel's order: l = a_ik / a_kk, a_ij - l * a_kj; every step reads the
 * previous step's matrix (the kernel's input buffer), so a copy is kept. */
#define DEFINE_LU(T)                                                                         \
	static void lu_##T(double *ad, size_t n, long steps)                                 \
	{                                                                                    \
		T *a = xmalloc(n * n * sizeof(T)), *a2 = xmalloc(n * n * sizeof(T));         \
		for (size_t i = 0; i < n * n; i++)                                           \
			a[i] = (T)ad[i];                                                     \
		for (long k = 0; k < steps && k < (long)n - 1; k++) {                        \
			for (size_t i = 0; i < n; i++)                                       \
				for (size_t j = 0; j < n; j++) {                             \
					T v = a[i * n + j];                                  \
					if ((long)i > k && (long)j >= k) {                   \
						T l = a[i * n + k] / a[k * n + k];           \
						v = (long)j == k ? l : v - l * a[k * n + j]; \
					}                                                    \
					a2[i * n + j] = v;                                   \
				}                                                            \
			memcpy(a, a2, n *n * sizeof(T));                                     \
		}                                                                            \
		for (size_t i = 0; i < n * n; i++)                                           \
			ad[i] = (double)a[i];                                                \
		free(a);                                                                     \
		free(a2);                                                                    \
	}

DEFINE_LU(float)
DEFINE_LU(double)

static int cmd_lu(int argc, char **argv)
{
	int dbl;
	size_t n;
	long steps;
	double *a;

	if (argc != 5 && argc != 6)
		die("usage: lu PREC N A [STEPS]", NULL);
	dbl = parse_prec(argv[2]);
	n = parse_size(argv[3], "N");
	a = load_n(argv[4], n * n);
	steps = argc == 6 ? parse_long(argv[5], "STEPS") : (long)n - 1;
	(dbl ? lu_double : lu_float)(a, n, steps);
	write_values("-", a, n * n, n, dbl);
	free(a);
	return 0;
}

/* L U from the combined matrix, against A, in double. */
static int cmd_lucheck(int argc, char **argv)
{
	size_t n;
	double *A, *LU, tol, worst = 0, scale = 0;

	if (argc != 6)
		die("usage: lucheck N A LU TOL", NULL);
	n = parse_size(argv[2], "N");
	A = load_n(argv[3], n * n);
	LU = load_n(argv[4], n * n);
	tol = atof(argv[5]);
	for (size_t i = 0; i < n * n; i++)
		scale = fmax(scale, fabs(A[i]));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			/* (L U)_ij = sum_{m <= min(i, j)} l_im u_mj with l_ii = 1 */
			double s = 0;

			for (size_t m = 0; m <= (i < j ? i : j); m++)
				s += (m == i ? 1.0 : LU[i * n + m]) * LU[m * n + j];
			worst = fmax(worst, fabs(s - A[i * n + j]));
		}
	worst /= scale > 0 ? scale : 1;
	printf("max |LU - A| / max |A| = %.3g (tolerance %g)\n", worst, tol);
	free(A);
	free(LU);
	return worst <= tol ? 0 : 1;
}

/* ---- scenario-based execution (004 §5.3) ---- */

static uint32_t *load_uints(const char *path, size_t want)
{
	double *v = load_n(path, want);
	uint32_t *u = xmalloc(want * sizeof(*u));

	for (size_t i = 0; i < want; i++) {
		if (v[i] < 0 || v[i] > 4294967295.0 || v[i] != floor(v[i]))
			die("not an unsigned 32-bit integer in", path);
		u[i] = (uint32_t)v[i];
	}
	free(v);
	return u;
}

static int cmd_scenario_gen(int argc, char **argv)
{
	size_t n;
	uint32_t *v;

	if (argc != 8)
		die("usage: scenario-gen N SEED A B C P", NULL);
	n = parse_size(argv[2], "N");
	rng_seed(argv[3]);
	v = xmalloc(n * sizeof(*v));
	for (int s = 4; s < 8; s++) {
		for (size_t i = 0; i < n; i++)
			v[i] = (uint32_t)(rng_next() >> 32);
		write_uints(argv[s], v, n);
	}
	free(v);
	return 0;
}

static int cmd_scenario(int argc, char **argv)
{
	size_t m, n;
	long at, runs;
	double *scen;
	uint32_t *a, *b, *c, *p, *q[3];
	const char *names[] = {"Aq.csv", "Bq.csv", "Cq.csv"};

	if (argc != 10)
		die("usage: scenario SCEN START RUNS A B C P DIR", NULL);
	scen = load(argv[2], &m);
	at = parse_long(argv[3], "START");
	if ((runs = parse_long(argv[4], "RUNS")) < 1)
		die("RUNS must be at least 1", argv[4]);
	n = count_of(argv[5]);
	a = load_uints(argv[5], n);
	b = load_uints(argv[6], n);
	c = load_uints(argv[7], n);
	p = load_uints(argv[8], n);
	for (int i = 0; i < 3; i++) {
		q[i] = xmalloc(n * sizeof(uint32_t));
		memset(q[i], 0, n * sizeof(uint32_t));
	}
	for (long r = 0; r < runs; r++, at++) {
		int program = at >= 0 && at < (long)m ? (int)scen[at] : -1;

		for (size_t i = 0; i < n; i++) {
			uint32_t va = a[i], vb = b[i], vc = c[i], vp = p[i];

			switch (program) {
			case 0:
				a[i] = va + vb;
				b[i] = vb ^ vc;
				c[i] = vc + vp;
				q[0][i] = va * vb;
				break;
			case 1:
				a[i] = va * 3u + vp;
				b[i] = va + vc;
				c[i] = vb - vc;
				q[1][i] = (va * 3u + vp) ^ (va + vc);
				break;
			case 2:
				a[i] = va ^ vp;
				b[i] = vb * vc + 1u;
				c[i] = va + vb + vc;
				q[2][i] = (va + vb + vc) * 7u;
				break;
			default:
				break;
			}
		}
	}
	{
		char *pd = path_in(argv[9], "d.csv"), *pe = path_in(argv[9], "e.csv");
		char *pf = path_in(argv[9], "f.csv"), *pi = path_in(argv[9], "index.csv");
		FILE *f;

		write_uints(pd, a, n);
		write_uints(pe, b, n);
		write_uints(pf, c, n);
		for (int i = 0; i < 3; i++) {
			char *pq = path_in(argv[9], names[i]);

			write_uints(pq, q[i], n);
			free(pq);
		}
		f = create(pi);
		fprintf(f, "%ld\n", at);
		finish(f, pi);
		free(pd);
		free(pe);
		free(pf);
		free(pi);
	}
	free(scen);
	free(a);
	free(b);
	free(c);
	free(p);
	for (int i = 0; i < 3; i++)
		free(q[i]);
	return 0;
}

/* ---- tests/data/swap/pingpong.xml: two pairs, the first one's input an InOut ---- */

static int cmd_pingpong(int argc, char **argv)
{
	size_t n;
	long runs;
	uint32_t *a, *b, *a_inout;

	if (argc != 6)
		die("usage: pingpong RUNS A B DIR", NULL);
	if ((runs = parse_long(argv[2], "RUNS")) < 1)
		die("RUNS must be at least 1", argv[2]);
	n = count_of(argv[3]);
	a = load_uints(argv[3], n);
	b = load_uints(argv[4], n);
	a_inout = xmalloc(n * sizeof(*a_inout));
	for (long r = 0; r < runs; r++)
		for (size_t i = 0; i < n; i++) {
			uint32_t x = a[i], y = b[i];

			/* the kernel writes its InOut input last: 3x + 1 */
			a_inout[i] = x * 3u + 1u;
			a[i] = y;
			b[i] = x + y;
		}
	{
		char *pa = path_in(argv[5], "a.csv"), *pa2 = path_in(argv[5], "a2.csv");
		char *pb2 = path_in(argv[5], "b2.csv");

		write_uints(pa, a_inout, n);
		write_uints(pa2, a, n);
		write_uints(pb2, b, n);
		free(pa);
		free(pa2);
		free(pb2);
	}
	free(a);
	free(b);
	free(a_inout);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {
	        {"iir-gen", cmd_iir_gen},       {"iir", cmd_iir},
	        {"jacobi-gen", cmd_jacobi_gen}, {"jacobi", cmd_jacobi},
	        {"lu-gen", cmd_lu_gen},         {"lu", cmd_lu},
	        {"lucheck", cmd_lucheck},       {"scenario-gen", cmd_scenario_gen},
	        {"scenario", cmd_scenario},     {"pingpong", cmd_pingpong},
	};

	if (argc >= 2)
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (strcmp(argv[1], cmds[i].name) == 0)
				return cmds[i].fn(argc, argv);
	fprintf(stderr, "usage: swapref iir-gen|iir|jacobi-gen|jacobi|lu-gen|lu|lucheck|"
	                "scenario-gen|scenario|pingpong ... (see tests/tools/swapref.c)\n");
	return 2;
}
