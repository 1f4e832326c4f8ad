/*
 * The real-world suite's references (tests/realworld/README.md): each command computes, in
 * plain C and double precision, what a suite's own CPU code computes for its kernel, from the
 * same CSV inputs, and prints the result one value a line. No code of carsh's and none of
 * the kernels': a comparison against carsh's output checks both.
 *
 *   rwref collatz N                          steps of 1..N to reach 1
 *   rwref conv3x3 W H IN MASK                3x3 filter of a (W+2)x(H+2) image
 *   rwref saxpy A X Y                        A*X+Y
 *   rwref histogram B IN LEVELS              counts of levels[i] <= v < levels[i+1]
 *   rwref gauss N A B                        forward elimination: the final a, b and m
 *   rwref kmeans NPTS NF K FEATURES CLUSTERS transpose, then the nearest centre of each point
 *   rwref pathfinder ROWS COLS WALL          the cheapest path's cost to each bottom cell
 *   rwref hotspot ROWS COLS STEPS TEMP POWER CAP RX RY RZ STEP   the temperatures after STEPS
 *   rwref sum IN                             the sum of every value
 *   rwref scan IN                            the inclusive prefix sums
 *   rwref spmv DIM VAL COLS ROWDELIM VEC     a CSR matrix times a vector
 *   rwref ljforce N NEIGH POS LIST CUTSQ LJ1 LJ2   Lennard-Jones forces (x,y,z,0 per atom)
 *   rwref nbody N DT POSMASS VEL             one step: the new positions (xyz, mass), then the
 *                                            velocities (xyz, 0)
 *   rwref adjust NDELTA NLY DELTA LY W OLDW  backprop's weight update: the new w, then oldw
 *   rwref srad NR NC LAMBDA Q0SQR IMG         exp(img/255) and its square, then one SRAD step
 *                                            and log(.)*255 of the result (column-major)
 *   rwref add A B                            A+B
 *   rwref transpose W H A                    the H x W transpose of a W-wide, H-high matrix
 *   rwref median W H IMG                     median-filter.py's 3x3 filter (see cmd_median)
 *   rwref conway W H GENS CELLS              the Game of Life on a torus after GENS generations
 *   rwref bfs NODES NODE_FILE EDGE_FILE      each node's BFS level from node 0 (-1: unreached)
 *   rwref nn N LAT LNG LOCATIONS             each (lat, lng) record's distance to (LAT, LNG)
 *   rwref blurbox W H SIZE IMG               Khronos blur's single-pass box blur
 *   rwref blurbox2 W H SIZE IMG              its dual-pass box blur (rows, then columns)
 *   rwref blurkern2 W H KERN IMG             its dual-pass kernel blur, KERN's 2*size+1 weights
 *   rwref rd S STEPS RGBA                    Gray-Scott steps on an S x S RGBA unorm8 image
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/csvread.h"

static void fail(const char *msg, const char *arg)
{
	fprintf(stderr, "rwref: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static long num(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < 0)
		fail("not a count", s);
	return v;
}

static double real(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (*s == '\0' || *end != '\0')
		fail("not a number", s);
	return v;
}

static void *zalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		fail("out of memory", NULL);
	return p;
}

static void print_all(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%.9g\n", v[i]);
}

/* The Collatz chain of n: n/2 when even, 3n+1 when odd, counted one step each. */
static int cmd_collatz(char **argv)
{
	long n = num(argv[2]);
	for (long i = 1; i <= n; i++) {
		unsigned long long x = (unsigned long long)i;
		int steps = 0;
		while (x != 1) {
			x = (x % 2) ? 3 * x + 1 : x / 2;
			steps++;
		}
		printf("%d\n", steps);
	}
	return 0;
}

static int cmd_conv3x3(char **argv)
{
	long w = num(argv[2]), h = num(argv[3]);
	double *in = csv_read_n(argv[4], (size_t)((w + 2) * (h + 2)), fail);
	double *mask = csv_read_n(argv[5], 9, fail);
	for (long y = 0; y < h; y++)
		for (long x = 0; x < w; x++) {
			double s = 0;
			for (int dy = 0; dy < 3; dy++)
				for (int dx = 0; dx < 3; dx++)
					s += mask[dy * 3 + dx] * in[(y + dy) * (w + 2) + x + dx];
			printf("%.9g\n", s);
		}
	free(in);
	free(mask);
	return 0;
}

