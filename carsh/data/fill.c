/*
 * A pattern block of whole elements is made first (type_fill's doubling, within the cache);
 * then each thread copies it over its own part of the array. A fresh shared-memory buffer is
 * mostly page faults on its first write, which several threads take in parallel.
 */
#include "data/fill.h"

#include <string.h>

#include "util/parrun.h"

/* The pattern block, rounded down to whole elements; parts start at multiples of it. */
#define BLOCK ((size_t)64 << 10)
/* Fewer bytes than this a part are not worth a thread. */
#define PART_MIN ((size_t)4 << 20)

struct part {
	char *dst;
	size_t from, to; /* bytes */
	size_t block;
};

static void *fill_part(void *arg)
{
	struct part *p = arg;

	for (size_t at = p->from; at < p->to; at += p->block) {
		size_t len = p->to - at < p->block ? p->to - at : p->block;

		memcpy(p->dst + at, p->dst, len);
	}
	return NULL;
}

void fill_par(struct cs_type t, void *dst, size_t n, const void *value)
{
	struct part parts[PARRUN_MAX];
	size_t esize = type_size(t), total = esize * n;
	size_t block = BLOCK / esize * esize, blocks, k, each;

	if (block == 0 || total <= block) {
		type_fill(t, dst, n, value);
		return;
	}
	type_fill(t, dst, block / esize, value);
	blocks = (total - block + block - 1) / block;
	k = par_parts(total, PART_MIN);
	if (k > blocks)
		k = blocks;
	each = (blocks + k - 1) / k * block;
	for (size_t i = 0; i < k; i++) {
		size_t from = block + i * each;

		parts[i] = (struct part){(char *)dst, from > total ? total : from,
		                         from + each > total ? total : from + each, block};
	}
	par_run(fill_part, parts, sizeof(parts[0]), k);
}
