/* peast: schedule a pipeline graph with PEA-ST (004 §4.3, Algorithm 3): print its stages
 * and write them as a startup and a repeat batch. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/options.h"
#include "graph/batchgen.h"
#include "graph/peast.h"
#include "graph/validate.h"

static const char usage_text[] =
        "peast GRAPH.xml [--root NODE] [--max-parallel N] [-o DIR] [--print]";
static const char summary[] = "schedule a pipeline graph as a startup and a repeat batch (PEA-ST)";

struct peast_args {
	const char *root;
	const char *max_parallel;
	const char *dir;
	bool print;
};

static const struct opt peast_opts[] = {
        OPT_PEAST_CHOICE(struct peast_args, root, max_parallel),
        OPT_STRING("-o", struct peast_args, dir, "DIR",
                   "write the stages as DIR/startup.bat.xml and DIR/repeat.bat.xml"),
        OPT_FLAG("--print", struct peast_args, print, "print the stages also with -o"),
        OPT_END,
};

static int schedule(struct run_ctx *c, const struct peast_args *a, const struct graph *g,
                    struct cs_err *e)
{
	struct peast_opts o;
	struct peast_plan p;
	int rc = 0;

	if (graph_validate(g, e) || peast_opts_resolve(g, a->root, a->max_parallel, &o, e) ||
	    peast_select(g, &o, &p, e))
		return 1;
	if (a->dir && batchgen_write(g, &p, a->dir, e))
		rc = 1;
	else if (a->print || !a->dir)
		peast_print(c->out, g, &p);
	peast_plan_free(&p);
	return rc;
}

static int run_peast(struct run_ctx *c, const struct peast_args *a, const char *file,
                     struct cs_err *e)
{
	struct graph *g;
	int rc;

	if (graph_read(file, &g, e))
		return 1;
	rc = schedule(c, a, g, e);
	graph_free(g);
	if (rc == 0 && fflush(c->out) != 0)
		return cmd_errno(e, 1, "peast: write error");
	return rc;
}

static int peast_run(struct run_ctx *c, void *args, int n, char **files, struct cs_err *e)
{
	(void)n;
	return run_peast(c, args, files[0], e);
}

const struct carsh_cmd cmd_peast = {
        .name = "peast",
        .summary = summary,
        .args = {.usage = usage_text, .opts = peast_opts, .min = 1, .max = 1, .operand = "graph"},
        .args_size = sizeof(struct peast_args),
        .run = peast_run,
};
