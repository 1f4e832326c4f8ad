/* A graph run's plan, data and steps (runner/graphrun-int.h). */
#include <stdio.h>
#include <string.h>

#include "graph/validate.h"
#include "runner/graphrun-int.h"
#include "util/alloc.h"
#include "util/path.h"
#include "util/strbuf.h"

static const char usage_text[] =
        "run GRAPH.xml [--items N] [--serial] [--root NODE] [--max-parallel N] [--trace] "
        "[--report] [[NODE.]STREAM=FILE|-|fill:V|discard]... [NAME=VALUE]...";
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

int grun_parse_words(const char *path, int argc, char **argv, struct options *o, struct cs_err *e)
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

void grun_options_free(struct options *o)
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

const char *grun_node_name(const struct grun *r, size_t node)
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
	        line, elem, grun_node_name(r, node), n ? "several" : "no",
	        output ? "output" : "input", n ? ": " : "", sb_str(&all),
	        output ? "output" : "input");
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

		snprintf(elem, sizeof(elem), "<Edge from=\"%s\" to=\"%s\">",
		         grun_node_name(r, ed->from), grun_node_name(r, ed->to));
		if (!(nm->edge_out[i] = port_name(r, ed->from, ed->output, true, ed->line, elem)) ||
		    !(nm->edge_in[i] = port_name(r, ed->to, ed->input, false, ed->line, elem)))
			return -1;
	}
	for (size_t i = 0; i < g->nentrances; i++) {
		const struct graph_port *p = &g->entrances[i];

		snprintf(elem, sizeof(elem), "<Entrance node=\"%s\">", grun_node_name(r, p->node));
		if (!(nm->entrance[i] = port_name(r, p->node, p->stream, false, p->line, elem)))
			return -1;
	}
	for (size_t i = 0; i < g->nexits; i++) {
		const struct graph_port *p = &g->exits[i];

		snprintf(elem, sizeof(elem), "<Exit node=\"%s\">", grun_node_name(r, p->node));
		if (!(nm->exit[i] = port_name(r, p->node, p->stream, true, p->line, elem)))
			return -1;
	}
	return 0;
}

void grun_names_free(struct graph_streams *nm, const struct graph *g)
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
		return err_set(e, "'%s' is not a stream of '%s' (%s)", stream,
		               grun_node_name(r, node), fm->file);
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
			        r->g->file, a->name, grun_node_name(r, node));
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
		        (char *)grun_node_name(r, nin ? g->entrances[i].node : g->exits[i].node),
		        nin ? r->names.entrance[i] : r->names.exit[i], w->value};

		if (strcmp(d.stream, w->name) == 0 && apply_word(r, &d))
			return -1;
	}
	name = xstrdup(w->name);
	params_unset(&r->o->args, name);
	free(name);
	return 1;
}

/* pattern with every {i} replaced by the item number. */
char *grun_item_path(const char *pattern, size_t item)
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

static size_t count_items(const char *pattern)
{
	size_t n = 0;

	for (;;) {
		char *path = grun_item_path(pattern, n);
		FILE *f = fopen(path, "r");

		free(path);
		if (!f)
			return n;
		fclose(f);
		n++;
	}
}

bool grun_has_pattern(const struct graph_data *d)
{
	return d->file && strstr(d->file, "{i}");
}

/* --items N; without it, the items of the entrance file patterns: pic-{i}.pgm for i = 0, 1,
 * ... as long as every pattern names an existing file; else 1. */
