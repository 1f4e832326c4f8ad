/*
 * Phase 4 of Algorithm 1 and the whole algorithm (004 §4.2.9, Figure 19).
 *
 * Phase 4 builds "a list of true cyclic paths without common edges" and from it the list of
 * edges to initialise: when an edge is selected for one path, every later path holding that
 * edge is removed, "because the required initialization was already performed in the
 * former". 004 does not say which edge of a path to select; we take the one shared by most
 * of the paths still open, so that two paths sharing an edge cost one initialisation (the
 * greedy rule for covering sets; the exact minimum is NP-hard in general, see docs/graphs.md).
 */
#include <stdlib.h>
#include <string.h>

#include "graph/deadlock.h"
#include "util/alloc.h"
#include "util/strbuf.h"

/* For every edge, the paths that hold it (compressed rows). */
struct incidence {
	size_t *start; /* nedges + 1 */
	size_t *path;
};

static void incidence_build(const struct graph *g, const struct cycle_list *l, struct incidence *in)
{
	size_t *fill = xcalloc(g->nedges + 1, sizeof(*fill));

	in->start = xcalloc(g->nedges + 1, sizeof(*in->start));
	for (size_t i = 0; i < l->n; i++)
		for (size_t k = 0; k < l->v[i].n; k++)
			in->start[l->v[i].edges[k] + 1]++;
	for (size_t ed = 0; ed < g->nedges; ed++)
		in->start[ed + 1] += in->start[ed];
	in->path = xcalloc(in->start[g->nedges] + 1, sizeof(*in->path));
	for (size_t i = 0; i < l->n; i++) {
		for (size_t k = 0; k < l->v[i].n; k++) {
			size_t ed = l->v[i].edges[k];

			in->path[in->start[ed] + fill[ed]++] = i;
		}
	}
	free(fill);
}

/* The edge of c on most open paths. The path starts at its lowest node, so its last edge
 * closes it there: 004's examples initialise that feedback edge (Figure 28: D->A and C->A,
 * Figure 31: C->B), and it is preferred on a tie. */
static size_t best_edge(const struct cycle *c, const size_t *open_count)
{
	size_t best = c->edges[c->n - 1];

	for (size_t k = 0; k + 1 < c->n; k++)
		if (open_count[c->edges[k]] > open_count[best])
			best = c->edges[k];
	return best;
}

static void close_paths(const struct cycle_list *l, const struct incidence *in, size_t edge,
                        bool *closed, size_t *open_count)
{
	for (size_t j = in->start[edge]; j < in->start[edge + 1]; j++) {
		size_t p = in->path[j];

		if (closed[p])
			continue;
		closed[p] = true;
		for (size_t k = 0; k < l->v[p].n; k++)
			open_count[l->v[p].edges[k]]--;
	}
}

void cycles_select(const struct graph *g, const struct cycle_list *l, unsigned char *mark)
{
	struct incidence in;
	bool *closed = xcalloc(l->n + 1, sizeof(*closed));
	size_t *open_count = xcalloc(g->nedges + 1, sizeof(*open_count));

	incidence_build(g, l, &in);
	for (size_t ed = 0; ed < g->nedges; ed++)
		open_count[ed] = in.start[ed + 1] - in.start[ed];
	for (size_t i = 0; i < l->n; i++) {
		size_t edge;

		if (closed[i])
			continue;
		edge = best_edge(&l->v[i], open_count);
		mark[edge] = INIT_NEEDED;
		close_paths(l, &in, edge, closed, open_count);
	}
	free(in.start);
	free(in.path);
	free(closed);
	free(open_count);
}

static void keep_first_open(const struct cycle_list *l, struct deadlock *d)
{
	if (!l->n)
		return;
	d->first_open.n = l->v[0].n;
	d->first_open.edges = xmalloc(l->v[0].n * sizeof(*d->first_open.edges));
	memcpy(d->first_open.edges, l->v[0].edges, l->v[0].n * sizeof(*l->v[0].edges));
}

int deadlock_find(const struct graph *g, struct deadlock *d, struct cs_err *e)
{
	struct cycle_list l;
	struct adj a;
	unsigned char *on_cycle;
	int rc;

	memset(d, 0, sizeof(*d));
	adj_build(g, &a);
	rc = cycles_find(g, &a, &l, e); /* phase 1 */
	adj_free(&a);
	if (rc)
		return -1;
	cycles_sort(&l);          /* phase 2 */
	cycles_drop_included(&l); /* phase 3 */
	d->ncycles = l.n;
	on_cycle = xcalloc(g->nedges + 1, sizeof(*on_cycle));
	cycles_drop_initialised(g, &l, on_cycle);
	d->mark = xcalloc(g->nedges + 1, sizeof(*d->mark));
	for (size_t ed = 0; ed < g->nedges; ed++)
		d->mark[ed] = on_cycle[ed] ? INIT_DECLARED : INIT_NO;
	free(on_cycle);
	d->nopen = l.n;
	keep_first_open(&l, d);
	cycles_select(g, &l, d->mark); /* phase 4 */
	cycle_list_free(&l);
	return 0;
}

void deadlock_free(struct deadlock *d)
{
	free(d->mark);
	free(d->first_open.edges);
	memset(d, 0, sizeof(*d));
}

void deadlock_print(FILE *f, const struct graph *g, const struct deadlock *d)
{
	for (size_t ed = 0; ed < g->nedges; ed++) {
		char *ends;

		if (d->mark[ed] == INIT_NO)
			continue;
		ends = graph_edge_ends(g, ed);
		fprintf(f, "init %s\n", ends);
		free(ends);
	}
}

char *cycle_text(const struct graph *g, const struct cycle *c)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t k = 0; k < c->n; k++)
		sb_addf(&sb, "%s -> ", g->nodes[g->edges[c->edges[k]].from].name);
	if (c->n)
		sb_adds(&sb, g->nodes[g->edges[c->edges[0]].from].name);
	return sb_detach(&sb);
}
