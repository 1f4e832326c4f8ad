/* cd: change the working directory. */
#include <stdlib.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "model/filecache.h"

static int cmd_cd_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	const char *dir = argc > 1 ? argv[1] : getenv("HOME");

	(void)c;
	if (!dir)
		return cmd_error(e, 1, "cd: HOME is not set; give a directory");
	if (chdir(dir) != 0)
		return cmd_errno(e, 1, "cd: %s", dir);
	filecache_new_generation(); /* relative names now mean other files */
	return 0;
}

const struct carsh_cmd cmd_cd = {
        .name = "cd",
        .usage = "cd [DIR]",
        .summary = "change the working directory ($HOME without DIR)",
        .min_args = 0,
        .max_args = 1,
        .exec = cmd_cd_exec,
};
