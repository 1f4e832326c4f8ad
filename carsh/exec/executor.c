#include "exec/executor.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/homes.h"
#include "exec/jobwin.h"
#include "exec/planrun.h"
#include "exec/workerwire.h"
#include "exec/workers.h"
#include "runtime/icdtypes.h"
#include "runtime/preload.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/strbuf.h"

/* From the second job on, children start faster with the vendor libraries already loaded
 * (runtime/preload.h); a single `carsh run` would only move that cost into the master. */
static void before_fork(void)
{
	static int started;

	if (__atomic_add_fetch(&started, 1, __ATOMIC_RELAXED) == 2)
		rt_preload_vendors();
}

/* A forked job: its plan, and the vendors its loader reads (runtime/icdtypes.h), learnt in
 * the master, which never runs OpenCL itself, so that the probes run once, not per child. */
struct plan_child_arg {
	struct job_plan *jp;
	bool narrowed;
	struct strvec loader; /* "NAME=VALUE" */
};

static void plan_child_arg_init(struct plan_child_arg *a, struct job_plan *jp)
{
	*a = (struct plan_child_arg){jp, false, STRVEC_INIT};
	a->narrowed = rt_icd_env_for_plan(&jp->kp, &a->loader);
}

/* The loader's variables, before the first OpenCL call, where the loader reads them. In
 * the child, whose copy of a lives as long as it does: putenv may keep the strings. */
static void narrow_loader(const struct plan_child_arg *a)
{
	if (!a->narrowed)
		return;
	unsetenv("OCL_ICD_VENDORS");
	unsetenv("OCL_ICD_FILENAMES");
	for (size_t i = 0; i < a->loader.n; i++)
		putenv(a->loader.v[i]);
}

/* A forked child's whole life. */
static int plan_child(void *arg, struct job_result *res)
{
	const struct plan_child_arg *a = arg;

	narrow_loader(a);
	return plan_run_in(NULL, a->jp, res);
}

static void print_notice(void *ctx, const char *msg)
{
	FILE *f = ctx;

	if (f) {
		fprintf(f, "carsh: %s\n", msg);
		fflush(f);
	}
}

int exec_claim_foreground(const struct exec_env *env, const struct job_plan *jp, struct claim **c,
                          struct cs_err *e)
{
	*c = plan_claim(jp, jp->kp.label);
	hazard_register(env->hz, *c);
	if (hazard_wait(env->hz, *c, print_notice, env->notices, env->interrupted) == 0)
		return 0;
	hazard_release(env->hz, *c);
	*c = NULL;
	err_set(e, "%s: interrupted while waiting for its buffers", jp->kp.label);
	return 130;
}

struct claim *exec_claim_background(struct hazards *hz, const struct job_plan *jp, int id,
                                    const char *label)
{
	char *name = xasprintf("job [%d] %s", id, label);
	struct claim *c = plan_claim(jp, name);

	free(name);
	hazard_register(hz, c);
	return c;
}

/* Background jobs do not take Ctrl-C (they are in their own process group). */
void exec_claim_wait(struct hazards *hz, struct claim *c, FILE *notices)
{
	hazard_wait(hz, c, print_notice, notices, NULL);
}

static int run_child(child_fn fn, void *arg, const struct job_plan *jp, const struct child_io *io,
                     const struct exec_env *env, struct job_result **res, struct cs_err *e)
{
	pid_t pid;
	int ws, got;

	before_fork();
	if (proc_start(fn, arg, env->own_group, io, &pid, res, e))
		return 1;
	if (env->fg_pid)
		*env->fg_pid = pid;
	got = proc_wait_foreground(pid, env->interrupted, &ws);
	if (env->fg_pid)
		*env->fg_pid = 0;
	if (got != 1) {
		err_errno(e, "waiting for the job");
		return 1;
	}
	return exec_job_status(jp, ws, *res, e);
}

/* worker_job's return when the job was refused before it was handed over (a lost buffer). */
#define WORKER_REFUSED (-3)

/* Run jp in *wk (taken already) and wait, its buffers' homes told (exec/homes.h). A worker
 * that did not take the job — it died while idle, or before it said it had the job — is
 * replaced by a fresh one, twice at most; *wk is the one that ran it. Not when the worker
 * died of the user's Ctrl-C, which the shell passes on to it: the job was interrupted, not
 * lost. What a worker held when it died is lost with it. */
