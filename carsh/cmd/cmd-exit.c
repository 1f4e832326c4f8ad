/* exit: leave the shell. */
#include <stdlib.h>

#include "cmd/cmd.h"

static int cmd_exit_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	int status = c->s->last_status;

	if (argc > 1) {
		char *end;
		long v = strtol(argv[1], &end, 10);

		if (*end || end == argv[1] || v < 0 || v > 255)
			return cmd_error(e, 2, "exit: '%s': expected a status from 0 to 255",
			                 argv[1]);
		status = (int)v;
	}
	c->s->exit_requested = true;
	c->s->exit_status = status;
	return status;
}

const struct carsh_cmd cmd_exit = {
        .name = "exit",
        .usage = "exit [STATUS]",
        .summary = "leave the shell (with the last command's status, or STATUS)",
        .min_args = 0,
        .max_args = 1,
        .exec = cmd_exit_exec,
};
