#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/alloc.h"

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

int cmd_exec_argv(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e)
{
	const struct carsh_cmd *cmd = cmd_find(argv[0]);
	char **args = argv;
	char **with_run = NULL;
	int rc;

	/* "FILE.xml NAME=VALUE..." is short for "run FILE.xml NAME=VALUE...". */
	if (!cmd && ends_with(argv[0], ".xml")) {
		with_run = xcalloc((size_t)argc + 2, sizeof(char *));
		with_run[0] = (char *)"run";
		memcpy(with_run + 1, argv, (size_t)argc * sizeof(char *));
		args = with_run;
		argc++;
		cmd = cmd_find("run");
	}
	if (!cmd) {
		err_set(e, "%s: command not found (try 'help')", argv[0]);
		return 127;
	}
	if (argc - 1 < cmd->min_args || (cmd->max_args >= 0 && argc - 1 > cmd->max_args)) {
		free(with_run);
		err_set(e, "usage: %s", cmd->usage);
		return 2;
	}
	rc = cmd->exec(c, argc, args, e);
	free(with_run);
	return rc;
}

static int open_redirections(const struct command *cmd, struct cmd_ctx *c, struct cs_err *e)
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

static int close_redirections(const struct command *cmd, struct cmd_ctx *c, struct cs_err *e)
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

int command_run(struct session *s, const struct command *cmd, const struct scope *caller)
{
	struct scope shell_only;
	struct stats_acc acc = {0, {0}};
	struct cmd_ctx c = {
	        .s = s,
	        .origin = cmd->origin,
	        .caller = caller,
	        .in = stdin,
	        .out = stdout,
	        .stats = &acc,
	        .background = cmd->background,
	};
	struct cs_err *e = xmalloc(sizeof(*e));
	int rc;

	err_clear(e);
	if (!caller) {
		scope_init(&shell_only);
		scope_push(&shell_only, &s->vars);
		c.caller = &shell_only;
	}
	if (open_redirections(cmd, &c, e)) {
		rc = 1;
		close_redirections(cmd, &c, e);
	} else {
		rc = cmd_exec_argv(&c, (int)cmd->argv.n, cmd->argv.v, e);
		if (close_redirections(cmd, &c, e) && rc == 0)
			rc = 1;
	}
	if (rc != 0)
		print_error(cmd, e);
	if (acc.jobs && session_stats_on(s) && !c.timed)
		stats_print(stderr, &acc, -1);
	s->last_status = rc;
	free(e);
	return rc;
}
