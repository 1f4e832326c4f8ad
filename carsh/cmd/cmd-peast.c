/* peast: schedule a pipeline graph with PEA-ST (004 §4.3, Algorithm 3): print its stages
 * and write them as a startup and a repeat batch. */
#include <string.h>

#include "cmd/cmd.h"
#include "graph/batchgen.h"
#include "graph/peast.h"
#include "graph/validate.h"

static const char usage_text[] =
        "peast GRAPH.xml [--root NODE] [--max-parallel N] [-o DIR] [--print]";

struct peast_args {
	const char *file;
	const char *root;
	const char *max_parallel;
	const char *dir;
	bool print;
};

static int usage(struct cs_err *e, const char *what, const char *word)
{
	return cmd_error(e, 2, "peast: %s '%s'; usage: %s", what, word, usage_text);
}

/* An option's value: the next word. */
static int value(int argc, char **argv, int *i, const char **out, struct cs_err *e)
{
	if (*i + 1 >= argc)
		return usage(e, "missing value after", argv[*i]);
	*out = argv[++*i];
	return 0;
}

static int parse(int argc, char **argv, struct peast_args *a, struct cs_err *e)
{
	for (int i = 1; i < argc; i++) {
		int rc = 0;

		if (strcmp(argv[i], "--root") == 0)
			rc = value(argc, argv, &i, &a->root, e);
		else if (strcmp(argv[i], "--max-parallel") == 0)
			rc = value(argc, argv, &i, &a->max_parallel, e);
		else if (strcmp(argv[i], "-o") == 0)
			rc = value(argc, argv, &i, &a->dir, e);
		else if (strcmp(argv[i], "--print") == 0)
			a->print = true;
		else if (argv[i][0] == '-')
			rc = usage(e, "unknown option", argv[i]);
		else if (a->file)
			rc = usage(e, "one graph at a time, not also", argv[i]);
		else
			a->file = argv[i];
		if (rc)
			return rc;
	}
	return a->file ? 0 : usage(e, "no graph file in", argv[0]);
}

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

static int cmd_peast_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	struct peast_args a = {NULL, NULL, NULL, NULL, false};
	struct graph *g;
	int rc = parse(argc, argv, &a, e);

	if (rc)
		return rc;
	if (graph_read(a.file, &g, e))
		return 1;
	rc = schedule(c, &a, g, e);
	graph_free(g);
	if (rc == 0 && fflush(c->out) != 0)
		return cmd_errno(e, 1, "peast: write error");
	return rc;
}

const struct carsh_cmd cmd_peast = {
        .name = "peast",
        .usage = usage_text,
        .summary = "schedule a pipeline graph as a startup and a repeat batch (PEA-ST)",
        .min_args = 1,
        .max_args = 8,
        .exec = cmd_peast_exec,
};
