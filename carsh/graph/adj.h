/*
 * Adjacency of a pipeline graph, in the order the algorithms visit it: a node's successors in
 * node order (Algorithm 2's `for (y = 0; y < N; y++) if (edges[x][y].connect)`), and its
 * output edges sorted by target node, then by file order (Algorithm 1 walks edges, since two
 * flow-models may be joined by several streams, 004 §4.2.9).
 */
#ifndef CARSH_GRAPH_ADJ_H
#define CARSH_GRAPH_ADJ_H

#include <stddef.h>

#include "model/graph.h"

struct adj {
	size_t n;
	size_t *out_start;  /* n + 1 offsets into out */
	size_t *out;        /* edge indices */
	size_t *succ_start; /* n + 1 offsets into succ */
	size_t *succ;       /* distinct successor nodes, ascending */
};

void adj_build(const struct graph *g, struct adj *a);
void adj_free(struct adj *a);
/* The slot of y among x's successors, or (size_t)-1. */
size_t adj_succ_slot(const struct adj *a, size_t x, size_t y);

#endif
