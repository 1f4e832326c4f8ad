/* unset: remove variables. */
#include "cmd/cmd.h"

static int cmd_unset_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	for (int i = 1; i < argc; i++)
		if (!params_unset(c->vars, argv[i]))
			return cmd_error(e, 1, "unset: %s: no such variable", argv[i]);
	return 0;
}

const struct carsh_cmd cmd_unset = {
        .name = "unset",
        .usage = "unset NAME...",
        .summary = "remove variables",
        .min_args = 1,
        .max_args = -1,
        .exec = cmd_unset_exec,
};
