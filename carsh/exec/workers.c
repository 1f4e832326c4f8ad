/* The shell's pool of warm workers (exec/workers.h). */
#include "exec/workers.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/workerwire.h"
#include "util/alloc.h"
#include "util/strbuf.h"
#include "util/wire.h"

struct worker {
	pid_t pid;
	int sock;
	struct job_result *res; /* shared with the worker */
	char *key;              /* the device selectors of its last plan */
	bool dead;              /* ended or not to be trusted: never lend it again */
	bool reaped;            /* waited for already */
	struct worker *next;    /* in the idle list */
};

/* A worker asked of the spawner thread. */
struct spawn_req {
	struct worker *wk;
	struct cs_err *e;
	bool done;
	struct spawn_req *next;
};

/*
 * Workers are forked by one thread of the pool's own, the spawner, which lives as long as
 * the pool: PR_SET_PDEATHSIG fires when the thread that forked a process ends, not its
 * process, and a worker forked by a background job's thread would be killed, idle in the
 * pool or running another job, when that job ended.
 */
struct workers {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct worker *idle;
	unsigned nidle;
	unsigned keep_idle;
	struct spawn_req *queue; /* requests for the spawner */
	pthread_t spawner;
	bool spawner_started;
	bool stopping;
};

struct workers *workers_new(unsigned keep_idle)
{
	struct workers *w = xcalloc(1, sizeof(*w));

	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->keep_idle = keep_idle;
	return w;
}

/* Closing the socket ends an idle worker's loop; a dead one is only reaped. */
static void worker_end(struct worker *wk)
{
	int ws;

	close(wk->sock);
	if (!wk->reaped)
		proc_wait(wk->pid, true, &ws);
	proc_result_free(wk->res);
	free(wk->key);
	free(wk);
}

void workers_free(struct workers *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	if (w->spawner_started)
		pthread_join(w->spawner, NULL);
	while (w->idle) {
		struct worker *wk = w->idle;

		w->idle = wk->next;
		worker_end(wk);
	}
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

/* proc_start_kept moves the socket to descriptor 3. */
static int worker_body(void *arg, struct job_result *res)
{
	(void)arg;
	worker_main(3, res);
}

static struct worker *worker_spawn(struct cs_err *e)
{
	struct worker *wk = xcalloc(1, sizeof(*wk));
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		err_errno(e, "cannot create a socket pair for a worker");
		free(wk);
		return NULL;
	}
	if (proc_start_kept(worker_body, NULL, sv[1], &wk->pid, &wk->res, e)) {
		close(sv[0]);
		close(sv[1]);
		free(wk);
		return NULL;
	}
	close(sv[1]);
	wk->sock = sv[0];
	return wk;
}

/* The spawner: forks the workers asked for until the pool ends. Signals are the other
 * threads' business. */
