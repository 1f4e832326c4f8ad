/*
 * The other side of runner/engineproc.h under the thread executor: `carsh --engine-child`,
 * the carsh program started afresh by the shell to run an engine's command (partition,
 * pipeline) apart from the shell's process. For each run frame on its socket (descriptor 4,
 * runner/enginekeep.h) it takes the run's standard streams and directory, adopts the
 * session's virtual buffers (runner/enginespec.h), runs the command again with its
 * caller's parameters, leaves the buffers it writes and its result in the report area on
 * descriptor 3 and answers. The shell prints the message; this process prints only what
 * the command itself writes.
 */
#ifndef CARSH_RUNNER_ENGINECHILD_H
#define CARSH_RUNNER_ENGINECHILD_H

#include "runner/context.h"

/* Runs argv in c: the dispatcher's (cmd/cmd.h), handed down by the layer above. */
typedef int (*engine_rerun)(struct run_ctx *c, int argc, char **argv, struct cs_err *e);

/* The whole process: never returns. It ends when the socket closes between runs (0), after
 * a run that failed (its status), on a frame it cannot read (127), or at once, after a line
 * on standard error, with 2 when descriptors 3 and 4 are not the shell's report memfd and
 * socket (`carsh --engine-child` typed by hand). */
void __attribute__((noreturn)) engine_child_main(engine_rerun rerun);

#endif
