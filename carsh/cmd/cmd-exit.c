/* exit: leave the shell. */
#include <stdlib.h>

#include "cmd/cmd.h"

static int exit_run(struct run_ctx *c, void *args, int n, char **words, struct cs_err *e)
{
	int status = c->s->last_status;

	(void)args;
	if (n > 0) {
		char *end;
		long v = strtol(words[0], &end, 10);

		if (*end || end == words[0] || v < 0 || v > 255)
			return cmd_error(e, 2, "exit: '%s': expected a status from 0 to 255",
			                 words[0]);
		status = (int)v;
	}
	c->s->exit_requested = true;
	c->s->exit_status = status;
	return status;
}

const struct carsh_cmd cmd_exit = {
        .name = "exit",
        .summary = "leave the shell (with the last command's status, or STATUS)",
        .args = {.usage = "exit [STATUS]", .min = 0, .max = 1},
        .run = exit_run,
};
