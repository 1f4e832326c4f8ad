/* Running what a file names (runner/run.h). */
#include "runner/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/jobwin.h"
#include "model/filecache.h"
#include "model/planner.h"
#include "runner/buffers.h"
#include "runner/datachunk.h"
#include "runner/datalen.h"
#include "runner/devplace.h"
#include "mpi/placement.h"
#include "runner/plancache.h"
#include "runner/stats.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "mpi/ranks.h"
#include "mpi/rankwatch.h"
#include "util/strbuf.h"

static int plan_background(struct run_ctx *c, struct job_plan *jp, const char *label,
                           const char *why, struct cs_err *e)
{
	struct exec_env env = run_exec_env(c);
	struct child_io io = run_child_io(c);
	pid_t pid = getpid();
	int id, rc;

	if (c->s->thread_mode) {
		/* POSIX: a background job reads /dev/null unless its input was redirected. */
		jp->in = run_own_stream(c->in, "r", c->in == stdin);
		jp->out = run_own_stream(c->out, "w", false);
		rc = exec_thread_background(&env, session_texec(c->s), c->jobs, jp, label, &id, e);
	} else
		rc = exec_plan_background(&env, c->jobs, jp, label, &io, &id, &pid, e);
	if (rc) {
		job_plan_free(jp);
		return 1;
	}
	jobs_set_note(c->jobs, id, why);
	if (!c->quiet)
		fprintf(stderr, "[%d] %d\n", id, (int)pid);
	return 0;
}

/* `auto` learns from a job's end, and the thread executor returns from a foreground job
 * once its work is queued (0.03 ms learnt for a 44 ms kernel): such a job is waited for
 * here, its device times harvested into its own. */
static int wait_to_learn(struct run_ctx *c, struct run_stats *st, struct cs_err *e)
{
	struct run_stats queued;
	double t0 = clock_ms();
	int rc = texec_flush(session_texec(c->s), c->stats, &queued, e);

	run_stats_add_device(st, &queued);
	st->wall_ms += clock_ms() - t0;
	return rc ? 1 : 0;
}

/* why: the rank's reason, then the device's: "auto: rank 0, ...; auto: cpu, ...". */
static void add_rank_why(char *why, size_t len, const char *rank_why)
{
	struct strbuf sb = STRBUF_INIT;

	if (!rank_why[0])
		return;
	sb_addf(&sb, "%s%s%s", rank_why, why[0] ? "; " : "", why);
	snprintf(why, len, "%s", sb_str(&sb));
	sb_free(&sb);
}

/* A batch's job sent into its window (exec/jobwin.h): 0, and the plan is the window's. Else
 * the window is collected first: the status of a job in it that failed, or -1 when this one
 * runs as usual. */
static int run_window_send(struct run_ctx *c, struct job_plan *jp, bool kept, char *saved,
                           struct cs_err *e)
{
	struct exec_env env = run_exec_env(c);
	struct child_io io = run_child_io(c);
	int rc;

	if (!kept && !saved && jobwin_send(&env, c->window, jp, &io, c->window_tag) == 0)
		return 0;
	rc = run_window_drain(c, e);
	if (rc == 0)
		return -1;
	place_restore(jp, saved);
	if (!kept)
		job_plan_free(jp);
	return rc;
}

/* A background job's plan belongs to the job; a foreground one's is freed here unless the
 * plan cache keeps it. rank_why: why rank="auto" put it here, or "". */
