/* y = a * x, element by element (flowmodels/scale.xml; bench/host_minimal.c does it by hand). */
__kernel void scale(const float a, __global const float *x, __global float *y) { size_t i = get_global_id(0); y[i] = a * x[i]; }
