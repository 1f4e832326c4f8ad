/* cd: change the working directory. */
#include <stdlib.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "model/filecache.h"

static int cd_run(struct run_ctx *c, void *args, int n, char **words, struct cs_err *e)
{
	const char *dir = n > 0 ? words[0] : getenv("HOME");

	(void)c;
	(void)args;
	if (!dir)
		return cmd_error(e, 1, "cd: HOME is not set; give a directory");
	if (chdir(dir) != 0)
		return cmd_errno(e, 1, "cd: %s", dir);
	filecache_new_generation(); /* relative names now mean other files */
	return 0;
}

const struct carsh_cmd cmd_cd = {
        .name = "cd",
        .summary = "change the working directory ($HOME without DIR)",
        .args = {.usage = "cd [DIR]", .min = 0, .max = 1},
        .run = cd_run,
};
