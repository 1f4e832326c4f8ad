/* Small kernels for the pack tests (tests/shell/pack.sh): a chain, a loop, in-place steps,
 * steps of other sizes and dimensions. Helpers call the work-item functions too, so that a
 * step packed with a larger kernel must see its own NDRange through them. */

#define SCALE(v, a, b) ((a) * (v) + (b))

static size_t gid(void)
{
	return get_global_id(0);
}

static float twice(float v)
{
	return v + v;
}

/* y = a x + b */
__kernel void affine(__global const float *x, __global float *y, const float a, const float b)
{
	size_t i = gid();

	y[i] = SCALE(x[i], a, b);
}

/* y = x + z */
__kernel void add2(__global const float *x, __global const float *z, __global float *y)
{
	size_t i = get_global_id(0);

	y[i] = x[i] + z[i];
}

/* q = (int)(x * x) */
__kernel void square_int(__global const float *x, __global int *q)
{
	size_t i = get_global_id(0);

	q[i] = (int)(x[i] * x[i]);
}

/* One smoothing step; reads its neighbours, and counts the steps in it -> it_next. */
__kernel void smooth(__global const float *x, __global const int *it, __global float *y,
		     __global int *it_next)
{
	size_t i = get_global_id(0), n = get_global_size(0);
	float l = x[i > 0 ? i - 1 : i], r = x[i + 1 < n ? i + 1 : i];

	y[i] = 0.25f * l + 0.5f * x[i] + 0.25f * r + (float)it[0];
	if (i == 0)
		it_next[0] = it[0] + 1;
}

/* acc += x, in place */
__kernel void accumulate(__global const float *x, __global float *acc)
{
	size_t i = get_global_id(0);

	acc[i] += twice(x[i]);
}

/* y[i] = x[2i] + x[2i+1]: half as many work-items as elements */
__kernel void pairsum(__global const float *x, __global float *y)
{
	size_t i = get_global_id(0);

	y[i] = x[2 * i] + x[2 * i + 1];
}

/* 2-D: t = 2 s + x + 1000 y over a W x H grid (global size W, H) */
__kernel void grid(__global const float *s, __global float *t)
{
	size_t x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);

	if (get_work_dim() != 2)
		return;
	t[y * w + x] = twice(s[y * w + x]) + (float)(x + 1000 * y);
}

/* y = the sum of x over each work-group (local memory and a barrier) */
__kernel void groupsum(__global const float *x, __global float *y, __local float *tmp)
{
	size_t i = get_global_id(0), l = get_local_id(0), n = get_local_size(0);
	float s = 0.0f;

	tmp[l] = x[i];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t k = 0; k < n; k++)
		s += tmp[k];
	y[i] = s;
}
