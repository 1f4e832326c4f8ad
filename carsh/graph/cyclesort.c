/* Phase 2 of Algorithm 1 (004 §4.2.9): cyclic paths in ascending order of their number of
 * nodes. The paper suggests a merge sort; being stable, it keeps paths of equal length in
 * the order phase 1 found them, so the results do not depend on a sort's whims. */
#include <stdlib.h>
#include <string.h>

#include "graph/cycles.h"
#include "util/alloc.h"

static void merge(struct cycle *v, struct cycle *tmp, size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = mid, k = lo;

	while (i < mid && j < hi)
		tmp[k++] = v[j].n < v[i].n ? v[j++] : v[i++];
	while (i < mid)
		tmp[k++] = v[i++];
	while (j < hi)
		tmp[k++] = v[j++];
	memcpy(v + lo, tmp + lo, (hi - lo) * sizeof(*v));
}

static void merge_sort(struct cycle *v, struct cycle *tmp, size_t lo, size_t hi)
{
	size_t mid;

	if (hi - lo < 2)
		return;
	mid = lo + (hi - lo) / 2;
	merge_sort(v, tmp, lo, mid);
	merge_sort(v, tmp, mid, hi);
	merge(v, tmp, lo, mid, hi);
}

void cycles_sort(struct cycle_list *l)
{
	struct cycle *tmp;

	if (l->n < 2)
		return;
	tmp = xmalloc(l->n * sizeof(*tmp));
	merge_sort(l->v, tmp, 0, l->n);
	free(tmp);
}
