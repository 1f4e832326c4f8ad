/* The conditions a pipeline-model must fulfil (004 §4.2.1). */
#ifndef CARSH_GRAPH_VALIDATE_H
#define CARSH_GRAPH_VALIDATE_H

#include "model/graph.h"

/* 1) one or more EXIT ports, 2) one or more flow-models, 3) every flow-model connected to
 * the others by at least one stream (the graph is connected when edge directions are
 * ignored). Errors: "g.xml: not a pipeline-model (004 §4.2.1): ...". */
int graph_validate(const struct graph *g, struct cs_err *e);

#endif