static int cmd_saxpy(char **argv)
{
	double a = real(argv[2]);
	size_t n, m;
	double *x = csv_read(argv[3], &n, fail);
	double *y = csv_read(argv[4], &m, fail);
	if (n != m)
		fail("x and y differ in length", argv[4]);
	for (size_t i = 0; i < n; i++)
		printf("%.9g\n", a * x[i] + y[i]);
	free(x);
	free(y);
	return 0;
}

static int cmd_histogram(char **argv)
{
	long bins = num(argv[2]);
	size_t n;
	double *in = csv_read(argv[3], &n, fail);
	double *lv = csv_read_n(argv[4], (size_t)bins + 1, fail);
	long *count = zalloc((size_t)bins, sizeof *count);
	for (size_t i = 0; i < n; i++) {
		if (!(lv[0] < in[i] && in[i] < lv[bins]))
			continue;
		long b = 0;
		while (b + 1 < bins && lv[b + 1] <= in[i])
			b++;
		count[b]++;
	}
	for (long b = 0; b < bins; b++)
		printf("%ld\n", count[b]);
	free(in);
	free(lv);
	free(count);
	return 0;
}

/* Rodinia gaussian: for each pivot t the multipliers m[i][t] of the rows below, then the
 * rows (from column t on) and the right-hand side less m times the pivot row. */
static int cmd_gauss(char **argv)
{
	long n = num(argv[2]);
	double *a = csv_read_n(argv[3], (size_t)(n * n), fail);
	double *b = csv_read_n(argv[4], (size_t)n, fail);
	double *m = zalloc((size_t)(n * n), sizeof *m);
	for (long t = 0; t < n - 1; t++) {
		for (long i = t + 1; i < n; i++)
			m[i * n + t] = a[i * n + t] / a[t * n + t];
		for (long i = t + 1; i < n; i++) {
			for (long j = t; j < n; j++)
				a[i * n + j] -= m[i * n + t] * a[t * n + j];
			b[i] -= m[i * n + t] * b[t];
		}
	}
	print_all(a, (size_t)(n * n));
	print_all(b, (size_t)n);
	print_all(m, (size_t)(n * n));
	free(a);
	free(b);
	free(m);
	return 0;
}

/* Rodinia kmeans: the feature matrix transposed (feature-major), then each point's
 * nearest centre by squared Euclidean distance, the first on a tie. */
static int cmd_kmeans(char **argv)
{
	long np = num(argv[2]), nf = num(argv[3]), k = num(argv[4]);
	double *f = csv_read_n(argv[5], (size_t)(np * nf), fail);
	double *c = csv_read_n(argv[6], (size_t)(k * nf), fail);
	for (long l = 0; l < nf; l++)
		for (long p = 0; p < np; p++)
			printf("%.9g\n", f[p * nf + l]);
	for (long p = 0; p < np; p++) {
		double best = DBL_MAX;
		long index = 0;
		for (long i = 0; i < k; i++) {
			double d = 0;
			for (long l = 0; l < nf; l++)
				d += (f[p * nf + l] - c[i * nf + l]) *
				     (f[p * nf + l] - c[i * nf + l]);
			if (d < best) {
				best = d;
				index = i;
			}
		}
		printf("%ld\n", index);
	}
	free(f);
	free(c);
	return 0;
}

/* Rodinia pathfinder (its OpenMP run()): row by row, each cell's cost is its wall plus the
 * cheapest of the three cells above. */
