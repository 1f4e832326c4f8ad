/*
 * Algorithm 1 of 004 (§4.2.8-4.2.10): the edges of a pipeline graph that must be initialised
 * so that its execution cannot deadlock, with the list of true cyclic paths it starts from.
 */
#ifndef CARSH_GRAPH_DEADLOCK_H
#define CARSH_GRAPH_DEADLOCK_H

#include <stdio.h>

#include "graph/cycles.h"
#include "model/graph.h"

enum init_mark {
	INIT_NO,       /* not initialised */
	INIT_DECLARED, /* an INITONCE edge on a cyclic path: the file already initialises it */
	INIT_NEEDED,   /* on a cyclic path without INITONCE edge: must be initialised */
};

struct deadlock {
	unsigned char *mark;     /* enum init_mark, one per edge */
	size_t ncycles;          /* true cyclic paths (after phase 3's first reduction) */
	size_t nopen;            /* of those, the ones without an INITONCE edge */
	struct cycle first_open; /* the shortest of them (for messages); n == 0 when none */
};

/* Phase 4: walk the true cyclic paths in order; for each one no selected edge breaks yet,
 * select the edge shared by most of the paths still open (ties: the edge that closes the
 * path at its lowest node, then path order) and drop every path holding it. The selected
 * edges are marked INIT_NEEDED in mark[]. */
void cycles_select(const struct graph *g, const struct cycle_list *l, unsigned char *mark);

/* All four phases. Fails only when the graph has too many cyclic paths. */
int deadlock_find(const struct graph *g, struct deadlock *d, struct cs_err *e);
void deadlock_free(struct deadlock *d);
/* "init FROM TO" for every edge to initialise, in file order. */
void deadlock_print(FILE *f, const struct graph *g, const struct deadlock *d);
/* "A -> B -> A" (new string). */
char *cycle_text(const struct graph *g, const struct cycle *c);

#endif
