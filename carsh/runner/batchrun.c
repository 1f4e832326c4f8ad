/*
 * Running a batch (DESIGN §3.4): each step does what the shell's command would (`virtbuf
 * ...`, `run FILE`, `sync`, `echo`) through the same runner functions, evaluated in the
 * batch's scope: the caller's parameters (strongest), then the batch's own <Param>s as
 * defaults. A batch stops at its first failing step, waits for the background jobs it
 * started, and fails with every file:line on the way; its end is an implicit <Sync/>.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <errno.h>

#include "model/batch.h"
#include "runner/batchcmd.h"
#include "model/filecache.h"
#include "exec/jobwin.h"
#include "runner/buffers.h"
#include "mpi/placement.h"
#include "runner/run.h"
#include "runner/stats.h"
#include "runner/untilcheck.h"
#include "util/alloc.h"
#include "mpi/ranks.h"
#include "mpi/rankwatch.h"
#include "util/strbuf.h"
#include "util/strvec.h"

static int batch_run_file(struct run_ctx *c, const char *path, const struct params *args,
                          struct cs_err *e);

struct run {
	struct run_ctx *c; /* the steps' context */
	const struct batch *b;
	struct cs_err *e;
	struct strvec created;   /* the buffers its <Virtbuf op="create"> steps made */
	struct placement placed; /* the MPI ranks of its <Exec> steps */
	/* A failure collected from the window is its own step's, named already (located):
	 * the step that collected it adds nothing. */
	bool located;
};

static int run_steps(struct run *r, const struct step *steps, size_t n);

/* "fft.bat.xml:12: <Exec file="x.exe.xml">: " in front of the step's message. */
static int step_failed_in(struct run *r, const struct step *s, int status, struct cs_err *e)
{
	const char *file = s->file ? s->file : (s->name ? s->name : NULL);

	if (!e->msg[0])
		err_set(e, "failed (status %d)", status);
	if (file)
		err_prefix(e, "%s:%d: <%s %s=\"%s\">: ", r->b->file, s->line,
		           step_kind_tag(s->kind), s->file ? "file" : "name", file);
	else
		err_prefix(e, "%s:%d: <%s>: ", r->b->file, s->line, step_kind_tag(s->kind));
	return status ? status : 1;
}

static int step_failed(struct run *r, const struct step *s, int status)
{
	return step_failed_in(r, s, status, r->e);
}

static void add_stats(void *ctx, const struct run_stats *st)
{
	stats_add(ctx, st);
}

/* The window's jobs collected (exec/jobwin.h): one that failed is named with its step. */
static int window_drain(void *arg, struct cs_err *e)
{
	struct run *r = arg;
	struct exec_env env = run_exec_env(r->c);
	const void *tag = NULL;
	int rc = jobwin_collect(&env, r->c->window, &tag, e);

	if (rc == 0)
		return 0;
	r->located = true;
	return step_failed_in(r, tag, rc, e);
}

static int drain(struct run *r)
{
	return run_window_drain(r->c, r->e);
}

static int eval_text(struct run *r, const char *text, const char *what, char *buf, size_t len)
{
	long long v;

	if (scope_eval(r->c->caller, text, &v, r->e))
		return err_prefix(r->e, "%s: ", what);
	snprintf(buf, len, "%lld", v);
	return 0;
}

/* A count or column number: the expression, then the range `virtbuf` checks. */
static int eval_size(struct run *r, const char *text, const char *what, const char *range_what,
                     const char *op, size_t *out)
{
	char num[32];
	long long v;

	if (eval_text(r, text, what, num, sizeof(num)))
		return -1;
	if (scope_eval_range(r->c->caller, num, range_what, 1, INT64_MAX, &v, r->e))
		return err_prefix(r->e, "%s", op);
	*out = (size_t)v;
	return 0;
}

