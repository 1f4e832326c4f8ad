/*
 * Independent references for the image tests (tests/shell/images.sh). Shares no code with
 * carsh: PGM is read and written here with plain stdio, and the samplers' addressing and
 * filtering are computed in double from the OpenCL 1.2 specification's formulas (§8.2,
 * "Image Addressing and Filtering"), not from a device.
 *
 *   imgref pgm W H SEED OUT.pgm    a P5 picture of pseudo-random pixels (maxval 255)
 *   imgref csv IN.pgm              its pixels, one row of the picture a line
 *   imgref raw IN.pgm OUT.raw      its pixels as little-endian floats
 *   imgref blur IN.pgm             3x3 box mean, clamp-to-edge, nearest (pixel values)
 *   imgref flip IN.pgm             the picture mirrored left to right (pixel values)
 *   imgref rotate IN.pgm C S       unorm8 pixels sampled at rotated normalized coordinates,
 *                                  clamp-to-edge, linear (values in [0, 1])
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pic {
	int w, h;
	unsigned char *px;
};

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "imgref: %s: %s\n", msg, arg);
	exit(2);
}

static struct pic load(const char *path)
{
	struct pic p;
	int maxval;
	FILE *f = fopen(path, "rb");

	if (!f)
		die("cannot open", path);
	if (fscanf(f, "P5 %d %d %d", &p.w, &p.h, &maxval) != 3 || maxval != 255 || p.w < 1 ||
	    p.h < 1 || fgetc(f) == EOF)
		die("not an 8-bit P5 picture", path);
	p.px = malloc((size_t)p.w * p.h);
	if (!p.px || fread(p.px, 1, (size_t)p.w * p.h, f) != (size_t)p.w * p.h)
		die("short picture", path);
	fclose(f);
	return p;
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static double at(const struct pic *p, int x, int y)
{
	return p->px[clampi(y, 0, p->h - 1) * p->w + clampi(x, 0, p->w - 1)];
}

static void gen(int w, int h, unsigned seed, const char *out)
{
	FILE *f = fopen(out, "wb");
	uint32_t s = seed;

	if (!f)
		die("cannot write", out);
	fprintf(f, "P5\n%d %d\n255\n", w, h);
	for (int i = 0; i < w * h; i++) {
		s = s * 1664525u + 1013904223u;
		fputc((int)(s >> 24), f);
	}
	fclose(f);
}

static void blur(const struct pic *p)
{
	for (int y = 0; y < p->h; y++)
		for (int x = 0; x < p->w; x++) {
			double s = 0;

			for (int dy = -1; dy <= 1; dy++)
				for (int dx = -1; dx <= 1; dx++)
					s += at(p, x + dx, y + dy);
			printf("%.9g%c", s / 9, x + 1 < p->w ? ',' : '\n');
		}
}

/* §8.2: linear filtering of normalized coordinates with CLK_ADDRESS_CLAMP_TO_EDGE. */
static double linear(const struct pic *p, double u, double v)
{
	double x = u * p->w - 0.5, y = v * p->h - 0.5;
	int i0 = (int)floor(x), j0 = (int)floor(y);
	double a = x - floor(x), b = y - floor(y);

	return ((1 - a) * (1 - b) * at(p, i0, j0) + a * (1 - b) * at(p, i0 + 1, j0) +
	        (1 - a) * b * at(p, i0, j0 + 1) + a * b * at(p, i0 + 1, j0 + 1)) /
	       255.0;
}

/* The test's kernel: the source point of (x, y) turned about the picture's centre. */
static void rotate(const struct pic *p, float c, float s)
{
	double cx = 0.5 * p->w, cy = 0.5 * p->h;

	for (int y = 0; y < p->h; y++)
		for (int x = 0; x < p->w; x++) {
			double dx = x + 0.5 - cx, dy = y + 0.5 - cy;
			double u = (c * dx + s * dy + cx) / p->w,
			       v = (-s * dx + c * dy + cy) / p->h;

			printf("%.9g%c", linear(p, u, v), x + 1 < p->w ? ',' : '\n');
		}
}

static void pixels(const struct pic *p, int mirror)
{
	for (int y = 0; y < p->h; y++)
		for (int x = 0; x < p->w; x++)
			printf("%d%c", (int)at(p, mirror ? p->w - 1 - x : x, y),
			       x + 1 < p->w ? ',' : '\n');
}

static void raw(const struct pic *p, const char *out)
{
	FILE *f = fopen(out, "wb");

	if (!f)
		die("cannot write", out);
	for (int i = 0; i < p->w * p->h; i++) {
		float v = p->px[i];
		unsigned char b[4];
		uint32_t u;

		memcpy(&u, &v, 4);
		for (int k = 0; k < 4; k++)
			b[k] = (unsigned char)(u >> (8 * k));
		fwrite(b, 1, 4, f);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	struct pic p;

	if (argc == 6 && strcmp(argv[1], "pgm") == 0) {
		gen(atoi(argv[2]), atoi(argv[3]), (unsigned)atoi(argv[4]), argv[5]);
		return 0;
	}
	if (argc < 3)
		die("usage", "imgref pgm|csv|raw|blur|flip|rotate ...");
	p = load(argv[2]);
	if (strcmp(argv[1], "csv") == 0)
		pixels(&p, 0);
	else if (strcmp(argv[1], "flip") == 0)
		pixels(&p, 1);
	else if (strcmp(argv[1], "blur") == 0)
		blur(&p);
	else if (strcmp(argv[1], "raw") == 0 && argc == 4)
		raw(&p, argv[3]);
	else if (strcmp(argv[1], "rotate") == 0 && argc == 5)
		rotate(&p, strtof(argv[3], NULL), strtof(argv[4], NULL));
	else
		die("unknown command", argv[1]);
	free(p.px);
	return 0;
}
