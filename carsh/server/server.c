/* The server's loop (server/server.h): one thread, poll over the listening socket and the
 * clients' connections. Workers are forked by its pool's spawner thread. */
#include "server/server.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "exec/serverdir.h"
#include "exec/serverwire.h"
#include "server/spares.h"
#include "exec/workers.h"
#include "util/alloc.h"
#include "util/strbuf.h"
#include "util/wire.h"

/* Idle workers the server keeps: enough for a batch's background jobs to run at once. */
#define SERVER_KEEP_IDLE 8

struct lent {
	struct worker *wk;
	struct lent *next;
};

struct client {
	int fd;
	pid_t pid;         /* for `carsh server status` */
	struct lent *lent; /* workers lent to it, not yet given back */
	struct client *next;
};

struct server {
	int lfd;
	char *sock;
	struct workers *pool;
	struct spares *spares; /* session workers for `carsh -T` */
	struct client *clients;
	unsigned nclients, nlent;
	unsigned long jobs;
	unsigned long devlists; /* workers lent for a device list (SERVER_DEVICES) */
	unsigned long sessions, warm_sessions, again_sessions;
	time_t started;
	ino_t ino; /* the socket file's */
	bool stop;
};

static volatile sig_atomic_t terminated;

static void on_term(int sig)
{
	(void)sig;
	terminated = 1;
}

static unsigned idle_seconds(void)
{
	const char *v = getenv("CARSH_SERVER_IDLE");
	char *end;
	unsigned long n;

	if (!v || !v[0])
		return SERVER_IDLE_DEFAULT;
	n = strtoul(v, &end, 10);
	return *end || n == 0 ? SERVER_IDLE_DEFAULT : (unsigned)n;
}

/* A line in the log (the server's standard error). */
static void say(const char *what, const char *arg)
{
	char when[32];
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%F %T", localtime(&now));
	fprintf(stderr, "%s carsh server %d: %s%s\n", when, (int)getpid(), what, arg);
}

/* ---- the listening socket ---- */

static int listen_on(const char *path, struct cs_err *e)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(a.sun_path))
		return err_set(e, "the server's socket path %s is too long", path);
	strcpy(a.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_errno(e, "cannot create the server's socket");
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
		close(fd);
		return err_set(e, "a carsh server runs already at %s", path);
	}
	unlink(path); /* a dead server's */
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 64) != 0) {
		err_errno(e, "cannot listen at %s", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- clients ---- */

static void send_error(int fd, const char *msg)
{
	struct cs_err e;

	wire_send(fd, SERVER_ERROR, msg, strlen(msg), NULL, 0, &e);
}

/* Only the server's own user: anyone else's jobs would run with this user's rights. */
static void accept_client(struct server *s)
{
	struct ucred c;
	socklen_t len = sizeof(c);
	int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len) != 0 || c.uid != getuid()) {
		char msg[128];

		snprintf(msg, sizeof(msg),
		         "carsh server: refused: uid %u is not the server's user %u",
		         (unsigned)c.uid, (unsigned)getuid());
		send_error(fd, msg);
		say(msg, "");
		close(fd);
		return;
	}
	struct client *cl = xcalloc(1, sizeof(*cl));

	cl->fd = fd;
	cl->pid = c.pid;
	cl->next = s->clients;
	s->clients = cl;
	s->nclients++;
}

/* The worker lent to cl with that pid, taken off its list; NULL when none. */
static struct worker *unlend(struct server *s, struct client *cl, uint32_t pid)
{
	for (struct lent **p = &cl->lent; *p; p = &(*p)->next) {
		struct lent *l = *p;
		struct worker *wk = l->wk;

		if ((uint32_t)worker_pid(wk) != pid)
			continue;
		*p = l->next;
		free(l);
		s->nlent--;
		return wk;
	}
	return NULL;
}

/* A client that went away mid-job: its jobs stop (SIGTERM: they remove their temporary
 * files) and their workers are reaped. */
static void drop_client(struct server *s, struct client *cl)
{
	while (cl->lent) {
		struct worker *wk = unlend(s, cl, (uint32_t)worker_pid(cl->lent->wk));
		int ws;

		worker_stop(wk, SIGTERM, &ws);
		workers_give(s->pool, wk);
	}
	close(cl->fd);
	for (struct client **p = &s->clients; *p; p = &(*p)->next)
		if (*p == cl) {
			*p = cl->next;
			break;
		}
	free(cl);
	s->nclients--;
}

static void lend(struct server *s, struct client *cl, struct worker *wk)
{
	struct lent *l = xcalloc(1, sizeof(*l));

	*l = (struct lent){wk, cl->lent};
	cl->lent = l;
	s->nlent++;
}

