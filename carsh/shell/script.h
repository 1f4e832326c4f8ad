/* Running a text of commands: the loop behind -c, scripts, stdin, `source` and <Command>. */
#ifndef CARSH_SHELL_SCRIPT_H
#define CARSH_SHELL_SCRIPT_H

#include "cmd/session.h"

/* A text_runner (see cmd/session.h). */
int script_run(struct session *s, const char *text, const char *file, int first_line,
               const struct scope *caller, bool stop_on_error);

#endif
