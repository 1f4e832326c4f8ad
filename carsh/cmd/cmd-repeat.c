/* repeat: run a command N times, or until a buffer's condition holds; stops at the first
 * failure. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "runner/untilcheck.h"

struct repeat_opts {
	const char *index; /* --index NAME, or NULL */
	const char *until; /* --until COND, or NULL */
	const char *max;   /* --max N */
	struct until cond; /* until, parsed */
	long long n;       /* N, or max with --until */
};

/* After run i of an --until loop: 1 to go on, 0 when the condition holds, else the failed
 * status (2 never: a usage error is found before the first run). */
static int until_next(struct run_ctx *c, const struct repeat_opts *o, long long i, struct cs_err *e)
{
	char why[256];
	int rc = until_check(c, &o->cond, c->caller, why, sizeof(why), e);

	if (rc < 0)
		return -cmd_prefix(e, 1, "repeat: ");
	if (rc == 1)
		return 0;
	if (i + 1 < o->n)
		return 1;
	return -cmd_error(e, 1, "repeat: until '%s' still false after %lld runs (--max %s): %s",
	                  o->until, o->n, o->max, why);
}

/* The runs, with the parameter index (when not NULL) set to 0, 1, ... in a layer above the
 * caller's: the command's flow-model takes it as any parameter. */
static int repeat_runs(struct run_ctx *c, const struct repeat_opts *o, int argc, char **argv,
                       struct cs_err *e)
{
	const struct scope *outer = c->caller;
	struct params layer = PARAMS_INIT;
	struct scope sc;
	int rc = 0, again = 1;

	scope_init(&sc);
	scope_push(&sc, &layer);
	scope_append(&sc, outer);
	if (o->index)
		c->caller = &sc;
	for (long long i = 0; i < o->n && rc == 0 && again > 0; i++) {
		char v[24];

		if (c->interrupted && *c->interrupted) {
			rc = cmd_error(e, 130, "repeat: interrupted before run %lld of %s%lld",
			               i + 1, o->until ? "at most " : "", o->n);
			break;
		}
		snprintf(v, sizeof(v), "%lld", i);
		params_set(&layer, o->index ? o->index : "_", v, "repeat --index");
		rc = cmd_exec_argv(c, argc, argv, e);
		if (rc && e->msg[0])
			err_prefix(e, "repeat: run %lld of %s%lld: ", i + 1,
			           o->until ? "at most " : "", o->n);
		if (rc == 0 && o->until)
			again = until_next(c, o, i, e);
	}
	c->caller = outer;
	params_free(&layer);
	return again < 0 ? -again : rc;
}

/* --index NAME, --until COND and --max N come before the count (none with --until) and the
 * command: the first operand ends them, the command's options are its own. */
static const struct opt repeat_options[] = {
        OPT_STRING("--index", struct repeat_opts, index, "NAME",
                   "the parameter NAME is 0, 1, ... in the runs"),
        OPT_STRING("--until", struct repeat_opts, until, "COND",
                   "'buffer:B OP V': stop once every value of B satisfies it"),
        OPT_STRING("--max", struct repeat_opts, max, "N", "with --until: the most runs"),
        OPT_END,
};

/* The options that go together. */
static int check_opts(const struct repeat_opts *o, struct cs_err *e)
{
	if (o->index && !param_name_valid(o->index))
		return -cmd_error(e, 2,
		                  "repeat: --index '%s' is not a parameter name (a letter or '_', "
		                  "then letters, digits, '_')",
		                  o->index);
	if (!o->until != !o->max)
		return cmd_error(e, 2,
		                 o->until ? "repeat: --until needs --max N (the most runs)"
		                          : "repeat: --max goes with --until");
	return 0;
}

static int repeat_run(struct run_ctx *c, void *args, int argc, char **argv, struct cs_err *e)
{
	struct repeat_opts *o = args;
	int first = 0, rc;
	const char *n;

	if (check_opts(o, e))
		return 2;
	if (!o->until && first < argc)
		n = argv[first++];
	else
		n = o->max;
	if (first >= argc)
		return cmd_error(e, 2, "%s",
		                 o->until   ? "repeat: --until needs COND, --max N and a command"
		                 : o->index ? "repeat: --index needs NAME, N and a command"
		                            : "repeat: needs N and a command");
	if (o->until && until_parse(o->until, &o->cond, e))
		return cmd_prefix(e, 2, "repeat: ");
	if (scope_eval_range(c->caller, n, o->until ? "--max" : "repeat count", o->until ? 1 : 0,
	                     INT64_MAX, &o->n, e))
		rc = cmd_prefix(e, 2, "repeat: ");
	else
		rc = repeat_runs(c, o, argc - first, argv + first, e);
	until_free(&o->cond);
	return rc;
}

const struct carsh_cmd cmd_repeat = {
        .name = "repeat",
        .summary = "run a command N times (an integer expression), or until every value of "
                   "buffer B satisfies OP V after a run (at most N runs); NAME = 0, 1, ... in "
                   "it; stops at the first failure",
        .args = {.usage = "repeat [--index NAME] N COMMAND [ARG]... | repeat [--index NAME] "
                          "--until 'buffer:B OP V' --max N COMMAND [ARG]...",
                 .opts = repeat_options,
                 .flags = OPT_STOP_AT_OPERAND,
                 .min = 1,
                 .max = OPT_ANY},
        .args_size = sizeof(struct repeat_opts),
        .run = repeat_run,
};
