/*
 * Running a pipeline graph (docs/graphs.md, "Running a graph"; 004 §4.2.2-4.2.3, §4.3.4).
 *
 * PEA-ST (graph/peast.c) gives the stages: the startup, run once, and the repeat batch, run
 * once per further item. The run of node x for item k is step depth[x] + k * period, where
 * period is the repeat batch's length; a step is one stage of one of the two batches, and
 * its runs go as background jobs followed by a sync, exactly as in the batches `peast -o`
 * writes. The steps after the last item entered are the drain: the repeat batch with the
 * runs of items that do not exist left out.
 *
 * Every item needs its own data on every edge while it is in flight (graph/ring.h): each
 * channel (an output stream and the streams that read it) is a ring of virtual buffers, and
 * each run binds its node's ports to the slots of its item. An item's entrance data are
 * filled into their slot before its first run; its exit data are dumped right after the run
 * that makes them; a feedback edge's initial data fill the slot of "item -1" before the
 * startup. With --serial the same runs go one at a time, item after item, each node after
 * the nodes it reads from: running the flow-models one after another.
 */
#include "runner/graphrun.h"

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/peast.h"
#include "graph/ring.h"
#include "graph/validate.h"
#include "model/graph.h"
#include "runner/buffers.h"
#include "runner/run.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/path.h"
#include "util/strbuf.h"

static const char usage_text[] =
        "run GRAPH.xml [--items N] [--serial] [--root NODE] [--max-parallel N] [--trace] "
        "[--report] [[NODE.]STREAM=FILE|-|fill:V|discard]... [NAME=VALUE]...";

/* A NODE.STREAM=DATA word of the command line. */
struct data_word {
	char *node;
	char *stream;
	char *value;
};

/* The words after the graph's file. */
struct options {
	const struct graph_run_opts *go;
	struct params args; /* NAME=VALUE */
	struct data_word *data;
	size_t ndata;
};

struct node_run {
	struct exe *exe;
	char *label;   /* the executable's file, for job labels */
	bool wrapped;  /* a <FlowModel>: the runner binds every stream */
	size_t *ports; /* ring ports of this node */
	size_t nports;
	struct exe_bind **binds; /* per port: its <Buffer> binding, rebound for every run */
};

struct timing {
	double startup_ms;
	size_t startup_steps;
	double full_ms; /* repeat passes that ran every node */
	size_t full;
	double part_ms; /* the drain */
	size_t part;
	double setup_ms;
	size_t jobs;
};

struct grun {
	struct run_ctx c; /* the runs' context: its own job table and scope */
	struct scope scope;
	struct graph *g;
	struct options *o;
	struct peast_plan plan;
	bool have_plan;
	struct graph_streams names;
	struct ring_plan rp;
	struct node_run *nodes;
	struct graph_data *entrance; /* per entrance, after the command line */
	struct graph_data *exit;     /* per exit */
	struct graph_data *init;     /* per edge */
	bool *constant;              /* per channel: filled once for every item */
	char ***buf;                 /* per channel, per slot: its virtual buffer */
	size_t items;
	struct timing tm;
	struct cs_err *e;
};

/* ---- the command line ---- */

static int usage(struct cs_err *e, const char *path, const char *what, const char *word)
{
	err_set(e, "%s: %s '%s'; usage: %s", path, what, word, usage_text);
	return 2;
}

static int data_word(struct options *o, const char *w, const char *eq, const char *path,
                     struct cs_err *e)
{
	const char *dot = memchr(w, '.', (size_t)(eq - w));
	struct data_word *d;

	if (dot == w || dot + 1 == eq)
		return usage(e, path, "expected NODE.STREAM=DATA, not", w);
	o->data = xrealloc(o->data, (o->ndata + 1) * sizeof(*o->data));
	d = &o->data[o->ndata++];
	d->node = xstrndup(w, (size_t)(dot - w));
	d->stream = xstrndup(dot + 1, (size_t)(eq - dot - 1));
	d->value = xstrdup(eq + 1);
	return 0;
}

static int parse_words(const char *path, int argc, char **argv, struct options *o, struct cs_err *e)
{
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i], *eq;

		if (!(eq = strchr(w, '=')) || eq == w)
			return usage(e, path, "expected NAME=VALUE or NODE.STREAM=DATA, not", w);
		else if (memchr(w, '.', (size_t)(eq - w))) {
			if (data_word(o, w, eq, path, e))
				return 2;
		} else {
			char *name = xstrndup(w, (size_t)(eq - w));

			if (!param_name_valid(name)) {
				free(name);
				return usage(e, path, "not a valid parameter name in", w);
			}
			params_set(&o->args, name, eq + 1, "command line");
			free(name);
		}
	}
	return 0;
}

static void options_free(struct options *o)
{
	for (size_t i = 0; i < o->ndata; i++) {
		free(o->data[i].node);
		free(o->data[i].stream);
		free(o->data[i].value);
	}
	free(o->data);
	params_free(&o->args);
}

/* ---- the nodes' executables and the names of their ports ---- */

static const char *node_name(const struct grun *r, size_t node)
{
	return r->g->nodes[node].name;
}

