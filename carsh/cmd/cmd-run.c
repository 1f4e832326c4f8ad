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

static const struct opt_cmd run_spec = {
        "run",
        usage_text,
        "Run an executable, a flow-model (its streams bound on the line), a batch, or a\n"
        "pipeline graph over a stream of items. The options are a graph's.",
        run_opts,
        NULL,
        0,
};

static bool any_given(const struct graph_run_opts *go)
{
	return go->items || go->root || go->max_parallel || go->serial || go->trace || go->report;
}

static int cmd_run_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	struct graph_run_opts go = {0};
	char **words;
	int n = opt_parse(&run_spec, &go, argc - 1, argv + 1, &words, e);
	int rc;

	if (n < 0)
		return opt_failed(n, &run_spec, c->out);
	if (n == 0)
		rc = cmd_error(e, 2, "usage: %s", usage_text);
	else
		rc = run_file(c, words[0], n - 1, words + 1, any_given(&go) ? &go : NULL, e);
	free(words);
	return rc;
}

static void run_help(FILE *out)
{
	opt_help(out, &run_spec);
}

const struct carsh_cmd cmd_run = {
        .name = "run",
        .usage = usage_text,
        .summary = "run an executable, a flow-model (streams bound on the line), a batch or a "
                   "pipeline graph over a stream of items",
        .min_args = 1,
        .max_args = -1,
        .exec = cmd_run_exec,
        .help = run_help,
};
