#include "graph/dot.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>

#include "util/path.h"
#include "util/strbuf.h"

void dot_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* Print the label and free it. */
static void put_label(FILE *f, struct strbuf *sb)
{
	fputs("label=", f);
	dot_quoted(f, sb_str(sb));
	sb_free(sb);
}

/* A new line of a label. */
static void add_item(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_item(struct strbuf *sb, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (sb->len)
		sb_addc(sb, '\n');
	sb_adds(sb, buf);
}

static void print_title(FILE *f, const struct graph *g, const struct peast_plan *p)
{
	struct strbuf sb = STRBUF_INIT;

	sb_adds(&sb, g->name);
	if (p)
		sb_addf(&sb, ": PEA-ST root %s, consistency shift %zu, parallelism %zu",
		        g->nodes[p->root].name, p->shift, p->parallelism);
	else
		sb_adds(&sb, ": no PEA-ST root (no node reaches all others)");
	fputs("digraph ", f);
	dot_quoted(f, g->name);
	fputs(" {\n\tlabelloc=t;\n\tnodesep=0.6;\n\t", f);
	put_label(f, &sb);
	fputs(";\n\tnode [shape=box, style=rounded, fontname=\"Helvetica\"];\n"
	      "\tedge [fontname=\"Helvetica\", fontsize=10];\n",
	      f);
}

/* "A\ninit.exe.xml\nstages 1, 3": the stages it runs in */
static void print_node(FILE *f, const struct graph *g, const struct peast_plan *p, size_t x)
{
	struct strbuf sb = STRBUF_INIT;
	struct strbuf stages = STRBUF_INIT;
	size_t n = 0;

	sb_adds(&sb, g->nodes[x].name);
	if (g->nodes[x].exe)
		sb_addf(&sb, "\n%s", path_basename(g->nodes[x].exe));
	for (size_t s = 0; p && s < p->nstages; s++)
		for (size_t k = p->stage_start[s]; k < p->stage_start[s + 1]; k++)
			if (p->stage_node[k] == x)
				sb_addf(&stages, "%s%zu", n++ ? ", " : "", s + 1);
	if (n)
		sb_addf(&sb, "\nstage%s %s", n > 1 ? "s" : "", sb_str(&stages));
	sb_free(&stages);
	fprintf(f, "\tn%zu [", x);
	put_label(f, &sb);
	fputs("];\n", f);
}

/* A column of "stage N" labels, each on the rank of the nodes whose first run it is. */
static void print_ranks(FILE *f, const struct graph *g, const struct peast_plan *p)
{
	for (size_t s = 0; s < p->ndepth; s++) {
		fprintf(f,
		        "\t{ rank=same; s%zu [shape=plaintext, style=\"\", label=\"stage %zu\"];",
		        s, s + 1);
		for (size_t x = 0; x < g->nnodes; x++)
			if (p->depth[x] == s)
				fprintf(f, " n%zu;", x);
		fputs(" }\n", f);
		if (s)
			fprintf(f, "\ts%zu -> s%zu [style=invis];\n", s - 1, s);
	}
}

/* Attributes of an edge: ", " between them. */
static void attr(FILE *f, bool *first, const char *name, const char *value)
{
	fprintf(f, "%s%s=", *first ? "" : ", ", name);
	dot_quoted(f, value);
	*first = false;
}

/* "output -> input", the kind, the limit, and whether it must be initialised. */
static void print_edge(FILE *f, const struct graph *g, const struct deadlock *d,
                       const struct peast_plan *p, size_t i)
{
	const struct graph_edge *ed = &g->edges[i];
	struct strbuf sb = STRBUF_INIT;
	bool first = true;

	if (ed->output || ed->input)
		add_item(&sb, "%s -> %s", ed->output ? ed->output : "?",
		         ed->input ? ed->input : "?");
	if (ed->kind == EDGE_INITONCE)
		add_item(&sb, "INITONCE");
	if (d->mark[i] == INIT_NEEDED)
		add_item(&sb, "initialise");
	if (ed->limit != 1)
		add_item(&sb, "IT=%ld", ed->limit);
	fprintf(f, "\tn%zu -> n%zu [", ed->from, ed->to);
	if (sb.len)
		attr(f, &first, "label", sb_str(&sb));
	if (d->mark[i] != INIT_NO)
		attr(f, &first, "style", "dashed");
	if (d->mark[i] == INIT_NEEDED) {
		attr(f, &first, "color", "red");
		attr(f, &first, "fontcolor", "red");
	}
	if (p && p->feedback[i])
		attr(f, &first, "constraint", "false");
	fputs("];\n", f);
	sb_free(&sb);
}

static void print_port(FILE *f, const struct graph_port *port, const char *id, size_t i,
                       bool entrance)
{
	struct strbuf sb = STRBUF_INIT;

	if (port->stream)
		add_item(&sb, "%s", port->stream);
	if (port->limit != 1)
		add_item(&sb, "IT=%ld", port->limit);
	fprintf(f, "\t%s%zu [shape=point, width=0.1];\n", id, i);
	if (entrance)
		fprintf(f, "\t%s%zu -> n%zu [", id, i, port->node);
	else
		fprintf(f, "\tn%zu -> %s%zu [", port->node, id, i);
	put_label(f, &sb);
	fputs("];\n", f);
}

void dot_graph(FILE *f, const struct graph *g, const struct deadlock *d, const struct peast_plan *p)
{
	print_title(f, g, p);
	for (size_t x = 0; x < g->nnodes; x++)
		print_node(f, g, p, x);
	if (p)
		print_ranks(f, g, p);
	for (size_t i = 0; i < g->nedges; i++)
		print_edge(f, g, d, p, i);
	for (size_t i = 0; i < g->nentrances; i++)
		print_port(f, &g->entrances[i], "in", i, true);
	for (size_t i = 0; i < g->nexits; i++)
		print_port(f, &g->exits[i], "out", i, false);
	fputs("}\n", f);
}
