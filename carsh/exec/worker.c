/* A warm worker's process (exec/workers.h): jobs from the shell, one after another, on one
 * runtime session that keeps devices, contexts and programs between them. */
#include "exec/workers.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/planmemo.h"
#include "exec/planwire.h"
#include "exec/spin.h"
#include "exec/workerres.h"
#include "exec/workerwire.h"
#include "runtime/session.h"
#include "util/wire.h"

/* The job's standard input, output and error on descriptors 0, 1 and 2, read afresh. */
static int take_stdio(const struct wire_msg *m)
{
	if (m->nfds != 3 || dup2(m->fds[0], STDIN_FILENO) < 0 ||
	    dup2(m->fds[1], STDOUT_FILENO) < 0 || dup2(m->fds[2], STDERR_FILENO) < 0)
		return -1;
	__fpurge(stdin);
	clearerr(stdin);
	clearerr(stdout);
	return 0;
}

/* Between jobs nothing of the shell's stays open here: a reader of the job's output pipe
 * sees its end when the job ends. Standard error goes back to the worker's own (a server's
 * log). */
static void drop_stdio(int null, int own_err)
{
	fflush(stdout);
	fflush(stderr);
	dup2(null, STDIN_FILENO);
	dup2(null, STDOUT_FILENO);
	dup2(own_err >= 0 ? own_err : null, STDERR_FILENO);
	/* Nor its directory: a server's idle worker would keep it busy (an unmount). */
	if (chdir("/") != 0)
		return;
}

/* The job environment last applied: the next job's, the same in a batch's jobs, is not
 * applied again (every unsetenv and setenv of it, each job). This process's environment
 * changes here only. */
static struct strvec applied = STRVEC_INIT;
static bool applied_known; /* before the first, the environment is the one it started with */

static void apply_env(const struct strvec *env)
{
	if (applied_known && sv_equal(&applied, env))
		return;
	workerwire_apply_env(env->v, env->n);
	applied_known = true;
	sv_free(&applied);
	sv_copy(&applied, env);
}

static int fail(struct job_result *res, const char *what, const char *detail)
{
	snprintf(res->msg, sizeof(res->msg), "worker: %s%.1024s", what, detail);
	return 1;
}

/* What the worker keeps from one message to the next. */
struct wstate {
	int sock;
	int null;       /* /dev/null, standard input and output between jobs */
	int own_err;    /* the worker's own standard error (a server's log), or -1 */
	bool chain;     /* the last job failed */
	uint32_t place; /* the last window job's place in its window (job_result.taken) */
	bool io_kept;   /* that job's directory and standard input, output and error still here */
	/* The window jobs' plans, decoded once each (a window's job has no file and no standard
	 * stream: staging changes nothing in its plan, which comes back from a job as it came) */
	struct plan_memo *memo;
	bool more; /* the shell's next message was waiting when the last job ended */
	/* Answers (WORKER_DONE frames) to window jobs that succeeded, held back while the next
	 * job was already waiting, at most ANSWERS_HELD: sent together, they wake the shell
	 * once. Only successes wait: where the worker dies, the shell counts a job it went past
	 * (job_result.taken) as one that succeeded; its statistics are lost with it. */
	struct wbuf held;
	unsigned nheld;
	/* The shell's messages, read ahead: a run of jobs sent in one write is taken with one
	 * read, and whether the next job is here is known without a system call. */
	struct wire_inbox in;
};

#define ANSWERS_HELD 8

/* The job's message is taken: the result area is its own, and the shell learns it by
 * WORKER_TAKEN, or for a window's job by its place written there (the one the worker dies
 * in is the one that was taken last). */
