#include "exec/threadexec.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/homes.h"
#include "exec/jobcopies.h"
#include "exec/stage.h"
#include "runtime/feeder.h"
#include "util/alloc.h"
#include "util/clock.h"

struct queued {
	void *tag;
	struct rt_pending *pending;
	struct queued *next;
};

struct texec {
	struct rt_session *s;
	struct resident *res;
	pthread_mutex_t lock;
	struct queued *queued;
};

/* A runtime session opened ahead by texec_prewarm; the next texec_new takes it. */
static struct rt_session *warm;

void texec_prewarm(const char *device)
{
	struct kernel_plan kp;
	struct rt_dev *dev;
	struct run_stats st;
	struct cs_err e;

	if (warm) /* a session worker's, kept from its last session */
		return;
	memset(&kp, 0, sizeof(kp));
	memset(&st, 0, sizeof(st));
	kp.device_cli = (char *)device;
	warm = rt_session_new();
	/* A failure is the session's to report, as it would without the warm-up. */
	if (rt_session_device(warm, &kp, &dev, &st, &e) != 0) {
		rt_session_free(warm);
		warm = NULL;
	}
}

struct texec *texec_new(void)
{
	struct texec *t = xcalloc(1, sizeof(*t));

	rt_feeder_read_env();
	t->s = warm ? warm : rt_session_new();
	warm = NULL;
	t->res = resident_new();
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

static bool no_teardown;

void texec_exit_without_teardown(void)
{
	no_teardown = true;
}

bool texec_warm(void)
{
	return warm != NULL;
}

void texec_free(struct texec *t)
{
	struct run_stats ignored;
	struct cs_err e;
	int rc;

	if (!t)
		return;
	rc = texec_flush(t, NULL, &ignored, &e);
	if (no_teardown) {
		/* A session worker serves its next session on the same devices and programs
		 * (server/served.c): only this session's copies go. Not after queued work failed:
		 * the device may be unusable. */
		if (rc == 0 && !warm) {
			resident_free(t->res);
			rt_session_forget_kept(t->s);
			warm = t->s;
			pthread_mutex_destroy(&t->lock);
			free(t);
		}
		return;
	}
	resident_free(t->res);
	rt_session_free(t->s);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

struct rt_session *texec_session(struct texec *t)
{
	return t->s;
}

struct resident *texec_resident(struct texec *t)
{
	return t->res;
}

/* given[i]: the buffer's device copy, borrowed; or a private copy, also in own[i]. An
 * Output's copy holds the buffer's contents too: what the kernel does not write keeps its
 * value, as under the process executor (docs/formats.md, "What an Output starts as"). */
static int acquire_buffers(struct texec *t, struct job_plan *jp, struct rt_dev *dev, cl_mem *given,
                           cl_mem *own, struct run_stats *st, struct cs_err *e)
{
	for (size_t i = 0; i < jp->kp.nargs; i++) {
		const struct kernel_arg *a = &jp->kp.args[i];

		if (!job_bound_to_buffer(jp, i))
			continue;
		if (resident_acquire(t->res, jp->binds[i].shm, a->bytes, dev, true, &given[i],
		                     &st->h2d_ms, e))
			return err_prefix(e, "stream '%s': ", a->name);
		if (a->kind == ARG_INPUT && job_pair_input(&jp->kp, i)) {
			if (job_private_copy(dev, &given[i], a->bytes, e))
				return -1;
			own[i] = given[i];
		}
	}
	return 0;
}

static void release_all(cl_mem *mems, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (mems[i])
			(void)clReleaseMemObject(mems[i]);
}

static bool among(cl_mem m, const cl_mem *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == m)
			return true;
	return false;
}

/* What the job wrote becomes the buffers' device copies; done marks their completion. A
 * final buffer the runtime made (not one of given) came with a reference, dropped here. */
static void store_outputs(struct texec *t, struct job_plan *jp, struct rt_dev *dev,
                          const cl_mem *given, cl_mem *final, cl_event done)
{
	/* After swaps a buffer's old copy may be another's new one: nothing may go before
	 * every copy has taken its new buffer. */
	bool swapped = jp->kp.swap_count > 0 && jp->kp.npairs > 0;

	for (size_t i = 0; swapped && i < jp->kp.nargs; i++)
		if (final[i])
			(void)clRetainMemObject(final[i]);
	for (size_t i = 0; i < jp->kp.nargs; i++)
		if (final[i] && jp->kp.args[i].kind != ARG_INPUT)
			resident_store(t->res, jp->binds[i].shm, dev, final[i], done);
	for (size_t i = 0; i < jp->kp.nargs; i++) {
		if (!final[i])
			continue;
		if (swapped)
			(void)clReleaseMemObject(final[i]);
		if (!among(final[i], given, jp->kp.nargs))
			(void)clReleaseMemObject(final[i]);
		final[i] = NULL;
	}
}

/* p, or without it the finish of dev (one for many launches without events). */
static void queue_pending(struct texec *t, void *tag, struct rt_pending *p, struct rt_dev *dev)
{
	struct queued *q;

	pthread_mutex_lock(&t->lock);
	if (!p && t->queued && t->queued->tag == tag &&
	    rt_pending_finishes(t->queued->pending, dev)) {
		pthread_mutex_unlock(&t->lock);
		return;
	}
	if (!p)
		p = rt_pending_finish(dev);
	q = xmalloc(sizeof(*q));
	q->tag = tag;
	q->pending = p;
	q->next = t->queued;
	t->queued = q;
	pthread_mutex_unlock(&t->lock);
}

static int execute(struct texec *t, struct job_plan *jp, struct rt_exec *x, void *tag,
                   struct run_stats *st, struct cs_err *e)
{
	cl_event done;
	int rc = rt_execute(x, st, e);
	double t0;

