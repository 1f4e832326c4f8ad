/*
 * C references for the pipeline engine's examples (examples/pipeline, kernels/pipe_*.cl),
 * sharing no code with carsh: the same arithmetic in plain C, float operations in the
 * kernels' order and without contraction (built with -ffp-contract=off).
 *
 *   piperef vivid-frame W H INDEX OUT.csv      frame INDEX of the ViVid-like generator
 *   piperef vivid W H F INDEX OUT.csv          its block classes (W/16 per row)
 *   piperef srad-image W H INDEX OUT.csv       image INDEX of the SRAD-like generator
 *   piperef srad W H ITER LAMBDA INDEX OUT.csv [B]
 *                                              its compressed result after ITER iterations
 *                                              (the means of B x B blocks, default 4)
 *   piperef change N AT LO HI INDEX OUT.csv    the changing stream's sums (16 per row)
 *
 * Images are W x H, row-major; W and H multiples of 16 (ViVid) or B (SRAD).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *msg)
{
	fprintf(stderr, "piperef: %s\n", msg);
	exit(2);
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static uint32_t pixel_hash(uint32_t x, uint32_t y, uint32_t index)
{
	uint32_t h = x * 73856093u ^ y * 19349663u ^ (index + 1u) * 83492791u;

	h ^= h >> 13;
	h *= 0x5bd1e995u;
	h ^= h >> 15;
	return h;
}

static void write_csv(const char *path, const void *v, int is_int, int n, int cols)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die("cannot write the output file");
	for (int i = 0; i < n; i++) {
		if (is_int)
			fprintf(f, "%d", ((const int *)v)[i]);
		else
			fprintf(f, "%.9g", (double)((const float *)v)[i]);
		fputc((i + 1) % cols == 0 || i + 1 == n ? '\n' : ',', f);
	}
	if (fclose(f) != 0)
		die("write error");
}

/* ---- ViVid-like ---- */

static void vivid_frame(float *frame, int w, int h, int index)
{
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			int cell = ((x + 3 * index) / 16 + (y + index) / 24) & 1;
			int noise =
			        (int)(pixel_hash((uint32_t)x, (uint32_t)y, (uint32_t)index) >> 8 &
			              63u) -
			        32;

			frame[y * w + x] = (float)clampi((cell ? 170 : 60) + noise, 0, 255);
		}
}

static int weight(int f, int dx, int dy)
{
	static const int cx[8] = {1, 2, 1, 1, 0, -1, -1, -2};
	static const int cy[8] = {0, 1, 1, 2, 1, 2, 1, 1};
	int d = dx * cx[f & 7] + dy * cy[f & 7];

	return ((d > 0) - (d < 0)) * (1 + (f >> 3));
}

static void vivid_filter(const float *frame, float *resp, int w, int h, int nf)
{
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			float best = 0.0f;

			for (int f = 0; f < nf; f++) {
				float sum = 0.0f;

				for (int dy = -2; dy <= 2; dy++)
					for (int dx = -2; dx <= 2; dx++)
						sum += (float)weight(f, dx, dy) *
						       frame[clampi(y + dy, 0, h - 1) * w +
						             clampi(x + dx, 0, w - 1)];
				best = fmaxf(best, fabsf(sum));
			}
			resp[y * w + x] = best;
		}
}

