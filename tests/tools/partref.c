/*
 * Independent C references, data generators and a trace checker for the partition engine's
 * benchmarks (tests/shell/partition.sh, bench/partition.sh, examples/partition). Shares no
 * code with carsh: plain stdio CSV, the kernels' arithmetic written again in float, in the
 * same order, without fused multiply-adds (built with -ffp-contract=off).
 *
 *   partref nbody-gen N SEED DIR          DIR/pos.csv (x,y,z,mass per row) and DIR/vel.csv:
 *                                         a Plummer-like ball of N bodies
 *   partref nbody N STEPS DT EPS2 DIR     STEPS steps of kernels/part_nbody.cl from DIR/pos.csv,
 *                                         DIR/vel.csv: DIR/pos_ref.csv, DIR/vel_ref.csv
 *   partref spmv-gen N AVG SEED DIR       an N x N CSR matrix with a skewed row-length
 *                                         distribution (Pareto, shape 1.5, mean about AVG, at most
 *                                         64·AVG; rows in random order) and x:
 *                                         DIR/{row_ptr,col,val,x}.csv; prints NNZ
 *   partref spmv N STEPS DIR              x <- A x STEPS times: DIR/y_ref.csv
 *   partref mandel W H X0 Y0 STEP MAXIT   the escape counts of kernels/part_mandel.cl, one per
 *                                         line
 *   partref neigh-gen N G SEED DIR        N bodies in clusters in the unit cube, sorted by cell
 *                                         of a G x G x G grid (cut-off 1/G):
 *                                         DIR/{pos,cell_of,cell_start}.csv; prints RC2
 *   partref neigh N G RC2 EPS2 DIR        kernels/part_neigh.cl: DIR/force_ref.csv
 *   partref jacobi2d-gen W H SEED DIR     a W x H grid u (uniform in [0, 1)) and a right-hand
 *                                         side f (uniform in [-1, 1)): DIR/u.csv, DIR/f.csv
 *   partref jacobi2d W H STEPS H2 DIR     STEPS steps of kernels/part_jacobi2d.cl from DIR/u.csv,
 *                                         DIR/f.csv: DIR/u_ref.csv
 *   partref trace-check TRACE ITEMS STEPS every step's chunks cover [0, ITEMS) exactly once;
 *                                         prints the chunks per device
 *
 * Generators are deterministic (xorshift64*). Floats are written with %.9g (exact).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "partref: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static uint64_t rng_state;

static void seed(uint64_t s)
{
	rng_state = s * 0x9E3779B97F4A7C15ULL + 1;
}

static uint64_t next_u64(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [0, 1) with 24 bits: exact as a float. */
static float uniform(void)
{
	return (float)(next_u64() >> 40) / 16777216.0f;
}

static float gauss(void)
{
	float u = uniform(), v = uniform();

	return (float)(sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v));
}

static char *path_in(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (!p)
		die("out of memory", NULL);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static FILE *open_out(const char *dir, const char *name)
{
	char *p = path_in(dir, name);
	FILE *f = fopen(p, "w");

	if (!f)
		die("cannot write", p);
	free(p);
	return f;
}

static void close_out(FILE *f)
{
	if (ferror(f) || fclose(f))
		die("write error", NULL);
}

static void *xalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory", NULL);
	return p;
}

/* Every number of a file, whatever the separators. */
static double *load(const char *dir, const char *name, size_t *n)
{
	char *p = path_in(dir, name);
	FILE *f = fopen(p, "r");
	size_t cap = 1024, len = 0;
	double *v = xalloc(cap, sizeof(double));
	int c;

	if (!f)
		die("cannot read", p);
	for (;;) {
		double x;

		while ((c = fgetc(f)) != EOF && !(c == '-' || c == '+' || c == '.' ||
		                                  (c >= '0' && c <= '9') || c == 'i' || c == 'n'))
			;
		if (c == EOF)
			break;
		ungetc(c, f);
		if (fscanf(f, "%lf", &x) != 1)
			die("not a number in", p);
		if (len == cap) {
			cap *= 2;
			v = realloc(v, cap * sizeof(double));
			if (!v)
				die("out of memory", NULL);
		}
		v[len++] = x;
	}
	fclose(f);
	free(p);
	*n = len;
	return v;
}

