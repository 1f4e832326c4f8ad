/*
 * Running a batch (DESIGN §3.4): each step becomes the same command the shell would run
 * (`virtbuf ...`, `run FILE`, `sync`, `echo`), evaluated in the batch's scope: the caller's
 * parameters (strongest), then the batch's own <Param>s as defaults. A batch stops at its
 * first failing step, waits for the background jobs it started, and fails with every
 * file:line on the way; its end is an implicit <Sync/>.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "model/batch.h"
#include "model/filecache.h"
#include "util/alloc.h"
#include "util/strbuf.h"

struct run {
	struct cmd_ctx *c; /* the steps' context */
	const struct batch *b;
	struct cs_err *e;
};

static int run_steps(struct run *r, const struct step *steps, size_t n);

static const char *step_tag(const struct step *s)
{
	static const char *const tags[] = {"Virtbuf", "Exec",    "Sync", "Repeat",
	                                   "Batch",   "Command", "Echo"};

	return tags[s->kind];
}

/* "fft.bat.xml:12: <Exec file="x.exe.xml">: " in front of the step's message. */
static int step_failed(struct run *r, const struct step *s, int status)
{
	const char *file = s->file ? s->file : (s->name ? s->name : NULL);

	if (!r->e->msg[0])
		err_set(r->e, "failed (status %d)", status);
	if (file)
		err_prefix(r->e, "%s:%d: <%s %s=\"%s\">: ", r->b->file, s->line, step_tag(s),
		           s->file ? "file" : "name", file);
	else
		err_prefix(r->e, "%s:%d: <%s>: ", r->b->file, s->line, step_tag(s));
	return status ? status : 1;
}

static int exec_words(struct run *r, int argc, char **argv)
{
	return cmd_exec_argv(r->c, argc, argv, r->e);
}

static int eval_text(struct run *r, const char *text, const char *what, char *buf, size_t len)
{
	long long v;

	if (scope_eval(r->c->caller, text, &v, r->e))
		return err_prefix(r->e, "%s: ", what);
	snprintf(buf, len, "%lld", v);
	return 0;
}

static int step_virtbuf(struct run *r, const struct step *s)
{
	static const char *const ops[] = {"create", "fill", "dump", "swap", "delete"};
	char *argv[8] = {(char *)"virtbuf", (char *)ops[s->op], s->name};
	char num[32];
	int argc = 3;

	if (s->op == VB_CREATE) {
		if (eval_text(r, s->count, "count", num, sizeof(num)))
			return 1;
		argv[argc++] = s->type;
		argv[argc++] = num;
	} else if (s->op == VB_FILL) {
		if (s->value)
			argv[argc++] = (char *)"--value";
		argv[argc++] = s->value ? s->value : s->file;
	} else if (s->op == VB_DUMP) {
		if (s->file)
			argv[argc++] = s->file;
		if (s->columns && eval_text(r, s->columns, "columns", num, sizeof(num)))
			return 1;
		if (s->columns) {
			argv[argc++] = (char *)"--columns";
			argv[argc++] = num;
		}
	} else if (s->op == VB_SWAP) {
		argv[argc++] = s->with;
	} else if (s->all) {
		argv[2] = (char *)"-a";
	}
	return exec_words(r, argc, argv);
}

static int step_exec(struct run *r, const struct step *s)
{
	char *argv[] = {(char *)"run", s->file};
	bool bg = r->c->background;
	int rc;

	r->c->background = s->background;
	if (s->exe)
		rc = cmd_run_exe(r->c, s->exe, NULL, r->b->file, r->e);
	else
		rc = exec_words(r, 2, argv);
	r->c->background = bg;
	return rc;
}

static int step_repeat(struct run *r, const struct step *s)
{
	long long n;

	if (scope_eval_range(r->c->caller, s->count, "repeat count", 0, LLONG_MAX, &n, r->e))
		return step_failed(r, s, 1);
	for (long long i = 0; i < n; i++) {
		int rc = run_steps(r, s->steps, s->nsteps);

		if (rc)
			return rc;
	}
	return 0;
}

/* ${NAME} in <Echo> text, from the batch's parameters. */
static int expand(struct run *r, const char *text, struct strbuf *out)
{
	for (const char *p = text; *p; p++) {
		const char *end;
		const struct param *par;
		char *name;

		if (p[0] != '$' || p[1] != '{' || !(end = strchr(p, '}'))) {
			sb_addc(out, *p);
			continue;
		}
		name = xstrndup(p + 2, (size_t)(end - p - 2));
		par = scope_get(r->c->caller, name);
		if (!par) {
			err_set(r->e, "${%s}: no such parameter", name);
			free(name);
			return -1;
		}
		sb_adds(out, par->value);
		free(name);
		p = end;
	}
	return 0;
}

