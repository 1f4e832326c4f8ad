/* check: is a pipeline graph a valid pipeline-model, and which edges must be initialised so
 * that it cannot deadlock (004 §4.2.1 and Algorithm 1)? Exits 1 while a cycle has no
 * INITONCE edge. */
#include <stdlib.h>

#include "cmd/cmd.h"
#include "util/options.h"
#include "graph/deadlock.h"
#include "graph/validate.h"

static int deadlock_error(const struct graph *g, const struct deadlock *d, struct cs_err *e)
{
	char *cycle = cycle_text(g, &d->first_open);

	cmd_error(e, 1,
	          "check: %s: deadlock: %zu of %zu cyclic paths have no INITONCE edge (the "
	          "shortest: %s); mark the edges listed kind=\"INITONCE\"",
	          g->file, d->nopen, d->ncycles, cycle);
	free(cycle);
	return 1;
}

static const char usage_text[] = "check GRAPH.xml";
static const char summary[] = "list the edges of a pipeline graph to initialise against deadlock";

/* No options: the parser still gives "--bogus" the same answer as every builtin. */
static const struct opt check_opts[] = {OPT_END};
static const struct opt_cmd check_spec = {"check", usage_text, summary, check_opts, NULL, 0};

static int check_graph(struct run_ctx *c, const char *file, struct cs_err *e)
{
	struct graph *g;
	struct deadlock d;
	int rc;

	if (graph_read(file, &g, e))
		return 1;
	if (graph_validate(g, e) || deadlock_find(g, &d, e)) {
		graph_free(g);
		return 1;
	}
	deadlock_print(c->out, g, &d);
	rc = d.nopen ? deadlock_error(g, &d, e) : 0;
	deadlock_free(&d);
	graph_free(g);
	if (fflush(c->out) != 0)
		return cmd_errno(e, 1, "check: write error");
	return rc;
}

static int cmd_check_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	char **files;
	int n = opt_parse(&check_spec, NULL, argc - 1, argv + 1, &files, e);
	int rc;

	if (n < 0)
		return opt_failed(n, &check_spec, c->out);
	rc = n == 1 ? check_graph(c, files[0], e) : cmd_error(e, 2, "usage: %s", usage_text);
	free(files);
	return rc;
}

const struct carsh_cmd cmd_check = {
        .name = "check",
        .usage = usage_text,
        .summary = summary,
        .min_args = 1,
        .max_args = 1,
        .exec = cmd_check_exec,
};
