/*
 * A pattern block of whole elements is made first (fill_bytes' doubling, within the cache);
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

void fill_bytes(void *dst, size_t esize, size_t n, const void *value)
{
	size_t total = esize * n, done = esize;
	char *d = dst;

	if (n == 0)
		return;
	memcpy(d, value, done);
	while (done < total) {
		size_t chunk = done < total - done ? done : total - done;

		memcpy(d + done, d, chunk);
		done += chunk;
	}
}

void fill_bytes_par(void *dst, size_t esize, size_t n, const void *value)
{
	struct part parts[PARRUN_MAX];
	size_t total = esize * n;
	size_t block = BLOCK / esize * esize, blocks, k, each;

	if (block == 0 || total <= block) {
		fill_bytes(dst, esize, n, value);
		return;
	}
	fill_bytes(dst, esize, block / esize, value);
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

void fill_par(struct cs_type t, void *dst, size_t n, const void *value)
{
	fill_bytes_par(dst, type_size(t), n, value);
}
