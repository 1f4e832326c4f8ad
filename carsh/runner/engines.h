/*
 * The adaptive engines run for the shell: the file's executable or pipeline planned in the
 * caller's scope, its virtual buffers claimed, and the statistics added, around the engines
 * of engines/. Both run on the thread executor's runtime of the process they run in: the
 * engine's child under the process executor (runner/engineproc.h), the shell's process
 * under the thread executor.
 */
#ifndef CARSH_RUNNER_ENGINES_H
#define CARSH_RUNNER_ENGINES_H

#include <stdbool.h>

#include "engines/partition/partition.h"
#include "engines/pipeline/pipeline.h"
#include "runner/context.h"

/* Partition the <CarshExe> or <FlowModel> path, with the words after it (NAME=VALUE,
 * STREAM=FILE), under o. On success res holds the result (part_result_free) and
 * *stdout_taken says whether a stream wrote standard output (a summary then goes to
 * standard error). Messages start with "partition: ". */
int run_partition(struct run_ctx *c, const char *path, int n, char **words, struct part_opts *o,
                  struct part_result *res, bool *stdout_taken, struct cs_err *e);

/* partition --profile (engines/partition/kb.h): print the knowledge base's entries, or
 * forget them all (path NULL) or those of the flow-model of the executable or flow-model
 * file path, saying how many in *gone. warn gets a warning for the front end (a file that
 * was not used), "" when there is none. Messages start with "partition: --profile". */
int partition_profile_show(FILE *f, char *warn, size_t n, struct cs_err *e);
int partition_profile_forget(const char *path, size_t *gone, char *warn, size_t n,
                             struct cs_err *e);

/* Reports a pipeline's result; it refers to the pipeline's description, which lives only
 * as long as the run. */
typedef void (*pipe_report)(struct run_ctx *c, const struct pipe_result *res, void *arg);

/* Run the pipeline file path with the parameters args under o, and report(c, result, arg)
 * when it succeeded. Messages start with "pipeline: ". */
int run_pipeline(struct run_ctx *c, const char *path, const struct params *args,
                 struct pipe_opts *o, pipe_report report, void *arg, struct cs_err *e);

#endif
