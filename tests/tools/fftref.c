/*
 * An independent reference for the FFT image filter of 004 §3.6 (batches/fft-filter): the
 * whole filter in double precision with its own recursive FFT, its own PGM and CSV reading
 * and writing, and nothing shared with carsh or kernels/fft.cl. The kernels use an iterative
 * decimation-in-time FFT after a bit-reversal permutation with transposes in between; this
 * file recurses on even and odd samples and transforms rows and then columns in place, so a
 * mistake in one is not repeated in the other.
 *
 *   fftref picture N [FILE]            a deterministic N x N test picture (0..255) as PGM
 *                                      (P5), or CSV when FILE ends in .csv; stdout without FILE
 *   fftref filter low|high CUT IMAGE [OFFSET] [--pgm FILE]
 *                                      the filtered image (real part of the inverse FFT plus
 *                                      OFFSET) as CSV on stdout, N values per row; IMAGE is
 *                                      PGM (P2 or P5) or CSV holding N*N values (N a power
 *                                      of two); --pgm also writes it rounded as an 8-bit PGM
 *   fftref cmp GOT.csv WANT.csv TOL RANGE
 *                                      max |got - want| / RANGE <= TOL (RANGE: the value
 *                                      range of the input image, 255 for the pictures above)
 *   fftref pgmcmp GOT.pgm WANT.pgm MAXDIFF
 *                                      same width, height and maxval; pixels differ by at
 *                                      most MAXDIFF
 *   fftref selftest                    the FFT against a direct DFT, and the filter's mask
 *
 * The mask (the same definition as kernels/fft.cl, written independently): frequency index
 * u stands for min(u, N - u); low-pass keeps fu^2 + fv^2 <= CUT^2, high-pass keeps the rest.
 */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvread.h"

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "fftref: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static void *alloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory", NULL);
	return p;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

/* ---- input: CSV (every number, whatever the separators) or PGM ---- */

static double *load_csv(const char *path, size_t *n)
{
	return csv_read(path, n, die);
}

/* The next header number of a PGM, skipping blanks and # comments. */
static long pgm_number(FILE *f, const char *path)
{
	long v = 0;
	int ch, digits = 0;

	for (;;) {
		ch = fgetc(f);
		if (ch == '#')
			while ((ch = fgetc(f)) != '\n' && ch != '\r' && ch != EOF)
				;
		else if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r' && ch != '\f' &&
		         ch != '\v')
			break;
	}
	while (ch >= '0' && ch <= '9' && v < 1000000) {
		v = v * 10 + (ch - '0');
		digits++;
		ch = fgetc(f);
	}
	if (!digits)
		die("bad PGM header in", path);
	if (ch == '#') /* as netpbm: a comment ends the number and counts as its delimiter */
		while ((ch = fgetc(f)) != '\n' && ch != '\r' && ch != EOF)
			;
	return v;
}

static double *load_pgm(const char *path, long *w, long *h, long *maxval)
{
	FILE *f = fopen(path, "rb");
	char magic[2];
	double *v;
	size_t n;

	if (!f || fread(magic, 1, 2, f) != 2)
		die("cannot read", path);
	if (magic[0] != 'P' || (magic[1] != '2' && magic[1] != '5'))
		die("not a P2 or P5 image", path);
	*w = pgm_number(f, path);
	*h = pgm_number(f, path);
	*maxval = pgm_number(f, path);
	if (*w < 1 || *h < 1 || *maxval < 1 || *maxval > 65535)
		die("bad PGM header in", path);
	n = (size_t)*w * (size_t)*h;
	v = alloc(n, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		if (magic[1] == '2') {
			v[i] = (double)pgm_number(f, path);
		} else {
			int hi = *maxval > 255 ? fgetc(f) : 0, lo = fgetc(f);

			if (hi == EOF || lo == EOF)
				die("truncated", path);
			v[i] = hi * 256 + lo;
		}
		if (v[i] > *maxval)
			die("pixel above maxval in", path);
	}
	fclose(f);
	return v;
}

