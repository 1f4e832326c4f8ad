/* The partition engine (003 §3-5); see engines/partition/partition.h and docs/partition.md.
 * This file is one command: the plan's checks, staging, setting up, static's profile, the
 * timed run; its parts are listed in partition-int.h. */
#include "engines/partition/partition.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engines/partition/partition-int.h"
#include "exec/stage.h"
#include "model/flowmodel.h"
#include "runtime/abortnote.h"
#include "runtime/launchguard.h"
#include "util/clock.h"

static int check_plan(const struct kernel_plan *kp, const struct part_space *sp,
                      const struct part_stream *ps, struct cs_err *e)
{
	size_t work_items = sp->row_items * sp->rows;

	if (kernel_plan_refuse_images(kp, "the partitioning engine", RUN_INSTEAD, e))
		return -1;
	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];

		if (!arg_is_stream(a->kind))
			continue;
		if (!ps[i].block && a->kind != ARG_INPUT)
			return err_set(
			        e,
			        "stream '%s': an %s must be partition=\"block\" (every device "
			        "writes its own chunks)",
			        a->name, arg_kind_name(a->kind));
		if (ps[i].block && (ps[i].unit == 0 || a->count / ps[i].unit != work_items ||
		                    a->count % ps[i].unit))
			return err_set(
			        e,
			        "stream '%s': partition=\"block\" with unit=%zu needs %zu x %zu "
			        "elements (the global size times the unit), it has %zu",
			        a->name, ps[i].unit, work_items, ps[i].unit, a->count);
	}
	return 0;
}

/* Releases the OpenCL objects before the host arrays that the cores' buffers use. */
static void prun_free(struct prun *r)
{
	part_close_devices(r);
	part_host_free(r);
	free(r->trace);
	free(r->blocks);
	sched_free(r->sched);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
}

/* Static with --gpu-share auto (003 §5.1): every share from 0 to 100 % in 10 % steps, each a
 * whole run; the fastest is the one that runs (and is reported). */
static int profile_static(struct prun *r, struct part_result *res, double *best, struct cs_err *e)
{
	struct energy_reading ignored;
	int rc = 0;
	double best_ms = 0;
	char what[32];

	res->profiled = true;
	for (int p = 0; p < PART_PROFILE_N && rc == 0; p++) {
		double share = p / 10.0, ms;

		snprintf(what, sizeof(what), "profile %3d%%", p * 10);
		r->what = what;
		rc = part_run_all(r, share, &ms, NULL, &ignored, e);
		res->profile_ms[p] = ms;
		if (rc == 0 && (p == 0 || ms < best_ms)) {
			best_ms = ms;
			*best = share;
		}
	}
	r->what = sched_name(r->o->sched);
	return rc;
}

/* The launch gate compares launches in rows: a kernel run over another row shape, or with
 * another local size, has other variants in PoCL and is another key. */
static uint64_t launch_key(const struct kernel_plan *kp, const struct part_space *sp)
{
	uint64_t key = rt_launch_key(kp->kernel, kp->source, kp->build_options);

	for (unsigned d = 0; sp->dims > 1 && d < 3; d++)
		key = (key ^ sp->global[d] ^ ((uint64_t)sp->local[d] << 32)) * 1099511628211u;
	return key;
}

/* The GPU whose energy NVML reads: the one GPU device, else none named (NVML's only device,
 * else all of them: several GPUs, or a core standing in). */
static const char *energy_gpu(const struct prun *r)
{
	return r->gpu && r->ngpu - (r->standin ? 1 : 0) == 1 ? r->dev[r->ncpu + r->ngpu - 1].st.name
	                                                     : NULL;
}

/* The devices, the host data, the buffers, the warm-up; sharing the space, the sharers'
 * agreement on how it went. share: static's, decided here where only one device takes part. */
static int set_up(struct prun *r, double *share, double *build_ms, struct cs_err *e)
{
	int rc;

	r->several_runs = r->o->sched == SCHED_STATIC && *share == PART_SHARE_AUTO;
	rc = part_open_devices(r, build_ms, e);
	rt_abort_note_rearm(); /* the builds may have put a compiler's handler over it */
	rc = rc || part_host_data(r, e) || part_make_args(r, e) || part_warm_up(r, e);
	/* Where only one device can take part the share decides nothing. */
	if (r->several_runs && (r->ncpu == 0 || !r->gpu)) {
		r->several_runs = false;
		*share = r->gpu ? 1.0 : 0.0;
	}
	if (r->o->share)
		rc = part_share_ready(r, rc, e);
	return rc;
}

/* t0: when the command started (staging is part of the setup time). */
static int run_engine(struct prun *r, struct part_result *res, double t0, struct cs_err *e)
{
	struct energy_meter *m;
	double share = r->o->gpu_share, ms = 0, build_ms = 0;
	int rc = set_up(r, &share, &build_ms, e);

	res->setup_ms = clock_ms() - t0;
	res->build_ms = build_ms;
	if (rc)
		return rc;
	if (r->several_runs)
		rc = profile_static(r, res, &share, e);
	if (share < 0)
		share = 0;
	r->share = share;
	if (rc == 0) {
		m = energy_open(energy_gpu(r));
		rc = part_run_all(r, share, &ms, m, &res->energy, e);
		energy_close(m);
		if (rc == 0)
			part_kb_keep(r, ms);
	}
	progress_end(&r->progress);
	if (rc == 0)
		part_fill_result(r, res, ms);
	return rc;
}

static void prun_init(struct prun *r, const struct part_env *env, struct job_plan *jp,
                      const struct part_stream *ps, const struct part_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->env = env;
	r->o = o;
	r->jp = jp;
	r->kp = &jp->kp;
	r->ps = ps;
	part_space_init(&r->sp, jp->kp.dims, jp->kp.global, jp->kp.has_local ? jp->kp.local : NULL);
	r->items = r->sp.rows;
	r->granule = r->sp.granule;
	r->len = r->items;
	r->launch_key = launch_key(&jp->kp, &r->sp);
	r->what = sched_name(o->sched);
	r->progress.on = o->progress;
	r->steps = (unsigned)(o->steps > 0 ? o->steps : jp->kp.swap_count + 1);
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
}

int partition_run(const struct part_env *env, struct job_plan *jp, const struct part_stream *ps,
                  const struct part_opts *o, struct part_result *res, struct cs_err *e)
{
	struct prun r;
	double t0 = clock_ms();
	int rc;

	memset(res, 0, sizeof(*res));
	prun_init(&r, env, jp, ps, o);
	if (check_plan(&jp->kp, &r.sp, ps, e)) {
		prun_free(&r);
		return 1;
	}
	rc = stage_in(jp, e) ? 1 : 0;
	if (rc == 0)
		rc = run_engine(&r, res, t0, e);
	else if (o->share) /* the other sharers are at the end of their setup */
		rc = o->share->ready(o->share->arg, rc, 0, r.items, r.granule, e);
	if (rc == 0 && (!o->share || o->share->deliver) && stage_out(jp, e))
		rc = 1;
	stage_release(jp);
	prun_free(&r);
	if (rc)
		part_result_free(res);
	return rc;
}
