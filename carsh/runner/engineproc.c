/* An engine's run in a child process of its own (runner/engineproc.h). */
#include "runner/engineproc.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "data/vhome.h"
#include "exec/hazard.h"
#include "exec/homes.h"
#include "exec/process.h"
#include "mpi/ranks.h"
#include "runner/bufhost.h"
#include "runner/enginekeep.h"
#include "runner/enginespec.h"
#include "runner/stats.h"
#include "runtime/pocltemp.h"
#include "util/alloc.h"

struct apart {
	struct run_ctx *c;
	engine_body body;
	void *arg;
	struct engine_writes *w;
};

/* Set in the child only (a process of its own): where engine_apart_writes records. */
static struct engine_writes *child_writes;
static volatile sig_atomic_t child_interrupted;
/* This process is the carsh program: an engine may run in a fresh copy of it. */
static bool exec_self;

static void on_child_sigint(int sig)
{
	(void)sig;
	child_interrupted = 1;
}

/* Ctrl-C asks the engine to stop, as it does in the shell's process. */
static void child_take_sigint(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_child_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}

static int child_run(void *arg, struct job_result *res)
{
	struct apart *a = arg;
	struct run_ctx c = *a->c;
	struct stats_acc st;
	struct cs_err e = {""};
	int rc;

	child_writes = a->w;
	child_take_sigint();
	/* The shell's claim stands for this child there; in the child's copy of the table it
	 * (and any other claim the shell had) would hold back the engine's own claims for
	 * ever. The copy is left as it is, unused. */
	a->c->s->hz = hazards_new();
	memset(&st, 0, sizeof(st));
	c.in = stdin; /* the context's streams, moved onto 0 and 1 (exec/process.h) */
	c.out = stdout;
	c.stats = &st;
	c.interrupted = c.detached ? NULL : &child_interrupted;
	rc = a->body(&c, a->arg, &e);
	snprintf(res->msg, sizeof(res->msg), "%s", rc ? e.msg : "");
	res->has_stats = st.jobs > 0;
	if (res->has_stats)
		res->stats = st.sum;
	return rc;
}

/* The shell's process may fork an engine: it has no OpenCL runtime (and its threads) yet. */
static bool may_fork(const struct run_ctx *c)
{
	return !c->s->thread_mode && !c->s->texec && ranks_size() == 1;
}

/* What the child wrote is whole after its own end; after a signal it is not. The child
 * stands in the table as a holder that ended (bit 63: never a warm worker's number). */
static void writes_settle(struct run_ctx *c, const struct engine_writes *w, pid_t pid, int ws,
                          const char *what)
{
	uint64_t holder = UINT64_C(1) << 63 | (uint64_t)pid;
	char how[64], *why;

	for (int i = 0; i < w->n && i < ENGINE_WRITES_MAX; i++) {
		/* The thread executor's device copies are older than what the engine wrote. */
		if (buffers_resident(c))
			resident_host_wrote(buffers_resident(c), w->shm[i]);
		if (WIFSIGNALED(ws))
			vhome_device_wrote(c->s->homes, w->shm[i], holder, "the engine's devices");
		else
			vhome_host_wrote(c->s->homes, w->shm[i]);
	}
	if (!WIFSIGNALED(ws))
		return;
	proc_describe(ws, how, sizeof(how));
	why = xasprintf("the worker of %s, %s", what, how);
	vhome_holder_ended(c->s->homes, holder, why);
	free(why);
}

static int child_ended(struct run_ctx *c, const char *what, int ws, const struct job_result *res,
                       struct cs_err *e)
{
	char how[64];
	char *kcache;

	if (!WIFSIGNALED(ws)) {
		if (res->status != 0 || WEXITSTATUS(ws) != 0)
			err_set(e, "%s", res->msg[0] ? res->msg : "the engine failed");
		if (res->has_stats)
			stats_add(c->stats, &res->stats);
		return res->status != 0 ? res->status : WEXITSTATUS(ws);
	}
	proc_describe(ws, how, sizeof(how));
	if (WTERMSIG(ws) == SIGINT) {
		err_set(e, "%s: interrupted", what);
		return proc_status(ws);
	}
	kcache = rt_pocl_kcache_dir();
	err_set(e,
	        "%s: the engine's worker ended: %s (the OpenCL driver failed while the engine ran "
	        "on its devices; its own message, if any, is above; a corrupt PoCL kernel cache "
	        "aborts so: remove %s and run again)",
	        what, how, kcache ? kcache : "~/.cache/pocl/kcache");
	free(kcache);
	return proc_status(ws);
}

