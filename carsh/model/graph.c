/*
 * The <CarshGraph> reader. Strict like the other readers: unknown elements and attributes,
 * unknown or duplicate nodes, bad kinds and limits, and edges whose ports cannot be told apart
 * are errors "FILE:LINE: <Edge from="A" to="B">: what". Nodes are read first so that edges
 * may name nodes declared further down; node numbers follow the file order of <Node>.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/graph.h"
#include "util/alloc.h"
#include "util/path.h"

/* "<Edge from="A" to="B">": the attributes that say which element is meant. */
static const char *label(xmlNodePtr n, char *buf, size_t len)
{
	static const char *const keys[] = {"name", "from", "to", "node", NULL};
	size_t used = (size_t)snprintf(buf, len, "<%s", (const char *)n->name);

	for (size_t i = 0; keys[i] && used < len; i++) {
		char *v = xml_attr(n, keys[i]);

		if (v)
			used += (size_t)snprintf(buf + used, len - used, " %s=\"%s\"", keys[i], v);
		free(v);
	}
	if (used < len)
		snprintf(buf + used, len - used, ">");
	return buf;
}

static int gerr(const struct xml_ctx *x, xmlNodePtr n, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static int gerr(const struct xml_ctx *x, xmlNodePtr n, const char *fmt, ...)
{
	char msg[1024], lab[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(x->e, "%s:%d: %s: %s", x->file, xml_line(n), label(n, lab, sizeof(lab)),
	               msg);
}

/* The shared helpers label an element by its name= only; say which edge or port it was. */
static int relabel(const struct xml_ctx *x, xmlNodePtr n)
{
	char head[512], lab[512];
	size_t hlen;

	snprintf(head, sizeof(head), "%s:%d: <%s>: ", x->file, xml_line(n), (const char *)n->name);
	hlen = strlen(head);
	if (strncmp(x->e->msg, head, hlen) == 0) {
		char *rest = xstrdup(x->e->msg + hlen);

		err_set(x->e, "%s:%d: %s: %s", x->file, xml_line(n), label(n, lab, sizeof(lab)),
		        rest);
		free(rest);
	}
	return -1;
}

static int check_attrs(const struct xml_ctx *x, xmlNodePtr n, const char *const *allowed)
{
	if (xml_check_attrs(x, n, allowed) || xml_check_no_text(x, n))
		return relabel(x, n);
	return 0;
}

static int attr_req(const struct xml_ctx *x, xmlNodePtr n, const char *name, char **out)
{
	return xml_attr_req(x, n, name, out) ? relabel(x, n) : 0;
}

/* limit="N": a positive iteration limit (004 §4.2.1); 1 when absent. */
static int read_limit(const struct xml_ctx *x, xmlNodePtr n, long *out)
{
	char *s = xml_attr(n, "limit"), *end;
	long v;

	*out = 1;
	if (!s)
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end || errno || v < 1 || v > INT_MAX) {
		gerr(x, n, "limit '%s' is not a positive integer (the iteration limit)", s);
		free(s);
		return -1;
	}
	free(s);
	*out = v;
	return 0;
}

/* An optional stream name (output=, input=): a kernel argument name. */
static int read_stream(const struct xml_ctx *x, xmlNodePtr n, const char *attr, char **out)
{
	*out = xml_attr(n, attr);
	if (*out && !param_name_valid(*out))
		return gerr(x, n, "%s '%s' is not a stream name (letters, digits and '_')", attr,
		            *out);
	return 0;
}

static int read_node_ref(const struct xml_ctx *x, xmlNodePtr n, const struct graph *g,
                         const char *attr, size_t *out)
{
	char *name;
	long i;

	if (attr_req(x, n, attr, &name))
		return -1;
	i = graph_find_node(g, name);
	if (i < 0)
		gerr(x, n, "unknown node '%s' (declare it with <Node name=\"%s\"/>)", name, name);
	free(name);
	*out = (size_t)i;
	return i < 0 ? -1 : 0;
}

/* file= and value= (an entrance's data, an edge's initial data) and columns= (an exit's
 * file): at most one of file= and value=, neither empty. */
static int read_data(const struct xml_ctx *x, xmlNodePtr n, struct graph_data *d)
{
	char *file = xml_attr(n, "file");

	d->value = xml_attr(n, "value");
	d->columns = xml_attr(n, "columns");
	d->line = xml_line(n);
	if (file && d->value) {
		free(file);
		return gerr(x, n, "give file= or value=, not both");
	}
	if ((file && !file[0]) || (d->value && !d->value[0]) || (d->columns && !d->columns[0])) {
		const char *which = file && !file[0]           ? "file"
		                    : d->value && !d->value[0] ? "value"
		                                               : "columns";

		free(file);
		return gerr(x, n, "empty %s=", which);
	}
	if (file)
		d->file = path_is_stdio(file) ? xstrdup(file) : path_join(x->dir, file);
	free(file);
	return 0;
}

/* <Node rank="N"> or rank="auto" (docs/scale-out.md "Pipeline graphs across ranks"). */
static int read_rank(const struct xml_ctx *x, xmlNodePtr n, int *out)
{
	char *v = xml_attr(n, "rank"), *end = NULL;
	long r = -1;
	int rc = 0;

	*out = GRAPH_RANK_AUTO;
	if (!v || strcmp(v, "auto") == 0) {
		free(v);
		return 0;
	}
	r = strtol(v, &end, 10);
	if (r < 0 || r > 1000000 || end == v || *end)
		rc = gerr(x, n, "rank '%s': expected a rank number (0, 1, ...) or auto", v);
	else
		*out = (int)r;
	free(v);
	return rc;
}

static int read_node(const struct xml_ctx *x, xmlNodePtr n, struct graph *g)
{
	static const char *const attrs[] = {"name", "exe", "rank", NULL};
	char *name = NULL, *exe = NULL;
	long dup;
	size_t i;
	int rc = -1, rank;

	if (check_attrs(x, n, attrs) || attr_req(x, n, "name", &name) || read_rank(x, n, &rank))
		goto out;
	if (!graph_name_valid(name)) {
		gerr(x, n, "'%s' is not a node name (letters, digits, '_' and '-')", name);
		goto out;
	}
	dup = graph_find_node(g, name);
	if (dup >= 0) {
		gerr(x, n, "duplicate node '%s' (first at line %d)", name, g->nodes[dup].line);
		goto out;
	}
	if (g->nnodes == GRAPH_MAX_NODES) {
		gerr(x, n, "more than %d nodes", GRAPH_MAX_NODES);
		goto out;
	}
	exe = xml_attr(n, "exe");
	if (exe && !exe[0]) {
		gerr(x, n, "empty exe= (leave it out when the node has no executable yet)");
		goto out;
	}
	i = graph_add_node(g, name, NULL);
	g->nodes[i].line = xml_line(n);
	g->nodes[i].rank = rank;
	if (exe)
		g->nodes[i].exe = path_join(x->dir, exe);
	rc = 0;
out:
	free(name);
	free(exe);
	return rc;
}

static int read_kind(const struct xml_ctx *x, xmlNodePtr n, enum edge_kind *out)
{
	char *s = xml_attr(n, "kind");
	int rc = 0;

	*out = EDGE_INTERMEDIATE;
	if (s && strcmp(s, "INITONCE") == 0)
		*out = EDGE_INITONCE;
	else if (s && strcmp(s, "INTERMEDIATE") != 0)
		rc = gerr(x, n, "unknown kind '%s' (INTERMEDIATE or INITONCE)", s);
	free(s);
	return rc;
}

static bool differ(const char *a, const char *b)
{
	return a && b && strcmp(a, b) != 0;
}

/* Two edges between the same two nodes must differ in a named port. */
static int check_distinct(const struct xml_ctx *x, xmlNodePtr n, const struct graph *g,
                          const struct graph_edge *ed)
{
	for (const struct graph_edge *o = g->edges; o < ed; o++) {
		if (o->from != ed->from || o->to != ed->to)
			continue;
		if (!differ(o->output, ed->output) && !differ(o->input, ed->input))
			return gerr(x, n,
			            "ambiguous: another edge from '%s' to '%s' at line %d; name "
			            "the streams of each with output= and input=",
			            g->nodes[ed->from].name, g->nodes[ed->to].name, o->line);
	}
	return 0;
}

/* A named input is fed once: by one edge or by one <Entrance>. */
static int check_input_free(const struct xml_ctx *x, xmlNodePtr n, const struct graph *g,
                            size_t node, const char *input, size_t nedges)
{
	if (!input)
		return 0;
	for (size_t i = 0; i < nedges; i++) {
		const struct graph_edge *o = &g->edges[i];

		if (o->to == node && o->input && strcmp(o->input, input) == 0)
			return gerr(x, n,
			            "input '%s' of '%s' is already fed by the edge at line %d",
			            input, g->nodes[node].name, o->line);
	}
	for (size_t i = 0; i < g->nentrances; i++) {
		const struct graph_port *p = &g->entrances[i];

		if (p->node == node && p->stream && strcmp(p->stream, input) == 0)
			return gerr(
			        x, n,
			        "input '%s' of '%s' is already fed by the <Entrance> at line %d",
			        input, g->nodes[node].name, p->line);
	}
	return 0;
}

static int read_edge(const struct xml_ctx *x, xmlNodePtr n, struct graph *g)
{
	static const char *const attrs[] = {"from",  "to",    "output", "input", "kind",
	                                    "limit", "value", "file",   NULL};
	size_t from, to, i;
	struct graph_edge *ed;

	if (check_attrs(x, n, attrs) || read_node_ref(x, n, g, "from", &from) ||
	    read_node_ref(x, n, g, "to", &to))
		return -1;
	if (g->nedges == GRAPH_MAX_EDGES)
		return gerr(x, n, "more than %d edges", GRAPH_MAX_EDGES);
	i = graph_add_edge(g, from, to, EDGE_INTERMEDIATE);
	ed = &g->edges[i];
	ed->line = xml_line(n);
	if (read_stream(x, n, "output", &ed->output) || read_stream(x, n, "input", &ed->input) ||
	    read_kind(x, n, &ed->kind) || read_limit(x, n, &ed->limit) ||
	    read_data(x, n, &ed->init))
		return -1;
	return check_input_free(x, n, g, to, ed->input, g->nedges - 1) ||
	       check_distinct(x, n, g, ed);
}

static struct graph_port *add_port(struct graph_port **v, size_t *n)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	return memset(&(*v)[(*n)++], 0, sizeof(**v));
}

