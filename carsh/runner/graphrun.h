/*
 * Running a pipeline graph (docs/graphs.md, "Running a graph"): `run GRAPH.xml [--items N]`
 * runs PEA-ST's startup batch once and its repeat batch for the stream of items (004
 * §4.3.4), the flow-models of a stage at once, each item's data in buffers of its own.
 */
#ifndef CARSH_RUNNER_GRAPHRUN_H
#define CARSH_RUNNER_GRAPHRUN_H

#include <stdbool.h>
#include <stddef.h>

#include "runner/context.h"

/* How a graph runs (`run GRAPH.xml`'s options). */
struct graph_run_opts {
	size_t items;             /* 0: as many as the entrance file patterns name, else 1 */
	const char *root;         /* PEA-ST's root node, or NULL: the best */
	const char *max_parallel; /* the most runs a stage may hold, or NULL (as typed) */
	bool serial;              /* the runs one at a time, item after item */
	bool trace;               /* the plan and every step on standard error */
	bool report;              /* one line of timings at the end */
};

/* Run the <CarshGraph> file path with the words after it (NODE.STREAM=DATA and STREAM=DATA
 * bindings, NAME=VALUE parameters) and the options go (NULL: the defaults). Returns the
 * status with the message in e: 2 for a usage error, 1 for any other failure. */
int graph_run_file(struct run_ctx *c, const char *path, int argc, char **argv,
                   const struct graph_run_opts *go, struct cs_err *e);

#endif
