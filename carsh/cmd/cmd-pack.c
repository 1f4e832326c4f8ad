/* pack: placeholder while it is being written (not to be committed). */
#include "cmd/cmd.h"

static int cmd_pack_exec(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e)
{
	(void)c;
	(void)argc;
	return cmd_error(e, 1, "%s: not built yet", argv[0]);
}

const struct carsh_cmd cmd_pack = {
	.name = "pack",
	.usage = "pack ...",
	.summary = "(being written)",
	.min_args = 0,
	.max_args = -1,
	.exec = cmd_pack_exec,
};
