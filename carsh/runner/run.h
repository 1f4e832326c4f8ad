/*
 * Running what a file names (DESIGN §3): an executable, a flow-model with its streams bound
 * on the line, a batch or a pipeline graph, in the foreground or, with c->background, as a
 * background job.
 */
#ifndef CARSH_RUNNER_RUN_H
#define CARSH_RUNNER_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "data/params.h"
#include "model/exe.h"
#include "runner/context.h"

/* How a graph runs (`run GRAPH.xml`'s options; no other kind of file takes them). */
struct graph_run_opts {
	size_t items;             /* 0: as many as the entrance file patterns name, else 1 */
	const char *root;         /* PEA-ST's root node, or NULL: the best */
	const char *max_parallel; /* the most runs a stage may hold, or NULL (as typed) */
	bool serial;              /* the runs one at a time, item after item */
	bool trace;               /* the plan and every step on standard error */
	bool report;              /* one line of timings at the end */
};

/* Run the file path with the words after it (NAME=VALUE, STREAM=FILE|-|fill:V|buffer:B|
 * discard; a graph's NODE.STREAM=DATA too) and, for a graph, the options go (NULL: the
 * defaults). Returns the status (2 for a usage error) with the message in e. */
int run_file(struct run_ctx *c, const char *path, int n, char **words,
             const struct graph_run_opts *go, struct cs_err *e);

/*
 * A kind of file `run` runs, known by its root element, as a builtin is by its name: each
 * runner declares its own entry (run.c the executables, batchrun.c the batch, graphrun.c
 * the graph) and filekinds.c lists them. run_file reaches a runner only through its entry:
 * the runners of batches and graphs call run_file for their steps, and run.c calls none of
 * them by name, as cmd/dispatch.c calls no builtin by name.
 */
struct file_kind {
	const char *root; /* its root element: "CarshBat" */
	bool graph_opts;  /* takes struct graph_run_opts */
	bool one_job;     /* in the background the whole file is one job, in a thread of its
	                     own; else its runner starts its jobs itself */
	/* Run the file path with the words after it; go is NULL for a kind without graph_opts,
	 * or where none were given. */
	int (*run)(struct run_ctx *c, const char *path, int n, char **words,
	           const struct graph_run_opts *go, struct cs_err *e);
};

/* The table, NULL-terminated, in the order the error for an unknown root lists them. */
extern const struct file_kind *const file_kinds[];

/* Run an executable already in memory (a batch's inline <CarshExe>, a graph's node); args
 * are the strongest parameters (may be NULL); label names it in messages. */
int run_exe(struct run_ctx *c, const struct exe *exe, const struct params *args, const char *label,
            struct cs_err *e);

/* The executable a file names, with the words after it: a <CarshExe> (the file cache's), or
 * a <FlowModel> wrapped for the line with its streams bound by STREAM=FILE words. NAME=VALUE
 * words go to args. */
struct loaded_exe {
	const struct exe *exe;
	struct exe *wrap; /* owned: the wrapper of a <FlowModel>, else NULL */
	struct params args;
};

/* root: the file's root element (filecache_root), "FlowModel" or "CarshExe". */
int exe_load(const char *path, const char *root, int n, char **words, struct loaded_exe *out,
             struct cs_err *e);
void exe_loaded_free(struct loaded_exe *l);

#endif
