/* time: run a command and report its wall time and its jobs' OpenCL timings. */
#include "cmd/cmd.h"
#include "util/clock.h"

static int cmd_time_exec(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e)
{
	struct stats_acc acc = {0, {0}};
	struct cmd_ctx inner = *c;
	double t0 = clock_ms();
	int rc;

	inner.stats = &acc;
	rc = cmd_exec_argv(&inner, argc - 1, argv + 1, e);
	if (cmd_flush(&inner, e) && rc == 0)
		rc = 1;
	stats_print(stderr, &acc, clock_ms() - t0);
	stats_merge(c->stats, &acc);
	c->timed = true;
	return rc;
}

const struct carsh_cmd cmd_time = {
        .name = "time",
        .usage = "time COMMAND [ARG]...",
        .summary = "run a command; print wall time and build, transfer, kernel and swap times",
        .min_args = 1,
        .max_args = -1,
        .exec = cmd_time_exec,
};
