/*
 * Running what a file names (DESIGN §3): an executable, a flow-model with its streams bound
 * on the line, a batch or a pipeline graph, in the foreground or, with c->background, as a
 * background job.
 */
#ifndef CARSH_RUNNER_RUN_H
#define CARSH_RUNNER_RUN_H

#include "data/params.h"
#include "model/exe.h"
#include "runner/context.h"
#include "runner/graphrun.h"

/* Run the file path with the words after it (NAME=VALUE, STREAM=FILE|-|fill:V|buffer:B|
 * discard; a graph's NODE.STREAM=DATA too) and, for a graph, the options go (NULL: the
 * defaults). Returns the status (2 for a usage error) with the message in e. */
int run_file(struct run_ctx *c, const char *path, int n, char **words,
             const struct graph_run_opts *go, struct cs_err *e);

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