static int take(struct wstate *ws, const struct wire_msg *m, struct job_result *res)
{
	uint32_t flags = workerwire_job_flags(m->payload, m->len);
	struct cs_err e;

	job_result_clear(res);
	res->status = -1;
	ws->more = false;
	if (!(flags & WORKER_JOB_WINDOW))
		return wire_send(ws->sock, WORKER_TAKEN, NULL, 0, NULL, 0, &e);
	ws->place = (flags & WORKER_JOB_AFTER) ? ws->place + 1 : 1;
	__atomic_store_n(&res->taken, ws->place, __ATOMIC_RELEASE);
	return 0;
}

static void release_io(struct wstate *ws)
{
	if (ws->io_kept)
		drop_stdio(ws->null, ws->own_err);
	ws->io_kept = false;
}

/* Whether the shell's next message is already here (a window's next job, most often): read
 * ahead, or in the socket. */
static bool next_waiting(const struct wstate *ws)
{
	struct pollfd p = {ws->sock, POLLIN, 0};

	return wire_inbox_left(&ws->in) > 0 || poll(&p, 1, 0) > 0;
}

/* A window's job sent with WORKER_JOB_AFTER does not run after one that failed: the shell
 * stops there (a batch stops at its first failing step), and has sent the rest already.
 * *flags: the job's. */
static int run_job(struct rt_session *s, struct wres *w, const struct wire_msg *m,
                   struct job_result *res, struct wstate *ws, uint32_t *flags)
{
	struct job_plan *jp = NULL;
	struct job_home *homes = NULL;
	struct strvec env = STRVEC_INIT;
	struct cs_err e;
	char *cwd = NULL;
	int status;

	struct plan_memo *memo =
	        (workerwire_job_flags(m->payload, m->len) & WORKER_JOB_WINDOW) ? ws->memo : NULL;

	*flags = 0;
	if (workerwire_decode_job_memo(m->payload, m->len, memo, &cwd, &env, &homes, flags, &jp,
	                               &e)) {
		release_io(ws);
		return fail(res, "", e.msg);
	}
	if (!(*flags & WORKER_JOB_SAME_IO))
		release_io(ws);
	if ((*flags & WORKER_JOB_AFTER) && ws->chain) {
		release_io(ws);
		res->status = 1;
		if (!memo)
			job_plan_free(jp);
		free(homes);
		free(cwd);
		sv_free(&env);
		return (int)(WORKER_DONE_SKIPPED | 1u);
	}
	if (!(*flags & WORKER_JOB_SAME_ENV))
		apply_env(&env);
	sv_free(&env);
	if (!ws->io_kept && chdir(cwd) != 0)
		status = fail(res, "cannot enter the shell's directory ", cwd);
	else if (!ws->io_kept && take_stdio(m) != 0)
		status = fail(res, "the job's standard input, output or error is missing", "");
	else
		status = wres_run(w, s, jp, memo ? planmemo_bound(memo, jp) : NULL, homes,
		                  (*flags & WORKER_JOB_PROFILE) != 0, res);
	/* As a forked job's _exit after fflush(NULL): an output that cannot be written fails. */
	if (fflush(stdout) != 0 && status == 0)
		status = 1;
	/* A window's next job, already sent, most likely has the same (WORKER_JOB_SAME_IO); the
	 * next of a run has them, and comes in the same write (WORKER_JOB_MORE). */
	ws->more = (*flags & WORKER_JOB_WINDOW) && ((*flags & WORKER_JOB_MORE) || next_waiting(ws));
	/* A worker that spins for the window's next job keeps them while it spins (worker_main
	 * lets them go before it sleeps): a job that comes then neither enters the directory nor
	 * moves descriptors, where a drop and a take cost eight system calls. */
	ws->io_kept = ws->more || ((*flags & WORKER_JOB_WINDOW) && spin_wanted());
	if (!ws->io_kept)
		drop_stdio(ws->null, ws->own_err);
	res->status = status;
	if (!memo)
		job_plan_free(jp);
	free(homes);
	free(cwd);
	return status;
}

/* WORKER_WRITEBACK, WORKER_NARROW and WORKER_DROP: the exit status of the request, its
 * reason in res. */
