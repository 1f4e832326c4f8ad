/*
 * An SRAD-like chain (000 §VI-C2; Rodinia's SRAD, Yu and Acton) for the pipeline engine:
 * images of width x height pixels, then
 *   extract   J = exp(I / 255);
 *   stats     q0² = var(J) / mean(J)² over the whole image, by one work-item in index order
 *             (a serial reduction: fast on a CPU core, slow on a GPU);
 *   coeff     the diffusion coefficient c of every pixel from its four differences;
 *   update    J' = J + λ/4 · (cN dN + cS dS + cW dW + cE dE);
 *   compress  the mean of log(J) · 255 over each block x block square.
 * One iteration is stats, coeff, update; a longer chain repeats them. Plain float operations
 * in a fixed order (no contraction), as in the C reference (tests/tools/piperef.c); exp and
 * log may differ from the C library's in the last bit.
 */
#pragma OPENCL FP_CONTRACT OFF

/* Image `index`: bright discs on a dark ground, with multiplicative speckle. */
__kernel void pipe_srad_gen(__global float *img, const int width, const int index)
{
	int i = get_global_id(0), x = i % width, y = i / width;
	int cx = (x + 5 * index) % 64 - 32, cy = (y + 3 * index) % 48 - 24;
	uint h = (uint)x * 73856093u ^ (uint)y * 19349663u ^ (uint)(index + 1) * 83492791u;
	int base = cx * cx + cy * cy < 300 ? 200 : 40;

	h ^= h >> 13;
	h *= 0x5bd1e995u;
	h ^= h >> 15;
	img[i] = (float)clamp(base * (50 + (int)(h % 100u)) / 100, 1, 255);
}

__kernel void pipe_srad_extract(__global const float *img, __global float *j)
{
	int i = get_global_id(0);

	j[i] = exp(img[i] / 255.0f);
}

__kernel void pipe_srad_stats(__global const float *j, __global float *q0sqr, const int n)
{
	float sum = 0.0f, sum2 = 0.0f, mean, var;

	for (int i = 0; i < n; i++) {
		sum += j[i];
		sum2 += j[i] * j[i];
	}
	mean = sum / (float)n;
	var = sum2 / (float)n - mean * mean;
	q0sqr[0] = var / (mean * mean);
}

__kernel void pipe_srad_coeff(__global const float *j, __global const float *q0sqr,
                              __global float *c, const int width, const int height)
{
	int i = get_global_id(0), x = i % width, y = i / width;
	float jc = j[i], q0 = q0sqr[0];
	float dn = j[max(y - 1, 0) * width + x] - jc, ds = j[min(y + 1, height - 1) * width + x] - jc;
	float dw = j[y * width + max(x - 1, 0)] - jc, de = j[y * width + min(x + 1, width - 1)] - jc;
	float g2 = (dn * dn + ds * ds + dw * dw + de * de) / (jc * jc);
	float l = (dn + ds + dw + de) / jc;
	float num = 0.5f * g2 - 0.0625f * (l * l);
	float den = 1.0f + 0.25f * l;
	float qsqr = num / (den * den);

	den = (qsqr - q0) / (q0 * (1.0f + q0));
	c[i] = clamp(1.0f / (1.0f + den), 0.0f, 1.0f);
}

__kernel void pipe_srad_update(__global const float *j, __global const float *c,
                               __global float *jout, const int width, const int height,
                               const float lambda)
{
	int i = get_global_id(0), x = i % width, y = i / width;
	int is = min(y + 1, height - 1) * width + x, ie = y * width + min(x + 1, width - 1);
	float jc = j[i];
	float dn = j[max(y - 1, 0) * width + x] - jc, ds = j[is] - jc;
	float dw = j[y * width + max(x - 1, 0)] - jc, de = j[ie] - jc;
	float d = c[i] * dn + c[is] * ds + c[i] * dw + c[ie] * de;

	jout[i] = jc + 0.25f * lambda * d;
}

__kernel void pipe_srad_compress(__global const float *j, __global float *out, const int width,
                                 const int block)
{
	int b = get_global_id(0), ow = width / block, x0 = b % ow * block, y0 = b / ow * block;
	float sum = 0.0f;

	for (int y = y0; y < y0 + block; y++)
		for (int x = x0; x < x0 + block; x++)
			sum += log(j[y * width + x]) * 255.0f;
	out[b] = sum / (float)(block * block);
}
