/*
 * A ViVid-like detection pipeline (000 §VI-C1) for the pipeline engine: frames of
 * width x height pixels (integer grey levels 0..255 held as floats), then
 *   filter    the largest absolute response of nfilters oriented 5x5 filters per pixel;
 *   hist      per 16x16 block, a histogram of those responses in nbins bins;
 *   classify  per block, the class whose integer weights score its histogram highest.
 * The filter's weights are integers and so are the pixels: every sum is exact in float, and
 * the C reference (tests/tools/piperef.c) gets the same responses whatever the rounding.
 */
#pragma OPENCL FP_CONTRACT OFF

/* An integer hash of a pixel of frame `index` (the generator's noise). */
static uint pixel_hash(uint x, uint y, uint index)
{
	uint h = x * 73856093u ^ y * 19349663u ^ (index + 1u) * 83492791u;

	h ^= h >> 13;
	h *= 0x5bd1e995u;
	h ^= h >> 15;
	return h;
}

/* Frame `index`: a checkerboard of 16-pixel squares drifting with the index, and noise. */
__kernel void pipe_vivid_gen(__global float *frame, const int width, const int index)
{
	int i = get_global_id(0), x = i % width, y = i / width;
	int cell = ((x + 3 * index) / 16 + (y + index) / 24) & 1;
	int noise = (int)(pixel_hash((uint)x, (uint)y, (uint)index) >> 8 & 63u) - 32;
	int v = (cell ? 170 : 60) + noise;

	frame[i] = (float)clamp(v, 0, 255);
}

/* The weight of filter f at offset (dx, dy): the sign of the offset along one of eight
 * directions, times 1 + f / 8. */
static int weight(int f, int dx, int dy)
{
	const int cx[8] = {1, 2, 1, 1, 0, -1, -1, -2};
	const int cy[8] = {0, 1, 1, 2, 1, 2, 1, 1};
	int d = dx * cx[f & 7] + dy * cy[f & 7];

	return ((d > 0) - (d < 0)) * (1 + (f >> 3));
}

__kernel void pipe_vivid_filter(__global const float *frame, __global float *resp,
                                const int width, const int height, const int nfilters)
{
	int i = get_global_id(0), x = i % width, y = i / width;
	float best = 0.0f;

	for (int f = 0; f < nfilters; f++) {
		float sum = 0.0f;

		for (int dy = -2; dy <= 2; dy++) {
			int yy = clamp(y + dy, 0, height - 1);

			for (int dx = -2; dx <= 2; dx++) {
				int xx = clamp(x + dx, 0, width - 1);

				sum += (float)weight(f, dx, dy) * frame[yy * width + xx];
			}
		}
		best = fmax(best, fabs(sum));
	}
	resp[i] = best;
}

/* One work-item per (block, bin): how many of the block's pixels fall in the bin; a
 * response r falls in bin min(nbins - 1, r / 256). */
__kernel void pipe_vivid_hist(__global const float *resp, __global int *hist, const int width,
                              const int nbins)
{
	int g = get_global_id(0), b = g / nbins, bin = g % nbins;
	int bw = width / 16, bx = b % bw * 16, by = b / bw * 16, n = 0;

	for (int y = by; y < by + 16; y++)
		for (int x = bx; x < bx + 16; x++)
			n += min(nbins - 1, (int)resp[y * width + x] / 256) == bin;
	hist[g] = n;
}

/* One work-item per block: the class c maximising sum_bin hist[bin] * ((7c + 3bin) % 5 - 2),
 * the first of equals. */
__kernel void pipe_vivid_classify(__global const int *hist, __global int *cls, const int nbins,
                                  const int nclasses)
{
	int b = get_global_id(0), best = 0, best_score = 0;

	for (int c = 0; c < nclasses; c++) {
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