static int load_node(struct grun *r, size_t i)
{
	const struct graph_node *n = &r->g->nodes[i];
	struct node_run *nr = &r->nodes[i];
	char *root;
	int rc = -1;

	if (!n->exe)
		return err_set(r->e,
		               "%s:%d: <Node name=\"%s\">: no exe=, so it cannot run; give its "
		               "executable or flow-model",
		               r->g->file, n->line, n->name);
	root = xml_root_name(n->exe, r->e);
	if (root && strcmp(root, "CarshExe") == 0) {
		rc = exe_read(n->exe, &nr->exe, r->e);
	} else if (root && strcmp(root, "FlowModel") == 0) {
		struct flowmodel *fm;

		rc = flowmodel_read(n->exe, &fm, r->e);
		if (rc == 0) {
			nr->exe = exe_wrap_flowmodel(fm);
			nr->wrapped = true;
		}
	} else if (root) {
		err_set(r->e, "%s: <%s>: a node runs a <CarshExe> or a <FlowModel>", n->exe, root);
	}
	free(root);
	if (rc)
		return err_prefix(r->e, "%s:%d: <Node name=\"%s\">: ", r->g->file, n->line,
		                  n->name);
	nr->label = xstrdup(n->exe);
	return 0;
}

static bool kind_fits(enum arg_kind k, bool output)
{
	return k == ARG_INOUT || k == (output ? ARG_OUTPUT : ARG_INPUT);
}

/* An unnamed port: the node's only output (Output or InOut) or input stream. */
static char *port_name(struct grun *r, size_t node, const char *given, bool output, int line,
                       const char *elem)
{
	const struct flowmodel *fm = r->nodes[node].exe->fm;
	const char *found = NULL;
	struct strbuf all = STRBUF_INIT;
	size_t n = 0;

	if (given)
		return xstrdup(given);
	for (size_t i = 0; i < fm->nargs; i++) {
		if (!arg_is_stream(fm->args[i].kind) || !kind_fits(fm->args[i].kind, output))
			continue;
		found = fm->args[i].name;
		sb_addf(&all, "%s%s", n++ ? ", " : "", found);
	}
	if (n == 1) {
		sb_free(&all);
		return xstrdup(found);
	}
	err_set(r->e,
	        "%s:%d: %s: '%s' has %s %s streams%s%s; name the one meant with %s=", r->g->file,
	        line, elem, node_name(r, node), n ? "several" : "no", output ? "output" : "input",
	        n ? ": " : "", sb_str(&all), output ? "output" : "input");
	sb_free(&all);
	return NULL;
}

static int resolve_names(struct grun *r)
{
	const struct graph *g = r->g;
	struct graph_streams *nm = &r->names;
	char elem[512];

	nm->edge_out = xcalloc(g->nedges + 1, sizeof(char *));
	nm->edge_in = xcalloc(g->nedges + 1, sizeof(char *));
	nm->entrance = xcalloc(g->nentrances + 1, sizeof(char *));
	nm->exit = xcalloc(g->nexits + 1, sizeof(char *));
	for (size_t i = 0; i < g->nedges; i++) {
		const struct graph_edge *ed = &g->edges[i];

		snprintf(elem, sizeof(elem), "<Edge from=\"%s\" to=\"%s\">", node_name(r, ed->from),
		         node_name(r, ed->to));
		if (!(nm->edge_out[i] = port_name(r, ed->from, ed->output, true, ed->line, elem)) ||
		    !(nm->edge_in[i] = port_name(r, ed->to, ed->input, false, ed->line, elem)))
			return -1;
	}
	for (size_t i = 0; i < g->nentrances; i++) {
		const struct graph_port *p = &g->entrances[i];

		snprintf(elem, sizeof(elem), "<Entrance node=\"%s\">", node_name(r, p->node));
		if (!(nm->entrance[i] = port_name(r, p->node, p->stream, false, p->line, elem)))
			return -1;
	}
	for (size_t i = 0; i < g->nexits; i++) {
		const struct graph_port *p = &g->exits[i];

		snprintf(elem, sizeof(elem), "<Exit node=\"%s\">", node_name(r, p->node));
		if (!(nm->exit[i] = port_name(r, p->node, p->stream, true, p->line, elem)))
			return -1;
	}
	return 0;
}

static void names_free(struct graph_streams *nm, const struct graph *g)
{
	for (size_t i = 0; nm->edge_out && i < g->nedges; i++) {
		free(nm->edge_out[i]);
		free(nm->edge_in[i]);
	}
	for (size_t i = 0; nm->entrance && i < g->nentrances; i++)
		free(nm->entrance[i]);
	for (size_t i = 0; nm->exit && i < g->nexits; i++)
		free(nm->exit[i]);
	free(nm->edge_out);
	free(nm->edge_in);
	free(nm->entrance);
	free(nm->exit);
}

static int stream_kind(void *ctx, size_t node, const char *stream, enum arg_kind *kind,
                       struct cs_err *e)
{
	struct grun *r = ctx;
	const struct flowmodel *fm = r->nodes[node].exe->fm;
	const struct fm_arg *a = flowmodel_arg(fm, stream, NULL);

	if (!a || !arg_is_stream(a->kind))
		return err_set(e, "'%s' is not a stream of '%s' (%s)", stream, node_name(r, node),
		               fm->file);
	*kind = a->kind;
	return 0;
}

/* Every port of a node is bound to a <Buffer> (the runner picks the buffer of each run);
 * a flow-model's streams must all be ports. */
