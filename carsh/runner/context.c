/* Contexts and background jobs (runner/context.h). */
#include "runner/context.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/jobwin.h"
#include "runner/stats.h"
#include "util/alloc.h"

struct exec_env run_exec_env(const struct run_ctx *c)
{
	return (struct exec_env){c->s->hz,
	                         c->interrupted,
	                         stderr,
	                         c->detached,
	                         c->detached ? NULL : &c->s->fg_pid,
	                         c->profile || session_stats_on(c->vars),
	                         c->s->workers,
	                         c->s->workers ? c->s->homes : NULL,
	                         c->window};
}

int run_window_drain(struct run_ctx *c, struct cs_err *e)
{
	if (!c->window_drain || !jobwin_open(c->window))
		return 0;
	return c->window_drain(c->window_arg, e);
}

struct child_io run_child_io(const struct run_ctx *c)
{
	return (struct child_io){fileno(c->in), fileno(c->out), -1};
}

FILE *run_own_stream(FILE *f, const char *mode, bool devnull)
{
	int fd = devnull ? open("/dev/null", O_RDONLY | O_CLOEXEC) : dup(fileno(f));

	if (fflush(f) != 0 && !devnull)
		clearerr(f);
	return fd < 0 ? NULL : fdopen(fd, mode);
}

/* ---- background jobs: a thread with a snapshot of everything it reads ---- */

struct bg_job {
	struct session *s;
	bg_body body;
	void *arg;
	void (*free_arg)(void *);
	char *origin;
	struct params vars; /* the caller's parameters, frozen at `&` */
	FILE *in;
	FILE *out;
	int depth;
};

static void bg_job_free(void *p)
{
	struct bg_job *b = p;

	if (b->free_arg)
		b->free_arg(b->arg);
	free(b->origin);
	params_free(&b->vars);
	if (b->in)
		fclose(b->in);
	if (b->out && fclose(b->out) != 0)
		fprintf(stderr, "carsh: background job: error writing its output: %s\n",
		        strerror(errno));
	free(b);
}

static int bg_job_main(void *arg, int id, struct cs_err *e)
{
	struct bg_job *b = arg;
	struct stats_acc acc = {0};
	struct jobs *own = jobs_new();
	struct scope sc;
	struct run_ctx c;
	struct cs_err sync_err;
	int rc;

	(void)id;
	scope_init(&sc);
	scope_push(&sc, &b->vars);
	c = (struct run_ctx){
	        .s = b->s,
	        .origin = b->origin,
	        .caller = &sc,
	        .vars = &b->vars,
	        .in = b->in,
	        .out = b->out,
	        .stats = &acc,
	        .jobs = own,
	        .quiet = true,
	        .detached = true,
	        .depth = b->depth,
	};
	rc = b->body(&c, b->arg, e);
	if (run_flush(&c, &sync_err) && rc == 0) {
		memcpy(e->msg, sync_err.msg, sizeof(e->msg));
		rc = 1;
	}
	if (jobs_sync(own, 0, &sync_err) != 0 && rc == 0) {
		memcpy(e->msg, sync_err.msg, sizeof(e->msg));
		rc = 1;
	}
	jobs_free(own);
	fflush(b->out);
	return rc;
}

int run_background(struct run_ctx *c, const char *label, bg_body body, void *arg,
                   void (*free_arg)(void *), struct cs_err *e)
{
	struct bg_job *b = xcalloc(1, sizeof(*b));
	int id;

	*b = (struct bg_job){.s = c->s, .body = body, .arg = arg, .free_arg = free_arg};
	b->origin = c->origin ? xstrdup(c->origin) : NULL;
	scope_flatten(c->caller, &b->vars);
	/* POSIX: a background command reads /dev/null unless its input was redirected. */
	b->in = run_own_stream(c->in, "r", c->in == stdin);
	b->out = run_own_stream(c->out, "w", false);
	b->depth = c->depth;
	if (!b->in || !b->out) {
		err_errno(e, "cannot set up a background job");
		bg_job_free(b);
		return 1;
	}
	id = jobs_start(c->jobs, label, 0, bg_job_main, b, NULL, bg_job_free, e);
	if (id < 0) {
		bg_job_free(b);
		return 1;
	}
	if (!c->quiet)
		fprintf(stderr, "[%d] %d\n", id, (int)getpid());
	return 0;
}
