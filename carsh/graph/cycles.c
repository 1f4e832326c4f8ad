/*
 * Phase 1 of Algorithm 1 (004 §4.2.9, Figure 19): every elementary cyclic path.
 *
 * Figure 19 walks the outputs recursively from every node and stores the current path when
 * the walk comes back to a node already on it. The first optimisation of §4.2.10 dismisses
 * paths that hold another cyclic path inside (node0 -> node1 -> node2 -> node1 -> node0), so
 * only elementary paths are kept. We root each walk at its lowest-numbered node s and only
 * step onto nodes above s, so that every elementary path is found exactly once, from its
 * lowest node, and block nodes from which s cannot be reached again (Johnson's blocking,
 * SIAM J. Comput. 4(1), 1975): the walk costs O(V + E) per cyclic path found rather than
 * one step per simple path of the graph.
 */
#include <stdlib.h>
#include <string.h>

#include "graph/cycles.h"
#include "util/alloc.h"

struct walk {
	const struct graph *g;
	const struct adj *a;
	size_t s;      /* the lowest node of the paths found now */
	bool *blocked; /* on the path, or cannot reach s without crossing the path */
	size_t **bl;   /* Johnson's B lists: nodes to unblock with this one */
	size_t *bn, *bcap;
	size_t *path; /* edges from s */
	size_t depth;
	size_t edges; /* in all paths found */
	struct cycle_list *out;
	struct cs_err *e;
};

void cycle_list_add(struct cycle_list *l, const size_t *edges, size_t n)
{
	struct cycle *c;

	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	c = &l->v[l->n++];
	c->n = n;
	c->edges = xmalloc(n * sizeof(*c->edges));
	memcpy(c->edges, edges, n * sizeof(*edges));
}

void cycle_list_free(struct cycle_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].edges);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

bool cycle_has_edge(const struct cycle *c, size_t edge)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->edges[i] == edge)
			return true;
	return false;
}

static void unblock(struct walk *w, size_t u)
{
	w->blocked[u] = false;
	while (w->bn[u]) {
		size_t v = w->bl[u][--w->bn[u]];

		if (w->blocked[v])
			unblock(w, v);
	}
}

/* Remember that v is to be unblocked when t is. */
static void block_behind(struct walk *w, size_t t, size_t v)
{
	for (size_t i = 0; i < w->bn[t]; i++)
		if (w->bl[t][i] == v)
			return;
	w->bl[t] = xgrow(w->bl[t], &w->bcap[t], w->bn[t] + 1, sizeof(**w->bl));
	w->bl[t][w->bn[t]++] = v;
}

static int record(struct walk *w)
{
	w->edges += w->depth;
	if (w->out->n == CYCLES_MAX || w->edges > CYCLES_MAX_EDGES)
		return err_set(w->e,
		               "%s: more than %d cyclic paths (or %u edges in them); the cycle "
		               "search lists every one, which is too many here: split the graph",
		               w->g->file, CYCLES_MAX, CYCLES_MAX_EDGES);
	cycle_list_add(w->out, w->path, w->depth);
	return 0;
}

static int circuit(struct walk *w, size_t v, bool *found);

/* Follow one output edge of the node at the end of the path. */
static int step(struct walk *w, size_t edge, bool *found)
{
	size_t t = w->g->edges[edge].to;
	bool f = false;
	int rc = 0;

	w->path[w->depth++] = edge;
	if (t == w->s)
		rc = record(w), f = true;
	else if (!w->blocked[t])
		rc = circuit(w, t, &f);
	w->depth--;
	*found |= f;
	return rc;
}

static int circuit(struct walk *w, size_t v, bool *found)
{
	const struct adj *a = w->a;

	*found = false;
	w->blocked[v] = true;
	for (size_t k = a->out_start[v]; k < a->out_start[v + 1]; k++)
		if (w->g->edges[a->out[k]].to >= w->s && step(w, a->out[k], found))
			return -1;
	if (*found) {
		unblock(w, v);
		return 0;
	}
	for (size_t k = a->out_start[v]; k < a->out_start[v + 1]; k++)
		if (w->g->edges[a->out[k]].to >= w->s)
			block_behind(w, w->g->edges[a->out[k]].to, v);
	return 0;
}

static void walk_free(struct walk *w)
{
	for (size_t i = 0; i < w->g->nnodes; i++)
		free(w->bl[i]);
	free(w->bl);
	free(w->bn);
	free(w->bcap);
	free(w->blocked);
	free(w->path);
}

int cycles_find(const struct graph *g, const struct adj *a, struct cycle_list *out,
                struct cs_err *e)
{
	struct walk w = {.g = g, .a = a, .out = out, .e = e};
	size_t n = g->nnodes;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	w.blocked = xcalloc(n + 1, sizeof(*w.blocked));
	w.bl = xcalloc(n + 1, sizeof(*w.bl));
	w.bn = xcalloc(n + 1, sizeof(*w.bn));
	w.bcap = xcalloc(n + 1, sizeof(*w.bcap));
	w.path = xcalloc(n + 1, sizeof(*w.path));
	for (w.s = 0; w.s < n && rc == 0; w.s++) {
		bool found;

		for (size_t i = w.s; i < n; i++) {
			w.blocked[i] = false;
			w.bn[i] = 0;
		}
		rc = circuit(&w, w.s, &found);
	}
	walk_free(&w);
	if (rc)
		cycle_list_free(out);
	return rc;
}