static int cmd_pathfinder(char **argv)
{
	long rows = num(argv[2]), cols = num(argv[3]);
	double *wall = csv_read_n(argv[4], (size_t)(rows * cols), fail);
	double *src = zalloc((size_t)cols, sizeof *src), *dst = zalloc((size_t)cols, sizeof *dst);
	memcpy(src, wall, (size_t)cols * sizeof *src);
	for (long t = 0; t < rows - 1; t++) {
		for (long n = 0; n < cols; n++) {
			double min = src[n];
			if (n > 0 && src[n - 1] < min)
				min = src[n - 1];
			if (n < cols - 1 && src[n + 1] < min)
				min = src[n + 1];
			dst[n] = wall[(t + 1) * cols + n] + min;
		}
		double *tmp = src;
		src = dst;
		dst = tmp;
	}
	print_all(src, (size_t)cols);
	free(wall);
	free(src);
	free(dst);
	return 0;
}

/* Rodinia hotspot (its single_iteration): a cell's neighbour beyond the grid's edge is the
 * cell itself, which is what the CPU code's edge and corner formulas amount to. */
static int cmd_hotspot(char **argv)
{
	long rows = num(argv[2]), cols = num(argv[3]), steps = num(argv[4]);
	size_t n = (size_t)(rows * cols);
	double *t = csv_read_n(argv[5], n, fail), *p = csv_read_n(argv[6], n, fail);
	double cap = real(argv[7]), rx = real(argv[8]), ry = real(argv[9]), rz = real(argv[10]);
	double step = real(argv[11]), amb = 80.0;
	double *u = zalloc(n, sizeof *u);
	for (long s = 0; s < steps; s++) {
		for (long r = 0; r < rows; r++)
			for (long c = 0; c < cols; c++) {
				double me = t[r * cols + c];
				double north = t[(r > 0 ? r - 1 : r) * cols + c];
				double south = t[(r < rows - 1 ? r + 1 : r) * cols + c];
				double west = t[r * cols + (c > 0 ? c - 1 : c)];
				double east = t[r * cols + (c < cols - 1 ? c + 1 : c)];
				u[r * cols + c] =
				        me +
				        step / cap *
				                (p[r * cols + c] + (south + north - 2 * me) / ry +
				                 (east + west - 2 * me) / rx + (amb - me) / rz);
			}
		double *tmp = t;
		t = u;
		u = tmp;
	}
	print_all(t, n);
	free(t);
	free(u);
	free(p);
	return 0;
}

static int cmd_sum(char **argv)
{
	size_t n;
	double *in = csv_read(argv[2], &n, fail), s = 0;
	for (size_t i = 0; i < n; i++)
		s += in[i];
	printf("%.9g\n", s);
	free(in);
	return 0;
}

/* SHOC scan's scanCPU: inclusive sums. */
static int cmd_scan(char **argv)
{
	size_t n;
	double *in = csv_read(argv[2], &n, fail), s = 0;
	for (size_t i = 0; i < n; i++) {
		s += in[i];
		printf("%.9g\n", s);
	}
	free(in);
	return 0;
}

/* SHOC spmv's spmvCpu: row by row over the CSR arrays. */
static int cmd_spmv(char **argv)
{
	long dim = num(argv[2]);
	size_t nnz, nc;
	double *val = csv_read(argv[3], &nnz, fail), *cols = csv_read(argv[4], &nc, fail);
	double *rd = csv_read_n(argv[5], (size_t)dim + 1, fail);
	double *vec = csv_read_n(argv[6], (size_t)dim, fail);
	if (nc != nnz || rd[dim] != (double)nnz)
		fail("the CSR arrays disagree", argv[4]);
	for (long r = 0; r < dim; r++) {
		double t = 0;
		for (long j = (long)rd[r]; j < (long)rd[r + 1]; j++)
			t += val[j] * vec[(long)cols[j]];
		printf("%.9g\n", t);
	}
	free(val);
	free(cols);
	free(rd);
	free(vec);
	return 0;
}

/* SHOC md's checkResults: the Lennard-Jones force on each atom from its neighbour list
 * (neighbour j of atom i at list[j*n + i]), within the cutoff. */
