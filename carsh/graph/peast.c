/*
 * Algorithm 3 (004 §4.3.5) for one spanning tree: depths, the consistency shift and the
 * execute matrix, split into the startup and the repeat batch.
 *
 * Depths. 004 takes the tree depth and ignores advancing and cross edges: "the edge can be
 * treated as tree edge" (§4.3.4). A cross edge x -> y may join nodes of equal depth, or point
 * upwards, and would then put a consumer in the same stage as its producer, or before it. We
 * treat every non-retreating connection as a tree edge in the sense of the depth: a node's
 * depth is its longest distance from the root over tree, advancing and cross edges. Those
 * edges form an acyclic graph whose topological order is Algorithm 2's reverse postorder,
 * and on a graph whose non-tree edges all retreat this is the tree depth.
 *
 * The consistency shift. 004 shifts by max_retreat_offset, the number of nodes on the tree
 * path closed by a retreating edge (depth[x] - depth[y] + 1), or by 2 when there is none,
 * reasoning that "nodes connected by an edge also have a retreating edge" (§4.3.4): a
 * producer may only run again after its consumer has read the stream. That reasoning holds
 * for every edge: one spanning d stages needs a shift above d, or the producer's next run
 * overwrites the stream before the consumer reads it (for d == shift, in the same stage).
 * We take the largest depth difference + 1 over all edges, and at least 2, which is
 * 004's value whenever the non-tree edges all retreat. Algorithm 3's listing compares
 * max_retreat_offset with the difference but stores the difference + 1; we compare like
 * with like.
 */
#include <stdlib.h>
#include <string.h>

#include "graph/peast.h"
#include "util/alloc.h"

/* Longest distance from the root over non-retreating connections, in reverse postorder. */
static void stage_depths(const struct adj *a, const struct spantree *t, size_t *depth)
{
	size_t *order = xcalloc(a->n + 1, sizeof(*order));

	for (size_t x = 0; x < a->n; x++) {
		order[t->nrpost[x] - 1] = x;
		depth[x] = 0;
	}
	for (size_t i = 0; i < a->n; i++) {
		size_t x = order[i];

		for (size_t s = a->succ_start[x]; s < a->succ_start[x + 1]; s++)
			if (t->cls[s] != EC_RETREATING && depth[a->succ[s]] < depth[x] + 1)
				depth[a->succ[s]] = depth[x] + 1;
	}
	free(order);
}

static size_t consistency_shift(const struct graph *g, const size_t *depth)
{
	size_t shift = 2;

	for (size_t i = 0; i < g->nedges; i++) {
		size_t dx = depth[g->edges[i].from], dy = depth[g->edges[i].to];
		size_t span = (dx > dy ? dx - dy : dy - dx) + 1;

		if (g->edges[i].from != g->edges[i].to && span > shift)
			shift = span;
	}
	return shift;
}

/* Algorithm 3: for (i = 0; i * move < max_stage; i++) every node j goes to stage
 * depth[j] + i * move when that is below max_stage. Two passes: count, then fill. */
static void execute_matrix(const struct graph *g, struct peast_plan *p)
{
	size_t *fill = xcalloc(p->ndepth + 1, sizeof(*fill));

	p->nstages = p->ndepth;
	p->stage_start = xcalloc(p->ndepth + 1, sizeof(*p->stage_start));
	for (size_t i = 0; i * p->shift < p->ndepth; i++)
		for (size_t j = 0; j < g->nnodes; j++)
			if (p->depth[j] + i * p->shift < p->ndepth)
				p->stage_start[p->depth[j] + i * p->shift + 1]++;
	for (size_t s = 0; s < p->ndepth; s++)
		p->stage_start[s + 1] += p->stage_start[s];
	p->stage_node = xcalloc(p->stage_start[p->ndepth] + 1, sizeof(*p->stage_node));
	for (size_t i = 0; i * p->shift < p->ndepth; i++) {
		for (size_t j = 0; j < g->nnodes; j++) {
			size_t s = p->depth[j] + i * p->shift;

			if (s < p->ndepth)
				p->stage_node[p->stage_start[s] + fill[s]++] = j;
		}
	}
	free(fill);
}

static void mark_feedback(const struct graph *g, const struct adj *a, const struct spantree *t,
                          struct peast_plan *p)
{
	p->feedback = xcalloc(g->nedges + 1, sizeof(*p->feedback));
	for (size_t i = 0; i < g->nedges; i++)
		p->feedback[i] =
		        spantree_class(t, a, g->edges[i].from, g->edges[i].to) == EC_RETREATING;
}

void peast_plan_build(const struct graph *g, const struct adj *a, const struct spantree *t,
                      struct peast_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->root = t->root;
	p->depth = xcalloc(g->nnodes + 1, sizeof(*p->depth));
	stage_depths(a, t, p->depth);
	for (size_t j = 0; j < g->nnodes; j++)
		if (p->depth[j] + 1 > p->ndepth)
			p->ndepth = p->depth[j] + 1;
	p->shift = consistency_shift(g, p->depth);
	execute_matrix(g, p);
	/* "The repeat batch is the last n rows of the matrix where n is the consistency shift.
	 * The remaining row(s) are the startup." */
	p->nstartup = p->nstages > p->shift ? p->nstages - p->shift : 0;
	for (size_t s = 0; s < p->nstages; s++)
		if (peast_stage_size(p, s) > p->parallelism)
			p->parallelism = peast_stage_size(p, s);
	mark_feedback(g, a, t, p);
}

void peast_plan_free(struct peast_plan *p)
{
	free(p->depth);
	free(p->stage_start);
	free(p->stage_node);
	free(p->feedback);
	memset(p, 0, sizeof(*p));
}

size_t peast_stage_size(const struct peast_plan *p, size_t stage)
{
	return p->stage_start[stage + 1] - p->stage_start[stage];
}

void peast_print(FILE *f, const struct graph *g, const struct peast_plan *p)
{
	for (size_t s = 0; s < p->nstages; s++) {
		fputs(s < p->nstartup ? "startup\t" : "repeat\t", f);
		for (size_t k = p->stage_start[s]; k < p->stage_start[s + 1]; k++)
			fprintf(f, "%s%s", k > p->stage_start[s] ? " " : "",
			        g->nodes[p->stage_node[k]].name);
		fputc('\n', f);
	}
	fprintf(f, "shift\t%zu\nroot\t%s\n", p->shift, g->nodes[p->root].name);
}
