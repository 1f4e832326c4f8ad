/* The ranks' watchdog (mpi/rankwatch.h): a star of TCP connections around rank 0. */
#include "mpi/rankwatch.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"

/* A heartbeat every HEARTBEAT_MS each way; a send that cannot go within SEND_MS (a peer
 * that stopped reading) fails rather than holds the watchdog. */
#define HEARTBEAT_MS 500
#define ARM_MS       30000 /* how long rank 0 waits for every rank's connection */
#define SEND_MS      1000
#define HOST_MAX     64
#define WHY_MAX      64
#define NOTE_MAX     320

/* One message: H hello, h heartbeat, B bye, L a rank lost (rank 0 to the others). */
struct rec {
	char type;
	char pad[3];
	uint32_t rank, pid; /* network order */
	char host[HOST_MAX];
	char why[WHY_MAX];
};

struct peer {
	int fd, rank, pid;
	bool bye;
	long long heard_ms;
	char host[HOST_MAX];
};

static struct peer *peers; /* rank 0: one per other rank, by rank; the others: rank 0 alone */
static int npeers, me, nranks = 1;
static int listen_fd = -1; /* rank 0, from rankwatch_listen to rankwatch_arm */
static bool armed;
static volatile bool stopping;
static void (*lost_cb)(const char *msg);
static pthread_mutex_t notes_lock = PTHREAD_MUTEX_INITIALIZER;
static char (*jobs)[NOTE_MAX]; /* the last job placed on each rank */
static char step[NOTE_MAX];
static char my_host[HOST_MAX];

bool rankwatch_wanted(void)
{
	const char *w = getenv("CARSH_MPI_WATCH");

	return !w || strcmp(w, "off") != 0;
}

