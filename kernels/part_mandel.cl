/*
 * Mandelbrot escape counts (a coarse-grained irregular benchmark of the partition engine):
 * one work-item per pixel of a width x height image, row-major; an item costs as many
 * iterations as its count, from 1 to maxit. Plain float operations in a fixed order, so the
 * C reference (tests/tools/partref.c) gives the same counts.
 */
#pragma OPENCL FP_CONTRACT OFF

__kernel void part_mandel(__global int *count, const int width, const float x0, const float y0,
                          const float step, const int maxit)
{
	int i = get_global_id(0);
	float cr = x0 + (float)(i % width) * step;
	float ci = y0 + (float)(i / width) * step;
	float zr = 0.0f, zi = 0.0f;
	int k = 0;

	while (k < maxit && zr * zr + zi * zi <= 4.0f) {
		float t = zr * zr - zi * zi + cr;

		zi = 2.0f * zr * zi + ci;
		zr = t;
		k++;
	}
	count[i] = k;
}
