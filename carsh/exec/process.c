#include "exec/process.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/atomicfile.h"
#include "util/fork.h"
#include "util/memfdarea.h"

/* Children not yet waited for, so that a master told to stop can stop them too. A fixed
 * table of atomically updated slots: proc_signal_all must work whatever other threads hold. */
#define LIVE_MAX 1024
static volatile pid_t live[LIVE_MAX];

static void live_add(pid_t pid)
{
	for (int i = 0; i < LIVE_MAX; i++)
		if (__sync_bool_compare_and_swap(&live[i], 0, pid))
			return;
}

static void live_remove(pid_t pid)
{
	for (int i = 0; i < LIVE_MAX; i++)
		if (__sync_bool_compare_and_swap(&live[i], pid, 0))
			return;
}

void proc_signal_all(int sig)
{
	for (int i = 0; i < LIVE_MAX; i++) {
		pid_t p = live[i];

		/* A background job's or a worker's whole group; a foreground job is in the
		 * master's group. One signal each: a second one while the first is being
		 * handled may meet a handler another library reset (atomicfile.c). */
		if (p > 0 && kill(-p, sig) != 0)
			kill(p, sig);
	}
}

/* Signals are blocked around fork() (see proc_start); the child restores the default
 * dispositions before it unblocks them, so a Ctrl-C in between reaches no handler of the
 * master's. (Its own handler for SIGINT, SIGTERM and SIGHUP then ends it the same way.) */
static void child_signals_default(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGPIPE, SIGWINCH};
	sigset_t none;

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* A job ends when its shell does, even by SIGKILL, which leaves the shell no chance to stop
 * it: orphaned jobs ran on at full speed for ever, holding their segments. SIGTERM rather
 * than SIGKILL lets the job remove what it was writing. The kernel sends it when the thread
 * that forked ends, so every thread that starts a job waits for it (a batch syncs its jobs
 * before its thread ends). A shell that died before prctl() took effect would never send it:
 * hence the check that the parent is still the shell. */
static void child_end_with_parent(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
		_exit(1);
}

static void child_background_stdin(void)
{
	int fd = open("/dev/null", O_RDONLY);

	if (fd >= 0 && fd != STDIN_FILENO) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
}

/* The child inherits the master's stdin FILE with whatever the master had buffered (and its
 * end-of-file flag); after the descriptors change it must start afresh on descriptor 0. */
static void child_redirect(const struct child_io *io, bool background)
{
	__fpurge(stdin);
	clearerr(stdin);
	if (io && io->in_fd >= 0 && io->in_fd != STDIN_FILENO)
		dup2(io->in_fd, STDIN_FILENO);
	else if (background)
		child_background_stdin();
	if (io && io->out_fd >= 0 && io->out_fd != STDOUT_FILENO)
		dup2(io->out_fd, STDOUT_FILENO);
}

/* Every descriptor from first up closed (one by one where close_range is missing). */
static void close_from(int first)
{
	if (close_range((unsigned)first, ~0U, 0) != 0) {
		long max = sysconf(_SC_OPEN_MAX);

		for (int fd = first; fd < (max > 0 && max < 65536 ? max : 1024); fd++)
			close(fd);
	}
}

/* A forked child keeps only standard input, output and error (and go_fd, moved to 3): it
 * must not hold other jobs' go sockets open, or a job waiting for its go would never see the
 * master's end. */
static int child_close_fds(int go_fd)
{
	if (go_fd >= 0 && go_fd != 3) {
		if (dup2(go_fd, 3) < 0)
			return -1;
		go_fd = 3;
	}
	close_from(go_fd >= 0 ? 4 : 3);
	return go_fd;
}

/* A background child waits for the master's go (its buffers are free) before it runs. */
static bool child_await_go(int go_fd)
{
	char c = 0;
	ssize_t n;

	if (go_fd < 0)
		return true;
	do
		n = read(go_fd, &c, 1);
	while (n < 0 && errno == EINTR);
	close(go_fd);
	return n == 1 && c == 'g';
}

