/* pipeline: placeholder while it is being written (not to be committed). */
#include "cmd/cmd.h"

static int cmd_pipeline_exec(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e)
{
	(void)c;
	(void)argc;
	return cmd_error(e, 1, "%s: not built yet", argv[0]);
}

const struct carsh_cmd cmd_pipeline = {
	.name = "pipeline",
	.usage = "pipeline ...",
	.summary = "(being written)",
	.min_args = 0,
	.max_args = -1,
	.exec = cmd_pipeline_exec,
};