static uint32_t buffer_request(struct wres *w, const struct wire_msg *m, struct job_result *res)
{
	struct cs_err e;
	uint64_t gen;
	char *shm;
	int rc;

	memset(res, 0, sizeof(*res));
	if (workerwire_decode_buffer(m->payload, m->len, &shm, &gen, &e))
		return (uint32_t)fail(res, "", e.msg);
	if (m->type == WORKER_DROP) {
		wres_drop(w, shm[0] ? shm : NULL);
		rc = 0;
	} else {
		rc = m->type == WORKER_NARROW ? wres_narrow(w, shm, gen, &e)
		                              : wres_write_back(w, shm, gen, &e);
		if (rc)
			fail(res, "", e.msg);
	}
	free(shm);
	return rc ? 1 : 0;
}

/* *flags: a job's (WORKER_JOB_*), else 0. */
static uint32_t answer(struct rt_session *s, struct wres *w, const struct wire_msg *m,
                       struct job_result *res, struct wstate *ws, uint32_t *flags)
{
	*flags = 0;
	if (m->type == WORKER_JOB) {
		int status = run_job(s, w, m, res, ws, flags);

		ws->chain = status != 0;
		return (uint32_t)status;
	}
	release_io(ws);
	if (m->type == WORKER_WRITEBACK || m->type == WORKER_NARROW || m->type == WORKER_DROP)
		return buffer_request(w, m, res);
	if (m->type == WORKER_FINISH) {
		struct cs_err e;

		memset(res, 0, sizeof(*res));
		return wres_finish(w, &e) ? (uint32_t)fail(res, "", e.msg) : 0;
	}
	return 1;
}

/* The device list its jobs choose from (rt_devices_list's, as a discovery child's), in the
 * job environment the shell sent: a new worker reads it before its runtime starts; one lent
 * again has it already (workers are lent only to the environment they ran). false: the
 * answer was WORKER_DONE 1, the reason in res. */
static bool answer_devices(struct rt_session *s, int sock, const struct wire_msg *m,
                           struct job_result *res)
{
	struct strvec env = STRVEC_INIT;
	const struct rt_devinfo *devs;
	struct wbuf out = WBUF_INIT;
	struct cs_err e;
	size_t n;
	bool ok;

	memset(res, 0, sizeof(*res));
	ok = workerwire_decode_env(m->payload, m->len, &env, &e) == 0;
	if (ok) {
		apply_env(&env);
		ok = rt_session_devices(s, &devs, &n, &e) == 0;
	}
	sv_free(&env);
	if (!ok) {
		fail(res, "", e.msg);
		return false;
	}
	workerwire_encode_devices(devs, n, &out);
	ok = wire_send(sock, WORKER_DEVLIST, out.p, out.len, NULL, 0, &e) == 0;
	wb_free(&out);
	return ok;
}

/* How long a worker waits for a window's next job before it sleeps (exec/spin.h): a
 * batch's next job comes some 12 us later, and a write to a sleeping worker costs the shell,
 * which bounds a window, 3-5 us to wake it (docs/executors.md, "Where a job's time goes").
 * After a write-back (a dump, say), the next command's first job comes later: some 50 to
 * 400 us on the H200 machine. */
#define SPIN_MS       0.05
#define SPIN_AFTER_MS 0.5

/* Until the shell's next message is here, or ms passed (exec/spin.h): whether it is. What
 * was read ahead stays as it is meanwhile: only the socket is polled. */
static bool spin_for_next(const struct wstate *ws, double ms)
{
	return wire_inbox_left(&ws->in) > 0 || spin_readable(ws->sock, ms);
}

/* The answers held back, sent. */
static int send_held(struct wstate *ws, struct cs_err *e)
{
	int rc = ws->nheld ? wire_send_frames(ws->sock, &ws->held, e) : 0;

	ws->held.len = 0;
	ws->nheld = 0;
	return rc;
}