static int bind_ports(struct grun *r, size_t node)
{
	struct node_run *nr = &r->nodes[node];
	struct exe *exe = nr->exe;
	bool wrapped = nr->wrapped;

	for (size_t i = 0; i < r->rp.nports; i++)
		if (r->rp.ports[i].node == node)
			nr->nports++;
	nr->ports = xcalloc(nr->nports + 1, sizeof(*nr->ports));
	nr->binds = xcalloc(nr->nports + 1, sizeof(*nr->binds));
	nr->nports = 0;
	for (size_t i = 0; i < r->rp.nports; i++) {
		const struct ring_port *p = &r->rp.ports[i];

		if (p->node != node)
			continue;
		nr->ports[nr->nports++] = i;
		if (wrapped && exe_bind_word(exe, p->stream, "buffer:-", r->e))
			return -1;
	}
	for (size_t k = 0; k < nr->nports; k++) {
		const struct ring_port *p = &r->rp.ports[nr->ports[k]];

		for (size_t b = 0; b < exe->nbinds; b++)
			if (strcmp(exe->binds[b].stream, p->stream) == 0)
				nr->binds[k] = &exe->binds[b];
		if (nr->binds[k]->how != BIND_BUFFER)
			return err_set(r->e,
			               "%s: stream '%s' is a port of graph %s, so bind it with "
			               "<Buffer>: each run gets the buffer of its item",
			               nr->binds[k]->origin, p->stream, r->g->file);
	}
	if (!wrapped)
		return 0;
	for (size_t i = 0; i < exe->fm->nargs; i++) {
		const struct fm_arg *a = &exe->fm->args[i];

		if (arg_is_stream(a->kind) && ring_port_find(&r->rp, node, a->name) < 0)
			return err_set(
			        r->e,
			        "%s: stream '%s' of '%s' is not a port of the graph; bind it "
			        "in an executable (<CarshExe>) and give that as exe=",
			        r->g->file, a->name, node_name(r, node));
	}
	return 0;
}

/* ---- where the data come from and go ---- */

static int word_error(struct grun *r, const struct data_word *d, const char *what)
{
	return err_set(r->e, "%s.%s=%s: %s", d->node, d->stream, d->value, what);
}

/* The command line replaces the file or the value; an exit keeps its columns=. */
static void set_data(struct graph_data *dst, const char *value)
{
	const char *rest = strncmp(value, "fill:", 5) == 0 ? value + 5 : NULL;
	char *columns = dst->columns;

	dst->columns = NULL;
	graph_data_free(dst);
	dst->columns = columns;
	if (rest)
		dst->value = xstrdup(rest);
	else if (strcmp(value, "discard") != 0)
		dst->file = xstrdup(value);
}

/* NODE.STREAM=DATA: an entrance, the consumer end of a feedback edge (its initial data),
 * or an exit. */
static int apply_word(struct grun *r, const struct data_word *d)
{
	const struct graph *g = r->g;
	long node = graph_find_node(g, d->node), in = -1, out = -1, edge = -1;

	if (node < 0)
		return word_error(r, d, "no such node");
	for (size_t i = 0; i < g->nentrances; i++)
		if (g->entrances[i].node == (size_t)node &&
		    !strcmp(r->names.entrance[i], d->stream))
			in = (long)i;
	for (size_t i = 0; i < g->nedges; i++)
		if (r->plan.feedback[i] && g->edges[i].to == (size_t)node &&
		    !strcmp(r->names.edge_in[i], d->stream))
			edge = (long)i;
	for (size_t i = 0; i < g->nexits; i++)
		if (g->exits[i].node == (size_t)node && !strcmp(r->names.exit[i], d->stream))
			out = (long)i;
	if ((in >= 0 || edge >= 0) && out >= 0)
		return word_error(r, d, "ambiguous: the stream is an input and an <Exit>");
	if (in < 0 && edge < 0 && out < 0)
		return word_error(r, d,
		                  "not an <Entrance>, an <Exit> or the input of a feedback edge "
		                  "of the graph");
	if (out >= 0) {
		if (strncmp(d->value, "fill:", 5) == 0)
			return word_error(r, d, "an <Exit> takes FILE, - or discard");
		set_data(&r->exit[out], d->value);
		r->exit[out].line = 0;
		if (!r->exit[out].file)
			r->exit[out].value = xstrdup("discard");
		return 0;
	}
	if (strcmp(d->value, "discard") == 0)
		return word_error(r, d, "an input takes FILE or fill:VALUE");
	set_data(in >= 0 ? &r->entrance[in] : &r->init[edge], d->value);
	return 0;
}

/* STREAM=DATA, as `run` binds a flow-model's streams: every <Entrance> or every <Exit> of
 * that stream name, whatever its node. Returns 1 when the word was such a binding (it is
 * then no parameter), 0 when it is a parameter, -1 on error. */
static int apply_stream_word(struct grun *r, const struct param *w)
{
	const struct graph *g = r->g;
	size_t nin = 0, nout = 0;
	char *name;

	for (size_t i = 0; i < g->nentrances; i++)
		nin += strcmp(r->names.entrance[i], w->name) == 0;
	for (size_t i = 0; i < g->nexits; i++)
		nout += strcmp(r->names.exit[i], w->name) == 0;
	if (!nin && !nout)
		return 0;
	if (nin && nout)
		return err_set(r->e,
		               "%s=%s: ambiguous: '%s' is an <Entrance> and an <Exit>; write "
		               "NODE.%s=...",
		               w->name, w->value, w->name, w->name);
	for (size_t i = 0; i < (nin ? g->nentrances : g->nexits); i++) {
		struct data_word d = {
		        (char *)node_name(r, nin ? g->entrances[i].node : g->exits[i].node),
		        nin ? r->names.entrance[i] : r->names.exit[i], w->value};

		if (strcmp(d.stream, w->name) == 0 && apply_word(r, &d))
			return -1;
	}
	name = xstrdup(w->name);
	params_unset(&r->o->args, name);
	free(name);
	return 1;
}

