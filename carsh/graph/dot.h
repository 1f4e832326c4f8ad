/* Graphviz DOT for pipeline graphs (dot.c) and batches (dotbatch.c). */
#ifndef CARSH_GRAPH_DOT_H
#define CARSH_GRAPH_DOT_H

#include <stdio.h>

#include "graph/deadlock.h"
#include "graph/peast.h"
#include "model/batch.h"
#include "model/graph.h"

/* Nodes ranked by their PEA-ST stage (p may be NULL: no spanning tree), edges to initialise
 * dashed (red when the file does not mark them INITONCE), feedback edges left out of the
 * ranking, ENTRANCE and EXIT ports as points. */
void dot_graph(FILE *f, const struct graph *g, const struct deadlock *d,
               const struct peast_plan *p);
/* A batch: its steps in order (a <Repeat> as a cluster), each <Exec> between the virtual
 * buffers it reads (bound to its flow-model's Input and InOut streams) and writes (Output
 * and InOut); executables named by file= are read to find them. */
int dot_batch(FILE *f, const struct batch *b, struct cs_err *e);
/* A quoted DOT string. */
void dot_quoted(FILE *f, const char *s);

#endif
