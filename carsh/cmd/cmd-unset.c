/* unset: remove variables. */
#include "cmd/cmd.h"

static int unset_run(struct run_ctx *c, void *args, int n, char **names, struct cs_err *e)
{
	(void)args;
	for (int i = 0; i < n; i++)
		if (!params_unset(c->vars, names[i]))
			return cmd_error(e, 1, "unset: %s: no such variable", names[i]);
	return 0;
}

const struct carsh_cmd cmd_unset = {
        .name = "unset",
        .summary = "remove variables",
        .args = {.usage = "unset NAME...", .min = 1, .max = OPT_ANY},
        .run = unset_run,
};
