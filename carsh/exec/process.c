#include "exec/process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void child_signals_default(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGPIPE};
	sigset_t none;

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static void child_background_stdin(void)
{
	int fd = open("/dev/null", O_RDONLY);

	if (fd >= 0 && fd != STDIN_FILENO) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
}

static void child_redirect(const struct child_io *io, bool background)
{
	if (io && io->in_fd >= 0 && io->in_fd != STDIN_FILENO)
		dup2(io->in_fd, STDIN_FILENO);
	else if (background)
		child_background_stdin();
	if (io && io->out_fd >= 0 && io->out_fd != STDOUT_FILENO)
		dup2(io->out_fd, STDOUT_FILENO);
}

static void __attribute__((noreturn)) child_main(child_fn fn, void *arg, bool background,
                                                 const struct child_io *io, struct job_result *res)
{
	int status;

	child_signals_default();
	if (background)
		setpgid(0, 0);
	child_redirect(io, background);
	status = fn(arg, res);
	res->status = status;
	/* Flush here: _exit skips stdio, and exit() would run library destructors (OpenCL
	 * drivers' among them) that are not meant to run in a forked copy. */
	if (fflush(NULL) != 0 && status == 0)
		status = 1;
	_exit(status);
}

int proc_start(child_fn fn, void *arg, bool background, const struct child_io *io, pid_t *pid,
               struct job_result **res, struct cs_err *e)
{
	struct job_result *r =
	        mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t p;

	if (r == MAP_FAILED)
		return err_errno(e, "cannot map a job result area");
	memset(r, 0, sizeof(*r));
	r->status = -1;
	fflush(NULL);
	p = fork();
	if (p < 0) {
		munmap(r, sizeof(*r));
		return err_errno(e, "cannot start a job (fork)");
	}
	if (p == 0)
		child_main(fn, arg, background, io, r);
	if (background)
		setpgid(p, p); /* also here: no race with the terminal's next signal */
	*pid = p;
	*res = r;
	return 0;
}

int proc_wait(pid_t pid, bool block, int *wstatus)
{
	for (;;) {
		pid_t r = waitpid(pid, wstatus, block ? 0 : WNOHANG);

		if (r == pid)
			return 1;
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

		if (r == pid)
			return 1;
		if (r < 0 && errno != EINTR)
			return -1;
		if (interrupted && *interrupted && !passed_on) {
			kill(pid, SIGINT);
			passed_on = true;
		}
	}
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
