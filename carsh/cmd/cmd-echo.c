/* echo: print the words, separated by spaces. */
#include "cmd/cmd.h"

static int cmd_echo_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	for (int i = 1; i < argc; i++)
		fprintf(c->out, "%s%s", i > 1 ? " " : "", argv[i]);
	fputc('\n', c->out);
	if (fflush(c->out) != 0)
		return cmd_errno(e, 1, "echo: write error");
	return 0;
}

const struct carsh_cmd cmd_echo = {
        .name = "echo",
        .usage = "echo [WORD]...",
        .summary = "print words",
        .min_args = 0,
        .max_args = -1,
        .exec = cmd_echo_exec,
        .words_only = true,
};
