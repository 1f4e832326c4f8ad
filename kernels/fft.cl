/*
 * The 2D-FFT image filter of 004 §3.6 (Figure 10) and §5.3.4 (Figure 48): an N x N image
 * (N a power of two) is transformed row by row with an iterative radix-2 FFT, transposed,
 * transformed again, filtered in the frequency domain and transformed back. Each kernel is
 * one of the paper's flow-models; the batch batches/fft-filter/fft-filter.bat.xml chains
 * them through virtual buffers:
 *
 *   reorder, FFT step x log2(N), transpose, reorder, FFT step x log2(N), transpose,
 *   low- or high-pass filter,
 *   transpose, reorder, IFFT step x log2(N), transpose, reorder, IFFT step x log2(N),
 *   real part (times 1/N^2)
 *
 * which is the paper's 13 functional steps plus the last one that makes the picture.
 * Complex numbers travel as two float streams, the real and the imaginary parts (004 §3.6:
 * "virtual buffers for the real and imaginary parts"). Every kernel but the filter writes
 * new streams (re_next, im_next) that the batch swaps with the old ones (004 §3.5, Figure
 * 10(b)-(3)), so no kernel reads what another work-item writes.
 */

/* x with its low `bits` bits in reverse order. */
static uint bit_reverse(uint x, int bits)
{
	uint r = 0;

	for (int b = 0; b < bits; b++) {
		r = (r << 1) | (x & 1u);
		x >>= 1;
	}
	return r;
}

/*
 * reorder: the bit-reversal permutation of every row, which puts the input of an in-order
 * decimation-in-time FFT where its butterflies expect it. Work-item (x, y) moves element x
 * of row y to position bit_reverse(x). Global size (n, n).
 */
__kernel void fft_reorder(__global const float *re, __global const float *im,
			  __global float *re_next, __global float *im_next, const int n,
			  const int log2n)
{
	uint x = get_global_id(0);
	uint y = get_global_id(1);
	uint from = y * (uint)n + x;
	uint to = y * (uint)n + bit_reverse(x, log2n);

	re_next[to] = re[from];
	im_next[to] = im[from];
}

/*
 * One radix-2 decimation-in-time stage on every row. At stage s (0 .. log2(n)-1) the row
 * holds transforms of length h = 2^s that are combined into transforms of length 2h:
 * work-item (k, y), k in 0 .. n/2-1, takes the pair
 *   a = row[i], b = row[i + h]   with i = (k / h) * 2h + k % h,
 * and writes a + w b and a - w b, w = exp(sign * 2 pi i (k % h) / 2h). sign is -1 for the
 * forward transform and +1 for the inverse (the conjugate twiddles). cospi/sinpi take the
 * angle divided by pi, which is an exact ratio j/h here, so the twiddles are as accurate
 * for N = 1024 as for N = 64.
 *
 * The stage number arrives in the 1-element stream `stage`; work-item (0, 0) writes
 * stage + 1 to `stage_next`. The batch swaps the pairs (re, re_next), (im, im_next) and
 * (stage, stage_next) after each run, so <Repeat count="log2(N)"> of one executable runs
 * every stage (004 §5.3.2: the iteration index is a swap pair the kernel advances).
 */
static void butterfly(__global const float *re, __global const float *im,
		      __global const int *stage, __global float *re_next,
		      __global float *im_next, __global int *stage_next, int n, float sign)
{
	uint k = get_global_id(0);
	uint y = get_global_id(1);
	int s = stage[0];
	uint h = 1u << s;
	uint j = k & (h - 1u);
	uint i0 = y * (uint)n + ((k >> s) << (s + 1)) + j;
	uint i1 = i0 + h;
	float t = (float)j / (float)h;
	float wr = cospi(t);
	float wi = sign * sinpi(t);
	float br = re[i1] * wr - im[i1] * wi;
	float bi = re[i1] * wi + im[i1] * wr;
	float ar = re[i0];
	float ai = im[i0];

	re_next[i0] = ar + br;
	im_next[i0] = ai + bi;
	re_next[i1] = ar - br;
	im_next[i1] = ai - bi;
	if (k == 0 && y == 0)
		stage_next[0] = s + 1;
}

