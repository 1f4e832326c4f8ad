#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "exec/workers.h"
#include "model/filecache.h"
#include "util/alloc.h"
#include "util/strbuf.h"
#include "util/strvec.h"

const struct carsh_cmd *cmd_find(const char *name)
{
	for (size_t i = 0; cmd_table[i]; i++)
		if (strcmp(cmd_table[i]->name, name) == 0)
			return cmd_table[i];
	return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The entry's template with the entry's name, and its summary where it has no about. */
static struct opt_cmd template_of(const struct carsh_cmd *cmd)
{
	struct opt_cmd oc = cmd->args;

	oc.name = cmd->name;
	if (!oc.about)
		oc.about = cmd->summary;
	return oc;
}

/* The words parsed by the entry's template, then run here, or in a background job. */
static int run_parsed(const struct carsh_cmd *cmd, struct run_ctx *c, int argc, char **argv,
                      struct cs_err *e)
{
	struct opt_cmd oc = template_of(cmd);
	void *args = xcalloc(1, cmd->args_size ? cmd->args_size : 1);
	char **operands;
	int n, rc;

	if (cmd->prepare)
		cmd->prepare(c, args);
	n = opt_parse(&oc, args, argc - 1, argv + 1, &operands, e);
	if (n < 0)
		rc = opt_failed(n, &oc, c->out);
	/* `run` decides for itself: a flow-model in the background is a process job. */
	else if (c->background && cmd != cmd_find("run"))
		rc = cmd_background(c, argc, argv, e);
	else {
		int was_argc = c->argc;
		char **was_argv = c->argv;

		c->argc = argc;
		c->argv = argv;
		rc = cmd->run(c, args, n, operands, e);
		c->argc = was_argc;
		c->argv = was_argv;
	}
	free(operands);
	free(args);
	return rc;
}

int cmd_exec_argv(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	const struct carsh_cmd *cmd = cmd_find(argv[0]);
	char **with_run = NULL;
	int rc;

	/* "FILE.xml NAME=VALUE..." is short for "run FILE.xml NAME=VALUE...". */
	if (!cmd && ends_with(argv[0], ".xml")) {
		with_run = xcalloc((size_t)argc + 2, sizeof(char *));
		with_run[0] = (char *)"run";
		memcpy(with_run + 1, argv, (size_t)argc * sizeof(char *));
		argv = with_run;
		argc++;
		cmd = cmd_find("run");
	}
	if (!cmd)
		return cmd_error(e, 127, "%s: command not found (try 'help')", argv[0]);
	if (argc >= 2 && !cmd->words_only && strcmp(argv[1], "--help") == 0) {
		struct opt_cmd oc = template_of(cmd);

		opt_help(c->out, &oc);
		rc = 0;
	} else {
		rc = run_parsed(cmd, c, argc, argv, e);
	}
	free(with_run);
	return rc;
}

static int open_redirections(const struct command *cmd, struct run_ctx *c, struct cs_err *e)
{
	if (cmd->redir_in) {
		c->in = fopen(cmd->redir_in, "r");
		if (!c->in)
			return err_errno(e, "%s", cmd->redir_in);
	}
	if (cmd->redir_out) {
		c->out = fopen(cmd->redir_out, cmd->append ? "a" : "w");
		if (!c->out)
			return err_errno(e, "%s", cmd->redir_out);
	}
	return 0;
}

static int close_redirections(const struct command *cmd, struct run_ctx *c, struct cs_err *e)
{
	int rc = 0;

	if (cmd->redir_in && c->in)
		fclose(c->in);
	if (cmd->redir_out && c->out && fclose(c->out) != 0)
		rc = err_errno(e, "%s", cmd->redir_out);
	return rc;
}

static void print_error(const struct command *cmd, const struct cs_err *e)
{
	if (!e->msg[0])
		return;
	if (cmd->origin)
		fprintf(stderr, "carsh: %s: %s\n", cmd->origin, e->msg);
	else
		fprintf(stderr, "carsh: %s\n", e->msg);
}

/* The shell's own context: its variables, its jobs, the terminal's Ctrl-C. */
static void top_context(struct session *s, struct run_ctx *c, struct scope *shell)
{
	scope_init(shell);
	scope_push(shell, &s->vars);
	*c = (struct run_ctx){
	        .s = s,
	        .caller = shell,
	        .vars = &s->vars,
	        .in = stdin,
	        .out = stdout,
	        .jobs = s->jobs,
	        .interrupted = &s->interrupted,
	};
}

int command_run(struct session *s, const struct command *cmd, const struct run_ctx *parent)
{
	struct scope shell;
	struct stats_acc acc = {0};
	struct run_ctx c;
	struct cs_err *e = xmalloc(sizeof(*e));
	int rc;

	if (parent) {
		c = *parent;
	} else {
		top_context(s, &c, &shell);
		filecache_new_generation(); /* files edited since the last command are read again */
		if (s->workers)
			workers_new_command(s->workers); /* and the vendors' ICD files */
	}
	c.origin = cmd->origin;
	c.background = cmd->background;
	c.timed = false;
	if (!parent)
		c.stats = &acc;
	err_clear(e);
	if (open_redirections(cmd, &c, e)) {
		rc = 1;
		close_redirections(cmd, &c, e);
	} else {
		rc = cmd_exec_argv(&c, (int)cmd->argv.n, cmd->argv.v, e);
		if (close_redirections(cmd, &c, e) && rc == 0)
			rc = 1;
	}
	/* A top-level command ends when its queued device work does. */
	if (!parent && run_flush(&c, e) && rc == 0)
		rc = 1;
	if (rc != 0)
		print_error(cmd, e);
	if (acc.jobs && session_stats_on(c.vars) && !c.timed)
		stats_print(stderr, &acc, -1, true);
	s->last_status = rc;
	free(e);
	return rc;
}

/* ---- background commands: argv run in a job's thread (runner/context.h) ---- */

static void argv_free(void *p)
{
	struct strvec *argv = p;

	sv_free(argv);
	free(argv);
}

static int argv_body(struct run_ctx *c, void *arg, struct cs_err *e)
{
	struct strvec *argv = arg;

	return cmd_exec_argv(c, (int)argv->n, argv->v, e);
}

int cmd_background(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	struct strvec *copy = xcalloc(1, sizeof(*copy));
	struct strbuf label = STRBUF_INIT;
	int rc;

	for (int i = 0; i < argc; i++) {
		sv_push(copy, argv[i]);
		sb_addf(&label, "%s%s", i ? " " : "", argv[i]);
	}
	rc = run_background(c, sb_str(&label), argv_body, copy, argv_free, e);
	sb_free(&label);
	return rc;
}
