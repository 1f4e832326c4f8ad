/*
 * One Jacobi step of -Δu = f on a width x height grid with spacing h (h2 = h²), a 5-point
 * stencil: u'(x, y) = (u(x-1, y) + u(x+1, y) + u(x, y-1) + u(x, y+1) + h²·f(x, y)) / 4 inside,
 * u' = u on the border. Work-item (x, y) is point (x, y), row-major. The partition engine
 * splits dimension 1 (rows) and launches with a global offset there, so the kernel reads
 * the grid's size from its arguments, never from get_global_size(1). Plain float
 * operations in a fixed order, as the C reference (tests/tools/partref.c).
 */
#pragma OPENCL FP_CONTRACT OFF

__kernel void part_jacobi2d(__global const float *u, __global const float *f,
                            __global float *u_next, const int width, const int height,
                            const float h2)
{
	int x = get_global_id(0), y = get_global_id(1);
	int i = y * width + x;

	if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
		u_next[i] = u[i];
		return;
	}
	u_next[i] = ((u[i - 1] + u[i + 1]) + (u[i - width] + u[i + width]) + h2 * f[i]) * 0.25f;
}
