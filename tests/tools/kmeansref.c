/*
 * An independent reference for the k-means colour quantisation of 004 §4.3.7
 * (batches/graphs/kmeans.xml, kernels/kmeans.cl): the same algorithm written again in plain
 * C from its definition, sharing no code with carsh.
 *
 *   kmeansref picture W H             a deterministic W x H test picture: CSV, one pixel
 *                                     "r,g,b" per row, on standard output
 *   kmeansref quantise PICTURE W H K SEED ITEMS PREFIX
 *                                     ITEMS k-means iterations; writes PREFIX<i>.csv, the
 *                                     quantised picture after iteration i + 1, i = 0 ..
 *                                     ITEMS - 1 (the graph's exit for item i), "r,g,b" rows
 *   kmeansref ppm PICTURE W H OUT.ppm a CSV picture as a binary PPM, to look at
 *
 * The definition (kernels/kmeans.cl says the same for the device):
 *   - initial centre j, j < K: pixel j * S + h(SEED * 0x9e3779b9 + j) mod S, S = W*H / K,
 *     h the 32-bit "lowbias32" hash; all arithmetic on 32-bit unsigned integers;
 *   - an iteration: every pixel goes to the nearest centre by squared RGB distance, the
 *     lowest index on a tie, where centre j is the previous iteration's mean of group j, or
 *     initial centre j when that group was empty or in the first iteration; then centre j
 *     becomes the mean of group j, each component (sum + n/2) / n in integers;
 *   - the picture after an iteration: every pixel in the colour of its nearest non-empty
 *     new centre (lowest index on a tie).
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct centre {
	int r, g, b;
	unsigned n; /* pixels in its group; 0: empty */
};

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "kmeansref: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static long number(const char *s, long min)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!s[0] || *end || v < min)
		die("not a number in range", s);
	return v;
}

static uint32_t lowbias32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/* Every number of the file, whatever separates them; exactly 3 * npix of them, 0..255. */
static unsigned char *load(const char *path, size_t npix)
{
	FILE *f = fopen(path, "r");
	unsigned char *px = malloc(3 * npix);
	size_t n = 0;
	long v;
	int c;

	if (!f)
		die("cannot open", path);
	if (!px)
		die("out of memory", NULL);
	for (;;) {
		c = fgetc(f);
		if (c == EOF)
			break;
		if (c < '0' || c > '9')
			continue;
		v = c - '0';
		while ((c = fgetc(f)) >= '0' && c <= '9')
			v = v * 10 + (c - '0');
		if (v > 255 || n == 3 * npix)
			die("more values than W*H*3, or one above 255, in", path);
		px[n++] = (unsigned char)v;
		if (c == EOF)
			break;
	}
	fclose(f);
	if (n != 3 * npix)
		die("fewer values than W*H*3 in", path);
	return px;
}

static long dist2(const unsigned char *p, int r, int g, int b)
{
	long dr = p[0] - r, dg = p[1] - g, db = p[2] - b;

	return dr * dr + dg * dg + db * db;
}

static void write_csv(const char *path, const unsigned char *px, size_t npix)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die("cannot write", path);
	for (size_t i = 0; i < npix; i++)
		fprintf(f, "%d,%d,%d\n", px[3 * i], px[3 * i + 1], px[3 * i + 2]);
	if (fclose(f) != 0)
		die("write error", path);
}

