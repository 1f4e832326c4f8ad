/* The iteration space cut in rows (engines/partition/space.h). */
#include "engines/partition/space.h"

/* The largest power of two up to max that divides n. */
static size_t pow2_divisor(size_t n, size_t max)
{
	size_t g = max;

	while (g > 1 && n % g)
		g /= 2;
	return g;
}

/* PoCL compiles a kernel for every local size it is launched with and picks one of its own
 * when none is given, so every launch names the same one (docs/partition.md, "Chunks"). */
void part_space_init(struct part_space *sp, unsigned dims, const size_t *global,
                     const size_t *local)
{
	size_t budget = 64;

	sp->dims = dims;
	sp->row_items = 1;
	for (unsigned d = 0; d < 3; d++) {
		sp->global[d] = d < dims ? global[d] : 1;
		if (d >= dims)
			sp->local[d] = 1;
		else if (local)
			sp->local[d] = local[d];
		else
			sp->local[d] = pow2_divisor(global[d], budget);
		budget /= sp->local[d] ? sp->local[d] : 1;
		if (budget == 0)
			budget = 1;
		if (d + 1 < dims)
			sp->row_items *= sp->global[d];
	}
	sp->rows = sp->global[dims - 1];
	sp->granule = sp->local[dims - 1];
}

void part_space_launch(const struct part_space *sp, size_t row, size_t nrows, size_t offset[3],
                       size_t size[3])
{
	unsigned last = sp->dims - 1;

	for (unsigned d = 0; d < 3; d++) {
		offset[d] = 0;
		size[d] = sp->global[d];
	}
	offset[last] = row;
	size[last] = nrows;
}

void part_rows_bytes(const struct part_space *sp, size_t unit, size_t elem_size, size_t row_begin,
                     size_t row_end, size_t *byte_off, size_t *byte_len)
{
	size_t row_bytes = sp->row_items * unit * elem_size;

	*byte_off = row_begin * row_bytes;
	*byte_len = (row_end - row_begin) * row_bytes;
}

size_t part_space_group(const struct part_space *sp)
{
	return sp->local[0] * sp->local[1] * sp->local[2];
}
