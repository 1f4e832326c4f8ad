/* A carsh's side of the server (server/server.h): connecting, and starting one on demand. */
#include "exec/serverclient.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec/serverdir.h"
#include "exec/serverwire.h"
#include "util/alloc.h"
#include "util/fork.h"
#include "util/wire.h"

/* How long a client waits for the server it started to listen. */
#define START_WAIT_MS 10000

/* A connected socket, or -1 with errno (ENAMETOOLONG for a path that does not fit). */
static int try_connect(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(a.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(a.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
		return fd;
	{
		int err = errno;

		close(fd);
		errno = err;
	}
	return -1;
}

/* The grandchild: detached from the client's terminal and session, with nothing of the
 * client's open (a shell's $(carsh ...) would wait for ever on a pipe it held), its errors
 * in the log. Only async-signal-safe calls: the client may have threads. */
static void __attribute__((noreturn)) exec_server(const char *log, const char *exe)
{
	static char *const argv[] = {"carsh", "server", "run", NULL};
	int null = open("/dev/null", O_RDWR), err = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
	sigset_t none;

	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
	    dup2(err >= 0 ? err : null, 2) < 0)
		_exit(127);
	close_range(3, ~0U, 0);
	/* A server outlives the client: it must not keep the client's directory busy. */
	if (chdir("/") != 0)
		_exit(127);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execv(exe, argv);
	_exit(127);
}

/* Double fork and setsid: the server is nobody's child and has no terminal. */
static int spawn_server(const char *dir, struct cs_err *e)
{
	char *log = server_path(dir, "log");
	const char *exe = server_exe();
	pid_t p;
	int ws;

	fflush(NULL);
	p = fork_locked();
	if (p == 0) {
		if (setsid() < 0 || (p = fork()) < 0)
			_exit(1);
		if (p == 0)
			exec_server(log, exe);
		_exit(0);
	}
	free(log);
	if (p < 0)
		return err_errno(e, "cannot start the carsh server (fork)");
	while (waitpid(p, &ws, 0) < 0 && errno == EINTR)
		;
	return 0;
}

static int wait_listening(const char *sock, struct cs_err *e)
{
	struct timespec step = {0, 5000000};

	for (int ms = 0; ms < START_WAIT_MS; ms += 5) {
		int fd = try_connect(sock);

		if (fd >= 0)
			return fd;
		nanosleep(&step, NULL);
	}
	return err_set(e, "the carsh server did not start within %d s (see %s.log)",
	               START_WAIT_MS / 1000, sock);
}

/* Under the lock, so that two clients starting at once end with one server: the second
 * finds the first's listening when it gets the lock. */
static int start_locked(const char *dir, const char *sock, struct cs_err *e)
{
	char *lockp = server_path(dir, "lock");
	int lfd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0600), fd = -1;

	free(lockp);
	if (lfd < 0 || flock(lfd, LOCK_EX) != 0) {
		err_errno(e, "cannot lock the carsh server's start");
		if (lfd >= 0)
			close(lfd);
		return -1;
	}
	fd = try_connect(sock);
	if (fd < 0) {
		unlink(sock); /* a dead server's */
		if (spawn_server(dir, e) == 0)
			fd = wait_listening(sock, e);
	}
	close(lfd);
	return fd;
}

/* The sockets of other builds' servers in dir: each carsh build talks only to its own, so
 * "none running" says which build looked and that others listen. */
static size_t other_builds(const char *dir, const char *sock)
{
	DIR *d = opendir(dir);
	const char *mine = strrchr(sock, '/') + 1;
	struct dirent *de;
	size_t n = 0, len;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (strncmp(de->d_name, "server-", 7) == 0 && len > 5 &&
		    strcmp(de->d_name + len - 5, ".sock") == 0 && strcmp(de->d_name, mine) != 0)
			n++;
	}
	closedir(d);
	return n;
}

static void none_running(const char *dir, const char *sock, struct cs_err *e)
{
	char exe[4096];
	ssize_t len = readlink(server_exe(), exe, sizeof(exe) - 1);
	size_t others = other_builds(dir, sock);

	if (len <= 0)
		snprintf(exe, sizeof(exe), "%s", server_exe());
	else
		exe[len] = '\0';
	if (others)
		err_set(e,
		        "no carsh server running for this build (%s, build %s); %s holds %zu "
		        "socket%s "
		        "of other builds' servers (each build talks only to its own: stop one "
		        "with its own carsh)",
		        exe, server_build_id(), dir, others, others == 1 ? "" : "s");
	else
		err_set(e, "no carsh server running for this build (%s, build %s)", exe,
		        server_build_id());
}

static pid_t peer_pid(int fd)
{
	struct ucred c;
	socklen_t len = sizeof(c);

	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len) == 0 ? c.pid : 0;
}

int server_connect(bool start, pid_t *pid, struct cs_err *e)
{
	char *dir = server_dir(e), *sock;
	int fd;

	if (!dir)
		return -1;
	sock = server_path(dir, "sock");
	fd = try_connect(sock);
	if (fd < 0 && start && (errno == ENOENT || errno == ECONNREFUSED))
		fd = start_locked(dir, sock, e);
	else if (fd < 0 && (errno == ENOENT || errno == ECONNREFUSED))
		none_running(dir, sock, e);
	else if (fd < 0)
		err_errno(e, "cannot connect to the carsh server at %s", sock);
	if (fd >= 0)
		*pid = peer_pid(fd);
	free(sock);
	free(dir);
	return fd;
}

/* Whether pid sees the files this process sees: a client in a mount namespace of its own
 * (unshare -m, a container) has files that the server's workers cannot reach. */
bool server_same_mounts(pid_t pid)
{
	char path[64], mine[64] = "", theirs[64] = "";

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	if (readlink("/proc/self/ns/mnt", mine, sizeof(mine) - 1) < 0 ||
	    readlink(path, theirs, sizeof(theirs) - 1) < 0)
		return true; /* no /proc to tell: as before namespaces */
	return strcmp(mine, theirs) == 0;
}

/* The server closes the connection as it ends: its workers are ended by then. */
static void await_end(int fd)
{
	struct wire_msg m;
	struct cs_err e;

	while (wire_recv(fd, &m, &e) == 1)
		wire_msg_free(&m);
}

char *server_query(bool stop, struct cs_err *e)
{
	pid_t pid;
	int fd = server_connect(false, &pid, e), r;
	struct wire_msg m;
	char *text = NULL;

	if (fd < 0)
		return NULL;
	/* A refused send still reads: a server that refuses a client says why and closes. */
	wire_send(fd, stop ? SERVER_STOP : SERVER_QUERY, NULL, 0, NULL, 0, e);
	if ((r = wire_recv(fd, &m, e)) >= 0) {
		if (r == 0)
			err_set(e, "the carsh server (pid %d) closed the connection", (int)pid);
		else if (m.type == SERVER_INFO)
			text = xstrdup((const char *)m.payload);
		else
			err_set(e, "%s",
			        m.type == SERVER_ERROR ? (const char *)m.payload
			                               : "the carsh server answered garbage");
		if (r == 1)
			wire_msg_free(&m);
	}
	if (text && stop)
		await_end(fd);
	close(fd);
	return text;
}
