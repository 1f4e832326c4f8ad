/*
 * Phase 3 of Algorithm 1 (004 §4.2.9, reduct_paths in Figure 19): the true cyclic paths.
 *
 * A path that includes an earlier path of the sorted list is removed. The second
 * optimisation of §4.2.10 stops the comparisons of a path A at the first longer path: with
 * elementary paths only (phase 1), a path can only include a path of its own length, that is
 * the same path again. Within a run of equal length we therefore compare canonical forms
 * (the sorted edge lists) after sorting them, rather than all pairs. Phase 1 as written here
 * finds each path once, so this removes nothing on its output; it is what makes Figure 19's
 * unrestricted walk, which finds a path once from each of its nodes, correct.
 *
 * The same phase "reduces the cyclic path list by considering the already initialized
 * edges" (Figure 19's text): a path through an INITONCE edge cannot deadlock.
 */
#include <stdlib.h>
#include <string.h>

#include "graph/cycles.h"
#include "util/alloc.h"

struct keyed {
	size_t *key; /* the path's edges, sorted */
	size_t n;
	size_t index; /* its place in the list */
};

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_keyed(const void *pa, const void *pb)
{
	const struct keyed *a = pa, *b = pb;
	int c = memcmp(a->key, b->key, a->n * sizeof(*a->key));

	if (c)
		return c < 0 ? -1
		             : 1; /* memcmp order is not numeric, but any total order will do */
	return a->index < b->index ? -1 : a->index > b->index;
}

/* Mark in drop[] every path of v[lo, hi) (all of one length) equal to an earlier one. */
static void mark_repeats(const struct cycle_list *l, size_t lo, size_t hi, bool *drop)
{
	struct keyed *k = xcalloc(hi - lo, sizeof(*k));

	for (size_t i = lo; i < hi; i++) {
		struct keyed *ki = &k[i - lo];

		ki->n = l->v[i].n;
		ki->index = i;
		ki->key = xmalloc(ki->n * sizeof(*ki->key));
		memcpy(ki->key, l->v[i].edges, ki->n * sizeof(*ki->key));
		qsort(ki->key, ki->n, sizeof(*ki->key), cmp_size);
	}
	qsort(k, hi - lo, sizeof(*k), cmp_keyed);
	for (size_t i = 1; i < hi - lo; i++)
		if (memcmp(k[i].key, k[i - 1].key, k[i].n * sizeof(*k[i].key)) == 0)
			drop[k[i].index] = true;
	for (size_t i = 0; i < hi - lo; i++)
		free(k[i].key);
	free(k);
}

/* Remove the marked paths, keeping the order of the others. */
static size_t compact(struct cycle_list *l, const bool *drop)
{
	size_t kept = 0, removed;

	for (size_t i = 0; i < l->n; i++) {
		if (drop[i])
			free(l->v[i].edges);
		else
			l->v[kept++] = l->v[i];
	}
	removed = l->n - kept;
	l->n = kept;
	return removed;
}

size_t cycles_drop_included(struct cycle_list *l)
{
	bool *drop = xcalloc(l->n + 1, sizeof(*drop));
	size_t removed;

	for (size_t lo = 0, hi; lo < l->n; lo = hi) {
		for (hi = lo + 1; hi < l->n && l->v[hi].n == l->v[lo].n; hi++)
			;
		mark_repeats(l, lo, hi, drop);
	}
	removed = compact(l, drop);
	free(drop);
	return removed;
}

size_t cycles_drop_initialised(const struct graph *g, struct cycle_list *l, unsigned char *on_cycle)
{
	bool *drop = xcalloc(l->n + 1, sizeof(*drop));
	size_t removed;

	for (size_t i = 0; i < l->n; i++) {
		for (size_t k = 0; k < l->v[i].n; k++) {
			size_t ed = l->v[i].edges[k];

			if (g->edges[ed].kind == EDGE_INITONCE) {
				on_cycle[ed] = 1;
				drop[i] = true;
			}
		}
	}
	removed = compact(l, drop);
	free(drop);
	return removed;
}
