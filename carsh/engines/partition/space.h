/*
 * The partition engine's iteration space, cut in rows (docs/partition.md, "2-D and 3-D
 * spaces"). A 1-D space is cut in work-items; a 2-D one in rows (one index of dimension 1
 * with every index of dimension 0); a 3-D one in planes (one index of dimension 2). The
 * split dimension is the last one because OpenCL's dimension 0 varies fastest: with a block
 * stream laid out row-major (work-item (x, y, z) owns elements from ((z·H + y)·W + x)·unit),
 * a range of rows is one contiguous range of bytes, moved with one transfer, and a chunk is
 * one launch with a global offset in the last dimension alone. The schedulers never see
 * the geometry: their items are rows, and so are the trace's offsets and sizes.
 */
#ifndef CARSH_ENGINES_PARTITION_SPACE_H
#define CARSH_ENGINES_PARTITION_SPACE_H

#include <stddef.h>

struct part_space {
	unsigned dims;    /* 1 to 3; the last one is split */
	size_t global[3]; /* unused dimensions are 1 */
	size_t local[3];  /* every launch's local size */
	size_t row_items; /* work-items in one row: the product of the dimensions but the last */
	size_t rows;      /* the global size of the last dimension: the schedulers' items */
	size_t granule;   /* chunks are multiples of it (rows): the last dimension's local size */
};

/* The space of a global size, with the flow-model's local size, or local NULL: then one
 * chosen here that divides the global size, at most 64 work-items in a group, the earlier
 * dimensions first (for 1-D: the largest power of two up to 64 that divides the space). */
void part_space_init(struct part_space *sp, unsigned dims, const size_t *global,
                     const size_t *local);

/* The launch of rows [row, row + nrows): its global offset and global size. */
void part_space_launch(const struct part_space *sp, size_t row, size_t nrows, size_t offset[3],
                       size_t size[3]);

/* The bytes of rows [row_begin, row_end) in a block stream that holds unit elements of
 * elem_size bytes per work-item. */
void part_rows_bytes(const struct part_space *sp, size_t unit, size_t elem_size, size_t row_begin,
                     size_t row_end, size_t *byte_off, size_t *byte_len);

/* Work-items in one work-group. */
size_t part_space_group(const struct part_space *sp);

#endif