static char *item_path(const char *pattern, size_t item);

static size_t count_items(const char *pattern)
{
	size_t n = 0;

	for (;;) {
		char *path = item_path(pattern, n);
		FILE *f = fopen(path, "r");

		free(path);
		if (!f)
			return n;
		fclose(f);
		n++;
	}
}

static bool has_pattern(const struct graph_data *d)
{
	return d->file && strstr(d->file, "{i}");
}

/* --items N; without it, the items of the entrance file patterns: pic-{i}.pgm for i = 0, 1,
 * ... as long as every pattern names an existing file; else 1. */
static int decide_items(struct grun *r)
{
	const char *pattern = NULL;

	if (r->o->go->items) {
		r->items = r->o->go->items;
		return 0;
	}
	r->items = SIZE_MAX;
	for (size_t i = 0; i < r->g->nentrances; i++) {
		size_t n;

		if (!has_pattern(&r->entrance[i]))
			continue;
		n = count_items(r->entrance[i].file);
		if (n < r->items) {
			r->items = n;
			pattern = r->entrance[i].file;
		}
	}
	if (r->items == SIZE_MAX)
		r->items = 1;
	if (r->items == 0) {
		err_set(r->e, "%s: no items: '%s' names no file for item 0", r->g->file, pattern);
		return 1;
	}
	return 0;
}

static int check_data(struct grun *r)
{
	const struct graph *g = r->g;

	for (size_t i = 0; i < g->nentrances; i++) {
		const struct graph_data *d = &r->entrance[i];

		if (g->entrances[i].limit != 1)
			return err_set(
			        r->e,
			        "%s:%d: <Entrance node=\"%s\">: limit=%ld: the runner feeds "
			        "every item; iteration limits other than 1 run only on <Exit>",
			        g->file, g->entrances[i].line, node_name(r, g->entrances[i].node),
			        g->entrances[i].limit);
		if (!d->file && !d->value)
			return err_set(
			        r->e,
			        "%s:%d: <Entrance node=\"%s\" input=\"%s\">: no data: add "
			        "file= or value=, or %s.%s=FILE|fill:VALUE to the command line",
			        g->file, g->entrances[i].line, node_name(r, g->entrances[i].node),
			        r->names.entrance[i], node_name(r, g->entrances[i].node),
			        r->names.entrance[i]);
		if (d->file && path_is_stdio(d->file) && r->items > 1)
			return err_set(
			        r->e, "%s: entrance %s.%s: standard input serves one item only",
			        g->file, node_name(r, g->entrances[i].node), r->names.entrance[i]);
	}
	for (size_t i = 0; i < g->nexits; i++) {
		if (!r->exit[i].file && !r->exit[i].value)
			return err_set(
			        r->e,
			        "%s:%d: <Exit node=\"%s\" output=\"%s\">: no destination: add "
			        "file= or %s.%s=FILE|-|discard to the command line",
			        g->file, g->exits[i].line, node_name(r, g->exits[i].node),
			        r->names.exit[i], node_name(r, g->exits[i].node), r->names.exit[i]);
	}
	for (size_t i = 0; i < g->nedges; i++) {
		if (g->edges[i].limit != 1)
			return err_set(
			        r->e,
			        "%s:%d: <Edge from=\"%s\" to=\"%s\">: limit=%ld: PEA-ST runs "
			        "every flow-model once per item; iteration limits other than 1 "
			        "run only on <Exit>",
			        g->file, g->edges[i].line, node_name(r, g->edges[i].from),
			        node_name(r, g->edges[i].to), g->edges[i].limit);
	}
	return 0;
}

static bool same_data(const struct graph_data *a, const struct graph_data *b)
{
	bool fa = a->file != NULL, fb = b->file != NULL;

	return fa == fb && strcmp(fa ? a->file : a->value, fb ? b->file : b->value) == 0;
}

