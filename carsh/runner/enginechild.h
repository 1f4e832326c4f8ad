/*
 * The other side of runner/engineproc.h under the thread executor: `carsh --engine-child`,
 * the carsh program started afresh by the shell to run an engine's command (partition,
 * pipeline) apart from the shell's process. It reads the description the shell wrote
 * (runner/enginespec.h) from descriptor 4, adopts the session's virtual buffers, runs the
 * command again with its caller's parameters, and leaves the buffers it writes and its
 * result in the report area on descriptor 3. The shell prints the message; this process
 * prints only what the command itself writes.
 */
#ifndef CARSH_RUNNER_ENGINECHILD_H
#define CARSH_RUNNER_ENGINECHILD_H

#include "runner/context.h"

/* Runs argv in c: the dispatcher's (cmd/cmd.h), handed down by the layer above. */
typedef int (*engine_rerun)(struct run_ctx *c, int argc, char **argv, struct cs_err *e);

/* The whole process: never returns. It ends with the command's status; 127 when it could
 * not read its description (said in the report); 2, after a line on standard error, when
 * descriptors 3 and 4 are not the shell's memfds (`carsh --engine-child` typed by hand). */
void __attribute__((noreturn)) engine_child_main(engine_rerun rerun);

#endif
