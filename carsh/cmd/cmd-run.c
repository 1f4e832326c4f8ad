/* run: run an executable, a flow-model with its streams bound on the line, or a batch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "exec/executor.h"
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
static int read_words(struct exe *exe, bool bind_streams, int n, char **words, struct params *args,
                      struct cs_err *e)
{
	for (int i = 0; i < n; i++) {
		const char *value;
		char *name = word_name(words[i], &value);
		const struct fm_arg *a;
		int rc = 0;

		if (!name)
			return err_set(e, "'%s': expected NAME=VALUE or STREAM=FILE", words[i]);
		a = flowmodel_arg(exe->fm, name, NULL);
		if (bind_streams && a && arg_is_stream(a->kind))
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

static int load_exe(const char *path, const char *root, int n, char **words, struct params *args,
                    struct exe **out, struct cs_err *e)
{
	struct flowmodel *fm;
	bool is_fm = strcmp(root, "FlowModel") == 0;

	if (is_fm) {
		if (flowmodel_read(path, &fm, e))
			return -1;
		*out = exe_wrap_flowmodel(fm);
	} else if (exe_read(path, out, e)) {
		return -1;
	}
	if (read_words(*out, is_fm, n, words, args, e) ||
	    (is_fm && exe_check_bindings(*out, true, e))) {
		exe_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

static struct child_io io_of(const struct cmd_ctx *c)
{
	return (struct child_io){fileno(c->in), fileno(c->out)};
}

static int run_plan(struct cmd_ctx *c, struct job_plan *jp, const char *label, struct cs_err *e)
{
	struct child_io io = io_of(c);
	struct run_stats st;
	bool has_stats;
	pid_t pid;
	int id, rc;

	if (c->background) {
		if (exec_plan_background(c->s->jobs, jp, label, &io, &id, &pid, e))
			return 1;
		fprintf(stderr, "[%d] %d\n", id, (int)pid);
		return 0;
	}
	rc = exec_plan_foreground(jp, &io, &c->s->interrupted, &st, &has_stats, e);
	if (has_stats)
		stats_add(c->stats, &st);
	return rc;
}

static int run_executable(struct cmd_ctx *c, const char *path, const char *root, int n,
                          char **words, struct cs_err *e)
{
	struct params args = PARAMS_INIT;
	struct scope scope;
	struct exe *exe = NULL;
	struct job_plan *jp = NULL;
	struct plan_env env;
	int rc = 1;

	if (load_exe(path, root, n, words, &args, &exe, e))
		goto out;
	scope_init(&scope);
	scope_push(&scope, &args);
	scope_append(&scope, c->caller);
	env = (struct plan_env){&scope, c->s->device_cli, NULL, NULL};
	if (plan_exe(exe, &env, &jp, e))
		goto out;
	rc = run_plan(c, jp, path, e);
out:
	job_plan_free(jp);
	exe_free(exe);
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
		rc = run_executable(c, argv[1], root, argc - 2, argv + 2, e);
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