/* A channel read over feedback edges needs initial data, from one of those edges. */
static int check_init(struct grun *r, size_t chan, const struct graph_data **out)
{
	const struct graph *g = r->g;
	long given = -1;

	*out = NULL;
	for (size_t i = 0; i < g->nedges; i++) {
		long to = ring_port_find(&r->rp, g->edges[i].to, r->names.edge_in[i]);
		const struct graph_data *d = &r->init[i];

		if (!r->plan.feedback[i] || r->rp.ports[to].chan != chan || (!d->file && !d->value))
			continue;
		if (d->file && path_is_stdio(d->file))
			return err_set(r->e,
			               "%s:%d: <Edge from=\"%s\" to=\"%s\">: initial data cannot "
			               "come from standard input",
			               g->file, g->edges[i].line, node_name(r, g->edges[i].from),
			               node_name(r, g->edges[i].to));
		if (given >= 0 && !same_data(&r->init[given], d))
			return err_set(r->e,
			               "%s: the edges at lines %d and %d read the same stream over "
			               "feedback, so they need the same initial data",
			               g->file, g->edges[given].line, g->edges[i].line);
		given = (long)i;
		*out = d;
	}
	if (given < 0) {
		const struct graph_edge *ed = &g->edges[r->rp.chans[chan].init_edge];

		return err_set(r->e,
		               "%s:%d: <Edge from=\"%s\" to=\"%s\">: a feedback edge with root "
		               "'%s' (PEA-ST, 004 §4.3.4): '%s' reads '%s' of the item before, so "
		               "the first item needs initial data: add value= or file= to the "
		               "edge, or %s.%s=FILE|fill:VALUE to the command line",
		               g->file, ed->line, node_name(r, ed->from), node_name(r, ed->to),
		               node_name(r, r->plan.root), node_name(r, ed->to),
		               r->names.edge_in[r->rp.chans[chan].init_edge], node_name(r, ed->to),
		               r->names.edge_in[r->rp.chans[chan].init_edge]);
	}
	return 0;
}

/* ---- buffers ---- */

static atomic_uint run_counter;

/* Type and count of a port's stream in its node's scope (the planner's order: the
 * executable's parameters, the run's, the flow-model's). */
static int port_size(struct grun *r, const struct ring_port *p, struct cs_type *t, size_t *count)
{
	const struct exe *exe = r->nodes[p->node].exe;
	const struct fm_arg *a = flowmodel_arg(exe->fm, p->stream, NULL);
	struct scope sc;
	long long n;

	scope_init(&sc);
	scope_push(&sc, &exe->params);
	scope_append(&sc, &r->scope);
	scope_push(&sc, &exe->fm->params);
	if (scope_eval_range(&sc, a->count, "count", 1, INT64_MAX, &n, r->e))
		return err_prefix(r->e, "%s:%d: <%s name=\"%s\">: ", exe->fm->file, a->line,
		                  arg_kind_name(a->kind), a->name);
	*t = a->type;
	*count = (size_t)n;
	return 0;
}

static int create_channel(struct grun *r, size_t c, const char *prefix)
{
	const struct ring_channel *ch = &r->rp.chans[c];
	const struct ring_port *o = &r->rp.ports[ch->origin];
	struct cs_type t;
	size_t count;
	char tn[16];

	if (port_size(r, o, &t, &count))
		return -1;
	for (size_t i = 0; i < r->rp.nports; i++) {
		const struct ring_port *p = &r->rp.ports[i];
		struct cs_type pt;
		size_t pc;
		char ptn[16];

		if (p->chan != c || i == ch->origin)
			continue;
		if (port_size(r, p, &pt, &pc))
			return -1;
		if (pt.scalar != t.scalar || pt.width != t.width || pc != count)
			return err_set(
			        r->e,
			        "%s: '%s.%s' holds %zu %s but '%s.%s' reads %zu %s; the streams "
			        "of an edge must match",
			        r->g->file, node_name(r, o->node), o->stream, count,
			        type_name(t, tn, sizeof(tn)), node_name(r, p->node), p->stream, pc,
			        type_name(pt, ptn, sizeof(ptn)));
	}
	r->buf[c] = xcalloc(ch->ring + 1, sizeof(char *));
	for (size_t s = 0; s < ch->ring; s++) {
		char *name = xasprintf("%s%s.%s.%zu", prefix, node_name(r, o->node), o->stream, s);

		if (strlen(name) > 64) {
			free(name);
			name = xasprintf("%sc%zu.%zu", prefix, c, s);
		}
		if (buffers_create(&r->c, name, t, count, r->e)) {
			free(name);
			return -1;
		}
		r->buf[c][s] = name;
	}
	return 0;
}

static void delete_buffers(struct grun *r)
{
	struct cs_err ignored;

	for (size_t c = 0; r->buf && c < r->rp.nchans; c++) {
		for (size_t s = 0; r->buf[c] && r->buf[c][s]; s++) {
			buffers_delete(&r->c, &r->buf[c][s], 1, &ignored);
			free(r->buf[c][s]);
		}
		free(r->buf[c]);
	}
	free(r->buf);
	r->buf = NULL;
}

/* pattern with every {i} replaced by the item number. */
static char *item_path(const char *pattern, size_t item)
{
	struct strbuf sb = STRBUF_INIT;

	for (const char *p = pattern; *p; p++) {
		if (strncmp(p, "{i}", 3) == 0) {
			sb_addf(&sb, "%zu", item);
			p += 2;
		} else {
			sb_addc(&sb, *p);
		}
	}
	return sb_detach(&sb);
}

static int fill(struct grun *r, const char *buffer, const struct graph_data *d, size_t item)
{
	char *path = d->file ? item_path(d->file, item) : NULL;
	int rc = path ? buffers_fill_file(&r->c, buffer, path, r->e)
	              : buffers_fill_value(&r->c, buffer, d->value, r->e);

	free(path);
	return rc;
}

