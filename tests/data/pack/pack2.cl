/* A second source with a helper of the same name as one in pack.cl: pack renames it. */
static float twice(float v)
{
	return 2.0f * v + 0.5f;
}

/* y = twice(x) (this file's twice) */
__kernel void twice_plus(__global const float *x, __global float *y)
{
	size_t i = get_global_id(0);

	y[i] = twice(x[i]);
}