static int worker_job(const struct exec_env *env, struct worker **wk, const struct job_plan *jp,
                      const struct child_io *io, bool background, volatile sig_atomic_t *fg_pid,
                      int *ws, double *d2h_ms, struct cs_err *e)
{
	size_t n = jp->kp.nargs ? jp->kp.nargs : 1;
	struct job_home *homes = xcalloc(n, sizeof(*homes));
	int rc;

	for (int tries = 0;; tries++) {
		rc = homes_prepare(env->homes, env->workers, *wk, jp, homes, d2h_ms, e);
		if (rc) {
			rc = WORKER_REFUSED;
			break;
		}
		if (fg_pid)
			*fg_pid = worker_pid(*wk);
		rc = worker_run(*wk, jp, homes, io, background, env->profile, ws, e);
		if (fg_pid)
			*fg_pid = 0;
		if (rc == WORKER_NOT_TAKEN && env->homes)
			vhome_holder_ended(env->homes, worker_serial(*wk),
			                   "it ended while it waited for a job");
		/* A background job's worker was its process from the start: killed before
		 * the job reached it, it is the job that was killed. */
		if (rc == WORKER_NOT_TAKEN &&
		    (background || (WIFSIGNALED(*ws) && WTERMSIG(*ws) == SIGINT))) {
			rc = 0;
			break;
		}
		if (rc != WORKER_NOT_TAKEN || tries == 2)
			break;
		workers_give(env->workers, *wk);
		*wk = workers_take(env->workers, jp, homes_holder(env->homes, jp), e);
		if (!*wk) {
			rc = -1;
			break;
		}
	}
	free(homes);
	return rc;
}

/* The job's status from a worker's answer (rc from worker_job), its buffers' homes settled;
 * *st the statistics where the job ran to its end. */
static int worker_outcome(const struct exec_env *env, struct worker *wk, const struct job_plan *jp,
                          int rc, int ws, double d2h_ms, struct run_stats *st, bool *has_stats,
                          struct cs_err *e)
{
	const struct job_result *res;
	char how[64];

	*has_stats = false;
	if (rc != 0) /* refused (a lost buffer), or not run (no worker, maybe) */
		return 1;
	res = worker_result(wk);
	rc = exec_job_status(jp, ws, res, e);
	/* A quiet end (SIGPIPE: its reader went away) still says how, to whoever loses data. */
	proc_describe(ws, how, sizeof(how));
	homes_settle(env->homes, wk, jp, rc, res->stats.launches > 0, res->stats.device,
	             e->msg[0] ? e->msg : how);
	*has_stats = rc == 0 && res->has_stats;
	if (*has_stats) {
		*st = res->stats;
		st->d2h_ms += d2h_ms;
	}
	return rc;
}

/* The job in a warm worker (exec/workers.h) instead of a fresh fork. */
static int foreground_in_worker(const struct exec_env *env, struct job_plan *jp,
                                const struct child_io *io, struct run_stats *st, bool *has_stats,
                                struct cs_err *e)
{
	struct worker *wk = workers_take(env->workers, jp, homes_holder(env->homes, jp), e);
	double d2h_ms = 0;
	int ws = 0, rc;

	if (!wk)
		return 1;
	rc = worker_job(env, &wk, jp, io, env->own_group, env->fg_pid, &ws, &d2h_ms, e);
	rc = worker_outcome(env, wk, jp, rc, ws, d2h_ms, st, has_stats, e);
	/* The next jobs of a batch may follow it without waiting (exec/jobwin.h). */
	if (wk && rc == 0 && !worker_dead(wk) && jobwin_eligible(env, jp))
		jobwin_adopt(env->window, wk);
	else if (wk)
		workers_give(env->workers, wk);
	return rc;
}

int exec_plan_foreground(const struct exec_env *env, struct job_plan *jp, const struct child_io *io,
                         struct run_stats *st, bool *has_stats, struct cs_err *e)
{
	struct job_result *res = NULL;
	struct plan_child_arg arg;
	struct claim *c;
	int rc;