static void __attribute__((noreturn))
child_main(child_fn fn, void *arg, bool background, const struct child_io *io,
           struct job_result *res, pid_t parent)
{
	int status, go_fd;

	child_end_with_parent(parent);
	child_signals_default();
	/* A job stopped while it writes a file leaves no temporary file beside it. */
	temp_remove_on_signals();
	if (background)
		setpgid(0, 0);
	child_redirect(io, background);
	go_fd = child_close_fds(io ? io->go_fd : -1);
	if (!child_await_go(go_fd)) {
		snprintf(res->msg, sizeof(res->msg), "cancelled before it started");
		_exit(1);
	}
	status = fn(arg, res);
	res->status = status;
	/* Flush here: _exit skips stdio, and exit() would run library destructors (OpenCL
	 * drivers' among them) that are not meant to run in a forked copy. */
	if (fflush(NULL) != 0 && status == 0)
		status = 1;
	_exit(status);
}

/* fork() with every signal blocked across it (the child unblocks them once its dispositions
 * are its own: child_signals_default), stdio flushed first so that no buffered output is
 * written twice. Returns as fork(). */
static pid_t fork_blocked(void)
{
	sigset_t all, old;
	pid_t p;

	fflush(NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	p = fork_locked();
	if (p != 0)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	return p;
}

int proc_start(child_fn fn, void *arg, bool background, const struct child_io *io, pid_t *pid,
               struct job_result **res, struct cs_err *e)
{
	struct job_result *r =
	        mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t p, parent = getpid();

	if (r == MAP_FAILED)
		return err_errno(e, "cannot map a job result area");
	memset(r, 0, sizeof(*r));
	r->status = -1;
	p = fork_blocked();
	if (p < 0) {
		munmap(r, sizeof(*r));
		return err_errno(e, "cannot start a job (fork)");
	}
	if (p == 0)
		child_main(fn, arg, background, io, r, parent);
	if (background)
		setpgid(p, p); /* also here: no race with the terminal's next signal */
	live_add(p);
	*pid = p;
	*res = r;
	return 0;
}

/* A long-lived child (a warm worker): a session of its own, /dev/null for standard input
 * and output between jobs, keep_fd as descriptor 3 and no other, and an end with the
 * master's (PR_SET_PDEATHSIG: a master killed by SIGKILL leaves no worker behind). Its own
 * session, not only its own process group: a job's standard input may be the shell's
 * terminal, and a background group of the terminal's session reading it is stopped by
 * SIGTTIN (`run f.xml x=- y=-` at a prompt hung); outside that session it reads it as the
 * server's workers do. The terminal's signals still reach the shell alone, which passes
 * Ctrl-C on. setsid before the signals are unblocked, and here only: a group leader (as the
 * parent's setpgid would make it) cannot start a session. */
static void __attribute__((noreturn))
kept_child_main(child_fn fn, void *arg, int keep_fd, pid_t master, struct job_result *res)
{
	int null;

	if (setsid() < 0)
		_exit(1);
	null = open("/dev/null", O_RDWR);
	child_signals_default();
	temp_remove_on_signals();
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != master)
		_exit(1);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0)
		_exit(1);
	if (child_close_fds(keep_fd) != 3)
		_exit(1);
	_exit(fn(arg, res));
}

int proc_start_kept(child_fn fn, void *arg, int keep_fd, pid_t *pid, struct job_result **res,
                    int *res_fd, struct cs_err *e)
{
	/* A memfd, so that a server can lend it to a client with the worker's socket
	 * (docs/server.md); mapped before the fork, it is shared with the worker. */
	struct job_result *r =
	        memfd_area("carsh-worker-result", sizeof(*r), "a worker's result area", res_fd, e);
	pid_t master = getpid(), p;

	if (!r)
		return -1;
	p = fork_blocked();
	if (p < 0) {
		munmap(r, sizeof(*r));
		close(*res_fd);
		return err_errno(e, "cannot start a worker (fork)");
	}
	if (p == 0)
		kept_child_main(fn, arg, keep_fd, master, r);
	live_add(p);
	*pid = p;
	*res = r;
	return 0;
}

