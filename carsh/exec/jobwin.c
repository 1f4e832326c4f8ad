/* A window of jobs in flight (exec/jobwin.h). */
#include "exec/jobwin.h"

#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "exec/homes.h"
#include "exec/jobstatus.h"
#include "util/alloc.h"

/* A job sent, or a host write between the jobs (jp NULL, shm its buffer's object). */
struct entry {
	struct job_plan *jp;
	char *shm;
	struct claim *claim;
	double d2h_ms; /* write-backs it waited for when it was sent */
	const void *tag;
	struct worker_answer ans;
	struct entry *next;
	/* Kept with a spare entry for the next jobs (entry_room): room for cap arguments. */
	struct job_home *homes;
	struct vhome_state *before; /* its buffers' states before it was sent */
	size_t cap;
};

/* The most jobs in flight: their answers wait in the worker's socket, and a worker whose
 * answers fill it would stop reading the jobs that fill the other way. */
#define IN_FLIGHT_MAX 16

struct job_window {
	struct worker *wk;
	uint64_t group;
	struct entry *head;
	struct entry **tail;
	size_t n;
	void (*stats)(void *ctx, const struct run_stats *st);
	void *ctx;
	struct entry *spare; /* entries done with, for the next jobs (each holds a 16 KiB answer:
	                        allocated and freed per job, they were a tenth of its malloc's
	                        work) */
};

struct job_window *jobwin_new(void (*stats)(void *ctx, const struct run_stats *st), void *ctx)
{
	static uint64_t groups;
	struct job_window *w = xcalloc(1, sizeof(*w));

	w->group = __atomic_add_fetch(&groups, 1, __ATOMIC_RELAXED);
	w->tail = &w->head;
	w->stats = stats;
	w->ctx = ctx;
	return w;
}

void jobwin_free(struct job_window *w)
{
	if (!w)
		return;
	while (w->spare) {
		struct entry *en = w->spare;

		w->spare = en->next;
		free(en->homes);
		free(en->before);
		free(en);
	}
	free(w);
}

bool jobwin_open(const struct job_window *w)
{
	return w && w->wk;
}

void jobwin_adopt(struct job_window *w, struct worker *wk)
{
	w->wk = wk;
}

bool jobwin_eligible(const struct exec_env *env, const struct job_plan *jp)
{
	if (!env->window || !env->workers || !env->homes || env->own_group || jp->on_end ||
	    jp->timeout_s)
		return false;
	for (size_t i = 0; i < jp->kp.nargs; i++) {
		enum bind_kind how = jp->binds[i].how;

		if (arg_is_stream(jp->kp.args[i].kind) &&
		    (how == BIND_FILE || (how == BIND_BUFFER && !jp->binds[i].shm)))
			return false;
	}
	return true;
}

/* An entry with nothing in it (a host write's answer is read too: its statistics, none). */
static struct entry *entry_new(struct job_window *w)
{
	struct entry *en = w->spare;

	if (en) {
		w->spare = en->next;
	} else {
		en = xmalloc(sizeof(*en));
		en->homes = NULL;
		en->before = NULL;
		en->cap = 0;
	}
	memset(en, 0, offsetof(struct entry, ans));
	worker_answer_clear(&en->ans);
	en->next = NULL;
	return en;
}

static void entry_free(const struct exec_env *env, struct job_window *w, struct entry *en)
{
	if (en->claim)
		hazard_release(env->hz, en->claim);
	job_plan_free(en->jp);
	free(en->shm);
	en->next = w->spare;
	w->spare = en;
}

/* Room in en for the homes (cleared) and the states before of n arguments: a spare entry's
 * are reused (allocated per job, they were a tenth of the window's malloc work). */
static void entry_room(struct entry *en, size_t n)
{
	if (en->cap < n) {
		free(en->homes);
		free(en->before);
		en->homes = xmalloc(n * sizeof(*en->homes));
		en->before = xmalloc(n * sizeof(*en->before));
		en->cap = n;
	}
	memset(en->homes, 0, n * sizeof(*en->homes));
}

/* Its claim, in the window's group; NULL when an earlier claim of another holds it up. */
static struct claim *ready_claim(const struct exec_env *env, struct job_window *w,
                                 const struct job_plan *jp)
{
	struct claim *c = plan_claim_borrowed(jp);

	claim_set_group(c, w->group);
	hazard_register(env->hz, c);
	if (hazard_ready(env->hz, c))
		return c;
	hazard_release(env->hz, c);
	return NULL;
}