	*has_stats = false;
	rc = exec_claim_foreground(env, jp, &c, e);
	if (rc)
		return rc;
	if (env->workers) {
		rc = foreground_in_worker(env, jp, io, st, has_stats, e);
		hazard_release(env->hz, c);
		return rc;
	}
	plan_child_arg_init(&arg, jp);
	rc = run_child(plan_child, &arg, jp, io, env, &res, e);
	sv_free(&arg.loader);
	hazard_release(env->hz, c);
	*has_stats = res && res->has_stats && rc == 0;
	if (*has_stats)
		*st = res->stats;
	proc_result_free(res);
	return rc;
}

/* What a background job's thread holds. The plan itself lives on in the child. */
struct bg_job {
	struct hazards *hz;
	struct claim *claim;
	int go_fd;
	pid_t pid;
	struct job_result *res;
	struct job_plan *jp; /* for the crash message */
	FILE *notices;
	char *label;
};

static void bg_free(void *p)
{
	struct bg_job *b = p;

	if (b->go_fd >= 0)
		close(b->go_fd);
	hazard_release(b->hz, b->claim);
	proc_result_free(b->res);
	job_plan_free(b->jp);
	free(b->label);
	free(b);
}

/* The go travels on a socket pair, not a pipe, so that it can be sent with MSG_NOSIGNAL: a
 * job killed while it waited for its go (`kill PID` of a job queued behind another's
 * buffers) left a pipe without a reader, and the write killed the master with SIGPIPE,
 * leaving its segments in /dev/shm. Now the write fails with EPIPE and the job is reported
 * as killed. */
