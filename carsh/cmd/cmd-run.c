/* run: run an executable, a flow-model with its streams bound on the line, a batch or a
 * pipeline graph. */
#include "cmd/cmd.h"
#include "runner/run.h"

static int cmd_run_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	return run_file(c, argv[1], argc - 2, argv + 2, e);
}

const struct carsh_cmd cmd_run = {
        .name = "run",
        .usage = "run FILE.xml [NAME=VALUE | STREAM=FILE|-|fill:V|buffer:B|discard]... | "
                 "run GRAPH.xml [--items N] [--serial] [--root NODE] [--max-parallel N] "
                 "[--trace] [--report] [[NODE.]STREAM=FILE|-|fill:V|discard]... [NAME=VALUE]...",
        .summary = "run an executable, a flow-model (streams bound on the line), a batch or a "
                   "pipeline graph over a stream of items",
        .min_args = 1,
        .max_args = -1,
        .exec = cmd_run_exec,
};