static int cmd_ljforce(char **argv)
{
	long n = num(argv[2]), neigh = num(argv[3]);
	double *pos = csv_read_n(argv[4], (size_t)(4 * n), fail);
	double *list = csv_read_n(argv[5], (size_t)(neigh * n), fail);
	double cutsq = real(argv[6]), lj1 = real(argv[7]), lj2 = real(argv[8]);
	for (long i = 0; i < n; i++) {
		double f[3] = {0, 0, 0};
		for (long j = 0; j < neigh; j++) {
			long k = (long)list[j * n + i];
			double d[3], r2 = 0;
			for (int c = 0; c < 3; c++) {
				d[c] = pos[4 * i + c] - pos[4 * k + c];
				r2 += d[c] * d[c];
			}
			if (r2 < cutsq) {
				double r2inv = 1.0 / r2, r6inv = r2inv * r2inv * r2inv;
				double force = r2inv * r6inv * (lj1 * r6inv - lj2);
				for (int c = 0; c < 3; c++)
					f[c] += d[c] * force;
			}
		}
		printf("%.9g\n%.9g\n%.9g\n0\n", f[0], f[1], f[2]);
	}
	free(pos);
	free(list);
	return 0;
}

/* The nbody sample (G = 1, softening 1): the summed pairwise force, the particle itself
 * included (its distance is 0), moves it as an acceleration over dt. */
static int cmd_nbody(char **argv)
{
	long n = num(argv[2]);
	double dt = real(argv[3]);
	double *pm = csv_read_n(argv[4], (size_t)(4 * n), fail);
	double *vel = csv_read_n(argv[5], (size_t)(4 * n), fail);
	double *newv = zalloc((size_t)(4 * n), sizeof *newv);
	for (long i = 0; i < n; i++) {
		double acc[3] = {0, 0, 0};
		for (long j = 0; j < n; j++) {
			double d[3], r2 = 1.0;
			for (int c = 0; c < 3; c++) {
				d[c] = pm[4 * i + c] - pm[4 * j + c];
				r2 += d[c] * d[c];
			}
			double q = sqrt(r2);
			for (int c = 0; c < 3; c++)
				acc[c] += -pm[4 * i + 3] * pm[4 * j + 3] * d[c] / (q * q * q);
		}
		for (int c = 0; c < 3; c++) {
			printf("%.9g\n",
			       pm[4 * i + c] + vel[4 * i + c] * dt + acc[c] * 0.5 * dt * dt);
			newv[4 * i + c] = vel[4 * i + c] + acc[c] * dt;
		}
		printf("%.9g\n", pm[4 * i + 3]);
	}
	print_all(newv, (size_t)(4 * n));
	free(pm);
	free(vel);
	free(newv);
	return 0;
}

/* Rodinia backprop.c's bpnn_adjust_weights (ETA = MOMENTUM = 0.3): w[k][j] for k = 0..nly,
 * j = 1..ndelta, rows of ndelta+1; ly[0] is the bias unit's 1. */
static int cmd_adjust(char **argv)
{
	long nd = num(argv[2]), nly = num(argv[3]);
	size_t n = (size_t)((nly + 1) * (nd + 1));
	double *delta = csv_read_n(argv[4], (size_t)nd + 1, fail);
	double *ly = csv_read_n(argv[5], (size_t)nly + 1, fail);
	double *w = csv_read_n(argv[6], n, fail), *oldw = csv_read_n(argv[7], n, fail);
	for (long j = 1; j <= nd; j++)
		for (long k = 0; k <= nly; k++) {
			double dw = 0.3 * delta[j] * ly[k] + 0.3 * oldw[k * (nd + 1) + j];
			w[k * (nd + 1) + j] += dw;
			oldw[k * (nd + 1) + j] = dw;
		}
	print_all(w, n);
	print_all(oldw, n);
	free(delta);
	free(ly);
	free(w);
	free(oldw);
	return 0;
}

/* Rodinia srad's main.c, one iteration with a given q0sqr: the neighbours clamped at the
 * edges (iN, iS, jW, jE), the diffusion coefficient c from the gradient and Laplacian, then
 * the divergence through c of the cell itself (north, west) and its south and east
 * neighbours. */