static long long silence_ms(void)
{
	const char *s = getenv("CARSH_MPI_WATCH_MS");
	long long v = s ? atoll(s) : 0;

	return v > 0 ? v : 5000;
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void rankwatch_note_job(int rank, const char *what)
{
	pthread_mutex_lock(&notes_lock);
	if (jobs && rank >= 0 && rank < nranks && step[0])
		snprintf(jobs[rank], NOTE_MAX, "%.150s, placed at %.150s", what, step);
	else if (jobs && rank >= 0 && rank < nranks)
		snprintf(jobs[rank], NOTE_MAX, "%s", what);
	pthread_mutex_unlock(&notes_lock);
}

void rankwatch_note_step(const char *what)
{
	pthread_mutex_lock(&notes_lock);
	snprintf(step, NOTE_MAX, "%s", what);
	pthread_mutex_unlock(&notes_lock);
}

static int send_rec(int fd, char type, int rank, int pid, const char *host, const char *why)
{
	struct rec r = {.type = type, .rank = htonl((uint32_t)rank), .pid = htonl((uint32_t)pid)};
	size_t at = 0;

	snprintf(r.host, sizeof(r.host), "%s", host ? host : "");
	snprintf(r.why, sizeof(r.why), "%s", why ? why : "");
	while (at < sizeof(r)) {
		ssize_t n = send(fd, (char *)&r + at, sizeof(r) - at, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		at += (size_t)n;
	}
	return 0;
}

/* 0 with a whole message, -1 at an end of file or an error. */
static int recv_rec(int fd, struct rec *r)
{
	ssize_t n;

	do
		n = recv(fd, r, sizeof(*r), MSG_WAITALL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*r))
		return -1;
	r->host[HOST_MAX - 1] = r->why[WHY_MAX - 1] = '\0';
	return 0;
}

/* Waits for fd to be readable (or writable) until the deadline; false at the deadline. */
static bool wait_fd(int fd, short ev, long long deadline)
{
	struct pollfd p = {.fd = fd, .events = ev};
	long long left;

	while ((left = deadline - now_ms()) > 0) {
		int n = poll(&p, 1, (int)left);

		if (n > 0)
			return true;
		if (n < 0 && errno != EINTR)
			return false;
	}
	return false;
}

static void describe(char *msg, size_t len, int rank, int pid, const char *host, const char *why)
{
	pthread_mutex_lock(&notes_lock);
	snprintf(msg, len,
	         "lost rank %d on %s (pid %d): %s; its last job: %s; the ranks were at %s", rank,
	         host, pid, why, jobs && jobs[rank][0] ? jobs[rank] : "none",
	         step[0] ? step : "their start");
	pthread_mutex_unlock(&notes_lock);
}

/* Whether pid still runs: not gone and not a zombie. */
static bool running(int pid)
{
	char path[64], buf[256], *close_paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	close_paren = strrchr(buf, ')');
	return close_paren && close_paren[1] == ' ' && close_paren[2] != 'Z' &&
	       close_paren[2] != 'X';
}

/* The lost rank's pid where it ran on this node (0: none, or another node). */
static _Atomic pid_t lost_here;

/* A process's connections close before it has finished dying (a large address space takes
 * a while to tear down, longer under a sanitizer): the lost rank of this node is waited for,
 * 5 s at most, so that the cleanup sees it gone and removes its segments
 * (vbuf_remove_stale). Called after this rank removed its own: the launcher may kill a
 * survivor once another has stopped, and a survivor killed while it waited here has its own
 * segments removed already. */
void rankwatch_wait_lost(void)
{
	pid_t pid = lost_here;

	for (int i = 0; pid > 0 && i < 500 && running(pid); i++)
		nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
}

static void lose(const struct peer *p, const char *why)
{
	char msg[1024];

	if (stopping)
		return;
	if (strcmp(p->host, my_host) == 0 && p->pid > 0)
		lost_here = p->pid;
	if (me == 0)
		for (int i = 0; i < npeers; i++)
			if (&peers[i] != p && !peers[i].bye && peers[i].fd >= 0)
				(void)send_rec(peers[i].fd, 'L', p->rank, p->pid, p->host, why);
	describe(msg, sizeof(msg), p->rank, p->pid, p->host, why);
	lost_cb(msg);
}

/* A message from p: a heartbeat, its bye, or (from rank 0) a loss, which stops this rank; an
 * end of file without a bye is p's loss. */
static void heard(struct peer *p)
{
	struct peer named = {.fd = -1};
	struct rec r;

	if (recv_rec(p->fd, &r)) {
		if (!p->bye && !stopping)
			lose(p, "its connection closed");
		p->bye = true; /* stopping: the end of a rank that said bye, or ours */
		return;
	}
	p->heard_ms = now_ms();
	if (r.type == 'B') {
		p->bye = true;
	} else if (r.type == 'L' && !stopping) {
		named.rank = (int)ntohl(r.rank);
		named.pid = (int)ntohl(r.pid);
		snprintf(named.host, sizeof(named.host), "%s", r.host);
		if (named.rank >= 0 && named.rank < nranks)
			lose(&named, r.why);
	}
}

static void beat(void)
{
	for (int i = 0; i < npeers; i++)
		if (!peers[i].bye && peers[i].fd >= 0)
			(void)send_rec(peers[i].fd, 'h', me, 0, NULL, NULL);
}

static void *watch(void *arg)
{
	struct pollfd *p = xcalloc((size_t)npeers, sizeof(*p));
	long long beaten = 0, quiet = silence_ms();
	char why[WHY_MAX];

	(void)arg;
	while (!stopping) {
		long long t = now_ms();

		if (t - beaten >= HEARTBEAT_MS) {
			beat();
			beaten = t;
		}
		for (int i = 0; i < npeers; i++)
			p[i] = (struct pollfd){.fd = peers[i].bye ? -1 : peers[i].fd,
			                       .events = POLLIN};
		if (poll(p, (nfds_t)npeers, HEARTBEAT_MS / 2) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < npeers && !stopping; i++) {
			if (p[i].fd >= 0 && p[i].revents)
				heard(&peers[i]);
			if (!peers[i].bye && now_ms() - peers[i].heard_ms > quiet) {
				snprintf(why, sizeof(why), "no heartbeat for %lld ms", quiet);
				lose(&peers[i], why);
			}
		}
	}
	free(p);
	return NULL;
}

/* A forked job must not keep the connections open: a rank's death would not close them. */
static void child_close(void)
{
	if (listen_fd >= 0)
		close(listen_fd);
	for (int i = 0; i < npeers; i++)
		if (peers[i].fd >= 0)
			close(peers[i].fd);
	npeers = 0;
	armed = false;
}

int rankwatch_listen(struct rankwatch_addr *a, struct cs_err *e)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
	socklen_t len = sizeof(sa);
	struct ifaddrs *ifs, *i;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(a, 0, sizeof(*a));
	if (fd < 0)
		return err_errno(e, "watchdog: socket");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 256) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) || getifaddrs(&ifs)) {
		err_errno(e, "watchdog: listening");
		close(fd);
		return -1;
	}
	a->port = sa.sin_port;
	for (int loop = 0; loop < 2; loop++) /* the loopback last */
		for (i = ifs; i; i = i->ifa_next)
			if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
			    (i->ifa_flags & IFF_UP) && !(i->ifa_flags & IFF_LOOPBACK) == !loop &&
			    a->n < RANKWATCH_ADDRS)
				a->ip[a->n++] =
				        ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
	freeifaddrs(ifs);
	listen_fd = fd;
	return 0;
}