/* <Entrance node= input=> and <Exit node= output=>: one of each per stream. */
static int read_port(const struct xml_ctx *x, xmlNodePtr n, struct graph *g, bool entrance)
{
	const char *const attrs[] = {"node", entrance ? "input" : "output",  "limit",
	                             "file", entrance ? "value" : "columns", NULL};
	struct graph_port *v = entrance ? g->entrances : g->exits, *p;
	size_t nv = entrance ? g->nentrances : g->nexits, node;
	char *stream = NULL;

	if (check_attrs(x, n, attrs) || read_node_ref(x, n, g, "node", &node) ||
	    read_stream(x, n, attrs[1], &stream))
		goto fail;
	for (size_t i = 0; i < nv; i++) {
		if (v[i].node == node && !differ(v[i].stream, stream)) {
			gerr(x, n, "the same port as the <%s> at line %d; name it with %s=",
			     (const char *)n->name, v[i].line, attrs[1]);
			goto fail;
		}
	}
	if (entrance && check_input_free(x, n, g, node, stream, g->nedges))
		goto fail;
	p = entrance ? add_port(&g->entrances, &g->nentrances) : add_port(&g->exits, &g->nexits);
	*p = (struct graph_port){node, stream, 1, xml_line(n), {NULL, NULL, NULL, 0}};
	return read_limit(x, n, &p->limit) || read_data(x, n, &p->data) ? -1 : 0;
fail:
	free(stream);
	return -1;
}

