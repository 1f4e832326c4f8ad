/* The in-memory pipeline graph: building, looking up and freeing (the reader is graph.c). */
#include <stdlib.h>
#include <string.h>

#include "model/graph.h"
#include "util/alloc.h"
#include "util/strbuf.h"

struct graph *graph_new(const char *name)
{
	struct graph *g = xcalloc(1, sizeof(*g));

	g->name = xstrdup(name);
	g->file = xstrdup("");
	g->dir = xstrdup(".");
	return g;
}

size_t graph_add_node(struct graph *g, const char *name, const char *exe)
{
	struct graph_node *n;

	g->nodes = xrealloc(g->nodes, (g->nnodes + 1) * sizeof(*g->nodes));
	n = memset(&g->nodes[g->nnodes], 0, sizeof(*n));
	n->name = xstrdup(name);
	n->exe = exe ? xstrdup(exe) : NULL;
	n->rank = GRAPH_RANK_AUTO;
	return g->nnodes++;
}

size_t graph_add_edge(struct graph *g, size_t from, size_t to, enum edge_kind kind)
{
	struct graph_edge *ed;

	g->edges = xrealloc(g->edges, (g->nedges + 1) * sizeof(*g->edges));
	ed = memset(&g->edges[g->nedges], 0, sizeof(*ed));
	ed->from = from;
	ed->to = to;
	ed->kind = kind;
	ed->limit = 1;
	return g->nedges++;
}

void graph_add_exit(struct graph *g, size_t node)
{
	g->exits = xrealloc(g->exits, (g->nexits + 1) * sizeof(*g->exits));
	g->exits[g->nexits++] = (struct graph_port){.node = node, .limit = 1};
}

long graph_find_node(const struct graph *g, const char *name)
{
	for (size_t i = 0; i < g->nnodes; i++)
		if (strcmp(g->nodes[i].name, name) == 0)
			return (long)i;
	return -1;
}

bool graph_name_valid(const char *name)
{
	if (!name[0] || name[0] == '-')
		return false;
	for (const char *p = name; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
			return false;
	}
	return true;
}

size_t graph_count_edges(const struct graph *g, size_t from, size_t to)
{
	size_t n = 0;

	for (size_t i = 0; i < g->nedges; i++)
		n += g->edges[i].from == from && g->edges[i].to == to;
	return n;
}

const char *edge_kind_name(enum edge_kind k)
{
	return k == EDGE_INITONCE ? "INITONCE" : "INTERMEDIATE";
}

static void add_end(struct strbuf *sb, const char *node, const char *stream, bool ports)
{
	sb_adds(sb, node);
	if (ports && stream)
		sb_addf(sb, ".%s", stream);
}

char *graph_edge_ends(const struct graph *g, size_t edge)
{
	const struct graph_edge *ed = &g->edges[edge];
	bool ports = graph_count_edges(g, ed->from, ed->to) > 1;
	struct strbuf sb = STRBUF_INIT;

	add_end(&sb, g->nodes[ed->from].name, ed->output, ports);
	sb_addc(&sb, ' ');
	add_end(&sb, g->nodes[ed->to].name, ed->input, ports);
	return sb_detach(&sb);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void graph_data_free(struct graph_data *d)
{
	free(d->file);
	free(d->value);
	free(d->columns);
	memset(d, 0, sizeof(*d));
}

struct graph_data graph_data_copy(const struct graph_data *d)
{
	return (struct graph_data){dup_or_null(d->file), dup_or_null(d->value),
	                           dup_or_null(d->columns), d->line};
}

static void ports_free(struct graph_port *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].stream);
		graph_data_free(&p[i].data);
	}
	free(p);
}

void graph_free(struct graph *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nnodes; i++) {
		free(g->nodes[i].name);
		free(g->nodes[i].exe);
	}
	for (size_t i = 0; i < g->nedges; i++) {
		free(g->edges[i].output);
		free(g->edges[i].input);
		graph_data_free(&g->edges[i].init);
	}
	ports_free(g->entrances, g->nentrances);
	ports_free(g->exits, g->nexits);
	free(g->nodes);
	free(g->edges);
	free(g->name);
	free(g->file);
	free(g->dir);
	params_free(&g->params);
	free(g);
}