	if (rc)
		return rc;
	/* One event stands for everything this job queued: its last, or a marker. Without
	 * profiling there is none: the one in-order queue orders whatever reads the data. */
	done = x->done;
	if (!done && x->profile &&
	    clEnqueueMarkerWithWaitList(rt_dev_queue(x->dev), 0, NULL, &done) != CL_SUCCESS)
		done = NULL;
	store_outputs(t, jp, x->dev, x->given, x->final, done);
	if (done)
		(void)clReleaseEvent(done);
	if (x->pending || x->unfinished)
		queue_pending(t, tag, x->pending, x->unfinished);
	t0 = clock_ms();
	rc = stage_out(jp, e) ? err_prefix(e, "%s: ", jp->kp.label) : 0;
	st->out_ms += stage_files_ms(jp, t0);
	return rc;
}

struct staging {
	struct texec *t;
	struct job_plan *jp;
	struct rt_exec *x;
	cl_mem *own; /* private copies */
	struct run_stats *st;
};

/* Runs once the device has accepted the plan (rt_exec.stage), so that a plan the device
 * cannot run fails before any data moves. */
static int stage_hook(void *arg, struct cs_err *e)
{
	struct staging *g = arg;
	int rc = acquire_buffers(g->t, g->jp, g->x->dev, g->x->given, g->own, g->st, e);
	double t0 = clock_ms();

	rc = rc || stage_in_files(g->jp, e);
	g->st->in_ms += stage_files_ms(g->jp, t0);

	/* The feeder borrows the buffers it is given, and a private copy ends with the job. */
	for (size_t i = 0; i < g->jp->kp.nargs; i++)
		if (g->own[i])
			g->x->feed = false;
	return rc;
}

int texec_run(struct texec *t, struct job_plan *jp, void *tag, bool profile, struct run_stats *st,
              struct cs_err *e)
{
	size_t n = jp->kp.nargs ? jp->kp.nargs : 1;
	/* given, final and own side by side; most kernels have few arguments: no allocation. */
	cl_mem few[3 * 16] = {NULL};
	cl_mem *given = n <= 16 ? few : xcalloc(3 * n, sizeof(cl_mem));
	cl_mem *final = given + n, *own = given + 2 * n;
	struct rt_exec x = {.kp = &jp->kp,
	                    .profile = profile,
	                    .feed = !profile,
	                    .given = given,
	                    .final = final,
	                    .stage = stage_hook};
	struct staging g = {t, jp, &x, own, st};
	double t0 = clock_ms();
	int rc;

