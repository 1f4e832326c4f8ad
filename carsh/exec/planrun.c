/* One job in the process that runs it (exec/planrun.h). */
#include "exec/planrun.h"

#include <string.h>

#include "exec/stage.h"
#include "util/clock.h"

static int stage_in_hook(void *arg, struct cs_err *e)
{
	return stage_in(arg, e);
}

int plan_run_in(struct rt_session *s, struct job_plan *jp, struct job_result *res)
{
	struct cs_err e;
	double t0 = clock_ms();
	int rc;

	err_clear(&e);
	if (s)
		rc = rt_run_plan_on(s, &jp->kp, stage_in_hook, jp, &res->stats, &e);
	else
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