static int cmd_srad(char **argv)
{
	long nr = num(argv[2]), nc = num(argv[3]);
	double lambda = real(argv[4]), q0sqr = real(argv[5]);
	size_t n = (size_t)(nr * nc);
	double *img = csv_read_n(argv[6], n, fail);
	double *j = zalloc(n, sizeof *j), *c = zalloc(n, sizeof *c), *d[4];
	for (int k = 0; k < 4; k++)
		d[k] = zalloc(n, sizeof *d[k]);
	for (size_t i = 0; i < n; i++)
		j[i] = exp(img[i] / 255);
	print_all(j, n);
	for (size_t i = 0; i < n; i++)
		printf("%.9g\n", j[i] * j[i]);
	for (long col = 0; col < nc; col++)
		for (long row = 0; row < nr; row++) {
			long e = row + nr * col;
			long north = row > 0 ? row - 1 : 0, south = row < nr - 1 ? row + 1 : nr - 1;
			long west = col > 0 ? col - 1 : 0, east = col < nc - 1 ? col + 1 : nc - 1;
			double jc = j[e];
			d[0][e] = j[north + nr * col] - jc;
			d[1][e] = j[south + nr * col] - jc;
			d[2][e] = j[row + nr * west] - jc;
			d[3][e] = j[row + nr * east] - jc;
			double g2 = 0, l = 0;
			for (int k = 0; k < 4; k++) {
				g2 += d[k][e] * d[k][e];
				l += d[k][e];
			}
			g2 /= jc * jc;
			l /= jc;
			double num = 0.5 * g2 - l * l / 16.0, den = 1 + 0.25 * l;
			double qsqr = num / (den * den);
			den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr));
			c[e] = 1.0 / (1.0 + den);
			c[e] = c[e] < 0 ? 0 : c[e] > 1 ? 1 : c[e];
		}
	for (long col = 0; col < nc; col++)
		for (long row = 0; row < nr; row++) {
			long e = row + nr * col;
			long south = row < nr - 1 ? row + 1 : nr - 1;
			long east = col < nc - 1 ? col + 1 : nc - 1;
			double div = c[e] * d[0][e] + c[south + nr * col] * d[1][e] +
			             c[e] * d[2][e] + c[row + nr * east] * d[3][e];
			j[e] += 0.25 * lambda * div;
		}
	for (size_t i = 0; i < n; i++)
		printf("%.9g\n", log(j[i]) * 255);
	free(img);
	free(j);
	free(c);
	for (int k = 0; k < 4; k++)
		free(d[k]);
	return 0;
}

static int cmd_add(char **argv)
{
	size_t n, m;
	double *a = csv_read(argv[2], &n, fail), *b = csv_read(argv[3], &m, fail);
	if (n != m)
		fail("a and b differ in length", argv[3]);
	for (size_t i = 0; i < n; i++)
		printf("%.9g\n", a[i] + b[i]);
	free(a);
	free(b);
	return 0;
}

static int cmd_transpose(char **argv)
{
	long w = num(argv[2]), h = num(argv[3]);
	double *a = csv_read_n(argv[4], (size_t)(w * h), fail);
	for (long x = 0; x < w; x++)
		for (long y = 0; y < h; y++)
			printf("%.9g\n", a[y * w + x]);
	free(a);
	return 0;
}

static int by_value(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

/* median-filter.py keeps no CPU version. Its kernel sorts the 3x3 window's rows, then its
 * columns, then its main diagonal, and takes the centre: after the first two sorts the main
 * diagonal is already in order, so the centre is the middle of the middle column after the
 * rows are sorted (not always the median of the nine: the median would come from the other
 * diagonal). This does the same with qsort, on the pixels as the kernel reads them (into
 * ints, so truncated toward zero); the border is copied. */
static int cmd_median(char **argv)
{
	long w = num(argv[2]), h = num(argv[3]);
	double *img = csv_read_n(argv[4], (size_t)(w * h), fail);
	for (long y = 0; y < h; y++)
		for (long x = 0; x < w; x++) {
			if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
				printf("%.9g\n", img[y * w + x]);
				continue;
			}
			long row[3][3], mid[3];
			for (int r = 0; r < 3; r++) {
				for (int c = 0; c < 3; c++)
					row[r][c] = (long)img[(y + r - 1) * w + x + c - 1];
				qsort(row[r], 3, sizeof row[r][0], by_value);
				mid[r] = row[r][1];
			}
			qsort(mid, 3, sizeof mid[0], by_value);
			printf("%ld\n", mid[1]);
		}
	free(img);
	return 0;
}

