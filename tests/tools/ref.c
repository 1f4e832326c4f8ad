/*
 * Independent C references for the shell-level tests. Deliberately shares no code with
 * carsh: it reads and writes CSV with plain stdio so that a bug in carsh's CSV layer cannot
 * cancel itself out.
 *
 *   ref gen N SEED [LO HI]          N pseudo-random floats in [LO, HI) (default [-1, 1))
 *   ref vadd A.csv B.csv            a + b
 *   ref scale A X.csv               A * x
 *   ref saxpy A X.csv Y.csv         A * x + y
 *   ref fir3x3 M N X.csv H.csv      004 §2.7 eq. 1, (M-2) x (N-2) values
 *   ref cmp GOT.csv WANT.csv TOL    as floats: max |got-want| / max(1, |want|) <= TOL
 *   ref cmpd GOT.csv WANT.csv TOL   the same in double precision
 *
 * cmp rounds both sides to float first, so "1.065795" and "1.06579494" (the same float
 * written by two formatters) compare equal with TOL 0.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvread.h"

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "ref: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static double *load(const char *path, size_t *n)
{
	return csv_read(path, n, die);
}

static double *load_n(const char *path, size_t want)
{
	return csv_read_n(path, want, die);
}

/* xorshift64*: the same sequence on every machine. */
static uint64_t rng_state;

static double rng_unit(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static int cmd_gen(int argc, char **argv)
{
	size_t n = strtoull(argv[2], NULL, 10);
	double lo = argc > 5 ? atof(argv[4]) : -1.0, hi = argc > 5 ? atof(argv[5]) : 1.0;

	rng_state = strtoull(argv[3], NULL, 10) * 0x9E3779B97F4A7C15ULL + 1;
	for (size_t i = 0; i < n; i++)
		printf("%.9g\n", (float)(lo + (hi - lo) * rng_unit()));
	return 0;
}

static void put(float x)
{
	printf("%.9g\n", x);
}

static int cmd_vadd(char **argv)
{
	size_t n;
	double *a = load(argv[2], &n), *b = load_n(argv[3], n);

	for (size_t i = 0; i < n; i++)
		put((float)a[i] + (float)b[i]);
	return 0;
}

static int cmd_scale(char **argv)
{
	float a = strtof(argv[2], NULL);
	size_t n;
	double *x = load(argv[3], &n);

	for (size_t i = 0; i < n; i++)
		put(a * (float)x[i]);
	return 0;
}

static int cmd_saxpy(char **argv)
{
	float a = strtof(argv[2], NULL);
	size_t n;
	double *x = load(argv[3], &n), *y = load_n(argv[4], n);

	for (size_t i = 0; i < n; i++)
		put(a * (float)x[i] + (float)y[i]);
	return 0;
}

static int cmd_fir(char **argv)
{
	int m = atoi(argv[2]), n = atoi(argv[3]);
	double *x = load_n(argv[4], (size_t)m * (size_t)n), *h = load_n(argv[5], 9);

	for (int k = 0; k < m - 2; k++)
		for (int l = 0; l < n - 2; l++) {
			float acc = 0.0f;

			for (int i = 0; i < 3; i++)
				for (int j = 0; j < 3; j++)
					acc += (float)h[i * 3 + j] * (float)x[(k + i) * n + l + j];
			put(acc);
		}
	return 0;
}

static int cmd_cmp(char **argv, int as_float)
{
	size_t n, m;
	double *got = load(argv[2], &n), *want = load(argv[3], &m), tol = atof(argv[4]), worst = 0;
	size_t at = 0;

	for (size_t i = 0; as_float && i < n; i++)
		got[i] = (float)got[i];
	for (size_t i = 0; as_float && i < m; i++)
		want[i] = (float)want[i];

	if (n != m) {
		fprintf(stderr, "ref cmp: %s has %zu values, %s has %zu\n", argv[2], n, argv[3], m);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		double d = fabs(got[i] - want[i]) / fmax(1.0, fabs(want[i]));

		if (!(d <= worst)) {
			worst = d;
			at = i;
		}
	}
	if (!(worst <= tol)) {
		fprintf(stderr, "ref cmp: value %zu: got %.9g, want %.9g (error %.3g > %.3g)\n", at,
		        got[at], want[at], worst, tol);
		return 1;
	}
	printf("max error %.3g over %zu values\n", worst, n);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int args;
	} cmds[] = {{"gen", 2},    {"vadd", 2}, {"scale", 2}, {"saxpy", 3},
	            {"fir3x3", 4}, {"cmp", 3},  {"cmpd", 3}};
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (argc >= 2 && strcmp(argv[1], cmds[i].name) == 0)
			break;
	if (i == sizeof(cmds) / sizeof(cmds[0]) || argc < cmds[i].args + 2)
		die("usage: ref gen|vadd|scale|saxpy|fir3x3|cmp|cmpd ARGS (see ref.c)", NULL);
	switch (i) {
	case 0:
		return cmd_gen(argc, argv);
	case 1:
		return cmd_vadd(argv);
	case 2:
		return cmd_scale(argv);
	case 3:
		return cmd_saxpy(argv);
	case 4:
		return cmd_fir(argv);
	case 5:
		return cmd_cmp(argv, 1);
	default:
		return cmd_cmp(argv, 0);
	}
}
