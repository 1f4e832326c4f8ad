/*
 * One step of the LU decomposition of 004 §5.2.2 (Figure 41): Doolittle elimination without
 * pivoting, in place, L below the diagonal (its unit diagonal implied) and U on and above.
 *
 * Step k (read from the 1-element stream `step`) works on the active (n-k) x (n-k)
 * sub-matrix: for i > k
 *
 *     l_ik = a_ik / a_kk                    (column k becomes L_21)
 *     a_ij = a_ij - l_ik a_kj   for j > k   (the rest becomes A_22 - A_21 A_12 / a_kk)
 *
 * Rows 0..k and columns left of k are finished and are copied. The work size stays n x n
 * for every step (a kernel cannot change its parallelism between runs, 004 §5.3.3), and
 * every work-item writes its element: with `swap` the output buffer is the input of two
 * runs ago, so an element left unwritten would differ between the swap methods. Work-item
 * (0, 0) advances the step: step_next = step + 1. Steps 0 .. n-2 factor the matrix (S =
 * n-2 swaps); a step k >= n-1 changes nothing.
 *
 * Global size (n, n): dimension 0 is the column, so neighbouring work-items touch
 * neighbouring elements. Build with -DUSE_DOUBLE for double precision (cl_khr_fp64).
 */
#ifdef USE_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

__kernel void lu_step(__global const real *a, __global const int *step, __global real *a_next,
		      __global int *step_next)
{
	const int j = (int)get_global_id(0);
	const int i = (int)get_global_id(1);
	const int n = (int)get_global_size(0);
	const int k = step[0];
	real v = a[(size_t)i * n + j];

	if (i > k && j >= k) {
		real l = a[(size_t)i * n + k] / a[(size_t)k * n + k];

		v = j == k ? l : v - l * a[(size_t)k * n + j];
	}
	a_next[(size_t)i * n + j] = v;
	if (i == 0 && j == 0)
		step_next[0] = k + 1;
}