static int wait_child(struct run_ctx *c, pid_t pid, int *ws)
{
	int got;

	if (c->detached)
		return proc_wait(pid, true, ws);
	c->s->fg_pid = pid;
	got = proc_wait_foreground(pid, c->interrupted, ws);
	c->s->fg_pid = 0;
	return got;
}

/* ---- under the thread executor: the engine in a fresh carsh ---- */

/* The shell's process runs OpenCL (or will): it cannot fork a copy that uses it, but it can
 * start the program afresh, which attaches the session's buffers by their segments. */
static bool may_exec(const struct run_ctx *c)
{
	return exec_self && c->argv && (c->s->thread_mode || c->s->texec) && ranks_size() == 1;
}

/* The new process reads shared memory: every buffer's newest data goes there first, from
 * the thread executor's devices and from warm workers (a session that changed executor). */
static int buffers_to_shm(struct run_ctx *c, struct vbuf *bufs, size_t n, struct cs_err *e)
{
	for (size_t i = 0; i < n; i++)
		if (buffers_host_current(c, &bufs[i], e))
			return err_prefix(e, "virtual buffer '%s': ", bufs[i].name);
	return 0;
}

/* After the process answered or ended: as a forked child's end, but a process that ended
 * before it ran the command (exec failed) is said so. */
static int exec_ended(struct run_ctx *c, const char *what, struct engine_answer *a,
                      struct cs_err *e)
{
	struct engine_report *r = &a->report;

	writes_settle(c, &r->w, a->pid, a->ws, what);
	if (WIFEXITED(a->ws) && r->res.status < 0) {
		err_set(e,
		        "%s: the engine's process did not start (exit %d; it is carsh started "
		        "again from /proc/self/exe: check that /proc is mounted and that "
		        "carsh's file was not replaced while it ran)",
		        what, WEXITSTATUS(a->ws));
		return WEXITSTATUS(a->ws) ? WEXITSTATUS(a->ws) : 1;
	}
	return child_ended(c, what, a->ws, &r->res, e);
}

/* The run's description: the command, its caller's parameters, the device choice, the
 * working directory and the buffers. */
static void spec_encode(const struct run_ctx *c, struct vbuf *bufs, size_t n, struct wbuf *w)
{
	char *cwd = getcwd(NULL, 0);
	struct engine_spec sp = {.argc = c->argc,
	                         .argv = c->argv,
	                         .vars = PARAMS_INIT,
	                         .device_cli = c->s->device_cli,
	                         .cwd = cwd ? cwd : (char *)".",
	                         .bufs = bufs,
	                         .nbufs = n,
	                         .profile = c->profile,
	                         .detached = c->detached};

	scope_flatten(c->caller, &sp.vars);
	engine_spec_encode(&sp, w);
	params_free(&sp.vars);
	free(cwd);
}

static void print_notice(void *ctx, const char *msg)
{
	FILE *f = ctx;

	if (f) {
		fprintf(f, "carsh: %s\n", msg);
		fflush(f);
	}
}

/* The run's claim: every buffer of the session, as written, since the shell does not plan
 * what the engine's process will use; the session's other jobs wait for it, as they would
 * for the engine run here. 130 when interrupted while waiting. */
static int claim_all(struct run_ctx *c, const char *what, struct vbuf *bufs, size_t n,
                     struct claim **cl, struct cs_err *e)
{
	struct exec_env env = run_exec_env(c);

	*cl = claim_new(what);
	for (size_t i = 0; i < n; i++)
		claim_use(*cl, bufs[i].shm, bufs[i].name, true);
	hazard_register(env.hz, *cl);
	if (hazard_wait(env.hz, *cl, print_notice, env.notices, env.interrupted) == 0)
		return 0;
	hazard_release(env.hz, *cl);
	*cl = NULL;
	err_set(e, "%s: interrupted while waiting for its buffers", what);
	return 130;
}

