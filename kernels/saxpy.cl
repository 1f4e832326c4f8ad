/* y = a*x + y, in place (y is an InOut stream). */
__kernel void saxpy(const float a, __global const float *x, __global float *y)
{
	size_t i = get_global_id(0);

	y[i] = a * x[i] + y[i];
}
