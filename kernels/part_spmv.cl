/*
 * Sparse matrix-vector product y = A x, A in CSR (003 §5 "SpMV", a fine-grained irregular
 * benchmark): one work-item per row, so the work of an item is its row's length, which the
 * generator (tests/tools/partref.c spmv-gen) makes skewed. The sum runs in column-index order
 * of the CSR arrays, as the C reference's.
 */
#pragma OPENCL FP_CONTRACT OFF

__kernel void part_spmv(__global const int *row_ptr, __global const int *col,
                        __global const float *val, __global const float *x, __global float *y)
{
	int i = get_global_id(0);
	int end = row_ptr[i + 1];
	float s = 0.0f;

	for (int k = row_ptr[i]; k < end; k++)
		s += val[k] * x[col[k]];
	y[i] = s;
}
