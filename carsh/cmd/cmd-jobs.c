/* jobs: list background jobs. */
#include "cmd/cmd.h"

static int cmd_jobs_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	(void)argc;
	(void)argv;
	jobs_print(c->jobs, c->out, stderr);
	if (fflush(c->out) != 0)
		return cmd_errno(e, 1, "jobs: write error");
	return 0;
}

const struct carsh_cmd cmd_jobs = {
        .name = "jobs",
        .usage = "jobs",
        .summary = "list background jobs: [N], process, state, file (and where `auto` ran it)",
        .min_args = 0,
        .max_args = 0,
        .exec = cmd_jobs_exec,
};
