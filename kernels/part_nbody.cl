/*
 * N-body, all pairs (003 §2 "Nbody", the regular benchmark of the partition engine): one
 * work-item per body, the same number of interactions for every body. One time step: the
 * acceleration from every body (softened by eps2), then velocity and position by explicit
 * Euler. pos.w is the mass. tests/tools/partref.c computes the same in C.
 */
#pragma OPENCL FP_CONTRACT OFF

__kernel void part_nbody(__global const float4 *pos, __global const float4 *vel,
                         __global float4 *pos_next, __global float4 *vel_next, const int n,
                         const float dt, const float eps2)
{
	int i = get_global_id(0);
	float4 p = pos[i], v = vel[i];
	float ax = 0.0f, ay = 0.0f, az = 0.0f;

	for (int j = 0; j < n; j++) {
		float4 q = pos[j];
		float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
		float r2 = dx * dx + dy * dy + dz * dz + eps2;
		float inv = 1.0f / sqrt(r2);
		float s = q.w * inv * inv * inv;

		ax += s * dx;
		ay += s * dy;
		az += s * dz;
	}
	v.x += ax * dt;
	v.y += ay * dt;
	v.z += az * dt;
	p.x += v.x * dt;
	p.y += v.y * dt;
	p.z += v.z * dt;
	pos_next[i] = p;
	vel_next[i] = v;
}
