/* The engine's process under the thread executor, kept between runs (runner/enginekeep.h). */
#include "runner/enginekeep.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/memfdarea.h"
#include "util/wire.h"

struct engine_proc {
	pid_t pid;
	bool reaped; /* its end was waited for already */
	int sock;
	int rep_fd;
	struct engine_report *r;
};

/* Closing its socket ends an idle process (its next read sees the end). */
static void proc_end(struct engine_proc *p)
{
	int ws;

	if (!p)
		return;
	close(p->sock);
	if (!p->reaped)
		proc_wait(p->pid, true, &ws);
	munmap(p->r, sizeof(*p->r));
	close(p->rep_fd);
	free(p);
}

static struct engine_proc *proc_new(bool detached, struct cs_err *e)
{
	static char *const argv[] = {"carsh", "--engine-child", NULL};
	struct engine_proc *p = xcalloc(1, sizeof(*p));
	int sv[2];

	p->r = memfd_area(ENGINE_REPORT_NAME, sizeof(*p->r), "the engine's report area", &p->rep_fd,
	                  e);
	if (!p->r) {
		free(p);
		return NULL;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		err_errno(e, "cannot create the engine's socket");
		p->reaped = true;
		p->sock = -1;
		proc_end(p);
		return NULL;
	}
	if (proc_start_exec(argv, detached, NULL, p->rep_fd, sv[1], &p->pid, e)) {
		close(sv[1]);
		p->reaped = true;
		p->sock = sv[0];
		proc_end(p);
		return NULL;
	}
	close(sv[1]);
	p->sock = sv[0];
	return p;
}

/* The kept process, unless it ended while idle (then it is reaped and forgotten). */
static struct engine_proc *take_kept(struct session *s)
{
	struct engine_proc *p = __atomic_exchange_n(&s->engine, NULL, __ATOMIC_ACQ_REL);
	int ws;

	if (p && proc_wait(p->pid, false, &ws) != 0) {
		p->reaped = true;
		proc_end(p);
		p = NULL;
	}
	return p;
}

/* 1 when it answered (*ws then says its status), 0 when it ended (*ws: how). */
static int await_answer(struct engine_proc *p, volatile sig_atomic_t *interrupted, int *ws)
{
	bool passed_on = false;

	for (;;) {
		struct pollfd pfd = {p->sock, POLLIN, 0};
		/* A Ctrl-C that reached the shell alone is looked for ten times a second. */
		int n = poll(&pfd, 1, interrupted ? 100 : -1);

		if (interrupted && *interrupted && !passed_on) {
			kill(p->pid, SIGINT);
			passed_on = true;
		}
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0) {
			struct wire_msg m;
			struct cs_err we;

			if (wire_recv(p->sock, &m, &we) == 1) {
				bool done = m.type == ENGINE_DONE;

				wire_msg_free(&m);
				if (done) {
					*ws = W_EXITCODE(p->r->res.status & 0xff, 0);
					return 1;
				}
			}
			break;
		}
	}
	/* The socket closed or failed: the process ended (or is ending). */
	kill(p->pid, SIGKILL);
	p->reaped = proc_wait(p->pid, true, ws) == 1;
	return 0;
}

static int send_run(struct engine_proc *p, const void *spec, size_t len, const struct child_io *io,
                    struct cs_err *e)
{
	int fds[3] = {io->in_fd, io->out_fd, STDERR_FILENO};

	memset(p->r, 0, sizeof(*p->r));
	p->r->res.status = -1; /* until the process ran the command */
	return wire_send(p->sock, ENGINE_RUN, spec, len, fds, 3, e);
}

/* Keep p for the next run when there is no other kept one, else end it. */
static void keep(struct session *s, struct engine_proc *p)
{
	struct engine_proc *none = NULL;

	if (!__atomic_compare_exchange_n(&s->engine, &none, p, false, __ATOMIC_ACQ_REL,
	                                 __ATOMIC_ACQUIRE))
		proc_end(p);
}

int engine_proc_run(struct session *s, const void *spec, size_t len, const struct child_io *io,
                    bool detached, volatile sig_atomic_t *interrupted, struct engine_answer *a,
                    struct cs_err *e)
{
	struct engine_proc *p = detached ? NULL : take_kept(s);
	int answered;

	/* A kept process that cannot take the run (it ended just now) gives way to a new one. */
	if (p && send_run(p, spec, len, io, e)) {
		proc_end(p);
		p = NULL;
	}
	if (!p) {
		p = proc_new(detached, e);
		if (!p)
			return -1;
		if (send_run(p, spec, len, io, e)) {
			proc_end(p);
			return err_prefix(e, "the engine's process: ");
		}
	}
	answered = await_answer(p, detached ? NULL : interrupted, &a->ws);
	a->pid = p->pid;
	a->report = *p->r;
	/* Only a process the main thread started outlives its run: the kernel ends a child
	 * when the thread that forked it ends (PR_SET_PDEATHSIG), and a batch's or a
	 * background job's thread ends with it. */
	if (answered && p->r->res.status == 0 && !detached && gettid() == getpid())
		keep(s, p);
	else
		proc_end(p);
	return 0;
}

void engine_proc_end_kept(struct session *s)
{
	proc_end(__atomic_exchange_n(&s->engine, NULL, __ATOMIC_ACQ_REL));
}