static void vivid(int w, int h, int nf, int index, const char *out)
{
	int bw = w / 16, nb = bw * (h / 16), nbins = 8, ncls = 4;
	float *frame = malloc(sizeof(float) * (size_t)(w * h));
	float *resp = malloc(sizeof(float) * (size_t)(w * h));
	int *hist = calloc((size_t)(nb * nbins), sizeof(int)),
	    *cls = malloc(sizeof(int) * (size_t)nb);

	if (!frame || !resp || !hist || !cls)
		die("out of memory");
	vivid_frame(frame, w, h, index);
	vivid_filter(frame, resp, w, h, nf);
	for (int b = 0; b < nb; b++)
		for (int y = b / bw * 16; y < b / bw * 16 + 16; y++)
			for (int x = b % bw * 16; x < b % bw * 16 + 16; x++) {
				int bin = (int)resp[y * w + x] / 256;

				hist[b * nbins + (bin < nbins - 1 ? bin : nbins - 1)]++;
			}
	for (int b = 0; b < nb; b++) {
		int best = 0, best_score = 0;

		for (int c = 0; c < ncls; c++) {
			int score = 0;

			for (int bin = 0; bin < nbins; bin++)
				score += hist[b * nbins + bin] * ((7 * c + 3 * bin) % 5 - 2);
			if (c == 0 || score > best_score) {
				best = c;
				best_score = score;
			}
		}
		cls[b] = best;
	}
	write_csv(out, cls, 1, nb, bw);
	free(frame);
	free(resp);
	free(hist);
	free(cls);
}

/* ---- SRAD-like ---- */

static void srad_image(float *img, int w, int h, int index)
{
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			int cx = (x + 5 * index) % 64 - 32, cy = (y + 3 * index) % 48 - 24;
			uint32_t hs = pixel_hash((uint32_t)x, (uint32_t)y, (uint32_t)index);
			int base = cx * cx + cy * cy < 300 ? 200 : 40;

			img[y * w + x] =
			        (float)clampi(base * (50 + (int)(hs % 100u)) / 100, 1, 255);
		}
}

static float q0sqr_of(const float *j, int n)
{
	float sum = 0.0f, sum2 = 0.0f, mean, var;

	for (int i = 0; i < n; i++) {
		sum += j[i];
		sum2 += j[i] * j[i];
	}
	mean = sum / (float)n;
	var = sum2 / (float)n - mean * mean;
	return var / (mean * mean);
}

static void srad_coeff(const float *j, float q0, float *c, int w, int h)
{
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			int i = y * w + x;
			float jc = j[i];
			float dn = j[(y > 0 ? y - 1 : 0) * w + x] - jc;
			float ds = j[(y < h - 1 ? y + 1 : h - 1) * w + x] - jc;
			float dw = j[y * w + (x > 0 ? x - 1 : 0)] - jc;
			float de = j[y * w + (x < w - 1 ? x + 1 : w - 1)] - jc;
			float g2 = (dn * dn + ds * ds + dw * dw + de * de) / (jc * jc);
			float l = (dn + ds + dw + de) / jc;
			float num = 0.5f * g2 - 0.0625f * (l * l);
			float den = 1.0f + 0.25f * l;
			float qsqr = num / (den * den);
			float cv;

			den = (qsqr - q0) / (q0 * (1.0f + q0));
			cv = 1.0f / (1.0f + den);
			c[i] = cv < 0.0f ? 0.0f : cv > 1.0f ? 1.0f : cv;
		}
}

static void srad_update(const float *j, const float *c, float *jout, int w, int h, float lambda)
{
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			int i = y * w + x;
			int is = (y < h - 1 ? y + 1 : h - 1) * w + x,
			    ie = y * w + (x < w - 1 ? x + 1 : w - 1);
			float jc = j[i];
			float dn = j[(y > 0 ? y - 1 : 0) * w + x] - jc, ds = j[is] - jc;
			float dw = j[y * w + (x > 0 ? x - 1 : 0)] - jc, de = j[ie] - jc;
			float d = c[i] * dn + c[is] * ds + c[i] * dw + c[ie] * de;

			jout[i] = jc + 0.25f * lambda * d;
		}
}