int grun_decide_items(struct grun *r)
{
	const char *pattern = NULL;

	if (r->o->go->items) {
		r->items = r->o->go->items;
		return 0;
	}
	r->items = SIZE_MAX;
	for (size_t i = 0; i < r->g->nentrances; i++) {
		size_t n;

		if (!grun_has_pattern(&r->entrance[i]))
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

int grun_check_data(struct grun *r)
{
	const struct graph *g = r->g;

	for (size_t i = 0; i < g->nentrances; i++) {
		const struct graph_data *d = &r->entrance[i];

		if (g->entrances[i].limit != 1)
			return err_set(
			        r->e,
			        "%s:%d: <Entrance node=\"%s\">: limit=%ld: the runner feeds "
			        "every item; iteration limits other than 1 run only on <Exit>",
			        g->file, g->entrances[i].line,
			        grun_node_name(r, g->entrances[i].node), g->entrances[i].limit);
		if (!d->file && !d->value)
			return err_set(
			        r->e,
			        "%s:%d: <Entrance node=\"%s\" input=\"%s\">: no data: add "
			        "file= or value=, or %s.%s=FILE|fill:VALUE to the command line",
			        g->file, g->entrances[i].line,
			        grun_node_name(r, g->entrances[i].node), r->names.entrance[i],
			        grun_node_name(r, g->entrances[i].node), r->names.entrance[i]);
		if (d->file && path_is_stdio(d->file) && r->items > 1)
			return err_set(r->e,
			               "%s: entrance %s.%s: standard input serves one item only",
			               g->file, grun_node_name(r, g->entrances[i].node),
			               r->names.entrance[i]);
	}
	for (size_t i = 0; i < g->nexits; i++) {
		if (!r->exit[i].file && !r->exit[i].value)
			return err_set(
			        r->e,
			        "%s:%d: <Exit node=\"%s\" output=\"%s\">: no destination: add "
			        "file= or %s.%s=FILE|-|discard to the command line",
			        g->file, g->exits[i].line, grun_node_name(r, g->exits[i].node),
			        r->names.exit[i], grun_node_name(r, g->exits[i].node),
			        r->names.exit[i]);
	}
	for (size_t i = 0; i < g->nedges; i++) {
		if (g->edges[i].limit != 1)
			return err_set(
			        r->e,
			        "%s:%d: <Edge from=\"%s\" to=\"%s\">: limit=%ld: PEA-ST runs "
			        "every flow-model once per item; iteration limits other than 1 "
			        "run only on <Exit>",
			        g->file, g->edges[i].line, grun_node_name(r, g->edges[i].from),
			        grun_node_name(r, g->edges[i].to), g->edges[i].limit);
	}
	return 0;
}

static bool same_data(const struct graph_data *a, const struct graph_data *b)
{
	bool fa = a->file != NULL, fb = b->file != NULL;

	return fa == fb && strcmp(fa ? a->file : a->value, fb ? b->file : b->value) == 0;
}

/* A channel read over feedback edges needs initial data, from one of those edges. */
int grun_check_init(struct grun *r, size_t chan, const struct graph_data **out)
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
			               g->file, g->edges[i].line,
			               grun_node_name(r, g->edges[i].from),
			               grun_node_name(r, g->edges[i].to));
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

		return err_set(
		        r->e,
		        "%s:%d: <Edge from=\"%s\" to=\"%s\">: a feedback edge with root "
		        "'%s' (PEA-ST's schedule): '%s' reads '%s' of the item before, so "
		        "the first item needs initial data: add value= or file= to the "
		        "edge, or %s.%s=FILE|fill:VALUE to the command line",
		        g->file, ed->line, grun_node_name(r, ed->from), grun_node_name(r, ed->to),
		        grun_node_name(r, r->plan.root), grun_node_name(r, ed->to),
		        r->names.edge_in[r->rp.chans[chan].init_edge], grun_node_name(r, ed->to),
		        r->names.edge_in[r->rp.chans[chan].init_edge]);
	}
	return 0;
}

int grun_plan(struct grun *r)
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

int grun_bind_data(struct grun *r)
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

size_t grun_stage_of(const struct peast_plan *p, size_t period, size_t t)
{
	return t < p->nstartup ? t : p->nstartup + (t - p->nstartup) % period;
}

size_t grun_steps(const struct grun *r)
{
	size_t maxdepth = 0;

	for (size_t x = 0; x < r->g->nnodes; x++)
		if (r->plan.depth[x] > maxdepth)
			maxdepth = r->plan.depth[x];
	return maxdepth + (r->items - 1) * r->rp.period + 1;
}