static int step_create(struct run *r, const struct step *s)
{
	struct cs_type t;
	char op[300];
	size_t count;

	snprintf(op, sizeof(op), "virtbuf create %s: ", s->name);
	if (eval_size(r, s->count, "count", "count", op, &count))
		return 1;
	if (buffers_parse_type(s->type, &t, r->e)) {
		err_prefix(r->e, "%s", op);
		return 1;
	}
	if (buffers_create(r->c, s->name, t, count, r->e))
		return 1;
	sv_push(&r->created, s->name);
	return 0;
}

static int step_dump(struct run *r, const struct step *s)
{
	size_t cols = 0;

	if (s->columns && eval_size(r, s->columns, "columns", "--columns", "virtbuf dump: ", &cols))
		return 2;
	return buffers_dump(r->c, s->name, s->file, cols, r->e) ? 1 : 0;
}

/* The window's hazard group when a fill of s->name goes between its jobs in flight
 * (jobwin_host_write), else 0. */
static uint64_t fill_group(const struct run *r, const struct step *s)
{
	struct exec_env env = run_exec_env(r->c);
	struct cs_err ignored;
	struct vbuf v;
	uint64_t group;

	if (!jobwin_open(r->c->window) || vbuf_lookup(r->c->s->vbufs, s->name, &v, &ignored))
		return 0;
	group = jobwin_host_write(&env, r->c->window, v.shm);
	vbuf_entry_free(&v);
	return group;
}

static int step_fill(struct run *r, const struct step *s)
{
	int rc;

	r->c->window_group = fill_group(r, s);
	if (!r->c->window_group && (rc = drain(r)) != 0)
		return rc;
	rc = s->value ? buffers_fill_value(r->c, s->name, s->value, r->e)
	              : buffers_fill_file(r->c, s->name, s->file, r->e);
	r->c->window_group = 0;
	return rc;
}

static int step_virtbuf(void *ctx, const struct step *s)
{
	struct run *r = ctx;
	int rc = 0;

	/* A swap exchanges names: the jobs in flight use the objects they were sent with. A
	 * fill may go between them too (step_fill). */
	if (s->op != VB_SWAP && s->op != VB_FILL && (rc = drain(r)) != 0)
		return rc;
	switch (s->op) {
	case VB_CREATE:
		return step_create(r, s);
	case VB_FILL:
		rc = step_fill(r, s);
		break;
	case VB_DUMP:
		return step_dump(r, s);
	case VB_SWAP:
		rc = buffers_swap(r->c, s->name, s->with, r->e);
		break;
	case VB_DELETE:
		rc = s->all ? buffers_delete_all(r->c, r->e)
		            : buffers_delete(r->c, &s->name, 1, r->e);
		break;
	}
	return rc ? 1 : 0;
}

/* An <Exec> step, or a <Command> that is one run of an executable (runner/batchcmd.h): path
 * and its n NAME=VALUE words, or s's own file or inline executable. */
static int exec_step(struct run *r, const struct step *s, const char *path, int n, char **words)
{
	bool bg = r->c->background;
	int rank = r->c->rank, rc;
	struct placement *placed = r->c->placed;

	struct job_window *window = r->c->window;
	bool joins = !s->background && (!path || filecache_is_executable(path));

	/* Only a flow-model's job joins the window; the rest see every job before done, and a
	 * graph's or a batch's jobs (its threads', say) have none. */
	if (!joins && (rc = drain(r)) != 0)
		return rc;
	r->c->window_tag = s;
	r->c->window = joins ? window : NULL;
	r->c->background = s->background;
	r->c->rank = placement_step(&r->placed, s, s->rank, s->background);
	r->c->placed = &r->placed;
	if (s->exe)
		rc = run_exe(r->c, s->exe, NULL, r->b->file, r->e);
	else
		rc = run_file(r->c, path, n, words, NULL, r->e);
	r->c->window = window;
	r->c->background = bg;
	r->c->rank = rank;
	r->c->placed = placed;
	return rc;
}