static void *spawner_main(void *arg)
{
	struct workers *w = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct spawn_req *r;

		while (!w->queue && !w->stopping)
			pthread_cond_wait(&w->cond, &w->lock);
		if (!w->queue)
			break;
		r = w->queue;
		w->queue = r->next;
		pthread_mutex_unlock(&w->lock);
		r->wk = worker_spawn(r->e);
		pthread_mutex_lock(&w->lock);
		r->done = true;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* A new worker, forked by the spawner thread (started on first use). */
static struct worker *spawn(struct workers *w, struct cs_err *e)
{
	struct spawn_req r = {NULL, e, false, NULL};
	int err = 0;

	pthread_mutex_lock(&w->lock);
	if (!w->spawner_started) {
		err = pthread_create(&w->spawner, NULL, spawner_main, w);
		w->spawner_started = err == 0;
	}
	if (err == 0) {
		r.next = w->queue;
		w->queue = &r;
		pthread_cond_broadcast(&w->cond);
		while (!r.done)
			pthread_cond_wait(&w->cond, &w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	if (err) {
		errno = err;
		err_errno(e, "cannot start the thread that starts workers");
	}
	return r.wk;
}

/* Workers that ran the same device selectors hold that device's context already. */
static char *plan_key(const struct job_plan *jp)
{
	const struct kernel_plan *kp = &jp->kp;

	return xasprintf("%s|%s|%s", kp->device_exe ? kp->device_exe : "",
	                 kp->device_cli ? kp->device_cli : "", kp->device_fm ? kp->device_fm : "");
}

/* An idle worker that ended (killed, out of memory) is reaped, never lent. */
static bool ended(struct worker *wk)
{
	int ws;

	if (proc_wait(wk->pid, false, &ws) != 1)
		return false;
	wk->dead = wk->reaped = true;
	return true;
}

static struct worker *take_idle(struct workers *w, const char *key, struct worker **gone)
{
	struct worker **best = NULL;

	for (struct worker **p = &w->idle; *p;) {
		if (ended(*p)) {
			struct worker *wk = *p;

			*p = wk->next;
			w->nidle--;
			wk->next = *gone;
			*gone = wk;
			continue;
		}
		if (!best || strcmp((*p)->key, key) == 0)
			best = p;
		p = &(*p)->next;
	}
	if (best) {
		struct worker *wk = *best;

		*best = wk->next;
		w->nidle--;
		return wk;
	}
	return NULL;
}

struct worker *workers_take(struct workers *w, const struct job_plan *jp, struct cs_err *e)
{
	char *key = plan_key(jp);
	struct worker *wk, *gone = NULL;

	pthread_mutex_lock(&w->lock);
	wk = take_idle(w, key, &gone);
	pthread_mutex_unlock(&w->lock);
	while (gone) {
		struct worker *next = gone->next;

		worker_end(gone);
		gone = next;
	}
	if (!wk)
		wk = spawn(w, e);
	if (wk) {
		free(wk->key);
		wk->key = key;
		wk->next = NULL;
	} else {
		free(key);
	}
	return wk;
}

pid_t worker_pid(const struct worker *wk)
{
	return wk->pid;
}

const struct job_result *worker_result(const struct worker *wk)
{
	return wk->res;
}

void workers_give(struct workers *w, struct worker *wk)
{
	pthread_mutex_lock(&w->lock);
	if (!wk->dead && w->nidle < w->keep_idle) {
		wk->next = w->idle;
		w->idle = wk;
		w->nidle++;
		wk = NULL;
	}
	pthread_mutex_unlock(&w->lock);
	if (wk)
		worker_end(wk);
}

/* POSIX: a background job reads /dev/null unless its input was redirected. */
static int job_stdin(const struct child_io *io, bool background, int *opened)
{
	*opened = -1;
	if (io && io->in_fd >= 0 && !(background && io->in_fd == STDIN_FILENO))
		return io->in_fd;
	if (!background)
		return STDIN_FILENO;
	*opened = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return *opened;
}

static int hand_over(struct worker *wk, const struct job_plan *jp, const struct child_io *io,
                     bool background, struct cs_err *e)
{
	char cwd[4096];
	struct wbuf msg = WBUF_INIT;
	int fds[2], opened, rc;

	if (!getcwd(cwd, sizeof(cwd)))
		return err_errno(e, "cannot hand a job to a worker: the current directory");
	fds[0] = job_stdin(io, background, &opened);
	fds[1] = io && io->out_fd >= 0 ? io->out_fd : STDOUT_FILENO;
	if (fds[0] < 0) {
		wb_free(&msg);
		return err_errno(e, "/dev/null");
	}
	workerwire_encode_job(cwd, jp, &msg);
	memset(wk->res, 0, sizeof(*wk->res));
	wk->res->status = -1;
	rc = wire_send(wk->sock, WORKER_JOB, msg.p, msg.len, fds, 2, e);
	if (opened >= 0)
		close(opened);
	wb_free(&msg);
	return rc;
}

/* How a worker that will not answer ended: killed first if it still runs. */
static int reap(struct worker *wk, int *wstatus, struct cs_err *e)
{
	wk->dead = true;
	kill(wk->pid, SIGKILL);
	if (proc_wait(wk->pid, true, wstatus) != 1)
		return err_errno(e, "waiting for worker %d", (int)wk->pid);
	wk->reaped = true;
	return 0;
}

/* The worker's answer; or, when it died, how it ended. */
static int await_answer(struct worker *wk, int *wstatus, struct cs_err *e)
{
	struct wire_msg m;
	uint32_t status = 1;
	int r = wire_recv(wk->sock, &m, e);

	if (r == 1 && m.type == WORKER_DONE && m.len == sizeof(status)) {
		memcpy(&status, m.payload, sizeof(status));
		wire_msg_free(&m);
		*wstatus = W_EXITCODE((int)(status & 0xff), 0);
		return 0;
	}
	if (r == 1)
		wire_msg_free(&m); /* a garbled answer: the worker is not to be trusted */
	if (reap(wk, wstatus, e))
		return -1;
	/* Ended on its own without an answer: the job did not run to its end. */
	if (WIFEXITED(*wstatus)) {
		snprintf(wk->res->msg, sizeof(wk->res->msg),
		         "the worker ended (exit %d) before the job did", WEXITSTATUS(*wstatus));
		*wstatus = W_EXITCODE(1, 0);
	}
	return 0;
}

int worker_run(struct worker *wk, const struct job_plan *jp, const struct child_io *io,
               bool background, int *wstatus, struct cs_err *e)
{
	if (hand_over(wk, jp, io, background, e))
		return reap(wk, wstatus, e) ? -1 : WORKER_NOT_TAKEN;
	return await_answer(wk, wstatus, e);
}