static float *load_floats(const char *dir, const char *name, size_t want)
{
	size_t n;
	double *d = load(dir, name, &n);
	float *f = xalloc(n, sizeof(float));

	if (n != want)
		die("wrong number of values in", name);
	for (size_t i = 0; i < n; i++)
		f[i] = (float)d[i];
	free(d);
	return f;
}

static int *load_ints(const char *dir, const char *name, size_t want)
{
	size_t n;
	double *d = load(dir, name, &n);
	int *v = xalloc(n, sizeof(int));

	if (n != want)
		die("wrong number of values in", name);
	for (size_t i = 0; i < n; i++)
		v[i] = (int)d[i];
	free(d);
	return v;
}

static void write_floats(FILE *f, const float *v, size_t n, size_t per_row)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%.9g%s", v[i], (i + 1) % per_row ? "," : "\n");
}

static long arg_long(const char *s, long min)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < min)
		die("bad number", s);
	return v;
}

static float arg_float(const char *s)
{
	char *end;
	float v = strtof(s, &end);

	if (*end)
		die("bad number", s);
	return v;
}

/* ---- N-body ---- */

static int nbody_gen(char **a)
{
	long n = arg_long(a[0], 1);
	FILE *pf = open_out(a[2], "pos.csv"), *vf = open_out(a[2], "vel.csv");

	seed((uint64_t)arg_long(a[1], 0));
	for (long i = 0; i < n; i++) {
		float x = 0.2f * gauss(), y = 0.2f * gauss(), z = 0.2f * gauss();
		float m = (0.5f + uniform()) / (float)n;

		fprintf(pf, "%.9g,%.9g,%.9g,%.9g\n", x, y, z, m);
		fprintf(vf, "%.9g,%.9g,%.9g,0\n", 0.1f * gauss(), 0.1f * gauss(), 0.1f * gauss());
	}
	close_out(pf);
	close_out(vf);
	return 0;
}

static int nbody(char **a)
{
	long n = arg_long(a[0], 1), steps = arg_long(a[1], 1);
	float dt = arg_float(a[2]), eps2 = arg_float(a[3]);
	float *pos = load_floats(a[4], "pos.csv", (size_t)n * 4);
	float *vel = load_floats(a[4], "vel.csv", (size_t)n * 4);
	float *pn = xalloc((size_t)n * 4, sizeof(float)),
	      *vn = xalloc((size_t)n * 4, sizeof(float));
	FILE *f;

	for (long s = 0; s < steps; s++) {
		for (long i = 0; i < n; i++) {
			float *p = pos + 4 * i, *v = vel + 4 * i;
			float ax = 0.0f, ay = 0.0f, az = 0.0f;

			for (long j = 0; j < n; j++) {
				const float *q = pos + 4 * j;
				float dx = q[0] - p[0], dy = q[1] - p[1], dz = q[2] - p[2];
				float r2 = dx * dx + dy * dy + dz * dz + eps2;
				float inv = 1.0f / sqrtf(r2);
				float sc = q[3] * inv * inv * inv;

				ax += sc * dx;
				ay += sc * dy;
				az += sc * dz;
			}
			vn[4 * i] = v[0] + ax * dt;
			vn[4 * i + 1] = v[1] + ay * dt;
			vn[4 * i + 2] = v[2] + az * dt;
			vn[4 * i + 3] = v[3];
			pn[4 * i] = p[0] + vn[4 * i] * dt;
			pn[4 * i + 1] = p[1] + vn[4 * i + 1] * dt;
			pn[4 * i + 2] = p[2] + vn[4 * i + 2] * dt;
			pn[4 * i + 3] = p[3];
		}
		memcpy(pos, pn, (size_t)n * 4 * sizeof(float));
		memcpy(vel, vn, (size_t)n * 4 * sizeof(float));
	}
	f = open_out(a[4], "pos_ref.csv");
	write_floats(f, pn, (size_t)n * 4, 4);
	close_out(f);
	f = open_out(a[4], "vel_ref.csv");
	write_floats(f, vn, (size_t)n * 4, 4);
	close_out(f);
	free(pos);
	free(vel);
	free(pn);
	free(vn);
	return 0;
}

/* ---- SpMV ---- */

