#include "graph/validate.h"

#include <stdbool.h>
#include <stdlib.h>

#include "util/alloc.h"
#include "util/strbuf.h"

/* Union-find over nodes: connected ignoring edge direction. */
static size_t find(size_t *up, size_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

/* The nodes not in node 0's component, as "'C', 'D'"; NULL when there are none. */
static char *unconnected(const struct graph *g, size_t *count)
{
	size_t *up = xcalloc(g->nnodes, sizeof(*up));
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < g->nnodes; i++)
		up[i] = i;
	for (size_t i = 0; i < g->nedges; i++)
		up[find(up, g->edges[i].from)] = find(up, g->edges[i].to);
	for (size_t i = 1; i < g->nnodes; i++)
		if (find(up, i) != find(up, 0) && ++*count)
			sb_addf(&sb, "%s'%s'", sb.len ? ", " : "", g->nodes[i].name);
	free(up);
	return sb.len ? sb_detach(&sb) : NULL;
}

int graph_validate(const struct graph *g, struct cs_err *e)
{
	const char *head = "not a pipeline-model";
	size_t count = 0;
	char *rest;

	if (!g->nnodes)
		return err_set(e, "%s: %s: it has no flow-model; add <Node name=\"...\"/>", g->file,
		               head);
	if (!g->nexits)
		return err_set(e,
		               "%s: %s: it has no EXIT port, so nothing it computes is output; "
		               "add <Exit node=\"...\" output=\"...\"/>",
		               g->file, head);
	rest = unconnected(g, &count);
	if (rest) {
		err_set(e,
		        "%s: %s: %s %s not connected to '%s' by any stream; split independent "
		        "pipelines into separate graphs",
		        g->file, head, rest, count > 1 ? "are" : "is", g->nodes[0].name);
		free(rest);
		return -1;
	}
	return 0;
}