static void send_go(struct bg_job *b, char c)
{
	ssize_t n;

	do
		n = send(b->go_fd, &c, 1, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	close(b->go_fd);
	b->go_fd = -1;
}

/* Registered while the command is being issued, so the order of commands decides who waits
 * for whom; named after the job, so that others' notices say "job [1] x.exe.xml". */
static void bg_register(void *arg, int id)
{
	struct bg_job *b = arg;

	b->claim = exec_claim_background(b->hz, b->jp, id, b->label);
}

static int bg_body(void *arg, int id, struct cs_err *e)
{
	struct bg_job *b = arg;
	int ws, rc;

	(void)id;
	exec_claim_wait(b->hz, b->claim, b->notices);
	send_go(b, 'g');
	/* The claim is released by bg_free, once the job is marked done. */
	if (proc_wait(b->pid, true, &ws) != 1) {
		err_errno(e, "waiting for process %d", (int)b->pid);
		return 1;
	}
	rc = exec_job_status(b->jp, ws, b->res, e);
	job_plan_ended(b->jp, rc, b->res->has_stats ? &b->res->stats : NULL);
	return rc;
}

/* A background job in a warm worker: the worker is taken at once (its pid is the job's) and
 * handed the job once the job's buffers are free. The job's descriptors are its own copies:
 * the command's redirections close when the command returns. */
struct bgw_job {
	struct exec_env env; /* hz, workers and homes are used */
	struct hazards *hz;
	struct claim *claim;
	struct workers *w;
	struct worker *wk;
	struct job_plan *jp;
	struct child_io io;
	FILE *notices;
	char *label;
};

static void bgw_free(void *p)
{
	struct bgw_job *b = p;

	if (b->wk)
		workers_give(b->w, b->wk);
	if (b->io.in_fd >= 0)
		close(b->io.in_fd);
	if (b->io.out_fd >= 0)
		close(b->io.out_fd);
	hazard_release(b->hz, b->claim);
	job_plan_free(b->jp);
	free(b->label);
	free(b);
}

static void bgw_register(void *arg, int id)
{
	struct bgw_job *b = arg;

	b->claim = exec_claim_background(b->hz, b->jp, id, b->label);
}

static int bgw_body(void *arg, int id, struct cs_err *e)
{
	struct bgw_job *b = arg;
	struct run_stats st;
	double d2h_ms = 0;
	bool has_stats, ran;
	int ws = 0, rc;

	(void)id;
	exec_claim_wait(b->hz, b->claim, b->notices);
	rc = worker_job(&b->env, &b->wk, b->jp, &b->io, true, NULL, &ws, &d2h_ms, e);
	if (rc == -1 || !b->wk)
		return 1;
	ran = rc != WORKER_REFUSED;
	rc = worker_outcome(&b->env, b->wk, b->jp, rc, ws, d2h_ms, &st, &has_stats, e);
	/* A failed job's statistics too, where it ran (the device choice learns from it). */
	if (ran && !has_stats && worker_result(b->wk)->has_stats) {
		st = worker_result(b->wk)->stats;
		has_stats = true;
	}
	job_plan_ended(b->jp, rc, has_stats ? &st : NULL);
	return rc;
}

static int background_in_worker(const struct exec_env *env, struct jobs *js, struct job_plan *jp,
                                const char *label, const struct child_io *io, int *id, pid_t *pid,
                                struct cs_err *e)
{
	struct bgw_job *b = xcalloc(1, sizeof(*b));
	int in = io->in_fd, out = io->out_fd >= 0 ? io->out_fd : STDOUT_FILENO;

	*b = (struct bgw_job){*env, env->hz,      NULL,         env->workers,  NULL,
	                      jp,   {-1, -1, -1}, env->notices, xstrdup(label)};
	/* POSIX: standard input is /dev/null unless redirected (the worker opens it). */
	b->io.in_fd = in < 0 || in == STDIN_FILENO ? -1 : fcntl(in, F_DUPFD_CLOEXEC, 3);
	b->io.out_fd = fcntl(out, F_DUPFD_CLOEXEC, 3);
	b->wk = workers_take(env->workers, jp, homes_holder(env->homes, jp), e);
	if (!b->wk || b->io.out_fd < 0 || (in >= 0 && in != STDIN_FILENO && b->io.in_fd < 0)) {
		if (b->wk)
			err_errno(e, "cannot set up a background job");
		b->jp = NULL; /* still the caller's */
		bgw_free(b);
		return -1;
	}
	*pid = worker_pid(b->wk);
	*id = jobs_start(js, label, *pid, bgw_body, b, bgw_register, bgw_free, e);
	if (*id < 0) {
		b->jp = NULL;
		bgw_free(b);
		return -1;
	}
	return 0;
}

/* A fresh fork per job, waiting on a socket for its go. */
static int background_forked(const struct exec_env *env, struct jobs *js, struct job_plan *jp,
                             const char *label, const struct child_io *io, int *id, pid_t *pid,
                             struct cs_err *e)
{
	struct bg_job *b = xcalloc(1, sizeof(*b));
	struct child_io cio = *io;
	struct plan_child_arg arg;
	int go[2], rc;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, go) != 0) {
		free(b);
		return err_errno(e, "cannot create a socket pair for a background job");
	}
	*b = (struct bg_job){env->hz, NULL, go[1], 0, NULL, jp, env->notices, xstrdup(label)};
	cio.go_fd = go[0];
	before_fork();
	plan_child_arg_init(&arg, jp);
	rc = proc_start(plan_child, &arg, true, &cio, &b->pid, &b->res, e);
	sv_free(&arg.loader);
	if (rc) {
		close(go[0]);
		b->jp = NULL; /* still the caller's */
		bg_free(b);
		return -1;
	}
	close(go[0]);
	*pid = b->pid;
	*id = jobs_start(js, label, b->pid, bg_body, b, bg_register, bg_free, e);
	if (*id < 0) {
		int ws;

		send_go(b, 'c');
		proc_wait(b->pid, true, &ws);
		b->jp = NULL;
		bg_free(b); /* releases the claim, if bg_register made one */
		return -1;
	}
	return 0;
}

int exec_plan_background(const struct exec_env *env, struct jobs *js, struct job_plan *jp,
                         const char *label, const struct child_io *io, int *id, pid_t *pid,
                         struct cs_err *e)
{
	if (env->workers)
		return background_in_worker(env, js, jp, label, io, id, pid, e);
	return background_forked(env, js, jp, label, io, id, pid, e);
}

int exec_child_foreground(child_fn fn, void *arg, const struct child_io *io,
                          const struct exec_env *env, struct cs_err *e)
{
	struct job_result *res = NULL;
	int rc = run_child(fn, arg, NULL, io, env, &res, e);

	proc_result_free(res);
	return rc;
}