static int step_exec(void *ctx, const struct step *s)
{
	return exec_step(ctx, s, s->file, 0, NULL);
}

/* Waits for every rank's jobs: each waits for its own, then all agree (mpi/ranks.h). A
 * rank whose MPI start was put off starts it first, beside its jobs. */
static int sync_ranks(struct run_ctx *c, struct cs_err *e)
{
	ranks_mpi_now();
	return ranks_agree(jobs_sync(c->jobs, 0, e) ? 1 : 0, e);
}

/* "b.bat.xml:5: <Repeat>: " in front of the message (the index is no file or name). */
static int repeat_failed(struct run *r, const struct step *s)
{
	err_prefix(r->e, "%s:%d: <Repeat>: ", r->b->file, s->line);
	return 1;
}

/* "until 'buffer:changed == 0' still false after 1000 runs (max=\"1000\"): changed[3] is 1" */
static int until_limit(struct run *r, const struct step *s, long long max, const char *why)
{
	err_set(r->e, "until 'buffer:%s %s %s' still false after %lld runs (max=\"%s\"): %s",
	        s->until.buffer, until_op_text(s->until.op), s->until.value, max, s->max, why);
	return repeat_failed(r, s);
}

/* After each run of the body of an until= loop: 1 when the loop goes on, 0 when it is done,
 * else a failed status. */
static int until_again(struct run *r, const struct step *s, long long i, long long max)
{
	char why[256];
	int rc = drain(r);

	if (rc)
		return -rc;
	rc = until_check(r->c, &s->until, r->c->caller, why, sizeof(why), r->e);

	if (rc < 0)
		return -repeat_failed(r, s);
	if (rc == 1)
		return 0;
	return i + 1 < max ? 1 : -until_limit(r, s, max, why);
}

/* With index="t", the body sees t = 0, 1, ... count-1, stronger than every other layer:
 * a flow-model takes it as any parameter (<Constant name="t" type="int" value="t"/>). With
 * until=, the body runs until the condition holds after a run, at most max times. */
static int step_repeat(void *ctx, const struct step *s)
{
	struct run *r = ctx;
	const struct scope *outer = r->c->caller;
	struct params index = PARAMS_INIT;
	struct scope sc;
	long long n;
	int rc = 0, again = 1;

	if (scope_eval_range(outer, s->has_until ? s->max : s->count,
	                     s->has_until ? "max" : "repeat count", s->has_until ? 1 : 0, LLONG_MAX,
	                     &n, r->e))
		return repeat_failed(r, s);
	scope_init(&sc);
	scope_push(&sc, &index);
	scope_append(&sc, outer);
	if (s->name)
		r->c->caller = &sc;
	for (long long i = 0; i < n && rc == 0 && again > 0; i++) {
		char v[24];

		snprintf(v, sizeof(v), "%lld", i);
		params_set(&index, s->name ? s->name : "_", v, "<Repeat index>");
		rc = run_steps(r, s->steps, s->nsteps);
		if (rc == 0 && s->has_until)
			again = until_again(r, s, i, n);
	}
	r->c->caller = outer;
	params_free(&index);
	return again < 0 ? -again : rc;
}

static int step_echo(void *ctx, const struct step *s)
{
	struct run *r = ctx;
	char *text;
	int rc = 1;

	/* ${NAME} in <Echo> text, from the batch's parameters. */
	if (scope_expand(r->c->caller, s->text, &text, r->e) == 0) {
		fprintf(r->c->out, "%s\n", text);
		rc = fflush(r->c->out) == 0 ? 0 : 1;
		if (rc)
			err_errno(r->e, "echo: write error");
	}
	free(text);
	return rc;
}

/* A <Command> line is parsed by the shell; its own errors are printed there, so the batch
 * only says where it stopped. */