static int run_plan(struct run_ctx *c, struct job_plan *jp, bool kept, const char *label,
                    const char *rank_why, struct cs_err *e)
{
	struct exec_env env = run_exec_env(c);
	struct child_io io = run_child_io(c);
	struct run_stats st;
	bool has_stats = true;
	char why[200], *saved;
	int rc;

	/* Before a worker is taken: the server lends workers by device. */
	if (place_job(c, jp, &saved, why, sizeof(why), e)) {
		kernel_plan_err_label(&jp->kp, e);
		if (!kept)
			job_plan_free(jp);
		return 1;
	}
	add_rank_why(why, sizeof(why), rank_why);
	jp->timeout_s = session_timeout(c->vars);
	if (c->background)
		return plan_background(c, jp, label, why, e);
	if (c->window && !c->s->thread_mode) {
		rc = run_window_send(c, jp, kept, saved, e);
		if (rc >= 0)
			return rc;
	}
	if (c->s->thread_mode) {
		jp->in = c->in;
		jp->out = c->out;
		rc = exec_thread_foreground(&env, session_texec(c->s), jp, c->stats, &st, e);
		if (rc == 0 && jp->on_end)
			rc = wait_to_learn(c, &st, e);
	} else
		rc = exec_plan_foreground(&env, jp, &io, &st, &has_stats, e);
	if (has_stats && rc == 0)
		stats_add(c->stats, &st);
	if (why[0])
		stats_place(c->stats, why);
	job_plan_ended(jp, rc, has_stats && rc == 0 ? &st : NULL);
	place_restore(jp, saved);
	if (!kept)
		job_plan_free(jp);
	return rc;
}

/* A background job that could not start on this rank: a job of c->jobs that failed with
 * its message, so that the next sync reports it with the rank named. */
struct start_failure {
	int rc;
	struct cs_err e;
};

static int start_failure_body(void *arg, int id, struct cs_err *e)
{
	const struct start_failure *f = arg;

	(void)id;
	*e = f->e;
	return f->rc;
}

static void start_failed_later(struct run_ctx *c, int rc, const char *label, const struct cs_err *e)
{
	struct start_failure *f = xcalloc(1, sizeof(*f));
	struct cs_err thread_err;

	*f = (struct start_failure){.rc = rc, .e = *e};
	if (jobs_start(c->jobs, label, getpid(), start_failure_body, f, NULL, free, &thread_err) <
	    0) {
		free(f);
		ranks_fatal("%s; then: %s", e->msg, thread_err.msg);
	}
}

static int job_forecast(void *c, const struct job_plan *jp, double *ms)
{
	return place_job_forecast(c, jp, ms);
}

/* The rank that runs jp in context c (mpi/placement.h). */
static int job_rank(struct run_ctx *c, const struct job_plan *jp, char *why, size_t len)
{
	struct placement_ask a = {c->rank,        c->background, c->placed,
	                          c->s->replicas, job_forecast,  c};

	return placement_job(&a, jp, why, len);
}

/* Under MPI every rank plans every job; the one it is placed on runs it, after the data it
 * reads arrived there. All agree on how a foreground job went when it ends. A background
 * job, even one that could not start, is agreed on at the next sync: an agreement per
 * start held every rank at each background step until the slowest came (busy ranks, whose
 * shell thread waits for a core its jobs hold), where the jobs needed nothing of each other
 * (docs/scale-out.md "Where the time goes"). */
static int run_placed(struct run_ctx *c, struct job_plan *jp, bool kept, const char *label,
                      struct cs_err *e)
{
	char why[200];
	int rank = job_rank(c, jp, why, sizeof(why)), rc = 0;

	if (ranks_size() > 1)
		rankwatch_note_job(rank, label);
	if (c->moves_by_caller) {
		if (rank == ranks_rank())
			return run_plan(c, jp, kept, label, "", e);
		if (!kept)
			job_plan_free(jp);
		return 0;
	}
	/* `time` says why rank="auto" chose; run_plan says it with the device's for a
	 * foreground job it runs here. */
	if (why[0] && (rank != ranks_rank() || c->background))
		stats_place(c->stats, why);
	buffers_place_plan(c, jp, rank);
	if (rank == ranks_rank())
		rc = run_plan(c, jp, kept, label, why, e);
	else if (!kept)
		job_plan_free(jp);
	if (!c->background)
		return ranks_agree(rc, e);
	if (rc)
		start_failed_later(c, rc, label, e);
	return 0;
}

/* Streams whose values the shell already parsed to count them read those instead
 * (runner/datalen.h). The plan cache keeps only plans bound to virtual buffers, so a plan
 * that reads a file is the job's own and may be changed. */
