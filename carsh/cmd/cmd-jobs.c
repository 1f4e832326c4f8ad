/* jobs: list background jobs. */
#include "cmd/cmd.h"

static int jobs_run(struct run_ctx *c, void *args, int n, char **words, struct cs_err *e)
{
	(void)args;
	(void)n;
	(void)words;
	jobs_print(c->jobs, c->out, stderr);
	if (fflush(c->out) != 0)
		return cmd_errno(e, 1, "jobs: write error");
	return 0;
}

const struct carsh_cmd cmd_jobs = {
        .name = "jobs",
        .summary = "list background jobs: [N], process, state, file (and where `auto` ran it)",
        .args = {.usage = "jobs", .min = 0, .max = 0},
        .run = jobs_run,
};