static int step_command(void *ctx, const struct step *s)
{
	struct run *r = ctx;
	struct session *ses = r->c->s;
	char origin[PATH_MAX + 32];
	struct job_window *window = r->c->window;
	struct command cmd = COMMAND_INIT;
	int rc;

	if (batchcmd_single_run(s->text, r->c->caller, &cmd)) {
		rc = exec_step(r, s, cmd.argv.v[1], (int)cmd.argv.n - 2, cmd.argv.v + 2);
		command_free(&cmd);
		return rc;
	}
	if ((rc = drain(r)) != 0)
		return rc;
	snprintf(origin, sizeof(origin), "%s", r->b->file);
	/* A command's jobs are its own: none of them joins the window, whose failures are
	 * named with their <Exec> steps. */
	r->c->window = NULL;
	rc = ses->run_text(ses, s->text, origin, s->line, r->c, true);
	r->c->window = window;
	if (rc)
		err_set(r->e, "the command above failed (status %d)", rc);
	return rc;
}

/* "fft.bat.xml:12: <Exec>", for the message that names a lost rank (mpi/rankwatch.h). */
static void note_step(const struct run *r, const struct step *s)
{
	char where[160];

	if (ranks_size() == 1)
		return;
	snprintf(where, sizeof(where), "%s:%d: <%s>", r->b->file, s->line, step_kind_tag(s->kind));
	rankwatch_note_step(where);
}

static int step_sync(void *ctx, const struct step *s)
{
	struct run *r = ctx;
	int rc;

	(void)s;
	if ((rc = drain(r)) != 0)
		return rc;
	placement_sync(&r->placed);
	return sync_ranks(r->c, r->e);
}

static int step_batch(void *ctx, const struct step *s)
{
	struct run *r = ctx;
	int rc = drain(r);

	if (rc)
		return rc;
	return batch_run_file(r->c, s->file, &s->params, r->e);
}

static const struct step_visitor run_visitor = {
        .virtbuf = step_virtbuf,
        .exec = step_exec,
        .sync = step_sync,
        .repeat = step_repeat,
        .batch = step_batch,
        .command = step_command,
        .echo = step_echo,
};

static int run_steps(struct run *r, const struct step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc;

		if (r->c->interrupted && *r->c->interrupted) {
			if ((rc = drain(r)) != 0)
				return rc;
			err_set(r->e, "%s: interrupted", r->b->file);
			return 130;
		}
		note_step(r, &steps[i]);
		rc = step_visit(&steps[i], &run_visitor, r);
		if (rc && !r->located) {
			struct cs_err first;
			int frc = run_window_drain(r->c, &first);

			/* A job still in flight that failed came before this step. */
			if (frc) {
				*r->e = first;
				return frc;
			}
		}
		if (rc)
			return steps[i].kind == STEP_REPEAT || r->located
			               ? rc
			               : step_failed(r, &steps[i], rc);
	}
	return 0;
}

/* The chain "a.bat.xml -> b.bat.xml -> a.bat.xml" when path is already being run. */
static int check_recursion(const struct run_ctx *c, const struct stat *st, const char *shown,
                           struct cs_err *e)
{
	struct strbuf chain = STRBUF_INIT;
	const struct batch_frame *f;
	const char *names[SESSION_MAX_DEPTH + 1];
	size_t n = 0;