static void read_kept(struct job_plan *jp, const struct datalen_keep *keep)
{
	for (size_t k = 0; keep && k < keep->n; k++)
		for (size_t i = 0; i < jp->kp.nargs; i++)
			if (jp->binds[i].how == BIND_FILE &&
			    strcmp(jp->kp.args[i].name, keep->v[k].stream) == 0) {
				free(jp->binds[i].path);
				jp->binds[i].path = xstrdup(keep->v[k].path);
			}
}

/* reusable: exe is the file cache's, so its address names its content (plancache.h). keep:
 * values already parsed (NULL: none). */
static int plan_and_run(struct run_ctx *c, const struct exe *exe, const struct params *args,
                        const char *label, bool cached, bool reusable,
                        const struct datalen_keep *keep, struct cs_err *e)
{
	struct scope scope;
	struct job_plan *jp;
	struct plan_env env;
	bool kept = false;

	scope_init(&scope);
	if (args)
		scope_push(&scope, args);
	scope_append(&scope, c->caller);
	env = (struct plan_env){&scope, c->s->device_cli, session_resolve_buffer, c->s, cached};
	/* The cache serves the shell's own thread, and lends a plan for one job at a time. */
	if (reusable && c->s->thread_mode && !c->background && !c->detached) {
		if (plancache_plan(c->s->plans, c->s->vbufs, exe, &env, &jp, &kept, e))
			return 1;
	} else if (reusable && c->window && !c->background && !c->detached) {
		/* A batch's job for a window: the plan is lent, job_plan_free gives it back. */
		if (plancache_lend(c->s->plans, c->s->vbufs, exe, &env, &jp, e))
			return 1;
	} else if (plan_exe(exe, &env, &jp, e)) {
		return 1;
	}
	if (!kept)
		read_kept(jp, keep);
	if (c->s->replicas)
		return run_placed(c, jp, kept, label, e);
	return run_plan(c, jp, kept, label, "", e);
}

int run_exe(struct run_ctx *c, const struct exe *exe, const struct params *args, const char *label,
            struct cs_err *e)
{
	return plan_and_run(c, exe, args, label, false, false, NULL, e);
}

int exe_load(const char *path, const char *root, int n, char **words, struct loaded_exe *out,
             struct cs_err *e)
{
	const struct flowmodel *fm;

	*out = (struct loaded_exe){.args = PARAMS_INIT};
	if (strcmp(root, "FlowModel") == 0 && (fm = filecache_flowmodel(path, e)) != NULL)
		out->exe = out->wrap = exe_wrap_shared_flowmodel(fm);
	else if (strcmp(root, "CarshExe") == 0)
		out->exe = filecache_exe(path, e);
	if (out->exe && session_read_words(out->wrap, n, words, &out->args, e) == 0 &&
	    (!out->wrap || exe_check_bindings(out->wrap, true, e) == 0))
		return 0;
	exe_loaded_free(out);
	return -1;
}

void exe_loaded_free(struct loaded_exe *l)
{
	exe_free(l->wrap);
	params_free(&l->args);
	*l = (struct loaded_exe){.args = PARAMS_INIT};
}

/* One job over one chunk of standard input (runner/datachunk.h). */
struct chunk_job {
	struct run_ctx *c;
	struct loaded_exe *l;
	const char *path;
	struct datalen_keep raw; /* the stream cut reads the chunk's values */
};

static int chunk_job(void *arg, FILE *in, struct cs_err *e)
{
	struct chunk_job *j = arg;
	FILE *saved = j->c->in;
	int rc;

	j->c->in = in;
	rc = plan_and_run(j->c, j->l->exe, &j->l->args, j->path, true, !j->l->wrap, &j->raw, e);
	j->c->in = saved;
	return rc;
}

