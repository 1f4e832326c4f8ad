/* graph: Graphviz DOT for a pipeline graph (edges to initialise dashed, PEA-ST stages as
 * ranks) or for a batch (steps and the virtual buffers they read and write). */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/options.h"
#include "graph/deadlock.h"
#include "graph/dot.h"
#include "graph/peast.h"

static const char usage_text[] = "graph FILE.xml [--root NODE] [--max-parallel N]";
static const char summary[] = "print Graphviz DOT for a pipeline graph or a batch";

struct graph_args {
	const char *file;
	const char *root;
	const char *max_parallel;
};

static const struct opt graph_opts[] = {
        OPT_PEAST_CHOICE(struct graph_args, root, max_parallel),
        OPT_END,
};

/* Without options a graph no node spans is drawn without stages; with them, failing to
 * meet them is an error. */
static int draw_graph(struct run_ctx *c, const struct graph_args *a, struct cs_err *e)
{
	struct graph *g;
	struct deadlock d;
	struct peast_opts o;
	struct peast_plan p;
	bool planned;
	int rc = 1;

	if (graph_read(a->file, &g, e))
		return 1;
	if (peast_opts_resolve(g, a->root, a->max_parallel, &o, e) || deadlock_find(g, &d, e))
		goto out;
	planned = peast_select(g, &o, &p, e) == 0;
	if (planned || (!a->root && !a->max_parallel)) {
		err_clear(e);
		dot_graph(c->out, g, &d, planned ? &p : NULL);
		rc = 0;
	}
	if (planned)
		peast_plan_free(&p);
	deadlock_free(&d);
out:
	graph_free(g);
	return rc;
}

/* Drawn into memory first: an executable that cannot be read leaves no half picture. */
static int draw_batch(struct run_ctx *c, const char *file, struct cs_err *e)
{
	struct batch *b;
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	int rc;

	if (batch_read(file, &b, e))
		return 1;
	m = open_memstream(&text, &len);
	if (!m) {
		batch_free(b);
		return cmd_errno(e, 1, "graph: %s", file);
	}
	rc = dot_batch(m, b, e) ? 1 : 0;
	fclose(m);
	if (rc == 0)
		fputs(text, c->out);
	free(text);
	batch_free(b);
	return rc;
}

static int draw(struct run_ctx *c, const struct graph_args *a, struct cs_err *e)
{
	char *root = xml_root_name(a->file, e);
	int rc;

	if (!root)
		return 1;
	if (strcmp(root, "CarshGraph") == 0)
		rc = draw_graph(c, a, e);
	else if (strcmp(root, "CarshBat") == 0 && !a->root && !a->max_parallel)
		rc = draw_batch(c, a->file, e);
	else
		rc = cmd_error(e, 1, "graph: %s: a <%s> file; graph draws a <CarshGraph>%s",
		               a->file, root, a->root || a->max_parallel ? "" : " or a <CarshBat>");
	free(root);
	if (rc == 0 && fflush(c->out) != 0)
		return cmd_errno(e, 1, "graph: write error");
	return rc;
}

static int graph_run(struct run_ctx *c, void *args, int n, char **files, struct cs_err *e)
{
	struct graph_args *a = args;

	(void)n;
	a->file = files[0];
	return draw(c, a, e);
}

const struct carsh_cmd cmd_graph = {
        .name = "graph",
        .summary = summary,
        .args = {.usage = usage_text, .opts = graph_opts, .min = 1, .max = 1, .operand = "file"},
        .args_size = sizeof(struct graph_args),
        .run = graph_run,
};