static void await(const struct exec_env *env, struct job_window *w, struct entry *en);
static int outcome(const struct entry *en, struct cs_err *e);

/* A job that succeeded: its statistics passed on, and it is forgotten. */
static void retire_ok(const struct exec_env *env, struct job_window *w, struct entry *en)
{
	if (en->ans.res.has_stats) {
		struct run_stats st = en->ans.res.stats;

		st.d2h_ms += en->d2h_ms;
		w->stats(w->ctx, &st);
	}
	w->head = en->next;
	if (!w->head)
		w->tail = &w->head;
	w->n--;
	entry_free(env, w, en);
}

/* Room for one more job in flight: the oldest is waited for. false when it failed (the
 * collection reports it). */
static bool make_room(const struct exec_env *env, struct job_window *w)
{
	struct cs_err e;

	while (w->n >= IN_FLIGHT_MAX) {
		await(env, w, w->head);
		if (outcome(w->head, &e) != 0)
			return false;
		retire_ok(env, w, w->head);
	}
	return true;
}

/* A window without a worker opens with the job's: the one workers_take gives (the holder of
 * its buffers where it can run it). false when none can be had (the job runs as usual and
 * says why). */
static bool open_with(const struct exec_env *env, struct job_window *w, const struct job_plan *jp)
{
	struct cs_err e;

	w->wk = workers_take(env->workers, jp, homes_holder(env->homes, jp), &e);
	return w->wk != NULL;
}

/* A job that could not be sent: a window it opened gives its worker back. */
static int not_sent(const struct exec_env *env, struct job_window *w, struct entry *en, bool opened)
{
	en->jp = NULL;
	entry_free(env, w, en);
	if (opened) {
		workers_give(env->workers, w->wk);
		w->wk = NULL;
	}
	return 1;
}

int jobwin_send(const struct exec_env *env, struct job_window *w, struct job_plan *jp,
                const struct child_io *io, const void *tag)
{
	size_t n = jp->kp.nargs ? jp->kp.nargs : 1;
	bool opened = !w->wk;
	uint64_t holder;
	struct entry *en;
	struct cs_err e;

	if (!jobwin_eligible(env, jp))
		return 1;
	holder = homes_holder(env->homes, jp);
	if (!opened && ((holder && holder != worker_serial(w->wk)) || !worker_fits(w->wk, jp) ||
	                !make_room(env, w)))
		return 1;
	en = entry_new(w);
	/* homes_assume writes the state of every bound argument, the only ones read back. */
	entry_room(en, n);
	/* Its claim first: a job that must wait for another's runs as usual, waiting. */
	en->claim = ready_claim(env, w, jp);
	if (!en->claim)
		return not_sent(env, w, en, false);
	if (opened && !open_with(env, w, jp))
		return not_sent(env, w, en, false);
	/* A buffer that cannot be had (lost, say) fails the job as usual, after the window. */
	if (homes_prepare(env->homes, env->workers, w->wk, jp, en->homes, &en->d2h_ms, &e) != 0)
		return not_sent(env, w, en, opened);
	homes_assume(env->homes, w->wk, jp, en->before);
	/* The window's first job runs whatever the worker's last job did. */
	if (worker_send(w->wk, jp, en->homes, io, env->profile, !opened, &en->ans, &e) != 0) {
		homes_undo(env->homes, jp, en->before);
		return not_sent(env, w, en, opened);
	}
	en->jp = jp;
	en->tag = tag;
	*w->tail = en;
	w->tail = &en->next;
	w->n++;
	return 0;
}

/* Whether a job in flight was told to take shm from shared memory. One told to fill its copy
 * with the buffer's value (a batch's flag filled with 0 before each loop) reads none. */
static bool read_from_host(const struct job_window *w, const char *shm)
{
	for (const struct entry *en = w->head; en; en = en->next)
		for (size_t i = 0; en->jp && i < en->jp->kp.nargs; i++) {
			const struct stream_bind *b = &en->jp->binds[i];

			if (b->how == BIND_BUFFER && b->shm && strcmp(b->shm, shm) == 0 &&
			    !en->homes[i].here &&
			    !job_home_filled(&en->homes[i], en->jp->kp.args[i].bytes))
				return true;
		}
	return false;
}

/* The jobs in flight up to the last that takes shm from shared memory answered, in order: its
 * copy to the device is done then (a blocking one). false when one of them failed (the
 * collection reports it). */
