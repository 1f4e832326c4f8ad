/* `carsh --engine-child` (runner/enginechild.h). */
#include "runner/enginechild.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/engineproc.h"
#include "runner/enginespec.h"
#include "runner/stats.h"
#include "util/alloc.h"

#define REPORT_FD 3
#define SPEC_FD   4

/* The description, whole, from its memfd (written before this process started). */
static int spec_read(struct engine_spec *sp, struct cs_err *e)
{
	struct stat st;
	char *p;
	size_t done = 0;
	int rc;

	if (fstat(SPEC_FD, &st) != 0 || st.st_size <= 0)
		return err_set(e, "the engine's description is missing");
	p = xmalloc((size_t)st.st_size);
	while (done < (size_t)st.st_size) {
		ssize_t k = pread(SPEC_FD, p + done, (size_t)st.st_size - done, (off_t)done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			free(p);
			return err_errno(e, "cannot read the engine's description");
		}
		done += (size_t)k;
	}
	close(SPEC_FD);
	rc = engine_spec_decode(p, done, sp, e);
	free(p);
	return rc;
}

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

	if (e->msg[0])
		return 1;
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
	/* The process ends next: the buffers stay the shell's, the runtime goes with it. */
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

void engine_child_main(engine_rerun rerun)
{
	struct engine_report *r = MAP_FAILED;
	struct engine_spec sp;
	struct cs_err e = {""};
	int rc;

	if (is_memfd(REPORT_FD, ENGINE_REPORT_NAME) && is_memfd(SPEC_FD, ENGINE_SPEC_NAME))
		r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED, REPORT_FD, 0);
	if (r == MAP_FAILED) {
		fprintf(stderr, "carsh: --engine-child: no engine to run here (carsh starts it "
		                "itself for partition and pipeline under -T)\n");
		_exit(2);
	}
	close(REPORT_FD);
	if (spec_read(&sp, &e)) {
		snprintf(r->res.msg, sizeof(r->res.msg), "%s", e.msg);
		_exit(127);
	}
	rc = run_command(r, &sp, rerun, &e);
	snprintf(r->res.msg, sizeof(r->res.msg), "%s", rc ? e.msg : "");
	/* Flushed here: _exit skips stdio, and the drivers' destructors have nothing to do
	 * for a process that ends (as a forked job, exec/process.c). */
	if (fflush(NULL) != 0 && rc == 0)
		rc = 1;
	r->res.status = rc;
	_exit(rc);
}
