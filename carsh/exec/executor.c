#include "exec/executor.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "exec/stage.h"
#include "util/clock.h"

static int stage_in_hook(void *arg, struct cs_err *e)
{
	return stage_in(arg, e);
}

/* The child's whole life: data in, kernel, data out. */
static int plan_child(void *arg, struct job_result *res)
{
	struct job_plan *jp = arg;
	struct cs_err e;
	double t0 = clock_ms();
	int rc;

	err_clear(&e);
	rc = rt_run_plan(&jp->kp, stage_in_hook, jp, &res->stats, &e);
	if (rc == 0) {
		res->has_stats = true;
		rc = stage_out(jp, &e);
		if (rc)
			err_prefix(&e, "%s: ", jp->kp.label);
	}
	res->stats.wall_ms = clock_ms() - t0;
	memcpy(res->msg, e.msg, sizeof(res->msg));
	return rc ? 1 : 0;
}

static int collect(int wstatus, const struct job_result *res, struct cs_err *e)
{
	char how[64];

	if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)
		return 0;
	if (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGINT) {
		err_set(e, "interrupted");
	} else if (res->msg[0]) {
		memcpy(e->msg, res->msg, sizeof(e->msg));
	} else {
		proc_describe(wstatus, how, sizeof(how));
		err_set(e, "the job was %s", how);
	}
	return proc_status(wstatus) ? proc_status(wstatus) : 1;
}

static int run_foreground(child_fn fn, void *arg, const struct child_io *io,
                          volatile sig_atomic_t *interrupted, struct job_result **res,
                          struct cs_err *e)
{
	pid_t pid;
	int ws;

	if (proc_start(fn, arg, false, io, &pid, res, e))
		return 1;
	if (proc_wait_foreground(pid, interrupted, &ws) != 1) {
		err_errno(e, "waiting for the job");
		return 1;
	}
	return collect(ws, *res, e);
}

int exec_plan_foreground(struct job_plan *jp, const struct child_io *io,
                         volatile sig_atomic_t *interrupted, struct run_stats *st, bool *has_stats,
                         struct cs_err *e)
{
	struct job_result *res = NULL;
	int rc = run_foreground(plan_child, jp, io, interrupted, &res, e);

	*has_stats = res && res->has_stats && rc == 0;
	if (*has_stats)
		*st = res->stats;
	proc_result_free(res);
	return rc;
}

int exec_plan_background(struct jobs *js, struct job_plan *jp, const char *label,
                         const struct child_io *io, int *id, pid_t *pid, struct cs_err *e)
{
	struct job_result *res;

	if (proc_start(plan_child, jp, true, io, pid, &res, e))
		return -1;
	*id = jobs_add_process(js, *pid, res, label);
	return 0;
}

int exec_child_foreground(child_fn fn, void *arg, const struct child_io *io,
                          volatile sig_atomic_t *interrupted, struct cs_err *e)
{
	struct job_result *res = NULL;
	int rc = run_foreground(fn, arg, io, interrupted, &res, e);

	proc_result_free(res);
	return rc;
}