static bool readers_done(const struct exec_env *env, struct job_window *w, const char *shm)
{
	struct cs_err e;

	while (read_from_host(w, shm)) {
		await(env, w, w->head);
		if (outcome(w->head, &e) != 0)
			return false;
		retire_ok(env, w, w->head);
	}
	return true;
}

uint64_t jobwin_host_write(const struct exec_env *env, struct job_window *w, const char *shm)
{
	struct vhome_state st;
	struct entry *en;

	if (!w || !w->wk || !env->homes || !readers_done(env, w, shm) || !make_room(env, w))
		return 0;
	vhome_get(env->homes, shm, &st);
	if (st.holder != worker_serial(w->wk) ||
	    (st.where != VHOME_DEVICE && st.where != VHOME_BOTH))
		return 0;
	/* Undone, the fill leaves the holder's copy as the data: shared memory, which it
	 * overwrites, no longer counts. */
	if (st.where == VHOME_BOTH) {
		vhome_host_stale(env->homes, shm);
		vhome_get(env->homes, shm, &st);
	}
	en = entry_new(w);
	en->shm = xstrdup(shm);
	entry_room(en, 1);
	*en->before = st;
	*w->tail = en;
	w->tail = &en->next;
	w->n++;
	return w->group;
}

/* Wait for en's answer, Ctrl-C passed on to the worker as for a job run alone. */
static void await(const struct exec_env *env, struct job_window *w, struct entry *en)
{
	if (!en->jp)
		return;
	if (env->fg_pid)
		*env->fg_pid = worker_pid(w->wk);
	/* Ctrl-C that came while the shell was busy between two sends: the jobs of a run not
	 * sent yet go first, so that the worker sees them as if they had been. */
	if (env->interrupted && *env->interrupted && !en->ans.done) {
		worker_flush(w->wk);
		kill(worker_pid(w->wk), SIGINT);
	}
	worker_collect(w->wk, &en->ans);
	if (env->fg_pid)
		*env->fg_pid = 0;
}

/* The status of en's job, its message in e. */
static int outcome(const struct entry *en, struct cs_err *e)
{
	const struct worker_answer *a = &en->ans;

	err_clear(e);
	if (!en->jp)
		return 0;
	if (a->skipped) {
		err_set(e, "%s: not run: an earlier job failed", en->jp->kp.label);
		return 1;
	}
	/* Not taken: the worker ended before the job reached it, as a background job's. */
	return exec_job_status(en->jp, a->wstatus, &a->res, e);
}

/* The first job that failed: the ones after it are read (skipped, or never taken), every
 * assumption from the last back to it undone, and then its real end settled as a job run
 * alone would have. */
static void settle_failed(const struct exec_env *env, struct job_window *w, struct entry *en,
                          int rc, const struct cs_err *e)
{
	struct entry *rest[IN_FLIGHT_MAX];
	size_t n = 0;
	char how[64];

	for (struct entry *p = en; p && n < IN_FLIGHT_MAX; p = p->next)
		rest[n++] = p;
	for (size_t i = n; i-- > 0;)
		if (rest[i]->jp) { /* the last job sent */
			await(env, w, rest[i]);
			break;
		}
	while (n-- > 0)
		if (rest[n]->jp)
			homes_undo(env->homes, rest[n]->jp, rest[n]->before);
		else
			vhome_restore(env->homes, rest[n]->shm, rest[n]->before);
	if (en->ans.skipped)
		return;
	proc_describe(en->ans.wstatus, how, sizeof(how));
	homes_settle(env->homes, w->wk, en->jp, rc, en->ans.res.stats.launches > 0,
	             en->ans.res.stats.device, e->msg[0] ? e->msg : how);
}

static void give_back(const struct exec_env *env, struct job_window *w)
{
	if (w->wk)
		workers_give(env->workers, w->wk);
	w->wk = NULL;
}

int jobwin_collect(const struct exec_env *env, struct job_window *w, const void **tag,
                   struct cs_err *e)
{
	int rc = 0;

	while (w->head && rc == 0) {
		struct entry *en = w->head;

		await(env, w, en);
		rc = outcome(en, e);
		if (rc == 0) {
			retire_ok(env, w, en);
			continue;
		}
		settle_failed(env, w, en, rc, e);
		*tag = en->tag;
		while (w->head) { /* the failed job and the ones that did not run */
			struct entry *p = w->head;

			w->head = p->next;
			entry_free(env, w, p);
		}
	}
	w->tail = &w->head;
	w->n = 0;
	give_back(env, w);
	return rc;
}
