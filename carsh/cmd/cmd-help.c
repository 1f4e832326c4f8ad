/* help: list the builtins, or show one's usage. */
#include "cmd/cmd.h"

static int help_run(struct run_ctx *c, void *args, int n, char **words, struct cs_err *e)
{
	const struct carsh_cmd *cmd;

	(void)args;
	if (n == 1) {
		cmd = cmd_find(words[0]);
		if (!cmd)
			return cmd_error(e, 1, "help: %s: no such command", words[0]);
		fprintf(c->out, "usage: %s\n%s\n", cmd->args.usage, cmd->summary);
		return 0;
	}
	fprintf(c->out,
	        "CarSh builtins ('help COMMAND' for its usage; 'FILE.xml' is 'run FILE.xml'):\n");
	for (size_t i = 0; cmd_table[i]; i++)
		fprintf(c->out, "  %-10s %s\n", cmd_table[i]->name, cmd_table[i]->summary);
	fprintf(c->out, "A line may hold several commands separated by ';'; a trailing '&' runs a "
	                "command in the background.\n");
	return 0;
}

const struct carsh_cmd cmd_help = {
        .name = "help",
        .summary = "list the builtins, or show one's usage",
        .args = {.usage = "help [COMMAND]", .min = 0, .max = 1},
        .run = help_run,
};
