/*
 * 2D FIR filter with a 3x3 coefficient matrix (004 §2.7, eq. 1):
 *   y[k][l] = sum_{i,j=0..2} h[i][j] * x[k+i][l+j]
 * x is M rows by N columns; y is (M-2) by (N-2). Work-item (l, k) computes y[k][l].
 */
__kernel void fir3x3(__global const float *x, __global const float *h, __global float *y,
		     const int n)
{
	int l = get_global_id(0);
	int k = get_global_id(1);
	int w = get_global_size(0);
	float acc = 0.0f;

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			acc += h[i * 3 + j] * x[(k + i) * n + (l + j)];
	y[k * w + l] = acc;
}