static int step_echo(struct run *r, const struct step *s)
{
	struct strbuf text = STRBUF_INIT;
	char *argv[3] = {(char *)"echo"};
	int rc = 1;

	if (expand(r, s->text, &text) == 0) {
		argv[1] = (char *)sb_str(&text);
		rc = exec_words(r, 2, argv);
	}
	sb_free(&text);
	return rc;
}

/* A <Command> line is parsed by the shell; its own errors are printed there, so the batch
 * only says where it stopped. */
static int step_command(struct run *r, const struct step *s)
{
	struct session *ses = r->c->s;
	char origin[PATH_MAX + 32];
	int rc;

	snprintf(origin, sizeof(origin), "%s", r->b->file);
	rc = ses->run_text(ses, s->text, origin, s->line, r->c, true);
	if (rc)
		err_set(r->e, "the command above failed (status %d)", rc);
	return rc;
}

static int run_step(struct run *r, const struct step *s)
{
	switch (s->kind) {
	case STEP_VIRTBUF:
		return step_virtbuf(r, s);
	case STEP_EXEC:
		return step_exec(r, s);
	case STEP_SYNC:
		return jobs_sync(r->c->jobs, 0, r->e) ? 1 : 0;
	case STEP_REPEAT:
		return step_repeat(r, s);
	case STEP_BATCH:
		return batch_run_file(r->c, s->file, &s->params, r->e);
	case STEP_COMMAND:
		return step_command(r, s);
	case STEP_ECHO:
		return step_echo(r, s);
	}
	return 1;
}

static int run_steps(struct run *r, const struct step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc;

		if (r->c->interrupted && *r->c->interrupted)
			return cmd_error(r->e, 130, "%s: interrupted", r->b->file);
		rc = run_step(r, &steps[i]);
		if (rc)
			return steps[i].kind == STEP_REPEAT ? rc : step_failed(r, &steps[i], rc);
	}
	return 0;
}

/* The chain "a.bat.xml -> b.bat.xml -> a.bat.xml" when path is already being run. */
static int check_recursion(const struct cmd_ctx *c, const char *real, const char *shown,
                           struct cs_err *e)
{
	struct strbuf chain = STRBUF_INIT;
	const struct batch_frame *f;
	const char *names[SESSION_MAX_DEPTH + 1];
	size_t n = 0;

	for (f = c->frames; f && strcmp(f->path, real) != 0; f = f->up)
		;
	if (!f)
		return 0;
	for (f = c->frames; f && n < SESSION_MAX_DEPTH; f = f->up)
		names[n++] = f->shown;
	while (n > 0)
		sb_addf(&chain, "%s -> ", names[--n]);
	sb_adds(&chain, shown);
	err_set(e, "batch recursion: %s", sb_str(&chain));
	sb_free(&chain);
	return -1;
}

/* The steps' scope: the caller's args, the caller's scope, then the batch's defaults and
 * BATCH_DIR. */
static void batch_scope(struct scope *sc, const struct params *args, const struct cmd_ctx *c,
                        const struct batch *b, struct params *dir)
{
	scope_init(sc);
	if (args)
		scope_push(sc, args);
	scope_append(sc, c->caller);
	scope_push(sc, &b->params);
	params_set(dir, "BATCH_DIR", b->dir, b->file);
	scope_push(sc, dir);
}

static int run_loaded(struct cmd_ctx *parent, const struct batch *b, const struct params *args,
                      const struct batch_frame *frame, struct cs_err *e)
{
	struct params dir = PARAMS_INIT;
	struct scope sc;
	struct cmd_ctx c = *parent;
	struct run r = {&c, b, e};
	struct cs_err sync_err;
	int rc, jobs_rc;

	batch_scope(&sc, args, parent, b, &dir);
	c.caller = &sc;
	c.jobs = jobs_new();
	c.quiet = true;
	c.background = false;
	c.depth++;
	c.frames = frame;
	rc = run_steps(&r, b->steps, b->nsteps);
	/* Whatever happened, the jobs this batch started end before it does. */
	jobs_rc = jobs_sync(c.jobs, 0, &sync_err);
	if (rc == 0 && jobs_rc != 0) {
		err_set(e, "%s: at its end: %s", b->file, sync_err.msg);
		rc = jobs_rc;
	}
	jobs_free(c.jobs);
	params_free(&dir);
	return rc;
}

int batch_run_file(struct cmd_ctx *c, const char *path, const struct params *args, struct cs_err *e)
{
	char real[PATH_MAX];
	const struct batch *b;
	struct batch_frame frame;

	if (c->depth >= SESSION_MAX_DEPTH)
		return cmd_error(e, 1, "%s: batches nested more than %d deep", path,
		                 SESSION_MAX_DEPTH);
	if (!realpath(path, real))
		return cmd_errno(e, 1, "%s", path);
	if (check_recursion(c, real, path, e))
		return 1;
	b = filecache_batch(path, e);
	if (!b)
		return 1;
	frame = (struct batch_frame){real, path, c->frames};
	return run_loaded(c, b, args, &frame, e);
}