/* One address of rank 0's, at most a second. */
static int connect_one(unsigned int ip, unsigned short port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = port, .sin_addr.s_addr = ip};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), err = 0;
	socklen_t len = sizeof(err);

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) && errno != EINPROGRESS)
		goto fail;
	if (!wait_fd(fd, POLLOUT, now_ms() + 1000) ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) || err)
		goto fail;
	if (fcntl(fd, F_SETFL, 0))
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

static void ip_text(unsigned int ip, char *buf, size_t len)
{
	if (!inet_ntop(AF_INET, &ip, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

static int hello_from(int fd, struct peer *p, long long deadline)
{
	struct rec r;
	struct timeval send_limit = {.tv_sec = SEND_MS / 1000};

	if (!wait_fd(fd, POLLIN, deadline) || recv_rec(fd, &r) || r.type != 'H' ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_limit, sizeof(send_limit)))
		return -1;
	p->fd = fd;
	p->rank = (int)ntohl(r.rank);
	p->pid = (int)ntohl(r.pid);
	p->heard_ms = now_ms();
	snprintf(p->host, sizeof(p->host), "%s", r.host);
	return 0;
}

static int arm_peer(const struct rankwatch_addr *a, const char *host, struct cs_err *e)
{
	char text[INET_ADDRSTRLEN] = "";
	int fd = -1;

	for (int i = 0; i < a->n && fd < 0; i++)
		fd = connect_one(a->ip[i], a->port);
	if (fd < 0) {
		ip_text(a->n ? a->ip[0] : 0, text, sizeof(text));
		return err_set(e,
		               "watchdog: rank 0 cannot be reached (%d addresses, %s first, port "
		               "%d; CARSH_MPI_WATCH=off goes without)",
		               a->n, text, ntohs(a->port));
	}
	peers = xcalloc(1, sizeof(*peers));
	npeers = 1;
	if (send_rec(fd, 'H', me, (int)getpid(), host, NULL) ||
	    hello_from(fd, &peers[0], now_ms() + ARM_MS))
		return err_set(e, "watchdog: rank 0 did not answer");
	return 0;
}

static int arm_root(int lfd, const char *host, struct cs_err *e)
{
	long long deadline = now_ms() + ARM_MS;
	struct peer p;
	int got = 0;

	peers = xcalloc((size_t)nranks - 1, sizeof(*peers));
	for (int i = 0; i < nranks - 1; i++)
		peers[i].fd = -1;
	while (got < nranks - 1) {
		int fd = wait_fd(lfd, POLLIN, deadline) ? accept4(lfd, NULL, NULL, SOCK_CLOEXEC)
		                                        : -1;

		if (fd < 0 && errno == EINTR)
			continue;
		if (fd < 0)
			break;
		if (hello_from(fd, &p, deadline) || p.rank < 1 || p.rank >= nranks ||
		    peers[p.rank - 1].fd >= 0 || send_rec(fd, 'H', 0, (int)getpid(), host, NULL)) {
			close(fd);
			continue;
		}
		peers[p.rank - 1] = p;
		got++;
	}
	close(lfd);
	listen_fd = -1;
	npeers = nranks - 1;
	if (got == nranks - 1)
		return 0;
	for (int i = 0; i < npeers; i++)
		if (peers[i].fd < 0)
			return err_set(e, "watchdog: rank %d did not connect to rank 0 within %d s",
			               i + 1, ARM_MS / 1000);
	return -1;
}

int rankwatch_arm(int rank, int size, const struct rankwatch_addr *a, void (*lost)(const char *msg),
                  struct cs_err *e)
{
	char host[HOST_MAX] = "";
	pthread_t t;
	int rc;

	if (size <= 1 || armed)
		return 0;
	me = rank;
	nranks = size;
	lost_cb = lost;
	if (gethostname(host, sizeof(host) - 1))
		snprintf(host, sizeof(host), "?");
	snprintf(my_host, sizeof(my_host), "%s", host);
	pthread_mutex_lock(&notes_lock);
	jobs = xcalloc((size_t)size, sizeof(*jobs));
	pthread_mutex_unlock(&notes_lock);
	rc = rank == 0 ? arm_root(listen_fd, host, e) : arm_peer(a, host, e);
	if (rc)
		return rc;
	if (pthread_atfork(NULL, NULL, child_close))
		return err_set(e, "watchdog: pthread_atfork failed");
	armed = true;
	if ((rc = pthread_create(&t, NULL, watch, NULL)) != 0) {
		errno = rc;
		return err_errno(e, "watchdog: pthread_create");
	}
	pthread_detach(t);
	return 0;
}

void rankwatch_bye(void)
{
	if (!armed || stopping)
		return;
	stopping = true;
	for (int i = 0; i < npeers; i++)
		if (!peers[i].bye && peers[i].fd >= 0)
			(void)send_rec(peers[i].fd, 'B', me, 0, NULL, NULL);
}
