/* The shell's pool of warm workers (exec/workers.h). */
#include "exec/workers.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/serverclient.h"
#include "exec/serverwire.h"
#include "exec/planenc.h"
#include "exec/spin.h"
#include "exec/workerwire.h"
#include "runtime/runtime.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/wire.h"

#define HEAD_PARTS 5
#define HEADS_KEPT 8

struct kept_head {
	char *part[HEAD_PARTS];
	char *key; /* plan_key's, in the worker's environment */
};

struct worker {
	struct workers *pool;
	pid_t pid;
	int sock;
	struct job_result *res; /* shared with the worker */
	int res_fd;             /* the memfd behind res; -1 in a worker lent by the server */
	bool remote;            /* lent by the server: not this process's child */
	char *key;              /* its last plan's device selectors and job environment */
	/* The heads (plan_key_head's parts, and the whole key) of the last plans it was lent
	 * for by worker_fits since it was taken, the one its key is now at head_cur (-1: none):
	 * a batch's next job on a kernel of these (the FFT filter's steps cycle through five)
	 * is checked against them without formatting a key. */
	struct kept_head heads[HEADS_KEPT];
	size_t nheads;
	int head_cur;
	/* The kept sources it was sent by reference (struct wire_source), in the order it keeps
	 * them: the oldest is the next replaced (xlock). */
	uint64_t src_sent[WORKER_SOURCES_KEPT];
	size_t src_next;
	struct strvec env; /* that job environment, sent with the job (workers_take) */
	/* While it is lent, env is kept for the next plan whose device type (the part of a
	 * plan that the environment depends on) is env_type: the shell's environment does not
	 * change under a lent worker, and working it out reads the vendors' directory and the
	 * cache (about a fifth of the shell's work for a short job). */
	bool env_lent;
	uint64_t env_type;
	struct strvec built; /* the kernels it ran (plan_key's program part), at most
	                        BUILT_MAX: a worker that ran one has its program built */
	bool dead;           /* ended or not to be trusted: never lend it again */
	bool session;        /* a session worker: one session, then it ends */
	bool reaped;         /* waited for already */
	struct worker *next; /* in the idle list */
	/* Resident buffers (data/vhome.h): a worker whose device holds buffers' data stays
	 * this pool's, idle or lent, until the pool ends (a server's is not given back), and is
	 * found by its serial for write-backs. */
	uint64_t serial;       /* unique in this process, never 0 */
	bool holds;            /* its device may hold buffers' data */
	unsigned refs;         /* requests on it in flight from other threads (pool lock) */
	bool retired;          /* out of the holders: the last reference ends it */
	struct worker *hnext;  /* in the holders */
	pthread_mutex_t xlock; /* one exchange (a job, a write-back) at a time on its socket */
	/* A window's jobs sent and not answered yet, oldest first (xlock): every exchange
	 * reads their answers first, in order, as the worker sends them. */
	struct worker_answer *pending;
	struct worker_answer **ptail;
	int end_status;           /* how it ended, once a window's reader found it dead */
	bool end_known;           /* end_status is set */
	char end_msg[CS_ERR_MAX]; /* why it could not be waited for, or "" */
	/* The window's last job sent (xlock): its place (job_result.taken), and its directory
	 * and standard input, output and error, which the next one may share
	 * (WORKER_JOB_SAME_IO); io_cwd NULL after any other message. */
	uint32_t place;
	char *io_cwd;
	int io_fds[3];
	/* The window's answers, read several at a time (the worker sends them so: worker.c) */
	struct wire_ahead ahead;
	/* A run of the window's jobs not sent yet (xlock; docs/executors.md "The wire"): their
	 * frames, the first announcing run_fds, each next one with the same directory and
	 * files (WORKER_JOB_SAME_IO, no fds); run_last is where the last one's flags are, for
	 * WORKER_JOB_MORE when another joins it. sent_place: the place of the last job sent. */
	struct wbuf run;
	struct wbuf scratch;    /* a job's message, encoded before it joins the run */
	struct plan_encs *encs; /* the plans of its windows' jobs, encoded (NULL: none yet) */
	size_t run_jobs;
	uint32_t run_first; /* the place of the run's first job */
	size_t run_last;
	int run_fds[3];
	uint32_t sent_place;
};

/* A worker asked of the spawner thread. */
struct spawn_req {
	char *const *envp; /* a session worker's environment; NULL for a warm worker */
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
	/* Served by the user's carsh server (docs/server.md): workers are borrowed from it over
	 * one connection, opened on the first job; requests and answers are paired under
	 * srv_lock. served turns false for good when no server can be had. */
	bool served;
	int server;       /* the connection, -1 until the first job or after a server ended */
	pid_t server_pid; /* for messages */
	void (*warn)(const char *msg);
	pthread_mutex_t srv_lock;
	struct worker *holders; /* the workers that hold buffers (pool lock) */
	/* The job environments worked out in this command (workers_new_command), one per
	 * device type (plan_env_type), at most ENVS_KEPT (pool lock). */
	unsigned command;
	struct kept_env {
		unsigned command; /* 0: empty */
		uint64_t type;
		struct strvec env;
	} envs[4];
};

#define ENVS_KEPT 4

static uint64_t next_serial(void)
{
	static uint64_t serial;

	return __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED);
}

static struct worker *worker_alloc(void)
{
	struct worker *wk = xcalloc(1, sizeof(*wk));

	wk->serial = next_serial();
	wk->head_cur = -1;
	wk->ptail = &wk->pending;
	pthread_mutex_init(&wk->xlock, NULL);
	return wk;
}

struct workers *workers_new(unsigned keep_idle)
{
	struct workers *w = xcalloc(1, sizeof(*w));

	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	pthread_mutex_init(&w->srv_lock, NULL);
	w->keep_idle = keep_idle;
	w->server = -1;
	return w;
}

struct workers *workers_new_served(unsigned keep_idle, void (*warn)(const char *msg))
{
	struct workers *w = workers_new(keep_idle);

	w->served = true;
	w->warn = warn;
	return w;
}

static void remote_give(struct workers *w, struct worker *wk);
static void head_forget(struct worker *wk);

/* Closing the socket ends an idle worker's loop; a dead one is only reaped. */
static void worker_end(struct worker *wk)
{
	int ws;

	close(wk->sock);
	if (!wk->remote && !wk->reaped)
		proc_wait(wk->pid, true, &ws);
	proc_result_free(wk->res);
	if (wk->res_fd >= 0)
		close(wk->res_fd);
	free(wk->key);
	head_forget(wk);
	free(wk->io_cwd);
	wire_ahead_free(&wk->ahead);
	wb_free(&wk->run);
	wb_free(&wk->scratch);
	planenc_free(wk->encs);
	sv_free(&wk->env);
	sv_free(&wk->built);
	pthread_mutex_destroy(&wk->xlock);
	free(wk);
}

/* Out of the holders, and ended unless a request still uses it (then the request's end
 * ends it). */