/* Before the first step: the buffers, the data that serve every item, the initial data. */
static int prepare(struct grun *r)
{
	char prefix[32];

	snprintf(prefix, sizeof(prefix), "_g%u.", atomic_fetch_add(&run_counter, 1) + 1);
	r->buf = xcalloc(r->rp.nchans + 1, sizeof(*r->buf));
	r->constant = xcalloc(r->rp.nchans + 1, sizeof(*r->constant));
	for (size_t c = 0; c < r->rp.nchans; c++)
		if (create_channel(r, c, prefix))
			return -1;
	for (size_t i = 0; i < r->g->nentrances; i++) {
		long p = ring_port_find(&r->rp, r->g->entrances[i].node, r->names.entrance[i]);
		size_t c = r->rp.ports[p].chan;

		r->constant[c] = r->rp.chans[c].read_only && !has_pattern(&r->entrance[i]) &&
		                 !path_is_stdio(r->entrance[i].file ? r->entrance[i].file : "");
		if (r->constant[c] && fill(r, r->buf[c][0], &r->entrance[i], 0))
			return err_prefix(r->e, "%s: entrance %s.%s: ", r->g->file,
			                  node_name(r, r->g->entrances[i].node),
			                  r->names.entrance[i]);
	}
	for (size_t c = 0; c < r->rp.nchans; c++) {
		const struct graph_edge *ed =
		        &r->g->edges[r->rp.chans[c].init_edge < 0 ? 0 : r->rp.chans[c].init_edge];
		const struct graph_data *d;

		if (r->rp.chans[c].nfeedback == 0)
			continue;
		if (check_init(r, c, &d))
			return -1;
		if (fill(r, r->buf[c][r->rp.chans[c].ring - 1], d, 0))
			return err_prefix(
			        r->e,
			        "%s:%d: <Edge from=\"%s\" to=\"%s\">: initial data: ", r->g->file,
			        ed->line, node_name(r, ed->from), node_name(r, ed->to));
	}
	return 0;
}

/* --trace: the plan, then one line per step. */
static void trace_plan(const struct grun *r)
{
	const struct peast_plan *p = &r->plan;

	fprintf(stderr,
	        "graph %s: %zu item%s, root %s, shift %zu, %zu startup and %zu repeat stages\n",
	        r->g->name, r->items, r->items == 1 ? "" : "s", node_name(r, p->root), p->shift,
	        p->nstartup, r->rp.period);
	for (size_t c = 0; c < r->rp.nchans; c++) {
		const struct ring_channel *ch = &r->rp.chans[c];
		const struct ring_port *o = &r->rp.ports[ch->origin];

		fprintf(stderr, "channel %s.%s (%zu buffer%s%s):%s", node_name(r, o->node),
		        o->stream, ch->ring, ch->ring == 1 ? "" : "s",
		        r->constant[c] ? ", filled once" : "", o->entrance >= 0 ? " entrance" : "");
		for (size_t i = 0; i < r->rp.nports; i++) {
			const struct ring_port *rp = &r->rp.ports[i];

			if (rp->chan == c && i != ch->origin)
				fprintf(stderr, " %s.%s%s", node_name(r, rp->node), rp->stream,
				        rp->lag ? "(item before)" : "");
		}
		fputc('\n', stderr);
	}
}

/* ---- the runs ---- */

static int fill_entrances(struct grun *r, size_t node, size_t item)
{
	for (size_t i = 0; i < r->g->nentrances; i++) {
		long p;
		size_t c;

		if (r->g->entrances[i].node != node)
			continue;
		p = ring_port_find(&r->rp, node, r->names.entrance[i]);
		c = r->rp.ports[p].chan;
		if (!r->constant[c] && fill(r, r->buf[c][ring_slot(&r->rp, &r->rp.ports[p], item)],
		                            &r->entrance[i], item))
			return err_prefix(r->e, "entrance %s.%s, item %zu: ", node_name(r, node),
			                  r->names.entrance[i], item);
	}
	return 0;
}

static int dump_exits(struct grun *r, size_t node, size_t item)
{
	for (size_t i = 0; i < r->g->nexits; i++) {
		const struct graph_data *d = &r->exit[i];
		const struct graph_port *gp = &r->g->exits[i];
		long long cols = 0;
		long p;
		char *path;
		int rc;

		if (gp->node != node || !d->file || (item + 1) % (size_t)gp->limit != 0)
			continue;
		p = ring_port_find(&r->rp, node, r->names.exit[i]);
		if (d->columns && scope_eval_range(r->c.caller, d->columns, "--columns", 1,
		                                   INT64_MAX, &cols, r->e)) {
			err_prefix(r->e, "virtbuf dump: ");
			rc = -1;
		} else {
			path = item_path(d->file, item);
			rc = buffers_dump(&r->c,
			                  r->buf[r->rp.ports[p].chan]
			                        [ring_slot(&r->rp, &r->rp.ports[p], item)],
			                  path, (size_t)cols, r->e);
			free(path);
		}
		if (rc)
			return err_prefix(r->e, "exit %s.%s, item %zu: ", node_name(r, node),
			                  r->names.exit[i], item);
	}
	return 0;
}

/* Start node's run for item as a background job, its ports bound to the item's slots. */
static int start_run(struct grun *r, size_t node, size_t item)
{
	struct node_run *nr = &r->nodes[node];
	char *label;
	int rc;

	for (size_t k = 0; k < nr->nports; k++) {
		const struct ring_port *p = &r->rp.ports[nr->ports[k]];

		free(nr->binds[k]->buffer);
		nr->binds[k]->buffer = xstrdup(r->buf[p->chan][ring_slot(&r->rp, p, item)]);
	}
	label = xasprintf("%s#%zu %s", node_name(r, node), item, nr->label);
	r->c.background = true;
	rc = run_exe(&r->c, nr->exe, NULL, label, r->e);
	r->c.background = false;
	free(label);
	r->tm.jobs++;
	return rc;
}

