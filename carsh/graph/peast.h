/*
 * PEA-ST, the parallelism extraction algorithm with spanning tree (004 §4.3.4-4.3.5,
 * Algorithm 3): from a spanning tree, the stages of a pipelined execution, split into a
 * startup run once and a repeat batch run for every further item.
 */
#ifndef CARSH_GRAPH_PEAST_H
#define CARSH_GRAPH_PEAST_H

#include <stdbool.h>
#include <stdio.h>

#include "graph/spantree.h"
#include "model/graph.h"

struct peast_plan {
	size_t root;
	size_t shift;        /* the consistency shift */
	size_t ndepth;       /* the graph's total depth: rows of the execute matrix */
	size_t *depth;       /* per node: its stage in entry0 */
	size_t nstages;      /* == ndepth */
	size_t *stage_start; /* nstages + 1 offsets into stage_node */
	size_t *stage_node;  /* the execute matrix, row by row */
	size_t nstartup;     /* stages [0, nstartup) are the startup, the rest the repeat batch */
	size_t parallelism;  /* nodes in the largest stage */
	unsigned char *feedback; /* per edge: retreating, so the consumer reads the producer's
	                            previous pass; it must hold initial data before the startup */
};

/* Algorithm 3's main body for one spanning tree (t must span the graph). */
void peast_plan_build(const struct graph *g, const struct adj *a, const struct spantree *t,
                      struct peast_plan *p);
void peast_plan_free(struct peast_plan *p);
size_t peast_stage_size(const struct peast_plan *p, size_t stage);
/* "startup<TAB>A B", "repeat<TAB>...", one line per stage, then "shift<TAB>N", "root<TAB>X". */
void peast_print(FILE *f, const struct graph *g, const struct peast_plan *p);

/* The user conditions of §4.3.5. */
struct peast_opts {
	long root;           /* the only root to try, or -1: every node that reaches all */
	size_t max_parallel; /* largest parallelism allowed; 0: no limit */
};

/* Options given as text (NULL when absent): root names a node; max_parallel is a positive
 * integer. */
int peast_opts_resolve(const struct graph *g, const char *root, const char *max_parallel,
                       struct peast_opts *o, struct cs_err *e);

/* Algorithm 3's main loop: a plan for every root that reaches all nodes, keeping the one with
 * the largest parallelism not above max_parallel, the earliest root on a tie. */
int peast_select(const struct graph *g, const struct peast_opts *o, struct peast_plan *out,
                 struct cs_err *e);

#endif