static void srad(int w, int h, int iters, float lambda, int index, int bs, const char *out)
{
	size_t n = (size_t)w * (size_t)h;
	int ow = w / bs, no = ow * (h / bs);
	float *img = malloc(n * sizeof(float)), *j = malloc(n * sizeof(float));
	float *c = malloc(n * sizeof(float)), *j2 = malloc(n * sizeof(float));
	float *res = malloc((size_t)no * sizeof(float));

	if (!img || !j || !c || !j2 || !res)
		die("out of memory");
	srad_image(img, w, h, index);
	for (size_t i = 0; i < n; i++)
		j[i] = expf(img[i] / 255.0f);
	for (int it = 0; it < iters; it++) {
		float *t;

		srad_coeff(j, q0sqr_of(j, (int)n), c, w, h);
		srad_update(j, c, j2, w, h, lambda);
		t = j;
		j = j2;
		j2 = t;
	}
	for (int b = 0; b < no; b++) {
		float sum = 0.0f;

		for (int y = b / ow * bs; y < b / ow * bs + bs; y++)
			for (int x = b % ow * bs; x < b % ow * bs + bs; x++)
				sum += logf(j[y * w + x]) * 255.0f;
		res[b] = sum / (float)(bs * bs);
	}
	write_csv(out, res, 0, no, ow);
	free(img);
	free(j);
	free(c);
	free(j2);
	free(res);
}

/* ---- the changing stream ---- */

static void change(int n, int at, int lo, int hi, int index, const char *out)
{
	unsigned *sum = calloc((size_t)(n / 64), sizeof(unsigned));
	FILE *f = fopen(out, "w");

	if (!sum || !f)
		die("cannot write the output file");
	for (int i = 0; i < n; i++) {
		uint32_t rounds = (uint32_t)(index < at ? lo : hi) + (uint32_t)(i & 3);
		uint32_t h = (uint32_t)i * 2654435761u;

		for (uint32_t r = 0; r < rounds; r++) {
			h ^= h >> 15;
			h *= 0x2c1b3c6du;
			h ^= h >> 12;
		}
		sum[i / 64] += h;
	}
	for (int b = 0; b < n / 64; b++)
		fprintf(f, "%u%c", sum[b], (b + 1) % 16 == 0 || b + 1 == n / 64 ? '\n' : ',');
	if (fclose(f) != 0)
		die("write error");
	free(sum);
}

static int num(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 0 || v > 1 << 20)
		die("expected a non-negative integer");
	return (int)v;
}

int main(int argc, char **argv)
{
	float *img;

	if (argc == 6 && strcmp(argv[1], "vivid-frame") == 0) {
		int w = num(argv[2]), h = num(argv[3]);

		if (!(img = malloc(sizeof(float) * (size_t)(w * h))))
			die("out of memory");
		vivid_frame(img, w, h, num(argv[4]));
		write_csv(argv[5], img, 0, w * h, w);
		free(img);
	} else if (argc == 7 && strcmp(argv[1], "vivid") == 0) {
		vivid(num(argv[2]), num(argv[3]), num(argv[4]), num(argv[5]), argv[6]);
	} else if (argc == 6 && strcmp(argv[1], "srad-image") == 0) {
		int w = num(argv[2]), h = num(argv[3]);

		if (!(img = malloc(sizeof(float) * (size_t)(w * h))))
			die("out of memory");
		srad_image(img, w, h, num(argv[4]));
		write_csv(argv[5], img, 0, w * h, w);
		free(img);
	} else if ((argc == 8 || argc == 9) && strcmp(argv[1], "srad") == 0) {
		int bs = argc == 9 ? num(argv[8]) : 4;

		if (bs < 1 || num(argv[2]) % bs || num(argv[3]) % bs)
			die("srad: W and H must be multiples of B");
		srad(num(argv[2]), num(argv[3]), num(argv[4]), strtof(argv[5], NULL), num(argv[6]),
		     bs, argv[7]);
	} else if (argc == 8 && strcmp(argv[1], "change") == 0) {
		change(num(argv[2]), num(argv[3]), num(argv[4]), num(argv[5]), num(argv[6]),
		       argv[7]);
	} else {
		die("usage: piperef vivid-frame|vivid|srad-image|srad|change ARGS (see piperef.c)");
	}
	return 0;
}
