/* run: run an executable, a flow-model with its streams bound on the line, or a batch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/graphrun.h"
#include "cmd/plancache.h"
#include "model/exe.h"
#include "model/filecache.h"
#include "model/planner.h"
#include "util/alloc.h"

static int run_background(struct cmd_ctx *c, struct job_plan *jp, const char *label,
                          struct cs_err *e)
{
	struct exec_env env = cmd_exec_env(c);
	struct child_io io = cmd_child_io(c);
	pid_t pid = getpid();
	int id, rc;

	if (c->s->thread_mode) {
		/* POSIX: a background job reads /dev/null unless its input was redirected. */
		jp->in = cmd_own_stream(c->in, "r", c->in == stdin);
		jp->out = cmd_own_stream(c->out, "w", false);
		rc = exec_thread_background(&env, session_texec(c->s), c->jobs, jp, label, &id, e);
	} else
		rc = exec_plan_background(&env, c->jobs, jp, label, &io, &id, &pid, e);
	if (rc) {
		job_plan_free(jp);
		return 1;
	}
	if (!c->quiet)
		fprintf(stderr, "[%d] %d\n", id, (int)pid);
	return 0;
}

/* A background job's plan belongs to the job; a foreground one's is freed here unless the
 * plan cache keeps it. */
static int run_plan(struct cmd_ctx *c, struct job_plan *jp, bool kept, const char *label,
                    struct cs_err *e)
{
	struct exec_env env = cmd_exec_env(c);
	struct child_io io = cmd_child_io(c);
	struct run_stats st;
	bool has_stats = true;
	int rc;

	if (c->background)
		return run_background(c, jp, label, e);
	if (c->s->thread_mode) {
		jp->in = c->in;
		jp->out = c->out;
		rc = exec_thread_foreground(&env, session_texec(c->s), jp, c->stats, &st, e);
	} else
		rc = exec_plan_foreground(&env, jp, &io, &st, &has_stats, e);
	if (has_stats && rc == 0)
		stats_add(c->stats, &st);
	if (!kept)
		job_plan_free(jp);
	return rc;
}

/* reusable: exe is the file cache's, so its address names its content (plancache.h). */
static int run_exe(struct cmd_ctx *c, const struct exe *exe, const struct params *args,
                   const char *label, bool cached, bool reusable, struct cs_err *e)
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
		if (plancache_plan(c->s->plans, exe, &env, &jp, &kept, e))
			return 1;
	} else if (plan_exe(exe, &env, &jp, e)) {
		return 1;
	}
	/* A background job's plan now belongs to the job. */
	return run_plan(c, jp, kept, label, e);
}

int cmd_run_exe(struct cmd_ctx *c, const struct exe *exe, const struct params *args,
                const char *label, struct cs_err *e)
{
	return run_exe(c, exe, args, label, false, false, e);
}

/* Files come from the file cache: a batch repeating a step parses it once. */
static int run_executable(struct cmd_ctx *c, const char *path, bool is_fm, int n, char **words,
                          struct cs_err *e)
{
	struct params args = PARAMS_INIT;
	const struct flowmodel *fm;
	const struct exe *exe = NULL;
	struct exe *wrap = NULL;
	int rc = 1;

	if (is_fm && (fm = filecache_flowmodel(path, e)) != NULL)
		exe = wrap = exe_wrap_shared_flowmodel(fm);
	else if (!is_fm)
		exe = filecache_exe(path, e);
	if (exe && session_read_words(wrap, n, words, &args, e) == 0 &&
	    (!wrap || exe_check_bindings(wrap, true, e) == 0))
		rc = run_exe(c, exe, &args, path, true, !wrap, e);
	exe_free(wrap);
	params_free(&args);
	return rc;
}

static int run_batch(struct cmd_ctx *c, const char *path, int n, char **words, struct cs_err *e)
{
	struct params args = PARAMS_INIT;
	int rc = 1;

	if (session_read_words(NULL, n, words, &args, e) == 0)
		rc = batch_run_file(c, path, &args, e);
	params_free(&args);
	return rc;
}

static int cmd_run_exec(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e)
{
	const char *root = filecache_root(argv[1], e);
	int rc;

	if (!root)
		return 1;
	if (strcmp(root, "FlowModel") == 0 || strcmp(root, "CarshExe") == 0)
		rc = run_executable(c, argv[1], root[0] == 'F', argc - 2, argv + 2, e);
	else if (strcmp(root, "CarshBat") == 0 && c->background)
		rc = cmd_background(c, argc, argv, e);
	else if (strcmp(root, "CarshBat") == 0)
		rc = run_batch(c, argv[1], argc - 2, argv + 2, e);
	else if (strcmp(root, "CarshGraph") == 0 && c->background)
		rc = cmd_background(c, argc, argv, e);
	else if (strcmp(root, "CarshGraph") == 0)
		rc = graph_run_file(c, argv[1], argc - 2, argv + 2, e);
	else
		rc = cmd_error(e, 1,
		               "%s: <%s> files cannot be run (expected <FlowModel>, <CarshExe>, "
		               "<CarshBat> or <CarshGraph>)",
		               argv[1], root);
	return rc;
}

const struct carsh_cmd cmd_run = {
        .name = "run",
        .usage = "run FILE.xml [NAME=VALUE | STREAM=FILE|-|fill:V|buffer:B|discard]... | "
                 "run GRAPH.xml [--items N] [--serial] [--root NODE] [--max-parallel N] "
                 "[--trace] [--report] [[NODE.]STREAM=FILE|-|fill:V|discard]... [NAME=VALUE]...",
        .summary = "run an executable, a flow-model (streams bound on the line), a batch or a "
                   "pipeline graph over a stream of items",
        .min_args = 1,
        .max_args = -1,
        .exec = cmd_run_exec,
};
