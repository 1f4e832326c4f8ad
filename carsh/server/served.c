/* `carsh -T` through the user's server (server/served.h). */
#include "server/served.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "data/vbuf.h"
#include "server/apiwire.h"
#include "exec/process.h"
#include "exec/serverclient.h"
#include "exec/serverwire.h"
#include "exec/threadexec.h"
#include "exec/workerwire.h"
#include "util/alloc.h"
#include "util/strbuf.h"
#include "util/wire.h"

extern char **environ;

#define SESSION_SOCK SERVED_SOCK

/* ---- the client ---- */

static volatile pid_t forward_to;         /* the session worker, once lent */
static volatile sig_atomic_t held_signal; /* one that came before */

static void forward(int sig)
{
	pid_t p = forward_to;

	if (p > 0)
		kill(p, sig);
	else
		held_signal = sig;
}

static void forward_signals(void)
{
	struct sigaction sa = {.sa_handler = forward, .sa_flags = SA_RESTART};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static char *job_env_key(void)
{
	struct strvec env = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;

	workerwire_job_env(&env);
	for (size_t i = 0; i < env.n; i++)
		sb_addf(&sb, "%s%s", i ? "\n" : "", env.v[i]);
	sv_free(&env);
	return sb_detach(&sb);
}

int served_borrow(int srv, pid_t spid, pid_t *pid, int *sock, struct cs_err *e)
{
	char *key = job_env_key();
	struct wire_msg m;
	uint32_t p;
	int r;

	r = wire_send(srv, SERVER_SESSION, key, strlen(key), NULL, 0, e);
	free(key);
	if ((r = wire_recv(srv, &m, e)) != 1) {
		if (r == 0)
			err_set(e, "the carsh server (pid %d) closed the connection", (int)spid);
		return -1;
	}
	if (m.type != SERVER_SESSION_LENT || m.len != sizeof(p) || m.nfds != 1) {
		err_set(e, "%s",
		        m.type == SERVER_ERROR
		                ? (const char *)m.payload
		                : "the carsh server sent a malformed session worker");
		wire_msg_free(&m);
		return -1;
	}
	memcpy(&p, m.payload, sizeof(p));
	*pid = (pid_t)p;
	*sock = m.fds[0];
	m.fds[0] = -1;
	wire_msg_free(&m);
	return 0;
}

static int send_session(int sock, char *cwd, int argc, char **argv, struct cs_err *e)
{
	struct session_req r = {.client = (uint32_t)getpid(), .cwd = cwd};
	static const int fds[3] = {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO};
	struct wbuf msg = WBUF_INIT;
	mode_t mask = umask(0);
	int rc;

	umask(mask);
	r.umask = (uint32_t)mask;
	for (char **v = environ; *v; v++)
		sv_push(&r.env, *v);
	for (int i = 0; i < argc; i++)
		sv_push(&r.argv, argv[i]);
	sessionwire_encode(&r, &msg);
	sv_free(&r.env);
	sv_free(&r.argv);
	rc = wire_send(sock, WORKER_SESSION, msg.p, msg.len, fds, 3, e);
	wb_free(&msg);
	return rc;
}

/* A worker that ended without an answer. One that exited ended its session itself (a
 * signal it was sent, a fatal error) and said why on the client's standard error; one that
 * was killed gets one line here, but for SIGPIPE, which ends a carsh whose reader went
 * away silently. Its virtual buffers, named from this process, go now. */
static int ended_how(pid_t pid, int ws, int *status, struct cs_err *e)
{
	char how[64];

	vbuf_remove_owned(getpid());
	*status = proc_status(ws);
	if (!WIFSIGNALED(ws) || WTERMSIG(ws) == SIGPIPE)
		return 0;
	proc_describe(ws, how, sizeof(how));
	return err_set(e,
	               "the carsh server's session worker (pid %d) was %s; the session did not "
	               "finish",
	               (int)pid, how);
}

int served_ended(int srv, pid_t pid, int *ws, struct cs_err *e)
{
	uint32_t v = (uint32_t)pid, w;
	struct wire_msg m;

	if (wire_send(srv, SERVER_ENDED, &v, sizeof(v), NULL, 0, e) != 0 ||
	    wire_recv(srv, &m, e) != 1)
		return -1;
	if (m.type != SERVER_STATUS || m.len != sizeof(w)) {
		wire_msg_free(&m);
		err_set(e, "the carsh server sent a malformed status");
		return -2;
	}
	memcpy(&w, m.payload, sizeof(w));
	wire_msg_free(&m);
	*ws = (int)w;
	return 0;
}

/* The session's status: the worker's answer, else how it ended (from the server, its
 * parent). */
static int outcome(int srv, pid_t spid, int sock, pid_t pid, int *status, struct cs_err *e)
{
	struct wire_msg m;
	uint32_t v = (uint32_t)pid, ws;
	int wsi, r = wire_recv(sock, &m, e);

	err_clear(e);
	if (r == 1 && m.type == WORKER_DONE && m.len == sizeof(ws)) {
		memcpy(&ws, m.payload, sizeof(ws));
		wire_msg_free(&m);
		*status = (int)(ws & 0xff);
		/* Before the worker is given back: a signal now is not for the next session. */
		forward_to = 0;
		wire_send(srv, (ws & WORKER_DONE_AGAIN) ? SERVER_GIVE_SESSION : SERVER_GIVE, &v,
		          sizeof(v), NULL, 0, e);
		err_clear(e);
		return 0;
	}
	if (r == 1)
		wire_msg_free(&m);
	kill(pid, SIGKILL); /* a garbled answer: not to be trusted */
	if ((r = served_ended(srv, pid, &wsi, e)) != 0) {
		*status = 1;
		if (r == -2)
			return -1;
		/* Its worker ended with it (PR_SET_PDEATHSIG) and removed them; in case not. */
		vbuf_remove_owned(getpid());
		return err_set(e,
		               "the carsh server (pid %d) ended; the job did not finish (the next "
		               "job starts a new server)",
		               (int)spid);
	}
	return ended_how(pid, wsi, status, e);
}

int served_session_run(int argc, char **argv, int *status, struct cs_err *e)
{
	char cwd[4096];
	pid_t spid, pid;
	int srv, sock;

	/* A directory that is gone, or too long to name, is this process's to report. */
	if (!getcwd(cwd, sizeof(cwd))) {
		err_clear(e);
		return 0;
	}
	if ((srv = server_connect(true, &spid, e)) < 0)
		return 0;
	if (!server_same_mounts(spid) || served_borrow(srv, spid, &pid, &sock, e)) {
		if (!server_same_mounts(spid))
			err_clear(e);
		close(srv);
		return 0;
	}
	forward_signals();
	/* A worker that cannot take the session (it died waiting) is asked about below. */
	if (send_session(sock, cwd, argc, argv, e) == 0) {
		forward_to = pid;
		if (held_signal)
			kill(pid, held_signal);
	}
	outcome(srv, spid, sock, pid, status, e);
	forward_to = 0;
	close(sock);
	close(srv);
	return 1;
}

/* ---- the session worker ---- */

/* The client's environment, directory, umask and descriptors become this process's. */
static int take_on(struct session_req *r, const struct wire_msg *m, struct cs_err *e)
{
	clearenv();
	for (size_t i = 0; i < r->env.n; i++)
		if (strchr(r->env.v[i], '='))
			putenv(xstrdup(r->env.v[i])); /* environ's for good */
	umask((mode_t)r->umask);
	if (chdir(r->cwd) != 0)
		return err_errno(e, "the session worker cannot enter %s", r->cwd);
	for (int fd = 0; fd < 3; fd++)
		if (dup2(m->fds[fd], fd) < 0)
			return err_errno(e, "the session worker cannot take descriptor %d", fd);
	vbuf_set_owner((pid_t)r->client);
	return 0;
}

/* The worker's own standard error (the server's log), for between its sessions. */
static int own_err = -1;
/* Sessions served: a worker serves at most SESSIONS_MAX (what a session leaks stays
 * bounded), then ends and a fresh spare takes its place. */
static unsigned served;
#define SESSIONS_MAX 64

int served_worker_begin(struct session_req *r, struct wire_msg *api, struct cs_err *e)
{
	sigset_t stop;
	struct wire_msg m;
	int rc = -1;

	/* Blocked before the OpenCL runtime starts its threads: the session's signal thread
	 * (api.c) takes them, and a signal sent while it waits ends it with its socket. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	fcntl(SESSION_SOCK, F_SETFD, FD_CLOEXEC);
	if (own_err < 0)
		own_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, SESSION_SOCK + 1);
	texec_prewarm(getenv("CARSH_DEVICE"));
	texec_exit_without_teardown(); /* served_worker_done _exits */
	sessionwire_free(r);           /* the last session's, when this worker served one */
	memset(r, 0, sizeof(*r));
	if (wire_recv(SESSION_SOCK, &m, e) != 1)
		_exit(0);
	if (m.type == API_OPEN && m.nfds == 0) {
		/* No session and no signal thread: the server's SIGTERM ends it as it ends a job.
		 */
		pthread_sigmask(SIG_UNBLOCK, &stop, NULL);
		*api = m;
		return 1;
	}
	if (m.type != WORKER_SESSION || m.nfds != 3)
		err_set(e, "the session worker got no session");
	else if (sessionwire_decode(m.payload, m.len, r, e) == 0)
		rc = take_on(r, &m, e);
	wire_msg_free(&m);
	return rc;
}

void served_worker_done(int status)
{
	uint32_t v = (uint32_t)status;
	struct cs_err e;

	fflush(NULL);
	wire_send(SESSION_SOCK, WORKER_DONE, &v, sizeof(v), NULL, 0, &e);
	/* As a forked worker: nothing of the runtime's teardown is anyone's wait. */
	_exit(status);
}

/* Nothing of the last client's stays open or current here: a reader of its output sees
 * the end, its directory is not kept busy, and what it left unread on standard input is
 * not the next session's. false when /dev/null cannot be had: the worker ends instead. */
static bool drop_client(void)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0)
		return false;
	dup2(null, STDIN_FILENO);
	dup2(null, STDOUT_FILENO);
	dup2(own_err >= 0 ? own_err : null, STDERR_FILENO);
	close(null);
	__fpurge(stdin);
	clearerr(stdin);
	clearerr(stdout);
	clearerr(stderr);
	return chdir("/") == 0;
}

void served_worker_again(int status)
{
	bool again = status == 0 && texec_warm() && served + 1 < SESSIONS_MAX;
	uint32_t v = (uint32_t)status | WORKER_DONE_AGAIN;
	struct cs_err e;

	fflush(NULL);
	if (!again || !drop_client())
		served_worker_done(status);
	served++;
	if (wire_send(SESSION_SOCK, WORKER_DONE, &v, sizeof(v), NULL, 0, &e) != 0)
		_exit(status);
}