static void retire(struct workers *w, struct worker *wk)
{
	bool end = true;

	pthread_mutex_lock(&w->lock);
	if (wk->holds) {
		for (struct worker **p = &w->holders; *p; p = &(*p)->hnext)
			if (*p == wk) {
				*p = wk->hnext;
				break;
			}
		wk->retired = true;
		end = wk->refs == 0;
	}
	pthread_mutex_unlock(&w->lock);
	if (end)
		worker_end(wk);
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
		if (wk->remote) /* one that held buffers, kept from the server till now */
			remote_give(w, wk);
		worker_end(wk);
	}
	if (w->server >= 0)
		close(w->server);
	for (size_t i = 0; i < ENVS_KEPT; i++)
		sv_free(&w->envs[i].env);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	pthread_mutex_destroy(&w->srv_lock);
	free(w);
}

/* proc_start_kept moves the socket to descriptor 3. */
static int worker_body(void *arg, struct job_result *res)
{
	(void)arg;
	worker_main(3, res);
}

/* A session worker is a fresh carsh (`carsh --session-worker`, shell/main.c), not a copy of
 * the server: it starts the OpenCL runtime of its own and runs a whole shell session. Only
 * async-signal-safe calls here: the server has threads. */
static int session_body(void *arg, struct job_result *res)
{
	static char *const argv[] = {"carsh", "--session-worker", NULL};

	(void)res;
	if (fcntl(3, F_SETFD, 0) != 0)
		return 127;
	execve("/proc/self/exe", argv, (char *const *)arg);
	return 127;
}

static struct worker *worker_spawn(char *const *envp, struct cs_err *e)
{
	struct worker *wk = worker_alloc();
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		err_errno(e, "cannot create a socket pair for a worker");
		free(wk);
		return NULL;
	}
	if (proc_start_kept(envp ? session_body : worker_body, (void *)envp, sv[1], &wk->pid,
	                    &wk->res, &wk->res_fd, e)) {
		close(sv[0]);
		close(sv[1]);
		pthread_mutex_destroy(&wk->xlock);
		free(wk);
		return NULL;
	}
	close(sv[1]);
	wk->sock = sv[0];
	wk->session = envp != NULL;
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
		r->wk = worker_spawn(r->envp, r->e);
		pthread_mutex_lock(&w->lock);
		r->done = true;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* A new worker, forked by the spawner thread (started on first use). */
