/*
 * Cyclic paths of a pipeline graph and the first three phases of Algorithm 1 (004 §4.2.9):
 * 1) identify all cyclic paths, 2) sort them by number of nodes, 3) reduce the list to the
 * true cyclic paths. Phase 4 is in deadlock.c.
 */
#ifndef CARSH_GRAPH_CYCLES_H
#define CARSH_GRAPH_CYCLES_H

#include <stdbool.h>
#include <stddef.h>

#include "graph/adj.h"
#include "model/graph.h"

/* A cyclic path, identified by its edges and not only its nodes (004 §4.2.9: two
 * flow-models may be joined by several streams). It has as many nodes as edges. */
struct cycle {
	size_t *edges; /* in path order, starting at the path's lowest-numbered node */
	size_t n;
};

struct cycle_list {
	struct cycle *v;
	size_t n, cap;
};

/* Phase 1 stops with an error beyond this many cyclic paths, or edges in them all. */
#define CYCLES_MAX       200000
#define CYCLES_MAX_EDGES (1u << 22)

void cycle_list_add(struct cycle_list *l, const size_t *edges, size_t n);
void cycle_list_free(struct cycle_list *l);
bool cycle_has_edge(const struct cycle *c, size_t edge);

/* Phase 1, with the first optimisation of 004 §4.2.10: only elementary cyclic paths are
 * listed (a path that holds another cyclic path inside is never stored). */
int cycles_find(const struct graph *g, const struct adj *a, struct cycle_list *out,
                struct cs_err *e);
/* Phase 2: a stable merge sort by number of nodes, ascending. */
void cycles_sort(struct cycle_list *l);
/* Phase 3: remove every path that includes an earlier (not longer) path of the sorted list;
 * with the second optimisation of §4.2.10 only paths of the same length are compared.
 * Returns how many were removed. */
size_t cycles_drop_included(struct cycle_list *l);
/* Phase 3, "considering the already initialized edges": remove the paths that hold an
 * INITONCE edge, and mark those edges in on_cycle (one flag per edge). Returns how many. */
size_t cycles_drop_initialised(const struct graph *g, struct cycle_list *l,
                               unsigned char *on_cycle);

#endif