static int spmv_gen(char **a)
{
	long n = arg_long(a[0], 1), avg = arg_long(a[1], 1);
	long *len = xalloc((size_t)n, sizeof(long)), nnz = 0;
	FILE *rf, *cf, *vf, *xf;

	seed((uint64_t)arg_long(a[2], 0));
	for (long i = 0; i < n; i++) {
		/* Pareto lengths xm / U^(1/1.5) with xm = AVG/3 (mean 3·xm): most rows short, a
		 * few hundreds of times longer, in no order. */
		double xm = avg / 3.0 > 1.0 ? avg / 3.0 : 1.0;
		double u = 1.0 - (double)uniform();

		len[i] = (long)ceil(xm / pow(u, 1.0 / 1.5));
		if (len[i] > 64 * avg)
			len[i] = 64 * avg;
		if (len[i] > n)
			len[i] = n;
		nnz += len[i];
	}
	rf = open_out(a[3], "row_ptr.csv");
	cf = open_out(a[3], "col.csv");
	vf = open_out(a[3], "val.csv");
	xf = open_out(a[3], "x.csv");
	fprintf(rf, "0\n");
	for (long i = 0, at = 0; i < n; i++) {
		for (long k = 0; k < len[i]; k++) {
			/* |row sum| <= 1: A^S x stays bounded. */
			fprintf(cf, "%ld\n", (long)(next_u64() % (uint64_t)n));
			fprintf(vf, "%.9g\n", (2.0f * uniform() - 1.0f) / (float)len[i]);
		}
		at += len[i];
		fprintf(rf, "%ld\n", at);
		fprintf(xf, "%.9g\n", 2.0f * uniform() - 1.0f);
	}
	close_out(rf);
	close_out(cf);
	close_out(vf);
	close_out(xf);
	free(len);
	printf("%ld\n", nnz);
	return 0;
}

static int spmv(char **a)
{
	long n = arg_long(a[0], 1), steps = arg_long(a[1], 1);
	int *rp = load_ints(a[2], "row_ptr.csv", (size_t)n + 1);
	size_t nnz = (size_t)rp[n];
	int *col = load_ints(a[2], "col.csv", nnz);
	float *val = load_floats(a[2], "val.csv", nnz);
	float *x = load_floats(a[2], "x.csv", (size_t)n);
	float *y = xalloc((size_t)n, sizeof(float));
	FILE *f;

	for (long s = 0; s < steps; s++) {
		for (long i = 0; i < n; i++) {
			float sum = 0.0f;

			for (int k = rp[i]; k < rp[i + 1]; k++)
				sum += val[k] * x[col[k]];
			y[i] = sum;
		}
		memcpy(x, y, (size_t)n * sizeof(float));
	}
	f = open_out(a[2], "y_ref.csv");
	write_floats(f, y, (size_t)n, 1);
	close_out(f);
	free(rp);
	free(col);
	free(val);
	free(x);
	free(y);
	return 0;
}

/* ---- Mandelbrot ---- */

static int mandel(char **a)
{
	long w = arg_long(a[0], 1), h = arg_long(a[1], 1);
	float x0 = arg_float(a[2]), y0 = arg_float(a[3]), step = arg_float(a[4]);
	long maxit = arg_long(a[5], 1);

	for (long i = 0; i < w * h; i++) {
		float cr = x0 + (float)(int)(i % w) * step;
		float ci = y0 + (float)(int)(i / w) * step;
		float zr = 0.0f, zi = 0.0f;
		long k = 0;

		while (k < maxit && zr * zr + zi * zi <= 4.0f) {
			float t = zr * zr - zi * zi + cr;

			zi = 2.0f * zr * zi + ci;
			zr = t;
			k++;
		}
		printf("%ld\n", k);
	}
	return ferror(stdout) ? 1 : 0;
}

/* ---- cut-off neighbours ---- */

struct body {
	float p[4];
	int cell;
};

static int by_cell(const void *x, const void *y)
{
	const struct body *a = x, *b = y;

	return (a->cell > b->cell) - (a->cell < b->cell);
}

static int grid_cell(float v, long g)
{
	long c = (long)(v * (float)g);

	return (int)(c < 0 ? 0 : c >= g ? g - 1 : c);
}

