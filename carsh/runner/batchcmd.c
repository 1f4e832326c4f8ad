/* A batch's <Command> that is one run of an executable (runner/batchcmd.h). */
#include "runner/batchcmd.h"

#include <string.h>

#include "model/cmdline.h"
#include "model/filecache.h"

static const char *lookup(void *ctx, const char *name)
{
	const struct param *p = scope_get(ctx, name);

	return p ? p->value : NULL;
}

/* run's own options (a graph's) and $? (the session's status, which a step does not see)
 * leave the line to the shell. */
static bool plain_words(const struct command *cmd)
{
	for (size_t i = 1; i < cmd->argv.n; i++)
		if (strncmp(cmd->argv.v[i], "--", 2) == 0)
			return false;
	return true;
}

bool batchcmd_single_run(const char *text, const struct scope *caller, struct command *cmd)
{
	struct command next = COMMAND_INIT;
	struct shell_lexer lx;
	struct cs_err e;
	bool single;

	if (strchr(text, '?'))
		return false;
	shell_lexer_init(&lx, text, NULL, 1);
	if (shell_next(&lx, lookup, (void *)caller, cmd, &e) != SHELL_COMMAND)
		return false;
	single = shell_next(&lx, lookup, (void *)caller, &next, &e) == SHELL_END;
	command_free(&next);
	if (single && cmd->argv.n >= 2 && strcmp(cmd->argv.v[0], "run") == 0 && !cmd->redir_in &&
	    !cmd->redir_out && !cmd->background && plain_words(cmd) &&
	    filecache_is_executable(cmd->argv.v[1]))
		return true;
	command_free(cmd);
	*cmd = (struct command)COMMAND_INIT;
	return false;
}