/* One forward FFT stage: global size (n/2, n). */
__kernel void fft_step(__global const float *re, __global const float *im,
		       __global const int *stage, __global float *re_next, __global float *im_next,
		       __global int *stage_next, const int n)
{
	butterfly(re, im, stage, re_next, im_next, stage_next, n, -1.0f);
}

/* One inverse FFT stage (conjugate twiddles, no scaling: fft_real divides by n^2 once). */
__kernel void fft_istep(__global const float *re, __global const float *im,
			__global const int *stage, __global float *re_next,
			__global float *im_next, __global int *stage_next, const int n)
{
	butterfly(re, im, stage, re_next, im_next, stage_next, n, 1.0f);
}

/* transpose: rows become columns, so the next row FFT transforms the columns. Global (n, n). */
__kernel void fft_transpose(__global const float *re, __global const float *im,
			    __global float *re_next, __global float *im_next, const int n)
{
	uint x = get_global_id(0);
	uint y = get_global_id(1);

	re_next[x * (uint)n + y] = re[y * (uint)n + x];
	im_next[x * (uint)n + y] = im[y * (uint)n + x];
}

/*
 * The filters, in place on the unshifted spectrum: DC is element (0, 0) and index u stands
 * for the frequency min(u, n - u) (u and n - u are the same frequency with opposite signs;
 * u = n/2 is n/2). A coefficient at frequencies (fu, fv) is at distance d, d^2 = fu^2 + fv^2,
 * from DC, which is the distance from the centre pixel (n/2, n/2) of the usual centred
 * picture of a spectrum. With cut the radius:
 *   low-pass  keeps the coefficients with d^2 <= cut^2 and zeroes the others;
 *   high-pass zeroes the coefficients with d^2 <= cut^2 and keeps the others.
 * So the centre (DC, d = 0) is always kept by the low-pass and always removed by the
 * high-pass (the picture's mean goes to 0), the circle d = cut belongs to the low-pass, and
 * low + high is exactly the identity. The test is in integers, so no rounding can move a
 * coefficient across the circle. The mask is symmetric (u and n - u alike), so the filtered
 * image stays real. Global size (n, n).
 */
static bool inside_cut(uint u, uint v, int n, int cut)
{
	long fu = min((long)u, (long)n - (long)u);
	long fv = min((long)v, (long)n - (long)v);

	return fu * fu + fv * fv <= (long)cut * (long)cut;
}

__kernel void fft_lowpass(__global float *re, __global float *im, const int n, const int cut)
{
	uint u = get_global_id(0);
	uint v = get_global_id(1);

	if (!inside_cut(u, v, n, cut)) {
		re[v * (uint)n + u] = 0.0f;
		im[v * (uint)n + u] = 0.0f;
	}
}

__kernel void fft_highpass(__global float *re, __global float *im, const int n, const int cut)
{
	uint u = get_global_id(0);
	uint v = get_global_id(1);

	if (inside_cut(u, v, n, cut)) {
		re[v * (uint)n + u] = 0.0f;
		im[v * (uint)n + u] = 0.0f;
	}
}

/*
 * The last step: the inverse transform's real part scaled by 1/n^2 (the two unscaled
 * inverse passes each multiply by n), plus `offset` so that a high-pass result, which has
 * mean 0, can be looked at as a PGM (offset 128). The imaginary part is rounding noise for
 * a real image and a symmetric mask. 1/n^2 is a power of two, so the scaling is exact.
 * Global size n * n.
 */
__kernel void fft_real(__global const float *re, __global float *image, const int n,
		       const float offset)
{
	uint i = get_global_id(0);

	image[i] = re[i] * (1.0f / ((float)n * (float)n)) + offset;
}
