/* run: run an executable, a flow-model with its streams bound on the line, or a batch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "model/exe.h"
#include "model/planner.h"
#include "util/alloc.h"

/* Split NAME=VALUE; NULL when the word has no '=' or an empty name. */
static char *word_name(const char *w, const char **value)
{
	const char *eq = strchr(w, '=');

	if (!eq || eq == w)
		return NULL;
	*value = eq + 1;
	return xstrndup(w, (size_t)(eq - w));
}

/* Words after the file: stream bindings (flow-models only) and parameters. */
static int read_words(struct exe *exe, int n, char **words, struct params *args, struct cs_err *e)
{
	for (int i = 0; i < n; i++) {
		const char *value;
		char *name = word_name(words[i], &value);
		const struct fm_arg *a;
		int rc = 0;

		if (!name)
			return err_set(e, "'%s': expected NAME=VALUE or STREAM=FILE", words[i]);
		a = exe ? flowmodel_arg(exe->fm, name, NULL) : NULL;
		if (a && arg_is_stream(a->kind))
			rc = exe_bind_word(exe, name, value, e);
		else if (!param_name_valid(name))
			rc = err_set(e, "'%s' is not a valid parameter name", name);
		else
			params_set(args, name, value, "command line");
		free(name);
		if (rc)
			return -1;
	}
	return 0;
}

/* <Buffer> bindings: the stream's type and count must be the buffer's. */
static int resolve_buffer(void *ctx, const char *name, struct cs_type type, size_t count,
                          char **shm, struct cs_err *e)
{
	struct session *s = ctx;
	struct vbuf v;
	char want[16], have[16];

	if (vbuf_lookup(s->vbufs, name, &v, e))
		return -1;
	if (v.type.scalar != type.scalar || v.type.width != type.width || v.count != count) {
		err_set(e, "virtual buffer '%s' holds %zu %s, the stream needs %zu %s", name,
		        v.count, type_name(v.type, have, sizeof(have)), count,
		        type_name(type, want, sizeof(want)));
		vbuf_entry_free(&v);
		return -1;
	}
	*shm = v.shm;
	v.shm = NULL;
	vbuf_entry_free(&v);
	return 0;
}

static int run_plan(struct cmd_ctx *c, struct job_plan *jp, const char *label, struct cs_err *e)
{
	struct exec_env env = cmd_exec_env(c);
	struct child_io io = cmd_child_io(c);
	struct run_stats st;
	bool has_stats;
	pid_t pid;
	int id, rc;

	if (c->background) {
		if (exec_plan_background(&env, c->jobs, jp, label, &io, &id, &pid, e)) {
			job_plan_free(jp);
			return 1;
		}
		if (!c->quiet)
			fprintf(stderr, "[%d] %d\n", id, (int)pid);
		return 0;
	}
	rc = exec_plan_foreground(&env, jp, &io, &st, &has_stats, e);
	if (has_stats)
		stats_add(c->stats, &st);
	job_plan_free(jp);
	return rc;
}

int cmd_run_exe(struct cmd_ctx *c, const struct exe *exe, const struct params *args,
                const char *label, struct cs_err *e)
{
	struct scope scope;
	struct job_plan *jp;
	struct plan_env env;

	scope_init(&scope);
	if (args)
		scope_push(&scope, args);
	scope_append(&scope, c->caller);
	env = (struct plan_env){&scope, c->s->device_cli, resolve_buffer, c->s};
	if (plan_exe(exe, &env, &jp, e))
		return 1;
	/* A background job's plan now belongs to the job. */
	return run_plan(c, jp, label, e);
}

static int run_executable(struct cmd_ctx *c, const char *path, bool is_fm, int n, char **words,
                          struct cs_err *e)
{
	struct params args = PARAMS_INIT;
	struct flowmodel *fm;
	struct exe *exe = NULL;
	int rc = 1;

	if (is_fm && flowmodel_read(path, &fm, e) == 0)
		exe = exe_wrap_flowmodel(fm);
	else if (!is_fm)
		exe_read(path, &exe, e);
	if (exe && read_words(is_fm ? exe : NULL, n, words, &args, e) == 0 &&
	    (!is_fm || exe_check_bindings(exe, true, e) == 0))
		rc = cmd_run_exe(c, exe, &args, path, e);
	exe_free(exe);
	params_free(&args);
	return rc;
}

static int run_batch(struct cmd_ctx *c, const char *path, int n, char **words, struct cs_err *e)
{
	struct params args = PARAMS_INIT;
	int rc = 1;

	if (read_words(NULL, n, words, &args, e) == 0)
		rc = batch_run_file(c, path, &args, e);
	params_free(&args);
	return rc;
}

static int cmd_run_exec(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e)
{
	char *root = xml_root_name(argv[1], e);
	int rc;

	if (!root)
		return 1;
	if (strcmp(root, "FlowModel") == 0 || strcmp(root, "CarshExe") == 0)
		rc = run_executable(c, argv[1], root[0] == 'F', argc - 2, argv + 2, e);
	else if (strcmp(root, "CarshBat") == 0 && c->background)
		rc = cmd_background(c, argc, argv, e);
	else if (strcmp(root, "CarshBat") == 0)
		rc = run_batch(c, argv[1], argc - 2, argv + 2, e);
	else
		rc = cmd_error(e, 1,
		               "%s: <%s> files cannot be run (expected <FlowModel>, <CarshExe>, "
		               "<CarshBat> or <CarshGraph>)",
		               argv[1], root);
	free(root);
	return rc;
}

const struct carsh_cmd cmd_run = {
        .name = "run",
        .usage = "run FILE.xml [NAME=VALUE | STREAM=FILE|-|fill:V|buffer:B|discard]...",
        .summary = "run an executable, a flow-model (streams bound on the line) or a batch",
        .min_args = 1,
        .max_args = -1,
        .exec = cmd_run_exec,
};