static struct worker *spawn(struct workers *w, char *const *envp, struct cs_err *e)
{
	struct spawn_req r = {envp, NULL, e, false, NULL};
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

/* Workers that ran the same device selectors, in the same job environment (the loader's
 * and the drivers' settings, exec/workerwire.h), hold that device's context already. */
/* A plan's device selectors, kernel and source name: the head of its key. */
static void head_parts(const struct job_plan *jp, const char *part[HEAD_PARTS])
{
	const struct kernel_plan *kp = &jp->kp;
	const char *v[HEAD_PARTS] = {kp->device_exe, kp->device_cli, kp->device_fm, kp->kernel,
	                             kp->source_name};

	for (int i = 0; i < HEAD_PARTS; i++)
		part[i] = v[i] ? v[i] : "";
}

static void plan_key_head(const struct job_plan *jp, struct strbuf *sb)
{
	const char *p[HEAD_PARTS];

	head_parts(jp, p);
	sb_addf(sb, "%s|%s|%s\t%s@%s", p[0], p[1], p[2], p[3], p[4]);
}

static void head_clear(struct kept_head *k)
{
	for (int i = 0; i < HEAD_PARTS; i++)
		free(k->part[i]);
	free(k->key);
}

static void head_forget(struct worker *wk)
{
	for (size_t h = 0; h < wk->nheads; h++)
		head_clear(&wk->heads[h]);
	wk->nheads = 0;
	wk->head_cur = -1;
}

static bool same_head(const struct kept_head *k, const char *part[HEAD_PARTS])
{
	/* The kernel and its source first: they differ most between a batch's steps. */
	static const int order[HEAD_PARTS] = {3, 4, 0, 1, 2};

	for (int i = 0; i < HEAD_PARTS; i++)
		if (strcmp(k->part[order[i]], part[order[i]]) != 0)
			return false;
	return true;
}

/* The kept head of jp's plan, or -1. */
static int head_find(const struct worker *wk, const struct job_plan *jp)
{
	const char *part[HEAD_PARTS];

	head_parts(jp, part);
	for (size_t h = 0; h < wk->nheads; h++)
		if (same_head(&wk->heads[h], part))
			return (int)h;
	return -1;
}

/* jp's head kept with key (taken), in a free slot or the oldest's after the first: its
 * index. */
static int head_keep(struct worker *wk, const struct job_plan *jp, char *key)
{
	const char *part[HEAD_PARTS];
	struct kept_head *k;
	size_t h = wk->nheads;

	if (h == HEADS_KEPT) { /* a batch of more kernels: the slots go round */
		h = (size_t)(wk->head_cur + 1) % HEADS_KEPT;
		head_clear(&wk->heads[h]);
	} else {
		wk->nheads++;
	}
	k = &wk->heads[h];
	head_parts(jp, part);
	for (int i = 0; i < HEAD_PARTS; i++)
		k->part[i] = xstrdup(part[i]);
	k->key = key;
	return (int)h;
}

static char *plan_key(const struct job_plan *jp, const struct strvec *env)
{
	struct strbuf sb = STRBUF_INIT;

	plan_key_head(jp, &sb);
	for (size_t i = 0; i < env->n; i++)
		sb_addf(&sb, "\n%s", env->v[i]);
	return sb_detach(&sb);
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

/* A worker whose loader read another environment cannot take the job: its device
 * selectors may differ (it opens another device), its environment may not. */
/* What a plan's job environment depends on besides the shell's (workerwire_plan_env). */
static uint64_t plan_env_type(const struct job_plan *jp)
{
	const struct kernel_plan *kp = &jp->kp;

	return (uint64_t)rt_device_type_chosen(kp->device_exe, kp->device_cli, kp->device_fm);
}

/* env (taken) is wk's job environment until it is given back. Its kept heads' keys were
 * formatted in the environment before: they go where it changed. */
static void keep_env(struct worker *wk, struct strvec *env, uint64_t type)
{
	if (!sv_equal(&wk->env, env))
		head_forget(wk);
	sv_free(&wk->env);
	wk->env = *env;
	wk->env_lent = true;
	wk->env_type = type;
}

static bool same_env(const char *a, const char *b)
{
	const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');

	return strcmp(ea ? ea : "", eb ? eb : "") == 0;
}

#define BUILT_MAX 64

/* A key's parts: "SELECTORS\tKERNEL@SOURCE\nENV...". */
static size_t part_len(const char *key, int stop)
{
	const char *end = strchr(key, stop);
	const char *nl = strchr(key, '\n');

	if (!end || (nl && nl < end))
		end = nl ? nl : key + strlen(key);
	return (size_t)(end - key);
}

static char *program_of(const char *key)
{
	size_t sel = part_len(key, '\t');
	const char *p = key[sel] == '\t' ? key + sel + 1 : key + sel;

	return xstrndup(p, part_len(p, '\n'));
}

/* How well an idle worker suits a key: it must share the job's environment; one that built
 * the plan's program already is best (a program takes tens of ms to load on NVIDIA's
 * platform, even from the binary cache), one on the same device selectors next. */
static int suitability(const struct worker *wk, const char *key)
{
	char *prog;
	int score = 1;

	if (!same_env(wk->key, key))
		return 0;
	if (part_len(wk->key, '\t') == part_len(key, '\t') &&
	    strncmp(wk->key, key, part_len(key, '\t')) == 0)
		score += 1;
	prog = program_of(key);
	for (size_t i = 0; i < wk->built.n; i++)
		if (strcmp(wk->built.v[i], prog) == 0)
			score += 2;
	free(prog);
	return score;
}

static void note_built(struct worker *wk, const char *key)
{
	char *prog = program_of(key);

	for (size_t i = 0; i < wk->built.n; i++)
		if (strcmp(wk->built.v[i], prog) == 0) {
			free(prog);
			return;
		}
	if (wk->built.n < BUILT_MAX)
		sv_push_owned(&wk->built, prog);
	else
		free(prog);
}

/* prefer: the serial of the worker that holds the job's buffers, which wins where it can run
 * the job at all. */
static struct worker *take_idle(struct workers *w, const char *key, uint64_t prefer,
                                struct worker **gone)
{
	struct worker **best = NULL;
	int best_score = 0;

	for (struct worker **p = &w->idle; *p;) {
		if ((*p)->dead || ended(*p)) {
			struct worker *wk = *p;

			*p = wk->next;
			w->nidle--;
			wk->next = *gone;
			*gone = wk;
			continue;
		}
		int score = suitability(*p, key);

		if (score > 0 && prefer && (*p)->serial == prefer)
			score = 1000;
		if (score > best_score) {
			best = p;
			best_score = score;
		}
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

/* An idle worker of the pool's (in a served pool: one that holds buffers), or NULL. */
static struct worker *take_local(struct workers *w, const char *key, uint64_t prefer)
{
	struct worker *wk, *gone = NULL;

	pthread_mutex_lock(&w->lock);
	wk = take_idle(w, key, prefer, &gone);
	pthread_mutex_unlock(&w->lock);
	while (gone) {
		struct worker *next = gone->next;

		retire(w, gone);
		gone = next;
	}
	return wk;
}

/* Its kept heads stay: keep_env drops them where the environment changes. */
static void lend_for(struct workers *w, struct worker *wk, const char *key)
{
	wk->head_cur = -1;
	free(wk->key);
	wk->key = xstrdup(key);
	note_built(wk, key);
	wk->next = NULL;
	wk->pool = w;
}

static struct worker *take_key(struct workers *w, const char *key, uint64_t prefer,
                               struct cs_err *e)
{
	struct worker *wk = take_local(w, key, prefer);

	if (!wk)
		wk = spawn(w, NULL, e);
	if (wk)
		lend_for(w, wk, key);
	return wk;
}

struct worker *workers_take_key(struct workers *w, const char *key, struct cs_err *e)
{
	return take_key(w, key, 0, e);
}

/* ---- workers lent by the server ---- */

/* The server went away: its workers went with it (PR_SET_PDEATHSIG). The next job starts a
 * fresh one. */
static int server_lost(struct workers *w, struct cs_err *e)
{
	err_set(e,
	        "the carsh server (pid %d) ended; the job did not finish (the next job starts "
	        "a new server)",
	        (int)w->server_pid);
	close(w->server);
	w->server = -1;
	return -1;
}

/* One request and its answer of type want (want 0: no answer); srv_lock held. */
static int request(struct workers *w, uint32_t type, const void *p, size_t len, uint32_t want,
                   struct wire_msg *m, struct cs_err *e)
{
	int r;

	/* A refused send still reads: a server that refuses a client says why and closes. */
	if (wire_send(w->server, type, p, len, NULL, 0, e) && !want)
		return server_lost(w, e);
	if (!want)
		return 0;
	r = wire_recv(w->server, m, e);
	if (r == 1 && m->type == want)
		return 0;
	if (r == 1 && m->type == SERVER_ERROR) {
		err_set(e, "%s", (const char *)m->payload);
		wire_msg_free(m);
		return -2;
	}
	if (r == 1)
		wire_msg_free(m);
	return server_lost(w, e);
}

static struct worker *lent_worker(struct workers *w, struct wire_msg *m, const char *key,
                                  struct cs_err *e)
{
	struct worker *wk;
	uint32_t pid;
	void *res;

	if (m->nfds != 2 || m->len != sizeof(pid)) {
		err_set(e, "the carsh server sent a malformed worker");
		return NULL;
	}
	res = mmap(NULL, sizeof(struct job_result), PROT_READ | PROT_WRITE, MAP_SHARED, m->fds[1],
	           0);
	if (res == MAP_FAILED) {
		err_errno(e, "cannot map a worker's result area");
		return NULL;
	}
	memcpy(&pid, m->payload, sizeof(pid));
	wk = worker_alloc();
	wk->pool = w;
	wk->pid = (pid_t)pid;
	wk->sock = m->fds[0];
	wk->res = res;
	wk->res_fd = -1;
	wk->remote = true;
	wk->key = xstrdup(key);
	m->fds[0] = -1;
	return wk;
}

/* Connected, or -1 with e (*quiet: no warning, the server just cannot serve this process);
 * srv_lock held. */
static int connect_server(struct workers *w, bool *quiet, struct cs_err *e)
{
	if (w->server >= 0)
		return 0;
	w->server = server_connect(true, &w->server_pid, e);
	if (w->server >= 0 && !server_same_mounts(w->server_pid)) {
		close(w->server);
		w->server = -1;
		*quiet = true;
		return err_set(e, "the carsh server sees other mounts");
	}
	return w->server >= 0 ? 0 : -1;
}

/* A worker of the server's; NULL with *fallback set when there is no server to be had. A
 * connection found closed (the server stopped between jobs) is opened again once. */
static struct worker *remote_take(struct workers *w, uint32_t type, const char *key, bool *fallback,
                                  bool *quiet, struct cs_err *e)
{
	struct worker *wk = NULL;

	pthread_mutex_lock(&w->srv_lock);
	for (int tries = 0; tries < 2 && !wk; tries++) {
		struct wire_msg m;
		int r;

		if (connect_server(w, quiet, e)) {
			*fallback = true;
			break;
		}
		r = request(w, type, key, strlen(key), SERVER_LENT, &m, e);
		if (r == -2)
			break;
		if (r == 0) {
			wk = lent_worker(w, &m, key, e);
			wire_msg_free(&m);
			break;
		}
	}
	pthread_mutex_unlock(&w->srv_lock);
	return wk;
}

/* No server: this shell's own workers, as with CARSH_SERVER=off, said once. */
static void fall_back(struct workers *w, bool quiet, const struct cs_err *e)
{
	pthread_mutex_lock(&w->srv_lock);
	if (w->served && w->warn && !quiet) {
		char msg[CS_ERR_MAX + 64];

		snprintf(msg, sizeof(msg),
		         "no carsh server (%s); running jobs in this process's own workers",
		         e->msg);
		w->warn(msg);
	}
	__atomic_store_n(&w->served, false, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&w->srv_lock);
}

void workers_new_command(struct workers *w)
{
	pthread_mutex_lock(&w->lock);
	w->command++;
	pthread_mutex_unlock(&w->lock);
}

/* jp's job environment (workerwire_plan_env) into env: worked out once per command and
 * device type (the loader's narrowing reads the vendors' directory and the cache), as the
 * parsed files are checked once per command. Before the first workers_new_command, every
 * time. */
static void plan_env(struct workers *w, const struct job_plan *jp, struct strvec *env)
{
	uint64_t type = plan_env_type(jp);
	struct kept_env *k = NULL;

	pthread_mutex_lock(&w->lock);
	for (size_t i = 0; w->command && i < ENVS_KEPT; i++)
		if (w->envs[i].command == w->command && w->envs[i].type == type) {
			sv_copy(env, &w->envs[i].env);
			pthread_mutex_unlock(&w->lock);
			return;
		}
	pthread_mutex_unlock(&w->lock);
	workerwire_plan_env(&jp->kp, env);
	pthread_mutex_lock(&w->lock);
	for (size_t i = 0; w->command && i < ENVS_KEPT && !k; i++)
		if (w->envs[i].command != w->command)
			k = &w->envs[i];
	if (k) {
		sv_free(&k->env);
		sv_copy(&k->env, env);
		k->type = type;
		k->command = w->command;
	}
	pthread_mutex_unlock(&w->lock);
}

/* The job environment is worked out once per command and device type (plan_env): for the
 * worker's key here, and kept on the worker for hand_over. */
struct worker *workers_take(struct workers *w, const struct job_plan *jp, uint64_t prefer,
                            struct cs_err *e)
{
	struct strvec env = STRVEC_INIT;
	char *key;
	struct worker *wk = NULL;
	bool fallback = false, quiet = false;

	plan_env(w, jp, &env);
	key = plan_key(jp, &env);
	/* A served pool's own idle workers are those that hold buffers: they come first. */
	if (__atomic_load_n(&w->served, __ATOMIC_ACQUIRE) && (wk = take_local(w, key, prefer)))
		lend_for(w, wk, key);
	else if (__atomic_load_n(&w->served, __ATOMIC_ACQUIRE)) {
		wk = remote_take(w, SERVER_TAKE, key, &fallback, &quiet, e);
		if (fallback)
			fall_back(w, quiet, e);
	}
	if (!wk && (fallback || !__atomic_load_n(&w->served, __ATOMIC_ACQUIRE)))
		wk = take_key(w, key, prefer, e);
	free(key);
	if (wk) {
		keep_env(wk, &env, plan_env_type(jp));
	} else {
		sv_free(&env);
	}
	return wk;
}

/* Back to the server, which may lend it at once; the caller ends this side of it. One that
 * held buffers releases them first: its next borrower's jobs never name them. */
static void remote_give(struct workers *w, struct worker *wk)
{
	uint32_t pid = (uint32_t)wk->pid;
	struct cs_err e;

	/* One that cannot drop them is not given back: the server stops it with this client. */
	if (wk->holds && !wk->dead && worker_drop(wk, NULL, &e) != 0)
		wk->dead = true;
	/* Closed first: the server may lend it again at once. */
	close(wk->sock);
	wk->sock = -1;
	pthread_mutex_lock(&w->srv_lock);
	if (!wk->dead && w->server >= 0)
		request(w, SERVER_GIVE, &pid, sizeof(pid), 0, NULL, &e);
	pthread_mutex_unlock(&w->srv_lock);
}

/* How a lent worker ended, from the server, its parent. */
static int remote_reap(struct worker *wk, int *wstatus, struct cs_err *e)
{
	struct workers *w = wk->pool;
	uint32_t pid = (uint32_t)wk->pid, ws;
	struct wire_msg m;
	int rc = -1;

	pthread_mutex_lock(&w->srv_lock);
	if (w->server < 0)
		server_lost(w, e);
	else if (request(w, SERVER_ENDED, &pid, sizeof(pid), SERVER_STATUS, &m, e) == 0) {
		if (m.len == sizeof(ws)) {
			memcpy(&ws, m.payload, sizeof(ws));
			*wstatus = (int)ws;
			rc = 0;
		} else {
			err_set(e, "the carsh server sent a malformed status");
		}
		wire_msg_free(&m);
	}
	pthread_mutex_unlock(&w->srv_lock);
	return rc;
}

struct worker *workers_spawn_session(struct workers *w, char *const *envp, const char *key,
                                     struct cs_err *e)
{
	struct worker *wk = spawn(w, envp, e);

	if (wk) {
		wk->key = xstrdup(key);
		wk->pool = w;
	}
	return wk;
}

bool worker_is_session(const struct worker *wk)
{
	return wk->session;
}

const char *worker_key(const struct worker *wk)
{
	return wk->key;
}

bool worker_ended(struct worker *wk)
{
	return wk->reaped || ended(wk);
}

void worker_discard(struct worker *wk)
{
	worker_end(wk);
}

int worker_socket(const struct worker *wk)
{
	return wk->sock;
}

int worker_result_fd(const struct worker *wk)
{
	return wk->res_fd;
}

unsigned workers_idle(struct workers *w)
{
	unsigned n;

	pthread_mutex_lock(&w->lock);
	n = w->nidle;
	pthread_mutex_unlock(&w->lock);
	return n;
}

/* SIGTERM lets a job remove its temporary files; one that does not end in time is killed. */
int worker_stop(struct worker *wk, int sig, int *wstatus)
{
	wk->dead = true;
	kill(wk->pid, sig);
	for (int i = 0; sig != SIGKILL && i < 200; i++) {
		if (proc_wait(wk->pid, false, wstatus) == 1) {
			wk->reaped = true;
			return 0;
		}
		usleep(10000);
	}
	kill(wk->pid, SIGKILL);
	if (proc_wait(wk->pid, true, wstatus) != 1)
		return -1;
	wk->reaped = true;
	return 0;
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
	bool keep;

	wk->env_lent = false;

	pthread_mutex_lock(&w->lock);
	keep = !wk->dead && !wk->session && (wk->holds || (!wk->remote && w->nidle < w->keep_idle));
	if (keep) {
		wk->next = w->idle;
		w->idle = wk;
		w->nidle++;
	}
	pthread_mutex_unlock(&w->lock);
	if (keep)
		return;
	if (wk->remote)
		remote_give(w, wk);
	retire(w, wk);
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

/* A window's job after another (WORKER_JOB_AFTER) with the same directory and standard
 * input, output and error says so (WORKER_JOB_SAME_IO); what this one has is remembered for
 * the next. Any other message forgets it. */
static uint32_t same_io(struct worker *wk, const char *cwd, const int *fds, uint32_t flags)
{
	bool same = (flags & WORKER_JOB_AFTER) && wk->io_cwd && strcmp(wk->io_cwd, cwd) == 0 &&
	            memcmp(wk->io_fds, fds, sizeof(wk->io_fds)) == 0;

	if (!(flags & WORKER_JOB_WINDOW)) {
		free(wk->io_cwd);
		wk->io_cwd = NULL;
		return flags;
	}
	if (!same) {
		free(wk->io_cwd);
		wk->io_cwd = xstrdup(cwd);
		memcpy(wk->io_fds, fds, sizeof(wk->io_fds));
	}
	return same ? flags | WORKER_JOB_SAME_IO : flags;
}

/* A window's job is given its place there; the first one's starts the count afresh (the
 * worker is idle: nothing else writes its result area now). */
static void window_place(struct worker *wk, uint32_t flags, struct worker_answer *a)
{
	wk->place = (flags & WORKER_JOB_AFTER) ? wk->place + 1 : 1;
	if (!(flags & WORKER_JOB_AFTER))
		__atomic_store_n(&wk->res->taken, 0, __ATOMIC_RELAXED);
	a->place = wk->place;
}

/* -1 with e when the job could not be sent; 1 when it could not be put together (nothing
 * went to the worker). A window's job (WORKER_JOB_WINDOW) leaves the result area to the job
 * the worker runs now. */
static int hand_over(struct worker *wk, const struct job_plan *jp, const struct job_home *homes,
                     const struct child_io *io, bool background, uint32_t flags, struct cs_err *e)
{
	char cwd[4096];
	struct wbuf msg = WBUF_INIT;
	int fds[3], opened, rc;

	if (!getcwd(cwd, sizeof(cwd))) {
		err_errno(e, "cannot hand a job to a worker: the current directory");
		return 1;
	}
	fds[0] = job_stdin(io, background, &opened);
	fds[1] = io && io->out_fd >= 0 ? io->out_fd : STDOUT_FILENO;
	fds[2] = STDERR_FILENO; /* a server's worker writes its warnings where the shell does */
	if (fds[0] < 0) {
		err_errno(e, "/dev/null");
		return 1;
	}
	flags = same_io(wk, cwd, fds, flags);
	if (opened >= 0) /* a /dev/null of its own each time */
		flags &= ~WORKER_JOB_SAME_IO;
	/* A job's message is a few KiB: room for it at once, not grown from 8 bytes. */
	msg.p = xgrow(NULL, &msg.cap, 4096, 1);
	workerwire_encode_job(cwd, &wk->env, homes, flags, jp, NULL, &msg);
	if (!(flags & WORKER_JOB_WINDOW)) {
		memset(wk->res, 0, sizeof(*wk->res));
		wk->res->status = -1;
	}
	rc = wire_send(wk->sock, WORKER_JOB, msg.p, msg.len, fds, 3, e);
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
	if (wk->remote)
		return remote_reap(wk, wstatus, e);
	if (proc_wait(wk->pid, true, wstatus) != 1)
		return err_errno(e, "waiting for worker %d", (int)wk->pid);
	wk->reaped = true;
	return 0;
}

/* Whether the worker's next message is of type want with len bytes, copied to out. Any
 * other is a garbled answer: the worker is not to be trusted, and the caller reaps it. */
static bool answered(struct worker *wk, uint32_t want, void *out, size_t len, struct cs_err *e)
{
	struct wire_msg m;
	int r = wire_recv(wk->sock, &m, e);
	bool ok = r == 1 && m.type == want && m.len == len;

	if (ok && len)
		memcpy(out, m.payload, len);
	if (r == 1)
		wire_msg_free(&m);
	return ok;
}

/* Whether the worker says something within timeout_s seconds (0: without end). */
static bool within(struct worker *wk, unsigned timeout_s)
{
	struct pollfd p = {wk->sock, POLLIN, 0};
	double end = clock_ms() + 1000.0 * timeout_s;
	int r;

	if (!timeout_s)
		return true;
	do {
		double left = end - clock_ms();

		r = poll(&p, 1, left > 0 ? (int)left + 1 : 0);
	} while (r < 0 && errno == EINTR);
	return r != 0;
}

/* A job past its time limit: its worker is killed (the pool starts another), and the job
 * fails with a message saying why. */
static int timed_out(struct worker *wk, const struct job_plan *jp, int *wstatus, struct cs_err *e)
{
	if (reap(wk, wstatus, e))
		return -1;
	snprintf(wk->res->msg, sizeof(wk->res->msg),
	         "%s: stopped after the time limit of %u s (set timeout=SECONDS; 0: none)",
	         jp->kp.label, jp->timeout_s);
	*wstatus = W_EXITCODE(1, 0);
	return 0;
}

/* The worker's answer; or, when it died, how it ended: WORKER_NOT_TAKEN where it died
 * before it took the job (killed while idle, between the check and the hand-over). */
static int await_answer(struct worker *wk, const struct job_plan *jp, int *wstatus,
                        struct cs_err *e)
{
	uint32_t status = 1;
	bool taken = answered(wk, WORKER_TAKEN, NULL, 0, e);

	if (taken && !within(wk, jp->timeout_s))
		return timed_out(wk, jp, wstatus, e);
	if (taken && answered(wk, WORKER_DONE, &status, sizeof(status), e)) {
		*wstatus = W_EXITCODE((int)(status & 0xff), 0);
		return 0;
	}
	if (reap(wk, wstatus, e))
		return -1;
	if (!taken)
		return WORKER_NOT_TAKEN;
	/* Ended on its own without an answer: the job did not run to its end. */
	if (WIFEXITED(*wstatus)) {
		snprintf(wk->res->msg, sizeof(wk->res->msg),
		         "the worker ended (exit %d) before the job did", WEXITSTATUS(*wstatus));
		*wstatus = W_EXITCODE(1, 0);
	}
	return 0;
}

int worker_run(struct worker *wk, const struct job_plan *jp, const struct job_home *homes,
               const struct child_io *io, bool background, bool profile, int *wstatus,
               struct cs_err *e)
{
	int rc;

	pthread_mutex_lock(&wk->xlock);
	if (hand_over(wk, jp, homes, io, background, profile ? WORKER_JOB_PROFILE : 0, e))
		rc = reap(wk, wstatus, e) ? -1 : WORKER_NOT_TAKEN;
	else
		rc = await_answer(wk, jp, wstatus, e);
	pthread_mutex_unlock(&wk->xlock);
	return rc;
}

/* ---- a window of jobs in flight ---- */

/* The worker ended (or answered garbage) with the oldest job in flight unanswered: that job,
 * taken or not, gets how it ended — one that exited, or that could not be waited for (a
 * server that ended), fails with a message as in await_answer — and every job after it
 * never reached a worker that could run it. sent: whether the oldest job's message went
 * whole; it was taken if the worker wrote its place (window_place) before it ended, and the
 * jobs before the last one it took ran to their end. */
static void window_lost(struct worker *wk, bool sent)
{
	struct worker_answer *a = wk->pending;
	struct cs_err e;
	int ws = W_EXITCODE(1, 0);
	uint32_t last;
	bool taken;

	if (!wk->end_known) {
		wk->end_msg[0] = '\0';
		if (reap(wk, &ws, &e) != 0) {
			ws = W_EXITCODE(1, 0);
			snprintf(wk->end_msg, sizeof(wk->end_msg), "%s", e.msg);
		}
		wk->end_status = ws;
		wk->end_known = true;
	}
	last = sent ? __atomic_load_n(&wk->res->taken, __ATOMIC_ACQUIRE) : 0;
	/* A run not sent yet never will be: its jobs never reached the worker. */
	wk->run.len = 0;
	wk->run_jobs = 0;
	/* The jobs it went past succeeded: it holds back only successful answers (worker.c). */
	while (a && a->place < last) {
		a->rc = 0;
		a->wstatus = W_EXITCODE(0, 0);
		memset(&a->res, 0, sizeof(a->res));
		a->done = true;
		a = wk->pending = a->next;
	}
	if (!a) {
		wk->ptail = &wk->pending;
		wire_ahead_free(&wk->ahead);
		return;
	}
	taken = sent && last >= a->place;
	ws = wk->end_status;
	a->rc = taken ? 0 : WORKER_NOT_TAKEN;
	a->wstatus = ws;
	a->res = *wk->res;
	if (wk->end_msg[0])
		snprintf(a->res.msg, sizeof(a->res.msg), "%s", wk->end_msg);
	else if (WIFEXITED(ws))
		snprintf(a->res.msg, sizeof(a->res.msg),
		         "the worker ended (exit %d) before the job %s", WEXITSTATUS(ws),
		         taken ? "did" : "reached it");
	if (wk->end_msg[0] || WIFEXITED(ws))
		a->wstatus = W_EXITCODE(1, 0);
	for (; a; a = a->next) {
		if (a != wk->pending) {
			a->rc = WORKER_NOT_TAKEN;
			a->wstatus = ws;
		}
		a->done = true;
	}
	wk->pending = NULL;
	wk->ptail = &wk->pending;
	wire_ahead_free(&wk->ahead);
}

/* A window job's WORKER_DONE (exec/workerwire.h): the status, then the result up to its
 * message, then the message and its NUL. false: anything else. */
static bool window_done(struct worker *wk, uint32_t *status, struct job_result *res)
{
	size_t head = sizeof(*status) + offsetof(struct job_result, msg);
	struct wire_msg m;
	struct cs_err e;
	int r = wire_recv_ahead(wk->sock, &wk->ahead, &m, &e);
	bool ok = r == 1 && m.type == WORKER_DONE && m.len > head &&
	          m.len <= head + sizeof(res->msg) && m.payload[m.len - 1] == '\0';

	if (ok) {
		job_result_clear(res);
		memcpy(status, m.payload, sizeof(*status));
		memcpy(res, m.payload + sizeof(*status), head - sizeof(*status));
		memcpy(res->msg, m.payload + head, m.len - head);
	}
	if (r == 1)
		wire_msg_free(&m);
	return ok;
}

/* The most jobs of a run: as many as the worker holds answers back for (worker.c), so that
 * a run is answered in one write. CARSH_JOB_RUN=1 sends every job alone; CARSH_JOB_RUN=N (2
 * to 8) makes every run wait for N jobs or for the shell's next wait on the worker (a test
 * hook: runs of a known length). */
#define RUN_MAX 8

/* 0: a run goes as soon as the worker has taken every job sent before it (it would idle
 * otherwise), or at RUN_MAX; else the run's fixed length. */
static size_t run_fixed(void)
{
	static int fixed = -1;

	if (fixed < 0) {
		const char *v = getenv("CARSH_JOB_RUN");
		long n = v && *v ? strtol(v, NULL, 10) : 0;

		fixed = n < 1 ? 0 : n > RUN_MAX ? RUN_MAX : (int)n;
	}
	return (size_t)fixed;
}

/* The run sent, whole; xlock held. A run that could not be sent (the worker ended) closes
 * the shell's side for writing: the worker reads what came, ends, and the answers read
 * after tell which of the run's jobs it took (window_lost). */
static void run_flush(struct worker *wk)
{
	struct cs_err e;

	if (!wk->run_jobs)
		return;
	if (wire_send_frames_fds(wk->sock, &wk->run, wk->run_fds, 3, &e) == 0)
		wk->sent_place = wk->place;
	else
		shutdown(wk->sock, SHUT_WR);
	wk->run.len = 0;
	wk->run_jobs = 0;
}

/* Whether the run goes now: at its length, or before the worker idles. */
static bool run_due(struct worker *wk)
{
	size_t fixed = run_fixed();

	if (fixed)
		return wk->run_jobs >= fixed;
	return wk->run_jobs >= RUN_MAX ||
	       __atomic_load_n(&wk->res->taken, __ATOMIC_ACQUIRE) >= wk->sent_place;
}

/* A window's job joins the run (a new one where its directory or files are not the run's):
 * 1 when it could not be put together (nothing joined). xlock held. */
/* A kept source goes by reference, its text only the first time this worker is sent it. A
 * source not kept (a packed kernel's, say) has no token: it goes in the plan. */
static bool source_ref(struct worker *wk, const struct kernel_plan *kp, struct wire_source *src)
{
	uint64_t addr = (uint64_t)(uintptr_t)kp->source;

	if (!kp->source_kept || !kp->source)
		return false;
	*src = (struct wire_source){workerwire_source_nonce(), addr, NULL};
	for (size_t i = 0; i < WORKER_SOURCES_KEPT; i++)
		if (wk->src_sent[i] == addr)
			return true;
	src->text = kp->source;
	wk->src_sent[wk->src_next] = addr;
	wk->src_next = (wk->src_next + 1) % WORKER_SOURCES_KEPT;
	return true;
}

static int run_add(struct worker *wk, const struct job_plan *jp, const struct job_home *homes,
                   const struct child_io *io, uint32_t flags, struct cs_err *e)
{
	struct wire_source src;
	const struct wire_source *sp;
	char cwd[4096];
	const char *dir = cwd;
	int fds[3], opened;

	/* A window's directory is its first job's: nothing between its jobs changes it (a
	 * <Command> that could, `cd`, collects the window first). same_io keeps io_cwd when it
	 * is the job's. */
	if ((flags & WORKER_JOB_AFTER) && wk->io_cwd)
		dir = wk->io_cwd;
	else if (!getcwd(cwd, sizeof(cwd))) {
		err_errno(e, "cannot hand a job to a worker: the current directory");
		return 1;
	}
	fds[0] = job_stdin(io, false, &opened); /* a foreground job's: never opened here */
	fds[1] = io && io->out_fd >= 0 ? io->out_fd : STDOUT_FILENO;
	fds[2] = STDERR_FILENO;
	flags = same_io(wk, dir, fds, flags);
	if (!(flags & WORKER_JOB_SAME_IO))
		run_flush(wk);
	if (wk->run_jobs) { /* the job before it in the run: another follows in this write */
		uint32_t before;

		memcpy(&before, wk->run.p + wk->run_last, sizeof(before));
		before |= WORKER_JOB_MORE;
		memcpy(wk->run.p + wk->run_last, &before, sizeof(before));
	} else {
		memcpy(wk->run_fds, fds, sizeof(fds));
		wk->run_first = wk->place;
	}
	wk->scratch.len = 0;
	if (!wk->scratch.p)
		wk->scratch.p = xgrow(NULL, &wk->scratch.cap, 4096, 1);
	sp = source_ref(wk, &jp->kp, &src) ? &src : NULL;
	if (!wk->encs)
		wk->encs = planenc_new();
	workerwire_encode_job_kept(dir, &wk->env, homes, flags, jp->kp.nargs, sp,
	                           planenc_get(wk->encs, jp, sp), &wk->scratch);
	wire_frame_fds(&wk->run, WORKER_JOB, wk->scratch.p, wk->scratch.len, wk->run_jobs ? 0 : 3);
	/* The flags are the payload's first word (workerwire_encode_job). */
	wk->run_last = wk->run.len - wk->scratch.len;
	wk->run_jobs++;
	return 0;
}

/* The answer of the oldest job in flight; xlock held. A window's job sends no WORKER_TAKEN:
 * where the worker ended, its result area says which job it had taken last. */
static void read_answer(struct worker *wk)
{
	struct worker_answer *a = wk->pending;
	uint32_t status;

	/* The answers to the jobs sent before the run come without it. */
	if (wk->run_jobs && a->place >= wk->run_first)
		run_flush(wk);
	if (wk->dead || !window_done(wk, &status, &a->res)) {
		window_lost(wk, true);
		return;
	}
	a->rc = 0;
	a->skipped = (status & WORKER_DONE_SKIPPED) != 0;
	a->wstatus = W_EXITCODE((int)(status & 0xff), 0);
	a->done = true;
	wk->pending = a->next;
	if (!wk->pending)
		wk->ptail = &wk->pending;
	/* More than the answers awaited: a worker not to be trusted. */
	if (!wk->pending && wire_ahead_left(&wk->ahead))
		wk->dead = true;
}

/* Every answer in flight read; xlock held. */
static void read_pending(struct worker *wk)
{
	while (wk->pending)
		read_answer(wk);
}

int worker_send(struct worker *wk, const struct job_plan *jp, const struct job_home *homes,
                const struct child_io *io, bool profile, bool after, struct worker_answer *a,
                struct cs_err *e)
{
	/* A window's jobs after its first have the first's environment: the worker's while it
	 * is lent (workers_take), and nothing else goes to the worker between them that
	 * applies one. */
	uint32_t flags = WORKER_JOB_WINDOW | (profile ? WORKER_JOB_PROFILE : 0) |
	                 (after ? WORKER_JOB_AFTER | WORKER_JOB_SAME_ENV : 0);

	worker_answer_clear(a);
	pthread_mutex_lock(&wk->xlock);
	window_place(wk, flags, a);
	if (!after)
		wk->sent_place = 0;
	if (!wk->dead && run_add(wk, jp, homes, io, flags, e) > 0) {
		wk->place = a->place - 1; /* nothing went: the worker's count stays */
		pthread_mutex_unlock(&wk->xlock);
		return -1;
	}
	*wk->ptail = a;
	wk->ptail = &a->next;
	if (wk->dead) { /* the answers to what went before are read; this one never ran */
		while (wk->pending && wk->pending != a)
			read_answer(wk);
		if (wk->pending == a)
			window_lost(wk, false);
	} else if (run_due(wk)) {
		run_flush(wk);
	}
	pthread_mutex_unlock(&wk->xlock);
	return 0;
}

void worker_answer_clear(struct worker_answer *a)
{
	a->rc = a->wstatus = 0;
	a->skipped = a->done = false;
	a->place = 0;
	a->next = NULL;
	job_result_clear(&a->res);
}

void worker_flush(struct worker *wk)
{
	pthread_mutex_lock(&wk->xlock);
	run_flush(wk);
	pthread_mutex_unlock(&wk->xlock);
}

void worker_collect(struct worker *wk, struct worker_answer *a)
{
	pthread_mutex_lock(&wk->xlock);
	while (!a->done)
		read_answer(wk);
	pthread_mutex_unlock(&wk->xlock);
}

bool worker_fits(struct worker *wk, const struct job_plan *jp)
{
	struct strvec env = STRVEC_INIT;
	uint64_t type = plan_env_type(jp);
	char *key;
	bool fits;

	if (wk->env_lent && type == wk->env_type) {
		if (wk->dead || wk->session)
			return false;
		/* A kernel of its last jobs (a batch's repeated steps): its program is noted
		 * as built already, and its key was formatted once. */
		int h = head_find(wk, jp);

		if (h < 0) {
			key = plan_key(jp, &wk->env);
			note_built(wk, key);
			h = head_keep(wk, jp, key);
		}
		if (h != wk->head_cur) {
			free(wk->key);
			wk->key = xstrdup(wk->heads[h].key);
			wk->head_cur = h;
		}
		return true;
	}
	plan_env(wk->pool, jp, &env);
	key = plan_key(jp, &env);
	fits = !wk->dead && !wk->session && same_env(wk->key, key);
	if (fits) {
		lend_for(wk->pool, wk, key);
		keep_env(wk, &env, type);
	} else {
		sv_free(&env);
	}
	free(key);
	return fits;
}

/* ---- resident buffers ---- */

uint64_t worker_serial(const struct worker *wk)
{
	return wk->serial;
}

bool worker_dead(const struct worker *wk)
{
	return wk->dead;
}

void worker_hold(struct worker *wk)
{
	struct workers *w = wk->pool;

	if (wk->holds || wk->dead)
		return;
	pthread_mutex_lock(&w->lock);
	wk->holds = true;
	wk->hnext = w->holders;
	w->holders = wk;
	pthread_mutex_unlock(&w->lock);
}

/* How long the shell polls for a write-back's answer before it sleeps: the device's queue
 * at a batch's end on the H200 machine takes 0.1-0.3 ms. */
#define WRITEBACK_SPIN_MS 0.5

/* One buffer request (WORKER_WRITEBACK, WORKER_NARROW, WORKER_DROP) and its answer; xlock held. A
 * worker that does not answer is not to be trusted again. */
static int buffer_request(struct worker *wk, uint32_t type, const char *shm, uint64_t gen,
                          struct cs_err *e)
{
	struct wbuf msg = WBUF_INIT;
	uint32_t status = 1;
	bool ok;

	read_pending(wk);
	if (wk->dead)
		return err_set(e, "worker %d ended", (int)wk->pid);
	workerwire_encode_buffer(shm ? shm : "", gen, &msg);
	memset(wk->res, 0, sizeof(*wk->res));
	ok = wire_send(wk->sock, type, msg.p, msg.len, NULL, 0, e) == 0;
	/* A write-back waits for the device's queue: polled first (exec/spin.h). */
	if (ok && type == WORKER_WRITEBACK)
		(void)spin_readable(wk->sock, WRITEBACK_SPIN_MS);
	ok = ok && answered(wk, WORKER_DONE, &status, sizeof(status), e);
	wb_free(&msg);
	if (!ok) {
		wk->dead = true;
		return err_set(e, "worker %d ended while idle", (int)wk->pid);
	}
	if (status != 0) {
		err_set(e, "%s", wk->res->msg[0] ? wk->res->msg : "the worker failed");
		return -2;
	}
	return 0;
}

int worker_drop(struct worker *wk, const char *shm, struct cs_err *e)
{
	int rc;

	pthread_mutex_lock(&wk->xlock);
	rc = buffer_request(wk, WORKER_DROP, shm, 0, e);
	pthread_mutex_unlock(&wk->xlock);
	return rc;
}

/* The holder with that serial, with a reference (NULL: it is gone). */
static struct worker *holder_ref(struct workers *w, uint64_t serial)
{
	struct worker *wk;

	pthread_mutex_lock(&w->lock);
	for (wk = w->holders; wk && wk->serial != serial; wk = wk->hnext)
		;
	if (wk)
		wk->refs++;
	pthread_mutex_unlock(&w->lock);
	return wk;
}

static void holder_unref(struct workers *w, struct worker *wk)
{
	bool end;

	pthread_mutex_lock(&w->lock);
	end = --wk->refs == 0 && wk->retired;
	pthread_mutex_unlock(&w->lock);
	if (end)
		worker_end(wk);
}

/* A buffer request to the holder with that serial, under its exchange lock. */
static int holder_request(struct workers *w, uint64_t serial, uint32_t type, const char *shm,
                          uint64_t gen, struct cs_err *e)
{
	struct worker *wk = holder_ref(w, serial);
	int rc;

	if (!wk)
		return err_set(e, "the worker ended while idle");
	pthread_mutex_lock(&wk->xlock);
	rc = buffer_request(wk, type, shm, gen, e);
	pthread_mutex_unlock(&wk->xlock);
	holder_unref(w, wk);
	return rc;
}

int workers_write_back(struct workers *w, uint64_t serial, const char *shm, uint64_t gen,
                       struct cs_err *e)
{
	return holder_request(w, serial, WORKER_WRITEBACK, shm, gen, e);
}

int workers_narrow(struct workers *w, uint64_t serial, const char *shm, uint64_t gen,
                   struct cs_err *e)
{
	return holder_request(w, serial, WORKER_NARROW, shm, gen, e);
}

/* The serials of the workers that hold buffers now (at most max). */
static size_t holder_serials(struct workers *w, uint64_t *serials, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&w->lock);
	for (struct worker *wk = w->holders; wk && n < max; wk = wk->hnext)
		serials[n++] = wk->serial;
	pthread_mutex_unlock(&w->lock);
	return n;
}

void workers_drop_everywhere(struct workers *w, const char *shm)
{
	uint64_t serials[64];
	size_t n = holder_serials(w, serials, 64);
	struct cs_err ignored;

	for (size_t i = 0; i < n; i++) {
		struct worker *wk = holder_ref(w, serials[i]);

		if (!wk)
			continue;
		(void)worker_drop(wk, shm, &ignored);
		holder_unref(w, wk);
	}
}

/* WORKER_FINISH and its answer; how the worker ended where it did (its queued work killed
 * it). */
static int finish_request(struct worker *wk, struct cs_err *e)
{
	uint32_t status = 1;
	char how[160];
	int ws;

	read_pending(wk);
	memset(wk->res, 0, sizeof(*wk->res));
	if (!wk->dead && wire_send(wk->sock, WORKER_FINISH, NULL, 0, NULL, 0, e) == 0 &&
	    answered(wk, WORKER_DONE, &status, sizeof(status), e)) {
		if (status == 0)
			return 0;
		return err_set(e, "%s", wk->res->msg[0] ? wk->res->msg : "the worker failed");
	}
	if (wk->end_known)
		ws = wk->end_status;
	else if (reap(wk, &ws, e) != 0)
		return -1;
	proc_describe(ws, how, sizeof(how));
	return err_set(e,
	               "worker %d ended (%s) while the device work its jobs queued ran: what they "
	               "wrote there is lost ('set stats=on' makes each job wait for its work, "
	               "so that the one that fails is named)",
	               (int)wk->pid, how);
}

int workers_finish_all(struct workers *w, struct cs_err *e)
{
	uint64_t serials[64];
	size_t n = holder_serials(w, serials, 64);
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		struct worker *wk = holder_ref(w, serials[i]);
		struct cs_err one;

		if (!wk)
			continue;
		pthread_mutex_lock(&wk->xlock);
		if (finish_request(wk, rc ? &one : e) != 0)
			rc = -1;
		pthread_mutex_unlock(&wk->xlock);
		holder_unref(w, wk);
	}
	return rc;
}

/* The worker's answer to WORKER_DEVICES; -1 with e, *garbled when it is not to be trusted. */
static int ask_devices(struct worker *wk, const struct strvec *env, struct rt_devinfo **devs,
                       size_t *n, bool *garbled, struct cs_err *e)
{
	struct wbuf msg = WBUF_INIT;
	struct wire_msg m;
	int r;

	workerwire_encode_env(env, &msg);
	r = wire_send(wk->sock, WORKER_DEVICES, msg.p, msg.len, NULL, 0, e);
	wb_free(&msg);
	if (r || wire_recv(wk->sock, &m, e) != 1) {
		*garbled = true;
		return err_set(e, "the worker did not answer the device list request");
	}
	if (m.type == WORKER_DEVLIST)
		r = workerwire_decode_devices(m.payload, m.len, devs, n, e);
	else /* WORKER_DONE: it could not list them, and said why */
		r = err_set(e, "%s",
		            m.type == WORKER_DONE ? wk->res->msg : "the worker answered garbage");
	*garbled = r != 0 && m.type != WORKER_DONE;
	wire_msg_free(&m);
	return r;
}

int workers_devices(struct workers *w, struct rt_devinfo **devs, size_t *n, struct cs_err *e)
{
	struct strvec env = STRVEC_INIT;
	struct strbuf key = STRBUF_INIT;
	bool fallback = false, quiet = false, garbled = false;
	struct worker *wk = NULL;
	int rc = -1, ws;

	if (!__atomic_load_n(&w->served, __ATOMIC_ACQUIRE))
		return err_set(e, "no carsh server");
	/* plan_key's form with no selectors and no program: any worker of the environment. */
	sb_addf(&key, "||\t@");
	workerwire_job_env(&env);
	for (size_t i = 0; i < env.n; i++)
		sb_addf(&key, "\n%s", env.v[i]);
	wk = remote_take(w, SERVER_DEVICES, sb_str(&key), &fallback, &quiet, e);
	if (fallback)
		fall_back(w, quiet, e);
	if (wk) {
		rc = ask_devices(wk, &env, devs, n, &garbled, e);
		if (garbled) {
			struct cs_err ignored;

			reap(wk, &ws, &ignored); /* not to be lent again */
		}
		workers_give(w, wk);
	}
	sv_free(&env);
	sb_free(&key);
	return rc;
}
