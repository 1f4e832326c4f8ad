/* echo: print the words, separated by spaces. */
#include "cmd/cmd.h"

static int echo_run(struct run_ctx *c, void *args, int n, char **words, struct cs_err *e)
{
	(void)args;
	for (int i = 0; i < n; i++)
		fprintf(c->out, "%s%s", i > 0 ? " " : "", words[i]);
	fputc('\n', c->out);
	if (fflush(c->out) != 0)
		return cmd_errno(e, 1, "echo: write error");
	return 0;
}

const struct carsh_cmd cmd_echo = {
        .name = "echo",
        .summary = "print words",
        .args = {.usage = "echo [WORD]...", .min = 0, .max = OPT_ANY},
        .run = echo_run,
        .words_only = true,
};
