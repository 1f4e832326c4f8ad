/*
 * A stream whose cost changes half-way (000 §VI-B's low- to high-definition switch), for
 * the pipeline engine's monitoring: item `index` asks for `lo` rounds of work per element
 * before item `at`, `hi` rounds from then on.
 *   gen    the rounds of every element;
 *   work   an integer hash iterated that many times;
 *   fold   the sum of each 64 elements' hashes (wrapping, unsigned).
 * Integer arithmetic only: the C reference (tests/tools/piperef.c) gets the same values.
 */
__kernel void pipe_change_gen(__global uint *rounds, const int index, const int at,
                              const int lo, const int hi)
{
	int i = get_global_id(0);

	rounds[i] = (uint)(index < at ? lo : hi) + (uint)(i & 3);
}

__kernel void pipe_change_work(__global const uint *rounds, __global uint *hash)
{
	int i = get_global_id(0);
	uint h = (uint)i * 2654435761u;

	for (uint r = 0; r < rounds[i]; r++) {
		h ^= h >> 15;
		h *= 0x2c1b3c6du;
		h ^= h >> 12;
	}
	hash[i] = h;
}

__kernel void pipe_change_fold(__global const uint *hash, __global uint *sum)
{
	int b = get_global_id(0);
	uint s = 0;

	for (int i = b * 64; i < b * 64 + 64; i++)
		s += hash[i];
	sum[b] = s;
}