/* A descriptor moved to 5 or above, so that the dup2s onto 0-4 cannot overwrite a source
 * that lies there; -1 stays -1. */
static int fd_high(int fd)
{
	return fd < 0 ? -1 : fcntl(fd, F_DUPFD, 5);
}

static void __attribute__((noreturn))
exec_child_main(char *const *argv, bool background, const struct child_io *io, int fd3, int fd4,
                pid_t parent)
{
	int in = fd_high(io ? io->in_fd : -1), out = fd_high(io ? io->out_fd : -1);
	int d3 = fd_high(fd3), d4 = fd_high(fd4);

	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
		_exit(127);
	if (background)
		setpgid(0, 0);
	if (in < 0 && background)
		in = open("/dev/null", O_RDONLY);
	if ((in >= 0 && dup2(in, STDIN_FILENO) < 0) || (out >= 0 && dup2(out, STDOUT_FILENO) < 0) ||
	    dup2(d3, 3) < 0 || dup2(d4, 4) < 0)
		_exit(127);
	close_from(5);
	child_signals_default();
	execve("/proc/self/exe", argv, environ);
	_exit(127);
}

int proc_start_exec(char *const *argv, bool background, const struct child_io *io, int fd3, int fd4,
                    pid_t *pid, struct cs_err *e)
{
	pid_t p, parent = getpid();

	p = fork_blocked();
	if (p < 0)
		return err_errno(e, "cannot start a process (fork)");
	if (p == 0)
		exec_child_main(argv, background, io, fd3, fd4, parent);
	if (background)
		setpgid(p, p);
	live_add(p);
	*pid = p;
	return 0;
}

int proc_wait(pid_t pid, bool block, int *wstatus)
{
	for (;;) {
		pid_t r = waitpid(pid, wstatus, block ? 0 : WNOHANG);

		if (r == pid) {
			live_remove(pid);
			return 1;
		}
		if (r == 0)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

int proc_wait_foreground(pid_t pid, volatile sig_atomic_t *interrupted, int *wstatus)
{
	bool passed_on = false;

	for (;;) {
		pid_t r = waitpid(pid, wstatus, 0);

		if (r == pid) {
			live_remove(pid);
			return 1;
		}
		if (r < 0 && errno != EINTR)
			return -1;
		if (interrupted && *interrupted && !passed_on) {
			kill(pid, SIGINT);
			passed_on = true;
		}
	}
}

void job_result_clear(struct job_result *res)
{
	memset(res, 0, offsetof(struct job_result, msg) + 1);
	res->taken = 0;
}

void job_result_set_msg(struct job_result *res, const struct cs_err *e)
{
	size_t n = strnlen(e->msg, sizeof(res->msg) - 1);

	memcpy(res->msg, e->msg, n);
	res->msg[n] = '\0';
}

void proc_result_free(struct job_result *res)
{
	if (res)
		munmap(res, sizeof(*res));
}

int proc_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

void proc_describe(int wstatus, char *buf, size_t len)
{
	if (WIFSIGNALED(wstatus)) {
		const char *abbrev = sigabbrev_np(WTERMSIG(wstatus));

		snprintf(buf, len, "killed by SIG%s%s", abbrev ? abbrev : "?",
		         WCOREDUMP(wstatus) ? " (core dumped)" : "");
	} else if (WIFEXITED(wstatus)) {
		snprintf(buf, len, "exit %d", WEXITSTATUS(wstatus));
	} else {
		snprintf(buf, len, "ended (status %#x)", (unsigned)wstatus);
	}
}
