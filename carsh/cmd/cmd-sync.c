/* sync: wait for background jobs; fails if a waited job failed. */
#include <stdlib.h>

#include "cmd/cmd.h"

static int parse_job(const char *arg, int *id)
{
	char *end;
	long v;

	if (arg[0] != '%')
		return -1;
	v = strtol(arg + 1, &end, 10);
	if (*end || end == arg + 1 || v <= 0 || v > 1000000)
		return -1;
	*id = (int)v;
	return 0;
}

/* Ctrl-C ends the wait quietly with 130, as bash's `wait` does; the jobs it stopped are
 * reported when they end. */
static int sync_jobs(struct run_ctx *c, int id, bool *interrupted, struct cs_err *e)
{
	int rc = jobs_sync_interruptible(c->jobs, id, c->interrupted, e);

	*interrupted = c->interrupted && *c->interrupted;
	if (*interrupted)
		err_clear(e);
	return rc;
}

static int sync_run(struct run_ctx *c, void *args, int n, char **words, struct cs_err *e)
{
	bool interrupted;
	int failed = 0;

	(void)args;
	if (n == 0) {
		int rc = sync_jobs(c, 0, &interrupted, e);

		return interrupted ? JOBS_INTERRUPTED : rc ? cmd_prefix(e, 1, "sync: ") : 0;
	}
	for (int i = 0; i < n; i++) {
		int id, rc;

		if (parse_job(words[i], &id))
			return cmd_error(e, 2,
			                 "sync: '%s': expected %%N (a job number from 'jobs')",
			                 words[i]);
		rc = sync_jobs(c, id, &interrupted, e);
		if (interrupted)
			return JOBS_INTERRUPTED;
		if (rc != 0 && failed == 0) {
			err_prefix(e, "sync: ");
			failed = rc < 0 ? 1 : rc;
		}
	}
	return failed ? 1 : 0;
}

const struct carsh_cmd cmd_sync = {
        .name = "sync",
        .summary = "wait for background jobs (all, or the ones named); fails if one of them failed",
        .args = {.usage = "sync [%JOB...]", .min = 0, .max = OPT_ANY},
        .run = sync_run,
};
