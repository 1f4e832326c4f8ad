/*
 * One Jacobi iteration for A x = b (004 §5.2.2):
 *
 *     x_i^(k+1) = (b_i - sum_{j != i} a_ij x_j^(k)) / a_ii
 *
 * A is dense, n x n, row-major; work-item i computes x_next[i]. The executable pairs x with
 * x_next and k with k_next, so S swaps run S+1 iterations and k counts them: work-item 0
 * writes k_next = k + 1. r is the residual b - A x of the iterate this run read (after the
 * last run: of x^(S), the one before the result); it is in no pair, so its last value
 * stays.
 *
 * Build with -DUSE_DOUBLE for double precision (cl_khr_fp64).
 */
#ifdef USE_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

__kernel void jacobi(__global const real *A, __global const real *b, __global const real *x,
		     __global const int *k, __global real *x_next, __global int *k_next,
		     __global real *r)
{
	const int i = (int)get_global_id(0);
	const int n = (int)get_global_size(0);
	__global const real *row = A + (size_t)i * n;
	real sigma = 0;

	for (int j = 0; j < n; j++)
		if (j != i)
			sigma += row[j] * x[j];
	x_next[i] = (b[i] - sigma) / row[i];
	r[i] = b[i] - sigma - row[i] * x[i];
	if (i == 0)
		k_next[0] = k[0] + 1;
}