/* Khronos conway.cl: one generation per step on a torus (the sample's periodic sampler),
 * the rules as its kernel states them: a live cell lives on with 2 or 3 live neighbours, a
 * dead one comes alive with 3. Prints the grid after GENS generations, one cell a line. */
static int cmd_conway(char **argv)
{
	long w = num(argv[2]), h = num(argv[3]), gens = num(argv[4]);
	double *in = csv_read_n(argv[5], (size_t)(w * h), fail);
	unsigned char *a = malloc((size_t)(w * h)), *b = malloc((size_t)(w * h));
	if (!a || !b)
		fail("out of memory", NULL);
	for (long i = 0; i < w * h; i++)
		a[i] = in[i] != 0;
	for (long g = 0; g < gens; g++) {
		for (long y = 0; y < h; y++)
			for (long x = 0; x < w; x++) {
				int n = 0;
				for (long dy = -1; dy <= 1; dy++)
					for (long dx = -1; dx <= 1; dx++)
						if (dx || dy)
							n += a[(y + dy + h) % h * w +
							       (x + dx + w) % w];
				b[y * w + x] = a[y * w + x] ? n == 2 || n == 3 : n == 3;
			}
		unsigned char *t = a;
		a = b;
		b = t;
	}
	for (long i = 0; i < w * h; i++)
		printf("%d\n", a[i]);
	free(in);
	free(a);
	free(b);
	return 0;
}

/* Rodinia bfs.cpp's run_bfs_cpu: from source 0, the frontier (mask) gives its unvisited
 * neighbours its cost + 1 and marks them; the marked ones become the next frontier and
 * visited; until a round marks none. NODE_FILE holds (starting, no_of_edges) per node. */
static int cmd_bfs(char **argv)
{
	long n = num(argv[2]);
	size_t ne;
	double *node = csv_read_n(argv[3], (size_t)(2 * n), fail);
	double *edge = csv_read(argv[4], &ne, fail);
	char *mask = zalloc((size_t)n, 1), *upd = zalloc((size_t)n, 1), *vis = zalloc((size_t)n, 1);
	long *cost = zalloc((size_t)n, sizeof *cost);
	for (long i = 0; i < n; i++)
		cost[i] = -1;
	if (n > 0) {
		mask[0] = vis[0] = 1;
		cost[0] = 0;
	}
	for (int stop = 1; stop;) {
		stop = 0;
		for (long tid = 0; tid < n; tid++) {
			if (!mask[tid])
				continue;
			mask[tid] = 0;
			long first = (long)node[2 * tid], end = first + (long)node[2 * tid + 1];
			for (long i = first; i < end; i++) {
				if (i < 0 || (size_t)i >= ne || edge[i] < 0 || edge[i] >= n)
					fail("edge out of range in", argv[4]);
				long id = (long)edge[i];
				if (!vis[id]) {
					cost[id] = cost[tid] + 1;
					upd[id] = 1;
				}
			}
		}
		for (long tid = 0; tid < n; tid++)
			if (upd[tid]) {
				mask[tid] = vis[tid] = 1;
				stop = 1;
				upd[tid] = 0;
			}
	}
	for (long i = 0; i < n; i++)
		printf("%ld\n", cost[i]);
	free(node);
	free(edge);
	free(mask);
	free(upd);
	free(vis);
	free(cost);
	return 0;
}

/* Rodinia nn keeps its CPU loop in openmp/nn/nn_openmp.c: each record's euclidean distance
 * in (lat, lng) to the target. LOCATIONS holds (lat, lng) per record. */
static int cmd_nn(char **argv)
{
	long n = num(argv[2]);
	double lat = real(argv[3]), lng = real(argv[4]);
	double *loc = csv_read_n(argv[5], (size_t)(2 * n), fail);
	for (long i = 0; i < n; i++) {
		double dlat = loc[2 * i] - lat, dlng = loc[2 * i + 1] - lng;
		printf("%.9g\n", sqrt(dlat * dlat + dlng * dlng));
	}
	free(loc);
	return 0;
}

