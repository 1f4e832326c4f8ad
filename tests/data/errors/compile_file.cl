/* A kernel with a typo on line 4. */
__kernel void k(__global const float *x, __global float *y)
{
	y[get_global_id(0)] = x[get_global_id(0)] + undeclared_thing;
}