struct run_ref {
	size_t node;
	size_t item;
};

/* One step: the entrance data, the runs at once, a sync, the exit data. */
static int run_step(struct grun *r, const struct run_ref *runs, size_t n, const char *what)
{
	struct cs_err sync_err;
	int rc = 0;

	if (r->o->go->trace) {
		fprintf(stderr, "%s:", what);
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, " %s#%zu", node_name(r, runs[i].node), runs[i].item);
		fputc('\n', stderr);
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = fill_entrances(r, runs[i].node, runs[i].item);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = start_run(r, runs[i].node, runs[i].item);
	/* Whatever happened, the runs started end before the step does. */
	if (jobs_sync(r->c.jobs, 0, &sync_err) != 0 && rc == 0) {
		memcpy(r->e->msg, sync_err.msg, sizeof(r->e->msg));
		rc = 1;
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = dump_exits(r, runs[i].node, runs[i].item);
	if (rc)
		err_prefix(r->e, "%s: %s: ", r->g->file, what);
	return rc ? -1 : 0;
}

static bool interrupted(struct grun *r)
{
	if (r->c.interrupted && *r->c.interrupted) {
		err_set(r->e, "%s: interrupted", r->g->file);
		return true;
	}
	return false;
}

/* The stage of step t: the startup's rows once, then the repeat batch's over and over. */
static size_t stage_of(const struct peast_plan *p, size_t period, size_t t)
{
	return t < p->nstartup ? t : p->nstartup + (t - p->nstartup) % period;
}

static int run_pipelined(struct grun *r)
{
	const struct peast_plan *p = &r->plan;
	size_t period = r->rp.period, maxdepth = 0, steps;
	struct run_ref *runs = xcalloc(r->g->nnodes + 1, sizeof(*runs));
	double pass_ms = 0;
	bool pass_full = true;
	int rc = 0;

	for (size_t x = 0; x < r->g->nnodes; x++)
		if (p->depth[x] > maxdepth)
			maxdepth = p->depth[x];
	steps = maxdepth + (r->items - 1) * period + 1;
	for (size_t t = 0; t < steps && rc == 0; t++) {
		size_t s = stage_of(p, period, t), n = 0;
		char what[96];
		double t0 = clock_ms(), ms;

		for (size_t k = p->stage_start[s]; k < p->stage_start[s + 1]; k++) {
			size_t x = p->stage_node[k], item = (t - p->depth[x]) / period;

			if (item < r->items)
				runs[n++] = (struct run_ref){x, item};
		}
		snprintf(what, sizeof(what), "step %zu, %s stage %zu", t + 1,
		         t < p->nstartup ? "startup" : "repeat", s + 1);
		if (interrupted(r) || (n && run_step(r, runs, n, what)))
			rc = -1;
		ms = clock_ms() - t0;
		if (t < p->nstartup) {
			r->tm.startup_ms += ms;
			r->tm.startup_steps++;
			continue;
		}
		/* A repeat pass is full when all its stages ran all their nodes; the passes
		 * after the last item entered are the drain. */
		pass_ms += ms;
		pass_full &= n == peast_stage_size(p, s);
		if ((t - p->nstartup) % period == period - 1 || t + 1 == steps) {
			if (pass_full && (t - p->nstartup) % period == period - 1) {
				r->tm.full_ms += pass_ms;
				r->tm.full++;
			} else {
				r->tm.part_ms += pass_ms;
				r->tm.part++;
			}
			pass_ms = 0;
			pass_full = true;
		}
	}
	free(runs);
	return rc;
}

static int run_serial(struct grun *r)
{
	const struct peast_plan *p = &r->plan;
	int rc = 0;

	for (size_t item = 0; item < r->items && rc == 0; item++) {
		double t0 = clock_ms();

		for (size_t s = 0; s < p->nstages && rc == 0; s++) {
			for (size_t k = p->stage_start[s]; k < p->stage_start[s + 1] && rc == 0;
			     k++) {
				struct run_ref run = {p->stage_node[k], item};
				char what[96];

				if (p->depth[run.node] != s)
					continue; /* entry 0 of the execute matrix: each node once
					           */
				snprintf(what, sizeof(what), "item %zu, %s", item,
				         node_name(r, run.node));
				if (interrupted(r) || run_step(r, &run, 1, what))
					rc = -1;
			}
		}
		r->tm.full_ms += clock_ms() - t0;
		r->tm.full++;
	}
	return rc;
}

static double mean(double sum, size_t n)
{
	return n ? sum / (double)n : 0.0;
}

/* One line on standard error; bench/graph.sh reads it. */
static void report(const struct grun *r, double total_ms)
{
	const struct timing *tm = &r->tm;

	if (r->o->go->serial) {
		fprintf(stderr,
		        "graph %s: serial, %zu items, %zu runs: setup %.1f ms; %.1f ms per item; "
		        "total %.1f ms\n",
		        r->g->name, r->items, tm->jobs, tm->setup_ms, mean(tm->full_ms, tm->full),
		        total_ms);
		return;
	}
	fprintf(stderr,
	        "graph %s: pipelined, %zu items, %zu runs, root %s, shift %zu: setup %.1f ms; "
	        "startup %zu steps %.1f ms; repeat %zu full passes %.1f ms each; drain %zu "
	        "passes %.1f ms; total %.1f ms\n",
	        r->g->name, r->items, tm->jobs, node_name(r, r->plan.root), r->plan.shift,
	        tm->setup_ms, tm->startup_steps, tm->startup_ms, tm->full,
	        mean(tm->full_ms, tm->full), tm->part, tm->part_ms, total_ms);
}

/* ---- the whole run ---- */

static int plan(struct grun *r)
{
	const struct graph *g = r->g;
	struct peast_opts po;

	if (graph_validate(g, r->e) ||
	    peast_opts_resolve(g, r->o->go->root, r->o->go->max_parallel, &po, r->e) ||
	    peast_select(g, &po, &r->plan, r->e))
		return -1;
	r->have_plan = true;
	r->nodes = xcalloc(g->nnodes + 1, sizeof(*r->nodes));
	for (size_t i = 0; i < g->nnodes; i++)
		if (load_node(r, i))
			return -1;
	if (resolve_names(r) ||
	    ring_plan_build(g, &r->plan, &r->names, stream_kind, r, &r->rp, r->e))
		return -1;
	for (size_t i = 0; i < g->nnodes; i++)
		if (bind_ports(r, i))
			return -1;
	return 0;
}

static int bind_data(struct grun *r)
{
	const struct graph *g = r->g;

	r->entrance = xcalloc(g->nentrances + 1, sizeof(*r->entrance));
	r->exit = xcalloc(g->nexits + 1, sizeof(*r->exit));
	r->init = xcalloc(g->nedges + 1, sizeof(*r->init));
	for (size_t i = 0; i < g->nentrances; i++)
		r->entrance[i] = graph_data_copy(&g->entrances[i].data);
	for (size_t i = 0; i < g->nexits; i++)
		r->exit[i] = graph_data_copy(&g->exits[i].data);
	for (size_t i = 0; i < g->nedges; i++)
		r->init[i] = graph_data_copy(&g->edges[i].init);
	for (size_t i = 0; i < r->o->args.n;) {
		int rc = apply_stream_word(r, &r->o->args.v[i]);

		if (rc < 0)
			return -1;
		i += rc ? 0 : 1; /* a binding leaves the parameters */
	}
	for (size_t i = 0; i < r->o->ndata; i++)
		if (apply_word(r, &r->o->data[i]))
			return -1;
	return 0;
}

static void grun_free(struct grun *r)
{
	const struct graph *g = r->g;

	for (size_t i = 0; r->nodes && i < g->nnodes; i++) {
		exe_free(r->nodes[i].exe);
		free(r->nodes[i].label);
		free(r->nodes[i].ports);
		free(r->nodes[i].binds);
	}
	free(r->nodes);
	for (size_t i = 0; r->entrance && i < g->nentrances; i++)
		graph_data_free(&r->entrance[i]);
	for (size_t i = 0; r->exit && i < g->nexits; i++)
		graph_data_free(&r->exit[i]);
	for (size_t i = 0; r->init && i < g->nedges; i++)
		graph_data_free(&r->init[i]);
	free(r->entrance);
	free(r->exit);
	free(r->init);
	free(r->constant);
	names_free(&r->names, g);
	ring_plan_free(&r->rp);
	if (r->have_plan)
		peast_plan_free(&r->plan);
}

static int run_graph(struct grun *r)
{
	double t0 = clock_ms();
	int rc;

	if (plan(r) || bind_data(r))
		return 1;
	rc = decide_items(r);
	if (rc)
		return rc;
	if (check_data(r))
		return 1;
	rc = prepare(r);
	r->tm.setup_ms = clock_ms() - t0;
	if (rc == 0 && r->o->go->trace)
		trace_plan(r);
	if (rc == 0)
		rc = r->o->go->serial ? run_serial(r) : run_pipelined(r);
	delete_buffers(r);
	if (rc == 0 && r->o->go->report)
		report(r, clock_ms() - t0);
	return rc ? 1 : 0;
}

int graph_run_file(struct run_ctx *c, const char *path, int argc, char **argv,
                   const struct graph_run_opts *go, struct cs_err *e)
{
	static const struct graph_run_opts defaults;
	struct options o = {.go = go ? go : &defaults};
	struct grun r = {0};
	int rc = parse_words(path, argc, argv, &o, e);

	if (rc) {
		options_free(&o);
		return rc;
	}
	if (graph_read(path, &r.g, e)) {
		options_free(&o);
		return 1;
	}
	r.o = &o;
	r.e = e;
	/* The runs' scope: the command line, the caller's, the graph's <Param>s. */
	scope_init(&r.scope);
	scope_push(&r.scope, &o.args);
	scope_append(&r.scope, c->caller);
	scope_push(&r.scope, &r.g->params);
	r.c = *c;
	r.c.caller = &r.scope;
	r.c.jobs = jobs_new();
	r.c.quiet = true;
	r.c.background = false;
	r.c.depth++;
	rc = run_graph(&r);
	/* Nothing of ours may still run (an error between start and sync) or stay behind. */
	if (jobs_running(r.c.jobs) || r.buf) {
		struct cs_err ignored;

		jobs_sync(r.c.jobs, 0, &ignored);
		delete_buffers(&r);
	}
	jobs_free(r.c.jobs);
	grun_free(&r);
	graph_free(r.g);
	options_free(&o);
	return rc;
}
