/* partition: placeholder while it is being written (not to be committed). */
#include "cmd/cmd.h"

static int cmd_partition_exec(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e)
{
	(void)c;
	(void)argc;
	return cmd_error(e, 1, "%s: not built yet", argv[0]);
}

const struct carsh_cmd cmd_partition = {
	.name = "partition",
	.usage = "partition ...",
	.summary = "(being written)",
	.min_args = 0,
	.max_args = -1,
	.exec = cmd_partition_exec,
};