/* Khronos blur.cl's passes; the sample has no CPU version, so these follow what its kernels
 * state. A box pass takes the clipped window's mean rounded as (sum + num/2) / num in
 * integers; a kernel pass the weighted mean over the weights inside the image, rounded half
 * away from zero. Each pass writes 8-bit pixels, which the next pass reads. step is 1 for
 * a row, w for a column; n the pixels along it. */
static void blur_line(const double *in, double *out, long n, long step, long size,
                      const double *kern)
{
	for (long i = 0; i < n; i++) {
		double sum = 0, weight = 0;
		for (long s = -size; s <= size; s++) {
			if (i + s < 0 || i + s >= n)
				continue;
			double k = kern ? kern[size + s] : 1;
			sum += in[(i + s) * step] * k;
			weight += k;
		}
		out[i * step] = kern ? round(sum / weight)
		                     : (double)(((long)sum + (long)weight / 2) / (long)weight);
	}
}

/* One pass over every row (rows = 1) or every column of a w x h image, from a to b. */
static void blur_pass(const double *a, double *b, long w, long h, int rows, long size,
                      const double *kern)
{
	if (rows)
		for (long y = 0; y < h; y++)
			blur_line(a + y * w, b + y * w, w, 1, size, kern);
	else
		for (long x = 0; x < w; x++)
			blur_line(a + x, b + x, h, w, size, kern);
}

static void print_ints(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%ld\n", (long)v[i]);
}

static int cmd_blurbox(char **argv)
{
	long w = num(argv[2]), h = num(argv[3]), size = num(argv[4]);
	double *img = csv_read_n(argv[5], (size_t)(w * h), fail);
	for (long y = 0; y < h; y++)
		for (long x = 0; x < w; x++) {
			long sum = 0, cnt = 0;
			for (long dy = -size; dy <= size; dy++)
				for (long dx = -size; dx <= size; dx++)
					if (x + dx >= 0 && x + dx < w && y + dy >= 0 &&
					    y + dy < h) {
						sum += (long)img[(y + dy) * w + x + dx];
						cnt++;
					}
			printf("%ld\n", (sum + cnt / 2) / cnt);
		}
	free(img);
	return 0;
}

static int cmd_blurbox2(char **argv)
{
	long w = num(argv[2]), h = num(argv[3]), size = num(argv[4]);
	double *img = csv_read_n(argv[5], (size_t)(w * h), fail);
	double *tmp = zalloc((size_t)(w * h), sizeof *tmp);
	blur_pass(img, tmp, w, h, 1, size, NULL);
	blur_pass(tmp, img, w, h, 0, size, NULL);
	print_ints(img, (size_t)(w * h));
	free(img);
	free(tmp);
	return 0;
}

static int cmd_blurkern2(char **argv)
{
	long w = num(argv[2]), h = num(argv[3]);
	size_t nk;
	double *kern = csv_read(argv[4], &nk, fail);
	if (nk % 2 == 0)
		fail("expected 2*size+1 weights in", argv[4]);
	double *img = csv_read_n(argv[5], (size_t)(w * h), fail);
	double *tmp = zalloc((size_t)(w * h), sizeof *tmp);
	blur_pass(img, tmp, w, h, 1, (long)nk / 2, kern);
	blur_pass(tmp, img, w, h, 0, (long)nk / 2, kern);
	print_ints(img, (size_t)(w * h));
	free(kern);
	free(img);
	free(tmp);
	return 0;
}

/* Khronos' callback sample keeps no CPU version of reaction_diffusion.cl: this follows the
 * kernel. u and v are the red and green channels of an RGBA unorm8 image (c / 255); the
 * neighbours' coordinates clamp at the edges (the kernel's sampler); the result is
 * written back as OpenCL writes a unorm8 channel, round(x * 255) to nearest even and
 * saturated, with blue 0 and alpha 1. */