/* An N x N image (N a power of two) from a PGM or CSV file. */
static double *load_square(const char *path, size_t *np)
{
	size_t count, n = 1;
	double *v;

	if (ends_with(path, ".pgm")) {
		long w, h, maxval;

		v = load_pgm(path, &w, &h, &maxval);
		if (w != h)
			die("the image is not square", path);
		count = (size_t)w * (size_t)h;
	} else {
		v = load_csv(path, &count);
	}
	while (n * n < count)
		n *= 2;
	if (n * n != count || n < 2)
		die("not an N x N image with N a power of two", path);
	*np = n;
	return v;
}

/* ---- output ---- */

/* 8-bit P5, each value rounded to the nearest integer (halves away from zero), clamped to
 * 0..255, NaN as 0: what carsh's `virtbuf dump` to a .pgm file promises. */
static void write_pgm(const char *path, const double *v, size_t w, size_t h)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");

	if (!f)
		die("cannot write", path);
	fprintf(f, "P5\n%zu %zu\n255\n", w, h);
	for (size_t i = 0; i < w * h; i++) {
		double r = isnan(v[i]) ? 0 : round(v[i]);

		fputc(r < 0 ? 0 : r > 255 ? 255 : (int)r, f);
	}
	if ((f != stdout && fclose(f) != 0) || (f == stdout && fflush(f) != 0))
		die("cannot write", path);
}

/* ---- the test picture ---- */

/*
 * Shapes with sharp and soft edges, a zone plate (rings whose frequency grows outwards,
 * which the low-pass visibly blurs) and a little noise, all in coordinates relative to the
 * size so that every N shows the same picture; scaled to exactly 0..255.
 */