static int neigh_gen(char **a)
{
	long n = arg_long(a[0], 1), g = arg_long(a[1], 3), cells = g * g * g;
	struct body *b = xalloc((size_t)n, sizeof(*b));
	float centre[8][3];
	long *count = xalloc((size_t)cells + 1, sizeof(long));
	FILE *pf, *cf, *sf;

	seed((uint64_t)arg_long(a[2], 0));
	for (int k = 0; k < 8; k++)
		for (int d = 0; d < 3; d++)
			centre[k][d] = 0.15f + 0.7f * uniform();
	/* Eight clusters of very different widths over a uniform background: dense cells have
	 * hundreds of neighbours, sparse ones a handful. */
	for (long i = 0; i < n; i++) {
		int k = (int)(next_u64() % 10);

		for (int d = 0; d < 3; d++) {
			float v = k < 8 ? centre[k][d] + (0.01f + 0.02f * (float)k) * gauss()
			                : uniform();

			b[i].p[d] = v < 0.0f ? 0.0f : v >= 1.0f ? 0.99999994f : v;
		}
		b[i].p[3] = 1.0f;
		b[i].cell = (grid_cell(b[i].p[2], g) * (int)g + grid_cell(b[i].p[1], g)) * (int)g +
		            grid_cell(b[i].p[0], g);
	}
	qsort(b, (size_t)n, sizeof(*b), by_cell);
	pf = open_out(a[3], "pos.csv");
	cf = open_out(a[3], "cell_of.csv");
	sf = open_out(a[3], "cell_start.csv");
	for (long i = 0; i < n; i++) {
		fprintf(pf, "%.9g,%.9g,%.9g,%.9g\n", b[i].p[0], b[i].p[1], b[i].p[2], b[i].p[3]);
		fprintf(cf, "%d\n", b[i].cell);
		count[b[i].cell + 1]++;
	}
	for (long c = 0; c < cells; c++)
		count[c + 1] += count[c];
	for (long c = 0; c <= cells; c++)
		fprintf(sf, "%ld\n", count[c]);
	close_out(pf);
	close_out(cf);
	close_out(sf);
	printf("%.9g\n", (1.0f / (float)g) * (1.0f / (float)g));
	free(b);
	free(count);
	return 0;
}

static int neigh(char **a)
{
	long n = arg_long(a[0], 1), g = arg_long(a[1], 3);
	float rc2 = arg_float(a[2]), eps2 = arg_float(a[3]);
	float *pos = load_floats(a[4], "pos.csv", (size_t)n * 4);
	int *cell_of = load_ints(a[4], "cell_of.csv", (size_t)n);
	int *start = load_ints(a[4], "cell_start.csv", (size_t)(g * g * g) + 1);
	float *force = xalloc((size_t)n * 4, sizeof(float));
	FILE *f;

	for (long i = 0; i < n; i++) {
		int c = cell_of[i], cx = c % (int)g, cy = (c / (int)g) % (int)g,
		    cz = c / (int)(g * g);
		const float *p = pos + 4 * i;
		float fx = 0.0f, fy = 0.0f, fz = 0.0f, m = 0.0f;

		for (int z = cz - 1; z <= cz + 1; z++)
			for (int y = cy - 1; y <= cy + 1; y++)
				for (int x = cx - 1; x <= cx + 1; x++) {
					int nc;

					if (z < 0 || z >= g || y < 0 || y >= g || x < 0 || x >= g)
						continue;
					nc = (z * (int)g + y) * (int)g + x;
					for (int j = start[nc]; j < start[nc + 1]; j++) {
						const float *q = pos + 4 * j;
						float dx = p[0] - q[0], dy = p[1] - q[1],
						      dz = p[2] - q[2];
						float r2 = dx * dx + dy * dy + dz * dz, s;

						if (j == i || r2 >= rc2)
							continue;
						s = 1.0f / ((r2 + eps2) * (r2 + eps2));
						fx += s * dx;
						fy += s * dy;
						fz += s * dz;
						m += 1.0f;
					}
				}
		force[4 * i] = fx;
		force[4 * i + 1] = fy;
		force[4 * i + 2] = fz;
		force[4 * i + 3] = m;
	}
	f = open_out(a[4], "force_ref.csv");
	write_floats(f, force, (size_t)n * 4, 4);
	close_out(f);
	free(pos);
	free(cell_of);
	free(start);
	free(force);
	return 0;
}

/* ---- Jacobi, 2-D ---- */

static int jacobi2d_gen(char **a)
{
	long w = arg_long(a[0], 1), h = arg_long(a[1], 1);
	FILE *uf = open_out(a[3], "u.csv"), *ff = open_out(a[3], "f.csv");

	seed((uint64_t)arg_long(a[2], 0));
	for (long i = 0; i < w * h; i++) {
		fprintf(uf, "%.9g%s", uniform(), (i + 1) % w ? "," : "\n");
		fprintf(ff, "%.9g%s", 2.0f * uniform() - 1.0f, (i + 1) % w ? "," : "\n");
	}
	close_out(uf);
	close_out(ff);
	return 0;
}