/* Standard input too long to count whole: in chunks where the flow-model allows it. */
static int run_chunks(struct run_ctx *c, struct loaded_exe *l, const char *path,
                      const struct fm_arg *endless, FILE *head, struct cs_err *e)
{
	/* Only read (read_kept), never freed. */
	struct datalen_kept raw = {(char *)endless->name, (char *)"-:raw", false, -1};
	struct chunk_job j = {c, l, path, {&raw, 1}};
	struct cs_type t;
	char why[300];
	int rc;

	if (c->background)
		snprintf(why, sizeof(why), "a background job does not run in chunks");
	if (c->background || datachunk_why_not(l->exe, endless, why, sizeof(why))) {
		err_set(e,
		        "%s: stream '%s': <stdin>: longer than CARSH_COUNT_MAX bytes, and it "
		        "cannot "
		        "run in chunks: %s; give the count (%s=...)",
		        path, endless->name, why, endless->count);
		return 1;
	}
	if (datalen_type(l->exe, c->caller, &l->args, endless, &t, e)) {
		err_prefix(e, "%s: ", path);
		return 1;
	}
	rc = datachunk_run(endless, &t, head, c->in, &l->args, c->interrupted, chunk_job, &j, e);
	if (rc < 0)
		err_prefix(e, "%s: ", path);
	return rc < 0 ? 1 : rc;
}

/* runner/datalen.h's datalen_chunk_from: standard input gives way to chunks where they can
 * run. */
static unsigned long long chunk_from(const struct exe *exe, const struct fm_arg *a)
{
	char why[300];

	return datachunk_why_not(exe, a, why, sizeof(why)) ? 0 : datachunk_start_bytes();
}

/* An executable's own <Param> wins over `run FILE NAME=VALUE` (docs/formats.md, "Lookup
 * order"): a word it overrides is said, not silently dropped. */
static void warn_overridden(const char *path, const struct loaded_exe *l)
{
	if (l->wrap)
		return;
	for (size_t i = 0; i < l->args.n; i++) {
		const struct param *a = &l->args.v[i];
		const struct param *p = params_get(&l->exe->params, a->name);

		if (p && strcmp(p->value, a->value) != 0)
			fprintf(stderr,
			        "carsh: warning: %s: %s=%s is not used: the executable sets %s=%s "
			        "itself (%s), which wins over the command line (remove that "
			        "<Param> to "
			        "set %s here)\n",
			        path, a->name, a->value, p->name, p->value, p->origin, a->name);
	}
}

/* Files come from the file cache: a batch repeating a step parses it once. */
static int run_executable(struct run_ctx *c, const char *path, const char *root, int n,
                          char **words, struct cs_err *e)
{
	struct loaded_exe l;
	const struct fm_arg *endless;
	struct datalen_keep keep = {NULL, 0};
	FILE *in = c->in, *spool;
	int rc;

	if (exe_load(path, root, n, words, &l, e))
		return 1;
	warn_overridden(path, &l);
	/* A background job takes no length from its data: counting reads the input now, in the
	 * shell (a FIFO would hold the prompt), ahead of the hazard claims that order the job
	 * after those writing its files. Under MPI the job may run on another rank, which has not
	 * the values kept here: it parses its data itself. */
	spool = NULL;
	endless = NULL;
	rc = c->background || c->detached
	             ? 0
	             : datalen_apply(l.exe, c->caller, c->in, &l.args, c->interrupted, &spool,
	                             &endless, c->s->replicas ? NULL : &keep,
	                             c->s->replicas ? NULL : chunk_from, e);
	if (rc == 2)
		rc = run_chunks(c, &l, path, endless, spool, e);
	else if (rc)
		rc = err_prefix(e, "%s: ", path);
	else {
		if (spool)
			c->in = spool;
		rc = plan_and_run(c, l.exe, &l.args, path, true, !l.wrap, &keep, e);
		c->in = in;
	}
	datalen_keep_free(&keep);
	if (spool)
		fclose(spool);
	exe_loaded_free(&l);
	return rc < 0 ? 1 : rc;
}

static int run_flowmodel(struct run_ctx *c, const char *path, int n, char **words,
                         const struct graph_run_opts *go, struct cs_err *e)
{
	(void)go;
	return run_executable(c, path, "FlowModel", n, words, e);
}

