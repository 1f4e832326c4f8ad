/*
 * A 16-tap IIR filter as a recursive stream kernel (004 §5.2.2):
 *
 *     y_n = sum_{i=0}^{15} a_i x_{n-i}  -  sum_{j=0}^{15} b_j y_{n-j-1}
 *
 * (the paper prints x_{n-1} in the first sum; the filter's taps are x_{n-i}). Samples
 * before the first (n < 0) are zero. "Each y_i calculation is assigned to a stream
 * processor": work-item n computes y_next[n] from the previous run's y, and <Swap> makes
 * y_next the next run's y. Every run makes one more sample exact: after run t (y = 0
 * before the first) y_0 .. y_{t-1} equal the sequential filter, because y_n needs only
 * y_{n-1} .. y_{n-16}. So N runs (S = N-1 swaps) filter N samples -- "the number of total
 * input samples of x and y equivalents to the number of iterations" -- and further runs
 * change no bit.
 *
 * Build with -DUSE_DOUBLE for double precision (cl_khr_fp64).
 */
#ifdef USE_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

#define IIR_TAPS 16

__kernel void iir(__global const real *x, __global const real *a, __global const real *b,
		  __global const real *y, __global real *y_next)
{
	const int n = (int)get_global_id(0);
	real acc = 0;

	for (int i = 0; i < IIR_TAPS && i <= n; i++)
		acc += a[i] * x[n - i];
	for (int j = 0; j < IIR_TAPS && j < n; j++)
		acc -= b[j] * y[n - j - 1];
	y_next[n] = acc;
}