static void cmd_picture(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	const char *path = argc > 3 ? argv[3] : "-";
	uint64_t rng = 0x243F6A8885A308D3ull;
	double *v, lo = INFINITY, hi = -INFINITY;

	if (n < 2 || n > 65536 || (n & (n - 1)))
		die("N must be a power of two from 2 to 65536", argc > 2 ? argv[2] : NULL);
	v = alloc((size_t)(n * n), sizeof(*v));
	for (long y = 0; y < n; y++)
		for (long x = 0; x < n; x++) {
			double u = (x + 0.5) / n, t = (y + 0.5) / n, p = 0.25 + 0.3 * u;
			double dx = u - 0.3, dy = t - 0.3, r2 = dx * dx + dy * dy;
			double zx = u - 0.7, zy = t - 0.7, z2 = zx * zx + zy * zy;

			if (r2 < 0.02)
				p = 0.95; /* a bright disc */
			if (u > 0.55 && u < 0.9 && t > 0.12 && t < 0.35)
				p = 0.05; /* a dark bar */
			if (u > 0.1 && u < 0.4 && t > 0.6 && t < 0.9)
				p = ((long)(u * 16) + (long)(t * 16)) % 2 ? 0.8 : 0.2;
			if (z2 < 0.04)
				p = 0.5 + 0.45 * cos(400 * z2); /* zone plate */
			rng ^= rng >> 12;
			rng ^= rng << 25;
			rng ^= rng >> 27;
			p += 0.04 *
			     ((double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0 -
			      0.5);
			v[y * n + x] = p;
			lo = fmin(lo, p);
			hi = fmax(hi, p);
		}
	for (long i = 0; i < n * n; i++)
		v[i] = round((v[i] - lo) / (hi - lo) * 255);
	if (ends_with(path, ".csv")) {
		FILE *f = fopen(path, "w");

		if (!f)
			die("cannot write", path);
		for (long i = 0; i < n * n; i++)
			fprintf(f, "%.0f%c", v[i], (i + 1) % n ? ',' : '\n');
		if (fclose(f) != 0)
			die("cannot write", path);
	} else {
		write_pgm(path, v, (size_t)n, (size_t)n);
	}
	free(v);
}

/* ---- the FFT and the filter ---- */

/* out[k] = sum_j in[j * stride] exp(sign 2 pi i j k / n), n a power of two, by splitting
 * into even and odd samples (the textbook recursion, not the kernels' iteration). */
static void fft(const double complex *in, size_t stride, double complex *out, size_t n, int sign)
{
	double complex *even, *odd;

	if (n == 1) {
		out[0] = in[0];
		return;
	}
	even = alloc(n / 2, sizeof(*even));
	odd = alloc(n / 2, sizeof(*odd));
	fft(in, 2 * stride, even, n / 2, sign);
	fft(in + stride, 2 * stride, odd, n / 2, sign);
	for (size_t k = 0; k < n / 2; k++) {
		double complex w = cexp(sign * 2 * M_PI * I * (double)k / (double)n) * odd[k];

		out[k] = even[k] + w;
		out[k + n / 2] = even[k] - w;
	}
	free(even);
	free(odd);
}

/* The 2D transform of an n x n array in place: every row, then every column. */
static void fft2(double complex *a, size_t n, int sign)
{
	double complex *line = alloc(n, sizeof(*line)), *res = alloc(n, sizeof(*res));

	for (size_t y = 0; y < n; y++) {
		fft(a + y * n, 1, res, n, sign);
		memcpy(a + y * n, res, n * sizeof(*res));
	}
	for (size_t x = 0; x < n; x++) {
		for (size_t y = 0; y < n; y++)
			line[y] = a[y * n + x];
		fft(line, 1, res, n, sign);
		for (size_t y = 0; y < n; y++)
			a[y * n + x] = res[y];
	}
	free(line);
	free(res);
}

static long freq(size_t u, size_t n)
{
	return (long)(u < n - u ? u : n - u);
}

static int low_keeps(size_t u, size_t v, size_t n, long cut)
{
	long fu = freq(u, n), fv = freq(v, n);

	return fu * fu + fv * fv <= cut * cut;
}

static double *filter(const double *img, size_t n, int high, long cut, double offset)
{
	double complex *a = alloc(n * n, sizeof(*a));
	double *out = alloc(n * n, sizeof(*out));

	for (size_t i = 0; i < n * n; i++)
		a[i] = img[i];
	fft2(a, n, -1);
	for (size_t v = 0; v < n; v++)
		for (size_t u = 0; u < n; u++)
			if (low_keeps(u, v, n, cut) == high)
				a[v * n + u] = 0;
	fft2(a, n, +1);
	for (size_t i = 0; i < n * n; i++)
		out[i] = creal(a[i]) / ((double)n * (double)n) + offset;
	free(a);
	return out;
}

static void cmd_filter(int argc, char **argv)
{
	const char *pgm = NULL;
	char *pos[4];
	int npos = 0;
	size_t n;
	double *img, *out;
	int high;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--pgm") == 0 && i + 1 < argc)
			pgm = argv[++i];
		else if (npos < 4)
			pos[npos++] = argv[i];
		else
			die("too many arguments", argv[i]);
	}
	if (npos < 3)
		die("usage: fftref filter low|high CUT IMAGE [OFFSET] [--pgm FILE]", NULL);
	if (strcmp(pos[0], "low") != 0 && strcmp(pos[0], "high") != 0)
		die("the filter is low or high", pos[0]);
	high = strcmp(pos[0], "high") == 0;
	img = load_square(pos[2], &n);
	out = filter(img, n, high, atol(pos[1]), npos > 3 ? atof(pos[3]) : 0.0);
	for (size_t i = 0; i < n * n; i++)
		printf("%.17g%c", out[i], (i + 1) % n ? ',' : '\n');
	if (pgm)
		write_pgm(pgm, out, n, n);
	free(img);
	free(out);
}

/* ---- comparisons ---- */

