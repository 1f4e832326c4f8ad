/* repeat: run a command N times; stops at the first failure. */
#include <stdint.h>

#include "cmd/cmd.h"

static int cmd_repeat_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	long long n;

	if (scope_eval_range(c->caller, argv[1], "repeat count", 0, INT64_MAX, &n, e))
		return cmd_prefix(e, 2, "repeat: ");
	for (long long i = 0; i < n; i++) {
		int rc;

		if (c->interrupted && *c->interrupted)
			return cmd_error(e, 130, "repeat: interrupted before run %lld of %lld",
			                 i + 1, n);
		rc = cmd_exec_argv(c, argc - 2, argv + 2, e);
		if (rc) {
			if (e->msg[0])
				err_prefix(e, "repeat: run %lld of %lld: ", i + 1, n);
			return rc;
		}
	}
	return 0;
}

const struct carsh_cmd cmd_repeat = {
        .name = "repeat",
        .usage = "repeat N COMMAND [ARG]...",
        .summary = "run a command N times (N an integer expression); stops at the first failure",
        .min_args = 2,
        .max_args = -1,
        .exec = cmd_repeat_exec,
};