/* A worker for a job (TAKE), or for a device list (DEVICES): counted in *count. */
static void take(struct server *s, struct client *cl, const struct wire_msg *m,
                 unsigned long *count)
{
	struct cs_err e;
	struct worker *wk = workers_take_key(s->pool, (const char *)m->payload, &e);
	int fds[2];
	uint32_t pid;

	if (!wk) {
		send_error(cl->fd, e.msg);
		return;
	}
	pid = (uint32_t)worker_pid(wk);
	fds[0] = worker_socket(wk);
	fds[1] = worker_result_fd(wk);
	lend(s, cl, wk);
	(*count)++;
	wire_send(cl->fd, SERVER_LENT, &pid, sizeof(pid), fds, 2, &e);
}

/* A session worker for a whole `carsh -T` session; the client talks to it directly. */
static void take_session(struct server *s, struct client *cl, const struct wire_msg *m)
{
	struct cs_err e;
	bool warm, again;
	struct worker *wk = spares_take(s->spares, (const char *)m->payload, &warm, &again, &e);
	uint32_t pid;
	int fd;

	if (!wk) {
		send_error(cl->fd, e.msg);
		return;
	}
	pid = (uint32_t)worker_pid(wk);
	fd = worker_socket(wk);
	lend(s, cl, wk);
	s->sessions++;
	s->warm_sessions += warm;
	s->again_sessions += again;
	wire_send(cl->fd, SERVER_SESSION_LENT, &pid, sizeof(pid), &fd, 1, &e);
}

static void give(struct server *s, struct client *cl, const struct wire_msg *m, bool ended)
{
	struct worker *wk = NULL;
	uint32_t pid, ws32;
	struct cs_err e;
	int ws = 0;

	if (m->len == sizeof(pid)) {
		memcpy(&pid, m->payload, sizeof(pid));
		wk = unlend(s, cl, pid);
	}
	if (!wk) {
		if (ended)
			send_error(cl->fd, "carsh server: no such worker lent to this client");
		return;
	}
	/* A session worker that answered has ended its session: it only exits, and may be
	 * killed at once rather than waited for (a client's GIVE must not hold up the server). */
	if ((ended || worker_is_session(wk)) && worker_stop(wk, SIGKILL, &ws) != 0)
		ws = W_EXITCODE(1, 0);
	workers_give(s->pool, wk);
	ws32 = (uint32_t)ws;
	if (ended)
		wire_send(cl->fd, SERVER_STATUS, &ws32, sizeof(ws32), NULL, 0, &e);
}

/* A session worker that waits for another session: a spare again, unless it ended. */
static void give_again(struct server *s, struct client *cl, const struct wire_msg *m)
{
	struct worker *wk = NULL;
	uint32_t pid;
	int ws;

	if (m->len == sizeof(pid)) {
		memcpy(&pid, m->payload, sizeof(pid));
		wk = unlend(s, cl, pid);
	}
	if (!wk)
		return;
	if (worker_is_session(wk) && !worker_ended(wk)) {
		spares_put(s->spares, wk);
		return;
	}
	if (!worker_ended(wk))
		worker_stop(wk, SIGKILL, &ws);
	workers_give(s->pool, wk);
}

static void info(struct server *s, struct client *cl)
{
	struct strbuf sb = STRBUF_INIT;
	struct cs_err e;

	sb_addf(&sb, "pid %d\nuptime %lld s\nbuild %s\nversion %s\n", (int)getpid(),
	        (long long)(time(NULL) - s->started), server_build_id(), PACKAGE_VERSION);
	sb_addf(&sb, "socket %s\nworkers %u idle, %u lent\njobs %lu\nclients %u\n", s->sock,
	        workers_idle(s->pool), s->nlent, s->jobs, s->nclients - 1);
	sb_addf(&sb, "device lists %lu\n", s->devlists);
	sb_addf(&sb, "sessions %lu, %lu warm, %lu in a worker that served one before\n",
	        s->sessions, s->warm_sessions, s->again_sessions);
	sb_addf(&sb, "session workers %u waiting\n", spares_waiting(s->spares));
	sb_addf(&sb, "idle exit %u s\n", idle_seconds());
	for (struct client *c = s->clients; c; c = c->next)
		for (struct lent *l = c->lent; l; l = l->next)
			sb_addf(&sb, "lent %d to %d\n", (int)worker_pid(l->wk), (int)c->pid);
	wire_send(cl->fd, SERVER_INFO, sb_str(&sb), strlen(sb_str(&sb)), NULL, 0, &e);
	sb_free(&sb);
}

