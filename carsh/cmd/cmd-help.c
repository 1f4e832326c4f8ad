/* help: list the builtins, or show one's usage. */
#include "cmd/cmd.h"

static int cmd_help_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	const struct carsh_cmd *cmd;

	if (argc == 2) {
		cmd = cmd_find(argv[1]);
		if (!cmd)
			return cmd_error(e, 1, "help: %s: no such command", argv[1]);
		fprintf(c->out, "usage: %s\n%s\n", cmd->usage, cmd->summary);
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
        .usage = "help [COMMAND]",
        .summary = "list the builtins, or show one's usage",
        .min_args = 0,
        .max_args = 1,
        .exec = cmd_help_exec,
};
