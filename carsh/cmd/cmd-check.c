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

static int check_run(struct run_ctx *c, void *args, int n, char **files, struct cs_err *e)
{
	(void)args;
	(void)n;
	return check_graph(c, files[0], e);
}

const struct carsh_cmd cmd_check = {
        .name = "check",
        .summary = summary,
        .args = {.usage = usage_text, .opts = check_opts, .min = 1, .max = 1},
        .run = check_run,
};