static int read_child(const struct xml_ctx *x, xmlNodePtr c, struct graph *g)
{
	if (xml_is(c, "Edge"))
		return read_edge(x, c, g);
	if (xml_is(c, "Entrance") || xml_is(c, "Exit"))
		return read_port(x, c, g, xml_is(c, "Entrance"));
	if (xml_is(c, "Param"))
		return xml_read_param(x, c, &g->params);
	return 0; /* <Node>: read in the first pass */
}

static int read_nodes(const struct xml_ctx *x, xmlNodePtr root, struct graph *g)
{
	static const char *const kids[] = {"Param", "Node", "Edge", "Entrance", "Exit", NULL};

	for (xmlNodePtr c = xml_child(root); c; c = xml_next(c)) {
		bool known = false;

		for (size_t i = 0; kids[i]; i++)
			known |= xml_is(c, kids[i]);
		if (!known)
			return xml_unknown_child(x, c, kids);
		if (xml_is(c, "Node") && read_node(x, c, g))
			return -1;
	}
	return 0;
}

int graph_from_node(const struct xml_ctx *x, xmlNodePtr node, struct graph **out)
{
	static const char *const attrs[] = {"name", NULL};
	char *name;
	struct graph *g;

	*out = NULL;
	if (check_attrs(x, node, attrs))
		return -1;
	name = xml_attr(node, "name");
	g = graph_new(name ? name : path_basename(x->file));
	free(name);
	free(g->file);
	free(g->dir);
	g->file = xstrdup(x->file);
	g->dir = xstrdup(x->dir);
	if (read_nodes(x, node, g))
		goto fail;
	for (xmlNodePtr c = xml_child(node); c; c = xml_next(c))
		if (read_child(x, c, g))
			goto fail;
	*out = g;
	return 0;
fail:
	graph_free(g);
	return -1;
}

static int graph_from_root(const struct xml_ctx *x, xmlNodePtr root, void *out)
{
	return graph_from_node(x, root, out);
}

int graph_read(const char *path, struct graph **out, struct cs_err *e)
{
	*out = NULL;
	return xml_read_file(path, "CarshGraph", graph_from_root, out, e);
}
