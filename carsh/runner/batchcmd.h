/*
 * A batch's <Command> that is one run of an executable: `run FILE.xml NAME=VALUE...` alone
 * on its line, FILE a flow-model or a CarshExe. Such a command runs as an <Exec> step does
 * (runner/batchrun.c): its job joins the batch's window of jobs in flight instead of
 * collecting it and being waited for alone. The FFT filter's steps choose their filter so,
 * by a parameter in the executable's name, which <Exec file=""> cannot.
 */
#ifndef CARSH_RUNNER_BATCHCMD_H
#define CARSH_RUNNER_BATCHCMD_H

#include <stdbool.h>

#include "data/params.h"
#include "model/command.h"

/* Whether text, its ${NAME} taken from caller (and the environment, as the shell does), is
 * such a command; *cmd (COMMAND_INIT) holds its words then, the executable's path argv[1]
 * relative to the current directory. A line the shell would refuse is not: the shell
 * reports it as before. */
bool batchcmd_single_run(const char *text, const struct scope *caller, struct command *cmd);

#endif
