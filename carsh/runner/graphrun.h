/*
 * Running a pipeline graph (docs/graphs.md, "Running a graph"): `run GRAPH.xml [--items N]`
 * runs PEA-ST's startup batch once and its repeat batch for the stream of items (004
 * §4.3.4), the flow-models of a stage at once, each item's data in buffers of its own.
 */
#ifndef CARSH_RUNNER_GRAPHRUN_H
#define CARSH_RUNNER_GRAPHRUN_H

#include "runner/context.h"

/* Run the <CarshGraph> file path with the words after it (options, NODE.STREAM=DATA
 * bindings, NAME=VALUE parameters). Returns the status with the message in e: 2 for a usage
 * error, 1 for any other failure. */
int graph_run_file(struct run_ctx *c, const char *path, int argc, char **argv, struct cs_err *e);

#endif