static void cmd_cmp(char **argv)
{
	size_t n, m, at = 0;
	double *got = load_csv(argv[2], &n), *want = load_csv(argv[3], &m);
	double tol = atof(argv[4]), range = atof(argv[5]), worst = 0;

	if (n != m) {
		fprintf(stderr, "fftref: %s has %zu values, %s has %zu\n", argv[2], n, argv[3], m);
		free(got);
		free(want);
		exit(1);
	}
	for (size_t i = 0; i < n; i++) {
		double d = fabs(got[i] - want[i]);

		if (!(d <= worst)) { /* NaN counts as the worst */
			worst = isnan(d) ? INFINITY : d;
			at = i;
		}
	}
	printf("max error %.3g of range %g = %.3g (limit %g) at value %zu: got %.9g, want %.9g",
	       worst, range, worst / range, tol, at, n ? got[at] : 0, n ? want[at] : 0);
	free(got);
	free(want);
	exit(worst / range <= tol ? 0 : 1);
}

static void cmd_pgmcmp(char **argv)
{
	long w1, h1, m1, w2, h2, m2;
	double *a = load_pgm(argv[2], &w1, &h1, &m1), *b = load_pgm(argv[3], &w2, &h2, &m2);
	double worst = 0, limit = atof(argv[4]);
	size_t differ = 0;

	if (w1 != w2 || h1 != h2 || m1 != m2) {
		printf("%s is %ldx%ld maxval %ld, %s is %ldx%ld maxval %ld", argv[2], w1, h1, m1,
		       argv[3], w2, h2, m2);
		free(a);
		free(b);
		exit(1);
	}
	for (size_t i = 0; i < (size_t)w1 * (size_t)h1; i++) {
		double d = fabs(a[i] - b[i]);

		differ += d != 0;
		worst = fmax(worst, d);
	}
	printf("%ldx%ld maxval %ld, %zu pixels differ, by at most %g (limit %g)", w1, h1, m1,
	       differ, worst, limit);
	free(a);
	free(b);
	exit(worst <= limit ? 0 : 1);
}

/* ---- self test ---- */

static void cmd_selftest(void)
{
	enum { n = 64 };
	double complex x[n], got[n];
	double worst = 0;
	uint64_t rng = 12345;
	double img[16 * 16], *lo, *hi;

	for (int j = 0; j < n; j++) {
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		x[j] = (double)(rng >> 40) / 16777216.0 - 0.5 +
		       I * ((double)(rng >> 20 & 0xfffff) / 1048576.0 - 0.5);
	}
	fft(x, 1, got, n, -1);
	for (int k = 0; k < n; k++) {
		double complex want = 0;

		for (int j = 0; j < n; j++)
			want += x[j] * cexp(-2 * M_PI * I * (double)j * k / n);
		worst = fmax(worst, cabs(got[k] - want));
	}
	if (worst > 1e-12) {
		printf("fft differs from the direct DFT by %g\n", worst);
		exit(1);
	}
	/* low + high is the identity; a constant image keeps only DC. */
	for (int i = 0; i < 16 * 16; i++)
		img[i] = (i * 37 % 101) - 20;
	lo = filter(img, 16, 0, 3, 0);
	hi = filter(img, 16, 1, 3, 0);
	for (int i = 0; i < 16 * 16; i++)
		worst = fmax(worst, fabs(lo[i] + hi[i] - img[i]));
	if (worst > 1e-12) {
		printf("low + high differs from the image by %g\n", worst);
		exit(1);
	}
	printf("fft equals the direct DFT and low + high the image (max error %.3g)\n", worst);
	free(lo);
	free(hi);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (strcmp(cmd, "picture") == 0)
		cmd_picture(argc, argv);
	else if (strcmp(cmd, "filter") == 0)
		cmd_filter(argc, argv);
	else if (strcmp(cmd, "cmp") == 0 && argc == 6)
		cmd_cmp(argv);
	else if (strcmp(cmd, "pgmcmp") == 0 && argc == 5)
		cmd_pgmcmp(argv);
	else if (strcmp(cmd, "selftest") == 0)
		cmd_selftest();
	else
		die("usage: fftref picture|filter|cmp|pgmcmp|selftest ... (see fftref.c)", NULL);
	return 0;
}