static int quantise(char **argv)
{
	long w = number(argv[3], 1), h = number(argv[4], 1), k = number(argv[5], 1);
	uint32_t seed = (uint32_t)number(argv[6], 0);
	long items = number(argv[7], 1);
	size_t npix = (size_t)(w * h), strip = npix / (size_t)k;
	unsigned char *px = load(argv[2], npix), *out = malloc(3 * npix);
	struct centre *init = calloc((size_t)k, sizeof(*init));
	struct centre *cur = calloc((size_t)k, sizeof(*cur)); /* all empty: the first time */
	int *group = malloc(npix * sizeof(*group));

	if ((size_t)k > npix)
		die("K above the number of pixels", argv[5]);
	if (!out || !init || !cur || !group)
		die("out of memory", NULL);
	for (long j = 0; j < k; j++) {
		size_t p = (size_t)j * strip + lowbias32(seed * 0x9e3779b9u + (uint32_t)j) % strip;

		init[j] = (struct centre){px[3 * p], px[3 * p + 1], px[3 * p + 2], 1};
	}
	for (long it = 0; it < items; it++) {
		char path[4096];

		for (size_t i = 0; i < npix; i++) {
			long best = LONG_MAX;

			for (long j = 0; j < k; j++) {
				const struct centre *c = cur[j].n ? &cur[j] : &init[j];
				long d = dist2(px + 3 * i, c->r, c->g, c->b);

				if (d < best) {
					best = d;
					group[i] = (int)j;
				}
			}
		}
		for (long j = 0; j < k; j++) {
			unsigned long s[3] = {0, 0, 0}, n = 0;

			for (size_t i = 0; i < npix; i++) {
				if (group[i] != j)
					continue;
				for (int c = 0; c < 3; c++)
					s[c] += px[3 * i + c];
				n++;
			}
			cur[j] = n ? (struct centre){(int)((s[0] + n / 2) / n),
			                             (int)((s[1] + n / 2) / n),
			                             (int)((s[2] + n / 2) / n), (unsigned)n}
			           : (struct centre){0, 0, 0, 0};
		}
		for (size_t i = 0; i < npix; i++) {
			long best = LONG_MAX, bj = -1;

			for (long j = 0; j < k; j++) {
				long d;

				if (!cur[j].n)
					continue;
				d = dist2(px + 3 * i, cur[j].r, cur[j].g, cur[j].b);
				if (d < best) {
					best = d;
					bj = j;
				}
			}
			out[3 * i] = (unsigned char)cur[bj].r;
			out[3 * i + 1] = (unsigned char)cur[bj].g;
			out[3 * i + 2] = (unsigned char)cur[bj].b;
		}
		snprintf(path, sizeof(path), "%s%ld.csv", argv[8], it);
		write_csv(path, out, npix);
	}
	free(px);
	free(out);
	free(init);
	free(cur);
	free(group);
	return 0;
}

/* A sky from blue to white, a red sun, green hills, a yellow field and a little noise. */
static int picture(char **argv)
{
	long w = number(argv[2], 1), h = number(argv[3], 1);

	for (long y = 0; y < h; y++) {
		for (long x = 0; x < w; x++) {
			double fx = (double)x / (double)w, fy = (double)y / (double)h;
			int noise = (int)(lowbias32((uint32_t)(y * w + x)) % 17) - 8;
			int r = (int)(90 + 150 * fy), g = (int)(140 + 100 * fy), b = 245;
			double dx = fx - 0.72, dy = fy - 0.25;

			if (dx * dx + dy * dy < 0.012) {
				r = 235;
				g = 60;
				b = 40;
			}
			if (fy > 0.55 + 0.12 * (fx - 0.5) * (fx - 0.5) * 4 - 0.06 * fx) {
				r = 40 + (int)(30 * fx);
				g = 150 - (int)(40 * fy);
				b = 50;
			}
			if (fy > 0.8 && fx < 0.6) {
				r = 230;
				g = 200;
				b = 60;
			}
			r += noise;
			g += noise;
			b += noise;
			printf("%d,%d,%d\n",
			       r < 0     ? 0
			       : r > 255 ? 255
			                 : r,
			       g < 0     ? 0
			       : g > 255 ? 255
			                 : g,
			       b < 0     ? 0
			       : b > 255 ? 255
			                 : b);
		}
	}
	return 0;
}

static int ppm(char **argv)
{
	long w = number(argv[3], 1), h = number(argv[4], 1);
	unsigned char *px = load(argv[2], (size_t)(w * h));
	FILE *f = fopen(argv[5], "wb");

	if (!f)
		die("cannot write", argv[5]);
	fprintf(f, "P6\n%ld %ld\n255\n", w, h);
	fwrite(px, 3, (size_t)(w * h), f);
	if (fclose(f) != 0)
		die("write error", argv[5]);
	free(px);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (strcmp(cmd, "picture") == 0 && argc == 4)
		return picture(argv);
	if (strcmp(cmd, "quantise") == 0 && argc == 9)
		return quantise(argv);
	if (strcmp(cmd, "ppm") == 0 && argc == 6)
		return ppm(argv);
	die("usage: kmeansref picture W H | quantise PICTURE W H K SEED ITEMS PREFIX | "
	    "ppm PICTURE W H OUT.ppm",
	    NULL);
	return 2;
}
