/* Integer kernels for the graph runner's tests (tests/shell/graph-run.sh): exact, so that a
 * pipelined run, a serial run and an awk model of the same graph agree element by element. */

/* y = p * x + q */
__kernel void lin1(__global const int *x, __global int *y, const int p, const int q)
{
	size_t i = get_global_id(0);

	y[i] = p * x[i] + q + (int)i;
}

/* y = a + p * b + q * c */
__kernel void lin3(__global const int *a, __global const int *b, __global const int *c,
		   __global int *y, const int p, const int q)
{
	size_t i = get_global_id(0);

	y[i] = a[i] + p * b[i] + q * c[i];
}

/* y = a + b */
__kernel void add2(__global const int *a, __global const int *b, __global int *y)
{
	size_t i = get_global_id(0);

	y[i] = a[i] + b[i];
}

/* z = p * z + q, in place */
__kernel void bump(__global int *z, const int p, const int q)
{
	size_t i = get_global_id(0);

	z[i] = p * z[i] + q;
}