	for (f = c->frames; f && (f->dev != st->st_dev || f->ino != st->st_ino); f = f->up)
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

/* Whether a step, or one in a <Repeat>, says rank="auto": then the batch keeps each rank's
 * queued forecasts (mpi/placement.h). */
static bool has_rank_auto(const struct step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((steps[i].kind == STEP_EXEC && steps[i].rank == STEP_RANK_AUTO) ||
		    (steps[i].kind == STEP_REPEAT &&
		     has_rank_auto(steps[i].steps, steps[i].nsteps)))
			return true;
	return false;
}

/* A batch that failed leaves no buffer it created behind, so that it can run again. */
static void delete_created(struct run *r)
{
	struct cs_err ignored;
	struct vbuf v;

	for (size_t i = 0; i < r->created.n; i++) {
		if (vbuf_lookup(r->c->s->vbufs, r->created.v[i], &v, &ignored))
			continue; /* deleted by a later step */
		vbuf_entry_free(&v);
		buffers_delete(r->c, &r->created.v[i], 1, &ignored);
	}
}

static int run_loaded(struct run_ctx *parent, const struct batch *b, const struct params *args,
                      const struct batch_frame *frame, struct cs_err *e)
{
	struct params dir = PARAMS_INIT;
	struct scope sc;
	struct run_ctx c = *parent;
	struct run r = {&c, b, e, STRVEC_INIT, PLACEMENT_INIT, false};
	struct cs_err sync_err;
	int rc, jobs_rc;

	batch_scope(&sc, args, parent->caller, b, &dir);
	c.caller = &sc;
	c.jobs = jobs_new();
	c.quiet = true;
	c.background = false;
	c.depth++;
	c.frames = frame;
	c.placed = NULL;
	r.placed.forecast = has_rank_auto(b->steps, b->nsteps);
	/* Under MPI every foreground job's end is agreed on at once: no window there. */
	c.window = parent->s->replicas || ranks_size() > 1 ? NULL : jobwin_new(add_stats, c.stats);
	c.window_tag = NULL;
	c.window_drain = window_drain;
	c.window_arg = &r;
	rc = run_steps(&r, b->steps, b->nsteps);
	/* After a failure the window was collected when the step failed; this is no more than
	 * a guard: a window left open would keep its jobs' claims for ever. */
	if (rc == 0)
		rc = drain(&r);
	else
		(void)run_window_drain(&c, &sync_err);
	jobwin_free(c.window);
	/* Whatever happened, the jobs this batch started end before it does. */
	jobs_rc = sync_ranks(&c, &sync_err);
	if (rc == 0 && jobs_rc != 0) {
		err_set(e, "%s: at its end: %s", b->file, sync_err.msg);
		rc = jobs_rc;
	}
	jobs_free(c.jobs);
	if (rc)
		delete_created(&r);
	sv_free(&r.created);
	placement_free(&r.placed);
	params_free(&dir);
	return rc;
}

/* Run the batch file path with the parameters args (strongest) in context c: its steps in
 * order, stopping at the first that fails; the background jobs it started end before it
 * does. Returns the status with every file:line on the way in e. */
static int batch_run_file(struct run_ctx *c, const char *path, const struct params *args,
                          struct cs_err *e)
{
	struct stat st;
	const struct batch *b;
	struct batch_frame frame;

	if (c->depth >= SESSION_MAX_DEPTH) {
		err_set(e, "%s: batches nested more than %d deep", path, SESSION_MAX_DEPTH);
		return 1;
	}
	/* Known by its device and inode, not by realpath's readlink of every component; the
	 * cache has its stat (a batch run in a loop from a script pays no system call here). */
	b = filecache_batch(path, &st, e);
	if (!b)
		return 1;
	if (st.st_ino == 0 && stat(path, &st) != 0) {
		err_errno(e, "%s", path);
		return 1;
	}
	if (check_recursion(c, &st, path, e))
		return 1;
	frame = (struct batch_frame){st.st_dev, st.st_ino, path, c->frames};
	return run_loaded(c, b, args, &frame, e);
}

/* `run BATCH.xml NAME=VALUE...`: the words are its parameters, the strongest. */
static int run_batch_words(struct run_ctx *c, const char *path, int n, char **words,
                           const struct graph_run_opts *go, struct cs_err *e)
{
	struct params args = PARAMS_INIT;
	int rc = 1;

	(void)go;
	if (session_read_words(NULL, n, words, &args, e) == 0)
		rc = batch_run_file(c, path, &args, e);
	params_free(&args);
	return rc;
}

const struct file_kind file_kind_batch = {
        .root = "CarshBat",
        .one_job = true,
        .run = run_batch_words,
};