/* One request; false when the client is to be dropped. */
static bool serve(struct server *s, struct client *cl)
{
	struct wire_msg m;
	struct cs_err e;
	bool keep = true;

	if (wire_recv(cl->fd, &m, &e) != 1)
		return false;
	switch (m.type) {
	case SERVER_TAKE:
	case SERVER_DEVICES:
		take(s, cl, &m, m.type == SERVER_TAKE ? &s->jobs : &s->devlists);
		break;
	case SERVER_SESSION:
		take_session(s, cl, &m);
		break;
	case SERVER_GIVE:
	case SERVER_ENDED:
		give(s, cl, &m, m.type == SERVER_ENDED);
		break;
	case SERVER_GIVE_SESSION:
		give_again(s, cl, &m);
		break;
	case SERVER_QUERY:
	case SERVER_STOP:
		info(s, cl);
		s->stop = s->stop || m.type == SERVER_STOP;
		break;
	default:
		send_error(cl->fd, "carsh server: unknown request");
		keep = false;
	}
	wire_msg_free(&m);
	return keep;
}

/* ---- the loop ---- */

/* How often a client holding workers is checked for being alive (drop_dead_clients). */
#define SERVER_LIVENESS_MS 1000

/* Milliseconds ppoll may wait: until the idle exit with no client, a liveness check while
 * workers are lent, else without end. */
static int poll_timeout(const struct server *s, time_t idle_since)
{
	long left;

	if (s->nlent)
		return SERVER_LIVENESS_MS;
	if (s->nclients)
		return -1;
	left = (long)idle_seconds() - (long)(time(NULL) - idle_since);
	return left > 0 ? (int)(left * 1000) : 0;
}

/* A client's connection can outlive it: a copy of its socket held by another process (a
 * client started with descriptor 0 closed handed it to its job as standard input) keeps it
 * open, and the workers lent to the dead client were never taken back. */
static void drop_dead_clients(struct server *s)
{
	struct client *c = s->clients, *next;

	for (; c; c = next) {
		next = c->next;
		if (c->lent && c->pid > 0 && kill(c->pid, 0) == -1 && errno == ESRCH) {
			say("client gone, its workers taken back", "");
			drop_client(s, c);
		}
	}
}

/* One round: false when the server is to end (stopped, terminated, idle). */
static bool round_of(struct server *s, time_t *idle_since, const sigset_t *during)
{
	size_t n = 1 + s->nclients, i = 1;
	unsigned before = s->nclients;
	struct pollfd *pfd = xcalloc(n, sizeof(*pfd));
	int ms = poll_timeout(s, *idle_since), r;
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	pfd[0] = (struct pollfd){s->lfd, POLLIN, 0};
	for (struct client *c = s->clients; c; c = c->next)
		pfd[i++] = (struct pollfd){c->fd, POLLIN, 0};
	r = ppoll(pfd, n, ms < 0 ? NULL : &ts, during);
	if (r == 0 && !s->nclients) {
		free(pfd);
		say("idle: ending", "");
		return false;
	}
	for (i = 1; r > 0 && i < n; i++) {
		struct client *c = s->clients;

		if (!pfd[i].revents)
			continue;
		while (c && c->fd != pfd[i].fd)
			c = c->next;
		if (c && !serve(s, c))
			drop_client(s, c);
	}
	if (r > 0 && (pfd[0].revents & POLLIN))
		accept_client(s);
	free(pfd);
	drop_dead_clients(s);
	if (before && !s->nclients)
		*idle_since = time(NULL);
	return !s->stop && !terminated;
}

static void server_end(struct server *s)
{
	struct stat st;

	/* Unlinked before the socket closes: a client either reached this server (and sees
	 * it end) or finds no socket and starts a new one. Only if it is still this server's. */
	if (stat(s->sock, &st) == 0 && st.st_ino == s->ino)
		unlink(s->sock);
	close(s->lfd);
	while (s->clients)
		drop_client(s, s->clients);
	spares_free(s->spares);
	workers_free(s->pool);
	free(s->sock);
}

static void server_signals(sigset_t *during)
{
	struct sigaction sa = {.sa_handler = on_term};
	sigset_t term;

	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, during);
	sigdelset(during, SIGTERM);
}

int server_main(struct cs_err *e)
{
	struct server s = {.lfd = -1};
	char *dir = server_dir(e);
	sigset_t during;
	time_t idle_since;

	if (!dir)
		return -1;
	s.sock = server_path(dir, "sock");
	free(dir);
	s.lfd = listen_on(s.sock, e);
	if (s.lfd < 0) {
		free(s.sock);
		return -1;
	}
	{
		struct stat st;

		s.ino = stat(s.sock, &st) == 0 ? st.st_ino : 0;
	}
	server_signals(&during);
	s.pool = workers_new(SERVER_KEEP_IDLE);
	s.spares = spares_new(s.pool);
	s.started = idle_since = time(NULL);
	say("listening at ", s.sock);
	while (round_of(&s, &idle_since, &during))
		;
	say(s.stop ? "stopped" : terminated ? "terminated" : "ended", "");
	server_end(&s);
	return 0;
}