/* WORKER_DONE: the status, and for a window's job its result (the result area is the next
 * job's already), its message cut at its end (workerwire.h). A window's job that succeeded
 * unprofiled (`time` and `set stats=on` wait for each job's answer), with the next job
 * waiting, is held back (struct wstate). */
static int send_done(struct wstate *ws, uint32_t status, uint32_t flags,
                     const struct job_result *res, struct cs_err *e)
{
	unsigned char buf[sizeof(status) + sizeof(*res)];
	size_t head = offsetof(struct job_result, msg);
	size_t msg = strnlen(res->msg, sizeof(res->msg) - 1);

	if (!(flags & WORKER_JOB_WINDOW))
		return wire_send(ws->sock, WORKER_DONE, &status, sizeof(status), NULL, 0, e);
	memcpy(buf, &status, sizeof(status));
	memcpy(buf + sizeof(status), res, head);
	memcpy(buf + sizeof(status) + head, res->msg, msg);
	buf[sizeof(status) + head + msg] = '\0';
	wire_frame(&ws->held, WORKER_DONE, buf, sizeof(status) + head + msg + 1);
	ws->nheld++;
	if (status == 0 && !(flags & WORKER_JOB_PROFILE) && ws->more && ws->nheld < ANSWERS_HELD)
		return 0;
	return send_held(ws, e);
}

void worker_main(int sock, struct job_result *res)
{
	struct wstate ws = {.sock = sock,
	                    .null = open("/dev/null", O_RDWR | O_CLOEXEC),
	                    .own_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3),
	                    .memo = planmemo_new()};
	struct rt_session *s = rt_session_new();
	struct wres *w = wres_new();
	struct cs_err ignored;

	double spin_ms = 0; /* how long to wait for the next message before sleeping */

	for (;;) {
		struct wire_msg m;
		struct cs_err e;
		uint32_t status, flags;

		bool spin = spin_ms > 0 && spin_wanted();
		bool slept = !(spin && spin_for_next(&ws, spin_ms));

		/* Before it sleeps after a spin, nothing of the window's last job stays open here:
		 * a reader of its output sees the end (without the spin, run_job let them go). */
		if (spin && slept)
			release_io(&ws);
		if (wire_inbox_recv(sock, &ws.in, &m, &e) <= 0)
			break;
		/* A job after a sleep: the devices' feeders, asleep too by now, wake while it is
		 * read, not after it is handed over. */
		if (slept && m.type == WORKER_JOB)
			rt_session_wake_feeders(s);
		/* Held answers go before any other answer. */
		if (!(m.type == WORKER_JOB &&
		      (workerwire_job_flags(m.payload, m.len) & WORKER_JOB_WINDOW)) &&
		    send_held(&ws, &e) != 0) {
			wire_msg_free(&m);
			break;
		}
		if (m.type == WORKER_DEVICES) {
			release_io(&ws);
			if (answer_devices(s, sock, &m, res)) {
				wire_msg_free(&m);
				continue;
			}
		}
		if (m.type == WORKER_JOB && take(&ws, &m, res) != 0) {
			wire_msg_free(&m);
			break;
		}
		status = answer(s, w, &m, res, &ws, &flags);
		spin_ms = (flags & WORKER_JOB_WINDOW)  ? SPIN_MS
		          : m.type == WORKER_WRITEBACK ? SPIN_AFTER_MS
		                                       : 0;
		wire_msg_free(&m);
		if (send_done(&ws, status, flags, res, &e) != 0 || wres_faulted(w))
			break;
	}
	send_held(&ws, &ignored);
	wb_free(&ws.held);
	wire_inbox_free(&ws.in);
	planmemo_free(ws.memo);
	/* _exit: the OpenCL drivers' destructors are not meant to run in a forked copy. */
	fflush(NULL);
	_exit(0);
}
