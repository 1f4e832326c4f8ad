/* repeat: run a command N times; stops at the first failure. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

/* The runs, with the parameter index (when not NULL) set to 0, 1, ... n-1 in a layer above
 * the caller's: the command's flow-model takes it as any parameter. */
static int repeat_runs(struct run_ctx *c, const char *index, long long n, int argc, char **argv,
                       struct cs_err *e)
{
	const struct scope *outer = c->caller;
	struct params layer = PARAMS_INIT;
	struct scope sc;
	int rc = 0;

	scope_init(&sc);
	scope_push(&sc, &layer);
	scope_append(&sc, outer);
	if (index)
		c->caller = &sc;
	for (long long i = 0; i < n && rc == 0; i++) {
		char v[24];

		if (c->interrupted && *c->interrupted) {
			rc = cmd_error(e, 130, "repeat: interrupted before run %lld of %lld", i + 1,
			               n);
			break;
		}
		snprintf(v, sizeof(v), "%lld", i);
		params_set(&layer, index ? index : "_", v, "repeat --index");
		rc = cmd_exec_argv(c, argc, argv, e);
		if (rc && e->msg[0])
			err_prefix(e, "repeat: run %lld of %lld: ", i + 1, n);
	}
	c->caller = outer;
	params_free(&layer);
	return rc;
}

static int cmd_repeat_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	const char *index = NULL;
	long long n;

	if (strcmp(argv[1], "--index") == 0) {
		if (argc < 5)
			return cmd_error(e, 2, "repeat: --index needs NAME, N and a command");
		index = argv[2];
		if (!param_name_valid(index))
			return cmd_error(
			        e, 2,
			        "repeat: --index '%s' is not a parameter name (a letter or "
			        "'_', then letters, digits, '_')",
			        index);
		argc -= 2;
		argv += 2;
	}
	if (scope_eval_range(c->caller, argv[1], "repeat count", 0, INT64_MAX, &n, e))
		return cmd_prefix(e, 2, "repeat: ");
	return repeat_runs(c, index, n, argc - 2, argv + 2, e);
}

const struct carsh_cmd cmd_repeat = {
        .name = "repeat",
        .usage = "repeat [--index NAME] N COMMAND [ARG]...",
        .summary = "run a command N times (N an integer expression), NAME = 0 to N-1 in it; "
                   "stops at the first failure",
        .min_args = 2,
        .max_args = -1,
        .exec = cmd_repeat_exec,
};
