/*
 * Short-range forces with a cut-off over a cell list (an irregular benchmark of the
 * partition engine: the interactions of an item are the bodies near it, which clustered
 * positions make very uneven). The bodies are sorted by cell; cell_start[c] .. cell_start[c+1]
 * are the bodies of cell c, cell_of[i] is body i's cell (the generator's, so no rounding can
 * move a body). Each body sums a softened repulsion 1/r^4 (times the distance vector) from
 * the bodies within the cut-off in the 27 cells around its own, in a fixed order; force.w
 * counts them. tests/tools/partref.c computes the same in C.
 */
#pragma OPENCL FP_CONTRACT OFF

__kernel void part_neigh(__global const float4 *pos, __global const int *cell_of,
                         __global const int *cell_start, __global float4 *force, const int gx,
                         const int gy, const int gz, const float rc2, const float eps2)
{
	int i = get_global_id(0);
	int c = cell_of[i];
	int cx = c % gx, cy = (c / gx) % gy, cz = c / (gx * gy);
	float4 p = pos[i];
	float fx = 0.0f, fy = 0.0f, fz = 0.0f, m = 0.0f;

	for (int z = cz - 1; z <= cz + 1; z++) {
		if (z < 0 || z >= gz)
			continue;
		for (int y = cy - 1; y <= cy + 1; y++) {
			if (y < 0 || y >= gy)
				continue;
			for (int x = cx - 1; x <= cx + 1; x++) {
				int n, end;

				if (x < 0 || x >= gx)
					continue;
				n = (z * gy + y) * gx + x;
				end = cell_start[n + 1];
				for (int j = cell_start[n]; j < end; j++) {
					float4 q = pos[j];
					float dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
					float r2 = dx * dx + dy * dy + dz * dz;
					float s;

					if (j == i || r2 >= rc2)
						continue;
					s = 1.0f / ((r2 + eps2) * (r2 + eps2));
					fx += s * dx;
					fy += s * dy;
					fz += s * dz;
					m += 1.0f;
				}
			}
		}
	}
	force[i] = (float4)(fx, fy, fz, m);
}