static int run_carshexe(struct run_ctx *c, const char *path, int n, char **words,
                        const struct graph_run_opts *go, struct cs_err *e)
{
	(void)go;
	return run_executable(c, path, "CarshExe", n, words, e);
}

/* An executable starts its own job, a process or a thread one, even in the background. */
const struct file_kind file_kind_flowmodel = {.root = "FlowModel", .run = run_flowmodel};
const struct file_kind file_kind_exe = {.root = "CarshExe", .run = run_carshexe};

/* A file run as one background job: its kind, its words and its options, the job's own. */
struct bg_file {
	const struct file_kind *kind;
	char **argv; /* path, then the words */
	int argc;
	struct graph_run_opts go;
	bool has_go;
};

static void bg_file_free(void *p)
{
	struct bg_file *b = p;

	for (int i = 0; i < b->argc; i++)
		free(b->argv[i]);
	free(b->argv);
	free((char *)b->go.root);
	free((char *)b->go.max_parallel);
	free(b);
}

static int bg_file_body(struct run_ctx *c, void *arg, struct cs_err *e)
{
	struct bg_file *b = arg;

	return b->kind->run(c, b->argv[0], b->argc - 1, b->argv + 1, b->has_go ? &b->go : NULL, e);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* Labelled as the command that started it: "run FILE WORD...". */
static int file_background(struct run_ctx *c, const struct file_kind *k, const char *path, int n,
                           char **words, const struct graph_run_opts *go, struct cs_err *e)
{
	struct bg_file *b = xcalloc(1, sizeof(*b));
	struct strbuf label = STRBUF_INIT;
	int rc;

	b->kind = k;
	if (go) {
		b->go = *go;
		b->go.root = dup_or_null(go->root);
		b->go.max_parallel = dup_or_null(go->max_parallel);
		b->has_go = true;
	}
	b->argc = n + 1;
	b->argv = xcalloc((size_t)n + 2, sizeof(char *));
	b->argv[0] = xstrdup(path);
	sb_addf(&label, "run %s", path);
	for (int i = 0; i < n; i++) {
		b->argv[i + 1] = xstrdup(words[i]);
		sb_addf(&label, " %s", words[i]);
	}
	rc = run_background(c, sb_str(&label), bg_file_body, b, bg_file_free, e);
	sb_free(&label);
	return rc;
}

static const struct file_kind *file_kind_find(const char *root)
{
	for (size_t i = 0; file_kinds[i]; i++)
		if (strcmp(file_kinds[i]->root, root) == 0)
			return file_kinds[i];
	return NULL;
}

/* "<FlowModel>, <CarshExe>, <CarshBat> or <CarshGraph>", from the table. */
static void cannot_run(const char *path, const char *root, struct cs_err *e)
{
	struct strbuf kinds = STRBUF_INIT;

	for (size_t i = 0; file_kinds[i]; i++)
		sb_addf(&kinds, "%s<%s>",
		        i == 0              ? ""
		        : file_kinds[i + 1] ? ", "
		                            : " or ",
		        file_kinds[i]->root);
	err_set(e, "%s: <%s> files cannot be run (expected %s)", path, root, sb_str(&kinds));
	sb_free(&kinds);
}

int run_file(struct run_ctx *c, const char *path, int n, char **words,
             const struct graph_run_opts *go, struct cs_err *e)
{
	const char *root = filecache_root(path, e);
	const struct file_kind *k;

	if (!root)
		return 1;
	k = file_kind_find(root);
	if (go && !(k && k->graph_opts)) {
		err_set(e,
		        "%s: a <%s>: --items, --serial, --root, --max-parallel, --trace and "
		        "--report are for pipeline graphs (<CarshGraph>)",
		        path, root);
		return 2;
	}
	if (!k) {
		cannot_run(path, root, e);
		return 1;
	}
	if (c->background && k->one_job)
		return file_background(c, k, path, n, words, go, e);
	return k->run(c, path, n, words, go, e);
}