static unsigned char unorm8(double x)
{
	double c = rint(x * 255);
	return (unsigned char)(c < 0 ? 0 : c > 255 ? 255 : c);
}

static void rd_step(const unsigned char *a, unsigned char *b, long s)
{
	const double du = 1, dv = 0.3, f = 0.055, k = 0.062;
	for (long y = 0; y < s; y++)
		for (long x = 0; x < s; x++) {
			double ud = 0, vd = 0;
			for (long dy = -1; dy <= 1; dy++)
				for (long dx = -1; dx <= 1; dx++) {
					long cx = x + dx < 0 ? 0 : x + dx >= s ? s - 1 : x + dx;
					long cy = y + dy < 0 ? 0 : y + dy >= s ? s - 1 : y + dy;
					const unsigned char *p = a + 4 * (cy * s + cx);
					long m = labs(dx) + labs(dy);
					double w = m == 0 ? -1 : m == 1 ? 0.2 : 0.05;
					ud += p[0] / 255.0 * w;
					vd += p[1] / 255.0 * w;
				}
			const unsigned char *p = a + 4 * (y * s + x);
			double u = p[0] / 255.0, v = p[1] / 255.0;
			unsigned char *q = b + 4 * (y * s + x);
			q[0] = unorm8(u + du * ud - u * v * v + f * (1 - u));
			q[1] = unorm8(v + dv * vd + u * v * v - (k + f) * v);
			q[2] = 0;
			q[3] = 255;
		}
}

static int cmd_rd(char **argv)
{
	long s = num(argv[2]), steps = num(argv[3]);
	double *in = csv_read_n(argv[4], (size_t)(4 * s * s), fail);
	unsigned char *a = zalloc((size_t)(4 * s * s), 1), *b = zalloc((size_t)(4 * s * s), 1);
	for (long i = 0; i < 4 * s * s; i++)
		a[i] = (unsigned char)in[i];
	for (long t = 0; t < steps; t++) {
		rd_step(a, b, s);
		unsigned char *tmp = a;
		a = b;
		b = tmp;
	}
	for (long i = 0; i < 4 * s * s; i++)
		printf("%d\n", a[i]);
	free(in);
	free(a);
	free(b);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int args;
		int (*run)(char **argv);
	} cmds[] = {{"collatz", 1, cmd_collatz},
	            {"conv3x3", 4, cmd_conv3x3},
	            {"saxpy", 3, cmd_saxpy},
	            {"histogram", 3, cmd_histogram},
	            {"gauss", 3, cmd_gauss},
	            {"kmeans", 5, cmd_kmeans},
	            {"pathfinder", 3, cmd_pathfinder},
	            {"hotspot", 10, cmd_hotspot},
	            {"sum", 1, cmd_sum},
	            {"scan", 1, cmd_scan},
	            {"spmv", 5, cmd_spmv},
	            {"ljforce", 7, cmd_ljforce},
	            {"nbody", 4, cmd_nbody},
	            {"adjust", 6, cmd_adjust},
	            {"srad", 5, cmd_srad},
	            {"add", 2, cmd_add},
	            {"transpose", 3, cmd_transpose},
	            {"median", 3, cmd_median},
	            {"conway", 4, cmd_conway},
	            {"bfs", 3, cmd_bfs},
	            {"nn", 4, cmd_nn},
	            {"blurbox", 4, cmd_blurbox},
	            {"blurbox2", 4, cmd_blurbox2},
	            {"blurkern2", 4, cmd_blurkern2},
	            {"rd", 3, cmd_rd}};
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		if (argc >= 2 && strcmp(argv[1], cmds[i].name) == 0) {
			if (argc != cmds[i].args + 2)
				fail("wrong number of arguments for", argv[1]);
			return cmds[i].run(argv);
		}
	fail("usage: rwref collatz|conv3x3|saxpy|histogram|gauss|kmeans|pathfinder|hotspot|sum|"
	     "scan|spmv|ljforce|nbody|adjust|srad|add|transpose|median|conway|bfs|nn|"
	     "blurbox|blurbox2|blurkern2|rd ARGS (see rwref.c)",
	     NULL);
	return 2;
}