	x.stage_arg = &g;
	memset(st, 0, sizeof(*st));
	rc = rt_session_device(t->s, &jp->kp, &x.dev, st, e) ||
	     rt_session_kernel(t->s, x.dev, &jp->kp, &x.kern, st, e);
	if (rc)
		kernel_plan_err_label(&jp->kp, e);
	if (rc == 0)
		rc = execute(t, jp, &x, tag, st, e);
	/* final and given hold references only to what was made for this job (on an error,
	 * final may hold what store_outputs did not get to). */
	for (size_t i = 0; i < jp->kp.nargs; i++)
		if (final[i] && !among(final[i], given, jp->kp.nargs))
			(void)clReleaseMemObject(final[i]);
	release_all(own, jp->kp.nargs);
	stage_release(jp);
	if (given != few)
		free(given);
	st->wall_ms = clock_ms() - t0;
	return rc ? 1 : 0;
}

/* Entries of tag, taken out of the list (all of them when tag is NULL). */
static struct queued *take_tagged(struct texec *t, void *tag)
{
	struct queued *taken = NULL, **pp;

	pthread_mutex_lock(&t->lock);
	for (pp = &t->queued; *pp;) {
		struct queued *q = *pp;

		if (tag && q->tag != tag) {
			pp = &q->next;
			continue;
		}
		*pp = q->next;
		q->next = taken;
		taken = q;
	}
	pthread_mutex_unlock(&t->lock);
	return taken;
}

int texec_flush(struct texec *t, void *tag, struct run_stats *st, struct cs_err *e)
{
	struct queued *q = take_tagged(t, tag);
	int rc = 0;

	memset(st, 0, sizeof(*st));
	while (q) {
		struct queued *next = q->next;
		struct cs_err one;

		if (rt_pending_harvest(q->pending, st, &one) && rc == 0) {
			memcpy(e->msg, one.msg, sizeof(e->msg));
			rc = -1;
		}
		free(q);
		q = next;
	}
	return rc;
}

int exec_thread_foreground(const struct exec_env *env, struct texec *t, struct job_plan *jp,
                           void *tag, struct run_stats *st, struct cs_err *e)
{
	struct claim *c;
	int rc = exec_claim_foreground(env, jp, &c, e);

	if (rc)
		return rc;
	rc = homes_check_plan(env->homes, jp, e) ? 1 : texec_run(t, jp, tag, env->profile, st, e);
	/* The device's queue orders what follows; host readers wait for the data. */
	hazard_release(env->hz, c);
	return rc;
}

struct tjob {
	struct hazards *hz;
	struct vhome *homes;
	struct claim *claim;
	struct texec *t;
	struct job_plan *jp; /* its in and out are the job's own */
	FILE *notices;
	char *label;
	bool profile;
};

static void tjob_register(void *arg, int id)
{
	struct tjob *j = arg;

	j->claim = exec_claim_background(j->hz, j->jp, id, j->label);
}

static int tjob_body(void *arg, int id, struct cs_err *e)
{
	struct tjob *j = arg;
	struct run_stats st, queued;
	double t0;
	int rc;

	(void)id;
	exec_claim_wait(j->hz, j->claim, j->notices);
	t0 = clock_ms();
	if (homes_check_plan(j->homes, j->jp, e)) {
		job_plan_ended(j->jp, 1, NULL);
		return 1;
	}
	rc = texec_run(j->t, j->jp, j, j->profile, &st, e);
	/* A background job is done when its work is; its times are the work's. */
	if (texec_flush(j->t, j, &queued, e) && rc == 0)
		rc = 1;
	run_stats_add_device(&st, &queued);
	st.wall_ms = clock_ms() - t0;
	job_plan_ended(j->jp, rc, rc == 0 ? &st : NULL);
	return rc;
}

static void tjob_free(void *arg)
{
	struct tjob *j = arg;

	hazard_release(j->hz, j->claim);
	if (j->jp && j->jp->in)
		fclose(j->jp->in);
	if (j->jp && j->jp->out)
		fclose(j->jp->out);
	job_plan_free(j->jp);
	free(j->label);
	free(j);
}

int exec_thread_background(const struct exec_env *env, struct texec *t, struct jobs *js,
                           struct job_plan *jp, const char *label, int *id, struct cs_err *e)
{
	struct tjob *j = xcalloc(1, sizeof(*j));

	*j = (struct tjob){env->hz, env->homes,   NULL,           t,
	                   jp,      env->notices, xstrdup(label), env->profile};
	*id = jobs_start(js, label, getpid(), tjob_body, j, tjob_register, tjob_free, e);
	if (*id < 0) {
		j->jp = NULL; /* still the caller's, with its streams */
		tjob_free(j);
		return -1;
	}
	return 0;
}
