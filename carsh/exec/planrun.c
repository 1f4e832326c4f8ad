/* One job in the process that runs it (exec/planrun.h). */
#include "exec/planrun.h"

#include <string.h>

#include "exec/stage.h"
#include "util/clock.h"

struct staging {
	struct job_plan *jp;
	struct run_stats *st;
};

static int stage_in_hook(void *arg, struct cs_err *e)
{
	struct staging *g = arg;
	double t0 = clock_ms();
	int rc = stage_in(g->jp, e);

	g->st->in_ms += stage_files_ms(g->jp, t0);
	return rc;
}

int plan_run_in(struct rt_session *s, struct job_plan *jp, struct job_result *res)
{
	struct cs_err e;
	struct staging g = {jp, &res->stats};
	double t0 = clock_ms(), t_out;
	int rc;

	err_clear(&e);
	if (s)
		rc = rt_run_plan_on(s, &jp->kp, stage_in_hook, &g, &res->stats, &e);
	else
		rc = rt_run_plan(&jp->kp, stage_in_hook, &g, &res->stats, &e);
	if (rc == 0) {
		res->has_stats = true;
		t_out = clock_ms();
		rc = stage_out(jp, &e);
		res->stats.out_ms += stage_files_ms(jp, t_out);
		if (rc)
			err_prefix(&e, "%s: ", jp->kp.label);
	}
	res->stats.wall_ms = clock_ms() - t0;
	job_result_set_msg(res, &e);
	return rc ? 1 : 0;
}
