/* run: run an executable, a flow-model with its streams bound on the line, a batch or a
 * pipeline graph. */
#include <stdlib.h>

#include "cmd/cmd.h"
#include "util/options.h"
#include "runner/run.h"

static const char usage_text[] =
        "run FILE.xml [NAME=VALUE | STREAM=FILE|-|fill:V|buffer:B|discard]... | "
        "run GRAPH.xml [--items N] [--serial] [--root NODE] [--max-parallel N] "
        "[--trace] [--report] [[NODE.]STREAM=FILE|-|fill:V|discard]... [NAME=VALUE]...";

static int items_value(void *args, const char *v, struct cs_err *e)
{
	unsigned long long n;

	if (opt_uint(v, 1ull << 40, &n, e))
		return err_set(e, "expected a positive integer");
	((struct graph_run_opts *)args)->items = (size_t)n;
	return 0;
}

static const struct opt run_opts[] = {
        OPT_CALL("--items", items_value, "N",
                 "a graph's items (default: as many as its entrance file patterns\n"
                 "name, else 1)"),
        OPT_FLAG("--serial", struct graph_run_opts, serial,
                 "the runs one at a time, item after item"),
        OPT_PEAST_CHOICE(struct graph_run_opts, root, max_parallel),
        OPT_FLAG("--trace", struct graph_run_opts, trace, "the plan and every step on stderr"),
        OPT_FLAG("--report", struct graph_run_opts, report, "one line of timings at the end"),
        OPT_END,
};

static bool any_given(const struct graph_run_opts *go)
{
	return go->items || go->root || go->max_parallel || go->serial || go->trace || go->report;
}

static int run_run(struct run_ctx *c, void *args, int n, char **words, struct cs_err *e)
{
	return run_file(c, words[0], n - 1, words + 1, any_given(args) ? args : NULL, e);
}

const struct carsh_cmd cmd_run = {
        .name = "run",
        .summary = "run an executable, a flow-model (streams bound on the line), a batch or a "
                   "pipeline graph over a stream of items",
        .args = {.usage = usage_text,
                 .about = "Run an executable, a flow-model (its streams bound on the line), a "
                          "batch, or a\npipeline graph over a stream of items. The options "
                          "are a graph's.",
                 .opts = run_opts,
                 .min = 1,
                 .max = OPT_ANY},
        .args_size = sizeof(struct graph_run_opts),
        .run = run_run,
};
