/* Running a text of commands: the loop behind -c, scripts, stdin, `source` and <Command>. */
#ifndef CARSH_CMD_SCRIPT_H
#define CARSH_CMD_SCRIPT_H

#include "cmd/cmd.h"

/* A text_runner (see runner/shellstate.h). */
int script_run(struct session *s, const char *text, const char *file, int first_line,
               const struct run_ctx *parent, bool stop_on_error);

#endif
