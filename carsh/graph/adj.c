#include "graph/adj.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/* Two stable counting sorts (by target, then by source) leave each node's output edges in
 * (target, file order) order. */
static void count_sort(const struct graph *g, const size_t *in, size_t *out, bool by_from)
{
	size_t *pos = xcalloc(g->nnodes + 1, sizeof(*pos));

	for (size_t i = 0; i < g->nedges; i++)
		pos[(by_from ? g->edges[i].from : g->edges[i].to) + 1]++;
	for (size_t x = 0; x < g->nnodes; x++)
		pos[x + 1] += pos[x];
	for (size_t i = 0; i < g->nedges; i++) {
		const struct graph_edge *ed = &g->edges[in[i]];

		out[pos[by_from ? ed->from : ed->to]++] = in[i];
	}
	free(pos);
}

static void build_out(const struct graph *g, struct adj *a)
{
	size_t *order = xcalloc(g->nedges + 1, sizeof(*order));
	size_t *by_to = xcalloc(g->nedges + 1, sizeof(*by_to));

	for (size_t i = 0; i < g->nedges; i++)
		order[i] = i;
	a->out = xcalloc(g->nedges + 1, sizeof(*a->out));
	count_sort(g, order, by_to, false);
	count_sort(g, by_to, a->out, true);
	a->out_start = xcalloc(g->nnodes + 1, sizeof(*a->out_start));
	for (size_t i = 0; i < g->nedges; i++)
		a->out_start[g->edges[i].from + 1]++;
	for (size_t x = 0; x < g->nnodes; x++)
		a->out_start[x + 1] += a->out_start[x];
	free(order);
	free(by_to);
}

static void build_succ(const struct graph *g, struct adj *a)
{
	size_t k = 0;

	a->succ_start = xcalloc(g->nnodes + 1, sizeof(*a->succ_start));
	a->succ = xcalloc(g->nedges + 1, sizeof(*a->succ));
	for (size_t x = 0; x < g->nnodes; x++) {
		a->succ_start[x] = k;
		for (size_t s = a->out_start[x]; s < a->out_start[x + 1]; s++) {
			size_t y = g->edges[a->out[s]].to;

			if (k == a->succ_start[x] || a->succ[k - 1] != y)
				a->succ[k++] = y;
		}
	}
	a->succ_start[g->nnodes] = k;
}

void adj_build(const struct graph *g, struct adj *a)
{
	memset(a, 0, sizeof(*a));
	a->n = g->nnodes;
	build_out(g, a);
	build_succ(g, a);
}

void adj_free(struct adj *a)
{
	free(a->out_start);
	free(a->out);
	free(a->succ_start);
	free(a->succ);
	memset(a, 0, sizeof(*a));
}

size_t adj_succ_slot(const struct adj *a, size_t x, size_t y)
{
	for (size_t s = a->succ_start[x]; s < a->succ_start[x + 1]; s++)
		if (a->succ[s] == y)
			return s;
	return (size_t)-1;
}