static int jacobi2d(char **a)
{
	long w = arg_long(a[0], 3), h = arg_long(a[1], 3), steps = arg_long(a[2], 1);
	float h2 = arg_float(a[3]);
	size_t n = (size_t)(w * h);
	float *u = load_floats(a[4], "u.csv", n), *f = load_floats(a[4], "f.csv", n);
	float *un = xalloc(n, sizeof(float));
	FILE *out;

	for (long s = 0; s < steps; s++) {
		for (long y = 0; y < h; y++)
			for (long x = 0; x < w; x++) {
				long i = y * w + x;

				if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
					un[i] = u[i];
				else
					un[i] = ((u[i - 1] + u[i + 1]) + (u[i - w] + u[i + w]) +
					         h2 * f[i]) *
					        0.25f;
			}
		memcpy(u, un, n * sizeof(float));
	}
	out = open_out(a[4], "u_ref.csv");
	write_floats(out, un, n, (size_t)w);
	close_out(out);
	free(u);
	free(f);
	free(un);
	return 0;
}

/* ---- the trace ---- */

static int trace_check(char **a)
{
	FILE *f = fopen(a[0], "r");
	long items = arg_long(a[1], 1), steps = arg_long(a[2], 1);
	unsigned char *seen = xalloc((size_t)(items * steps), 1);
	char line[512], dev[64], phase[64];
	long rows = 0, bad = 0;
	struct {
		char name[64];
		long chunks, items;
	} per[64];
	int ndev = 0;

	if (!f)
		die("cannot read", a[0]);
	if (!fgets(line, sizeof(line), f) ||
	    strcmp(line, "step,device,offset,size,start_ms,end_ms,throughput,phase\n") != 0)
		die("not a partition trace (header)", a[0]);
	while (fgets(line, sizeof(line), f)) {
		long step, off, size;
		double t0, t1, thr;
		int d;

		if (sscanf(line, "%ld,%63[^,],%ld,%ld,%lf,%lf,%lf,%63s", &step, dev, &off, &size,
		           &t0, &t1, &thr, phase) != 8)
			die("bad trace row", line);
		if (step < 0 || step >= steps || off < 0 || size <= 0 || off + size > items ||
		    t1 < t0) {
			fprintf(stderr, "partref: trace row out of range: %s", line);
			return 1;
		}
		for (long i = off; i < off + size; i++)
			bad += seen[step * items + i]++ != 0;
		for (d = 0; d < ndev && strcmp(per[d].name, dev) != 0; d++)
			;
		if (d == ndev && ndev < 64) {
			snprintf(per[ndev].name, sizeof(per[0].name), "%s", dev);
			per[ndev].chunks = per[ndev].items = 0;
			ndev++;
		}
		if (d < 64) {
			per[d].chunks++;
			per[d].items += size;
		}
		rows++;
	}
	fclose(f);
	for (long i = 0; i < items * steps; i++)
		bad += seen[i] == 0;
	free(seen);
	if (bad) {
		fprintf(stderr, "partref: %ld items covered twice or never\n", bad);
		return 1;
	}
	printf("%ld chunks:", rows);
	for (int d = 0; d < ndev; d++)
		printf(" %s %ld/%ld", per[d].name, per[d].chunks, per[d].items);
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int nargs;
		int (*fn)(char **);
	} cmds[] = {{"nbody-gen", 3, nbody_gen}, {"nbody", 5, nbody},
	            {"spmv-gen", 4, spmv_gen},   {"spmv", 3, spmv},
	            {"mandel", 6, mandel},       {"neigh-gen", 4, neigh_gen},
	            {"neigh", 5, neigh},         {"jacobi2d-gen", 4, jacobi2d_gen},
	            {"jacobi2d", 5, jacobi2d},   {"trace-check", 3, trace_check}};

	for (size_t i = 0; argc >= 2 && i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(argv[1], cmds[i].name) == 0) {
			if (argc != cmds[i].nargs + 2)
				die("wrong number of arguments for", argv[1]);
			return cmds[i].fn(argv + 2);
		}
	die("usage: partref nbody-gen|nbody|spmv-gen|spmv|mandel|neigh-gen|neigh|jacobi2d-gen|"
	    "jacobi2d|trace-check "
	    "ARGS (see partref.c)",
	    NULL);
	return 2;
}