/* The run, its buffers claimed: their data to shared memory, the description to the
 * engine's process, then its answer or end. */
static int engine_run_claimed(struct run_ctx *c, const char *what, struct vbuf *bufs, size_t n,
                              struct cs_err *e)
{
	struct child_io io = {fileno(c->in), fileno(c->out), -1};
	struct engine_answer *a;
	struct wbuf w = WBUF_INIT;
	int rc;

	if (buffers_to_shm(c, bufs, n, e))
		return 1;
	a = xmalloc(sizeof(*a));
	spec_encode(c, bufs, n, &w);
	fflush(c->out); /* what the shell wrote comes before the engine's output */
	if (engine_proc_run(c->s, w.p, w.len, &io, c->detached, c->interrupted, a, e) == 0) {
		rc = exec_ended(c, what, a, e);
	} else {
		err_prefix(e, "%s: ", what);
		rc = 1;
	}
	wb_free(&w);
	free(a);
	return rc;
}

/* The process executor's way: a forked child, which has no OpenCL runtime to inherit. */
static int engine_fork(struct run_ctx *c, const char *what, struct apart *a, struct cs_err *e)
{
	struct child_io io = {fileno(c->in), fileno(c->out), -1};
	struct job_result *res;
	pid_t pid;
	int ws, rc;

	/* The child reads shared memory: what warm workers hold comes back first. */
	if (homes_all_to_host(c->s->homes, c->s->workers, e))
		return 1;
	a->w = mmap(NULL, sizeof(*a->w), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (a->w == MAP_FAILED) {
		err_errno(e, "%s: cannot map the engine's report area", what);
		return 1;
	}
	a->w->n = 0;
	if (proc_start(child_run, a, c->detached, &io, &pid, &res, e)) {
		munmap(a->w, sizeof(*a->w));
		return 1;
	}
	if (wait_child(c, pid, &ws) != 1) {
		err_errno(e, "%s: waiting for the engine's worker", what);
		rc = 1;
	} else {
		writes_settle(c, a->w, pid, ws, what);
		rc = child_ended(c, what, ws, res, e);
	}
	proc_result_free(res);
	munmap(a->w, sizeof(*a->w));
	return rc;
}

int engine_apart(struct run_ctx *c, const char *what, engine_body body, void *arg, struct cs_err *e)
{
	struct apart a = {c, body, arg, NULL};
	struct claim *cl = NULL;
	struct vbuf *bufs;
	size_t n;
	int rc;

	if (child_writes || (!may_exec(c) && !may_fork(c)))
		return body(c, arg, e);
	n = vbuf_list(c->s->vbufs, &bufs);
	rc = run_window_drain(c, e);
	if (rc == 0)
		rc = claim_all(c, what, bufs, n, &cl, e);
	if (rc == 0)
		rc = may_exec(c) ? engine_run_claimed(c, what, bufs, n, e)
		                 : engine_fork(c, what, &a, e);
	if (cl)
		hazard_release(c->s->hz, cl);
	for (size_t i = 0; i < n; i++)
		vbuf_entry_free(&bufs[i]);
	free(bufs);
	return rc;
}

void engine_apart_writes(const struct job_plan *jp)
{
	struct engine_writes *w = child_writes;

	if (!w)
		return;
	for (size_t i = 0; i < jp->kp.nargs && w->n < ENGINE_WRITES_MAX; i++) {
		const struct stream_bind *b = &jp->binds[i];

		if (b->how == BIND_BUFFER && b->shm && arg_is_written(jp->kp.args[i].kind))
			snprintf(w->shm[w->n++], ENGINE_SHM_MAX, "%s", b->shm);
	}
}

bool engine_apart_child(void)
{
	return child_writes != NULL;
}

void engine_apart_may_exec(void)
{
	exec_self = true;
}

volatile sig_atomic_t *engine_apart_attach(struct engine_writes *w)
{
	child_writes = w;
	child_interrupted = 0;
	child_take_sigint();
	return &child_interrupted;
}
