/* `carsh --engine-child` (runner/enginechild.h). */
#include "runner/enginechild.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio_ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/threadexec.h"
#include "runner/enginekeep.h"
#include "runner/engineproc.h"
#include "runner/enginespec.h"
#include "runner/stats.h"
#include "util/alloc.h"
#include "util/wire.h"

#define REPORT_FD 3
#define SOCK_FD   4

/* The shell's session as far as the command sees it: its parameters, its device choice and
 * its buffers (adopted: the shell keeps and unlinks them). */
static struct session *session_of(const struct engine_spec *sp, struct cs_err *e)
{
	struct session *s = session_new();

	s->thread_mode = true;
	s->device_cli = sp->device_cli ? xstrdup(sp->device_cli) : NULL;
	params_copy(&s->vars, &sp->vars);
	for (size_t i = 0; i < sp->nbufs; i++) {
		const struct vbuf *v = &sp->bufs[i];

		if (vbuf_adopt(s->vbufs, v->name, v->shm, v->type, v->count, e))
			return s;
	}
	err_clear(e);
	return s;
}

static int run_command(struct engine_report *r, const struct engine_spec *sp, engine_rerun rerun,
                       struct cs_err *e)
{
	struct session *s = session_of(sp, e);
	struct stats_acc acc;
	struct scope shell;
	struct run_ctx c;
	int rc;

	if (e->msg[0]) {
		session_free(s);
		return 1;
	}
	memset(&acc, 0, sizeof(acc));
	scope_init(&shell);
	scope_push(&shell, &s->vars);
	c = (struct run_ctx){
	        .s = s,
	        .caller = &shell,
	        .vars = &s->vars,
	        .in = stdin,
	        .out = stdout,
	        .stats = &acc,
	        .jobs = s->jobs,
	        .profile = sp->profile,
	        .detached = sp->detached,
	};
	c.interrupted = engine_apart_attach(&r->w);
	if (sp->detached)
		c.interrupted = NULL;
	rc = rerun(&c, sp->argc, sp->argv, e);
	if (run_flush(&c, e) && rc == 0)
		rc = 1;
	r->res.has_stats = acc.jobs > 0;
	if (r->res.has_stats)
		r->res.stats = acc.sum;
	/* The runtime stays for the next run (texec_exit_without_teardown); the buffers stay
	 * the shell's. */
	session_free(s);
	return rc;
}

/* Whether descriptor fd is the memfd the shell made under that name: only then is it
 * mapped and written (a file a user put on 3 by hand is left alone). */
static bool is_memfd(int fd, const char *name)
{
	char link[64], got[128], want[128];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, got, sizeof(got) - 1);
	if (n < 0)
		return false;
	got[n] = '\0';
	snprintf(want, sizeof(want), "/memfd:%s ", name);
	return strncmp(got, want, strlen(want)) == 0;
}

static bool is_socket(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* Standard input, output and error: the run's (fds of m), or /dev/null between runs, so
 * that a reader of a run's output sees its end when the run ends. */
static int put_stdio(int in, int out, int err)
{
	__fpurge(stdin);
	clearerr(stdin);
	clearerr(stdout);
	if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
	    dup2(err, STDERR_FILENO) < 0)
		return -1;
	return 0;
}

static int run_one(struct engine_report *r, const struct wire_msg *m, int null, engine_rerun rerun)
{
	struct engine_spec sp;
	struct cs_err e = {""};
	int rc;

	memset(&sp, 0, sizeof(sp));
	memset(r, 0, sizeof(*r));
	if (put_stdio(m->fds[0], m->fds[1], m->fds[2]) != 0) {
		err_errno(&e, "the engine's standard input and output");
		rc = 127;
	} else if (engine_spec_decode(m->payload, m->len, &sp, &e) != 0) {
		rc = 127;
	} else if (chdir(sp.cwd) != 0) {
		err_errno(&e, "the engine's directory %s", sp.cwd);
		rc = 1;
	} else {
		rc = run_command(r, &sp, rerun, &e);
	}
	engine_spec_free(&sp);
	snprintf(r->res.msg, sizeof(r->res.msg), "%s", rc ? e.msg : "");
	if (fflush(NULL) != 0 && rc == 0)
		rc = 1;
	r->res.status = rc;
	if (put_stdio(null, null, null) != 0 && rc == 0)
		rc = 1;
	return rc;
}

void engine_child_main(engine_rerun rerun)
{
	struct engine_report *r = MAP_FAILED;
	struct cs_err e;
	int null = open("/dev/null", O_RDWR);

	if (is_memfd(REPORT_FD, ENGINE_REPORT_NAME) && is_socket(SOCK_FD))
		r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED, REPORT_FD, 0);
	if (r == MAP_FAILED || null < 0) {
		fprintf(stderr, "carsh: --engine-child: no engine to run here (carsh starts it "
		                "itself for partition and pipeline under -T)\n");
		_exit(2);
	}
	close(REPORT_FD);
	if (put_stdio(null, null, null) != 0)
		_exit(127);
	/* No workers nor server here, and no second warning about their settings: the shell
	 * read them already. */
	if (unsetenv("CARSH_WORKERS") != 0 || setenv("CARSH_SERVER", "off", 1) != 0)
		_exit(127);
	texec_exit_without_teardown();
	for (;;) {
		struct wire_msg m;
		int rc, got = wire_recv(SOCK_FD, &m, &e);

		if (got == 0)
			_exit(0); /* the shell's session ended */
		if (got < 0 || m.type != ENGINE_RUN || m.nfds != 3)
			_exit(127);
		rc = run_one(r, &m, null, rerun);
		wire_msg_free(&m);
		/* The shell reads the result when this answer comes; a run that failed (the
		 * driver's state unknown) or was interrupted ends the process after it. */
		if (wire_send(SOCK_FD, ENGINE_DONE, NULL, 0, NULL, 0, &e) != 0 || rc != 0)
			_exit(rc ? rc : 1);
	}
}
