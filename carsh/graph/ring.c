#include "graph/ring.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

struct builder {
	const struct graph *g;
	const struct peast_plan *p;
	const struct graph_streams *nm;
	stream_kind_fn kind;
	void *ctx;
	struct ring_plan *r;
	struct cs_err *e;
	size_t *parent; /* union-find over ports */
	size_t cap;
};

static const char *node_name(const struct builder *b, size_t node)
{
	return b->g->nodes[node].name;
}

/* "g.xml:12: <Edge from="A" to="B">: " in front of the message. */
static int at_edge(const struct builder *b, size_t edge)
{
	const struct graph_edge *ed = &b->g->edges[edge];

	return err_prefix(b->e, "%s:%d: <Edge from=\"%s\" to=\"%s\">: ", b->g->file, ed->line,
	                  node_name(b, ed->from), node_name(b, ed->to));
}

static int at_port(const struct builder *b, const struct graph_port *gp, bool entrance)
{
	return err_prefix(b->e, "%s:%d: <%s node=\"%s\">: ", b->g->file, gp->line,
	                  entrance ? "Entrance" : "Exit", node_name(b, gp->node));
}

long ring_port_find(const struct ring_plan *r, size_t node, const char *stream)
{
	for (size_t i = 0; i < r->nports; i++)
		if (r->ports[i].node == node && strcmp(r->ports[i].stream, stream) == 0)
			return (long)i;
	return -1;
}

/* The port (node, stream), added when new. -1 when the flow-model has no such stream. */
static long port(struct builder *b, size_t node, const char *stream)
{
	struct ring_plan *r = b->r;
	long i = ring_port_find(r, node, stream);
	enum arg_kind k;

	if (i >= 0)
		return i;
	if (b->kind(b->ctx, node, stream, &k, b->e))
		return -1;
	r->ports = xgrow(r->ports, &b->cap, r->nports + 1, sizeof(*r->ports));
	b->parent = xrealloc(b->parent, b->cap * sizeof(*b->parent));
	r->ports[r->nports] = (struct ring_port){node, stream, k, 0, 0, 0, -1, -1};
	b->parent[r->nports] = r->nports;
	return (long)r->nports++;
}

static int wrong_kind(struct builder *b, const struct ring_port *rp, const char *what)
{
	return err_set(b->e, "'%s' is an %s stream of '%s'; %s", rp->stream,
	               arg_kind_name(rp->kind), node_name(b, rp->node), what);
}

/* A port is fed once: by one edge or one entrance (ports left unnamed may meet here). */
static int feed(struct builder *b, long pi, long edge, long entrance)
{
	struct ring_port *rp = &b->r->ports[pi];

	if (rp->fed_by >= 0 || rp->entrance >= 0) {
		int line = rp->fed_by >= 0 ? b->g->edges[rp->fed_by].line
		                           : b->g->entrances[rp->entrance].line;

		return err_set(b->e,
		               "input '%s' of '%s' is already fed by the %s at line %d; name the "
		               "streams with input=",
		               rp->stream, node_name(b, rp->node),
		               rp->fed_by >= 0 ? "edge" : "<Entrance>", line);
	}
	if (!arg_is_read(rp->kind))
		return wrong_kind(b, rp, "an edge or an <Entrance> feeds an Input or InOut stream");
	rp->fed_by = edge;
	rp->entrance = entrance;
	return 0;
}

static size_t find(size_t *parent, size_t i)
{
	while (parent[i] != i)
		i = parent[i] = parent[parent[i]];
	return i;
}

static int add_edges(struct builder *b)
{
	const struct graph *g = b->g;

	for (size_t i = 0; i < g->nedges; i++) {
		long from = port(b, g->edges[i].from, b->nm->edge_out[i]), to;

		if (from < 0)
			return at_edge(b, i);
		if (!arg_is_written(b->r->ports[from].kind)) {
			wrong_kind(b, &b->r->ports[from],
			           "an edge leaves an Output or InOut stream");
			return at_edge(b, i);
		}
		to = port(b, g->edges[i].to, b->nm->edge_in[i]);
		if (to < 0 || feed(b, to, (long)i, -1))
			return at_edge(b, i);
		b->parent[find(b->parent, (size_t)to)] = find(b->parent, (size_t)from);
	}
	return 0;
}

static int add_ports(struct builder *b)
{
	const struct graph *g = b->g;

	for (size_t i = 0; i < g->nentrances; i++) {
		long pi = port(b, g->entrances[i].node, b->nm->entrance[i]);

		if (pi < 0 || feed(b, pi, -1, (long)i))
			return at_port(b, &g->entrances[i], true);
	}
	for (size_t i = 0; i < g->nexits; i++) {
		long pi = port(b, g->exits[i].node, b->nm->exit[i]);

		if (pi < 0)
			return at_port(b, &g->exits[i], false);
		if (!arg_is_written(b->r->ports[pi].kind)) {
			wrong_kind(b, &b->r->ports[pi],
			           "an <Exit> takes an Output or InOut stream");
			return at_port(b, &g->exits[i], false);
		}
	}
	return 0;
}

/* Number the channels and find each one's origin: the Output or entrance-fed stream. */
static int find_origins(struct builder *b)
{
	struct ring_plan *r = b->r;
	size_t *root_chan = xcalloc(r->nports + 1, sizeof(*root_chan));
	int rc = 0;

	for (size_t i = 0; i < r->nports; i++)
		root_chan[i] = SIZE_MAX;
	for (size_t i = 0; i < r->nports; i++) {
		size_t root = find(b->parent, i);

		if (root_chan[root] == SIZE_MAX) {
			r->chans = xrealloc(r->chans, (r->nchans + 1) * sizeof(*r->chans));
			r->chans[r->nchans] =
			        (struct ring_channel){SIZE_MAX, 1, false, -1, 0, 0, 0};
			root_chan[root] = r->nchans++;
		}
		r->ports[i].chan = root_chan[root];
	}
	for (size_t i = 0; i < r->nports && !rc; i++) {
		struct ring_port *rp = &r->ports[i];
		struct ring_channel *ch = &r->chans[rp->chan];

		if (rp->kind != ARG_OUTPUT && rp->entrance < 0)
			continue;
		if (ch->origin != SIZE_MAX)
			rc = err_set(
			        b->e, "%s: '%s.%s' and '%s.%s' both write the data of one stream",
			        b->g->file, node_name(b, r->ports[ch->origin].node),
			        r->ports[ch->origin].stream, node_name(b, rp->node), rp->stream);
		ch->origin = i;
	}
	for (size_t c = 0; c < r->nchans && !rc; c++) {
		if (r->chans[c].origin != SIZE_MAX)
			continue;
		for (size_t i = 0; i < r->nports; i++) {
			const struct ring_port *rp = &r->ports[i];

			if (rp->chan == c && rp->kind == ARG_INOUT && rp->fed_by < 0) {
				rc = err_set(
				        b->e,
				        "%s: InOut stream '%s' of '%s' has no data: feed it by an "
				        "<Edge> or an <Entrance>",
				        b->g->file, rp->stream, node_name(b, rp->node));
				break;
			}
		}
		if (!rc)
			rc = err_set(b->e,
			             "%s: InOut streams feed each other in a circle, and no "
			             "Output or <Entrance> gives them data",
			             b->g->file);
	}
	free(root_chan);
	return rc;
}

/* An InOut stream changes its item's data in place: nothing else may read the data it was
 * given, or that reader would see them changed, or not, depending on the schedule. */
static int check_inout(struct builder *b)
{
	const struct graph *g = b->g;

	for (size_t i = 0; i < g->nedges; i++) {
		long to = ring_port_find(b->r, g->edges[i].to, b->nm->edge_in[i]);

		if (b->r->ports[to].kind != ARG_INOUT)
			continue;
		for (size_t j = 0; j < g->nedges; j++) {
			if (j == i || g->edges[j].from != g->edges[i].from ||
			    strcmp(b->nm->edge_out[j], b->nm->edge_out[i]) != 0)
				continue;
			err_set(b->e,
			        "'%s' is an InOut stream of '%s': it would change in place the "
			        "data "
			        "that '%s' also sends to '%s' (line %d); give '%s' an Output of "
			        "its "
			        "own for each",
			        b->nm->edge_in[i], node_name(b, g->edges[i].to),
			        node_name(b, g->edges[i].from), node_name(b, g->edges[j].to),
			        g->edges[j].line, node_name(b, g->edges[i].from));
			return at_edge(b, i);
		}
	}
	return 0;
}

/* lag(v) = lag(u) + 1 over a feedback edge u -> v, else lag(u). Ports form trees under
 * their origins (each is fed once), so following fed_by ends at the origin. */
static int lag_of(struct builder *b, size_t pi, size_t *lag)
{
	const struct ring_port *rp = &b->r->ports[pi];
	size_t n = 0;

	for (long e = rp->fed_by; e >= 0;) {
		long up = ring_port_find(b->r, b->g->edges[e].from, b->nm->edge_out[e]);

		n += b->p->feedback[e] ? 1 : 0;
		e = b->r->ports[up].fed_by;
		if (n > 1) {
			err_set(b->e,
			        "'%s' of '%s' reads data from two feedback edges back (the item "
			        "before the previous one); the runner keeps initial data for one",
			        rp->stream, node_name(b, rp->node));
			return at_edge(b, (size_t)rp->fed_by);
		}
	}
	*lag = n;
	return 0;
}

static int time_ports(struct builder *b)
{
	struct ring_plan *r = b->r;

	for (size_t i = 0; i < r->nports; i++) {
		struct ring_port *rp = &r->ports[i];

		if (lag_of(b, i, &rp->lag))
			return -1;
		rp->step = b->p->depth[rp->node] + rp->lag * r->period;
	}
	for (size_t c = 0; c < r->nchans; c++) {
		struct ring_channel *ch = &r->chans[c];
		const struct ring_port *o = &r->ports[ch->origin];

		ch->first = ch->last = o->step;
		ch->read_only = o->entrance >= 0 && o->kind == ARG_INPUT;
		for (size_t i = 0; i < r->nports; i++)
			if (r->ports[i].chan == c && r->ports[i].step > ch->last)
				ch->last = r->ports[i].step;
		/* Item k + ring is written in step first + (k + ring) * period, strictly after
		 * item k's last use in step last + k * period. */
		ch->ring = (ch->last - ch->first) / r->period + 1;
	}
	for (size_t i = 0; i < b->g->nedges; i++) {
		long from = ring_port_find(r, b->g->edges[i].from, b->nm->edge_out[i]);
		long to = ring_port_find(r, b->g->edges[i].to, b->nm->edge_in[i]);
		struct ring_channel *ch = &r->chans[r->ports[to].chan];

		/* PEA-ST's stage property: a consumer runs after its producer. */
		if (r->ports[to].step <= r->ports[from].step) {
			err_set(b->e, "internal error: '%s' would run before the data it reads",
			        node_name(b, b->g->edges[i].to));
			return at_edge(b, i);
		}
		if (b->p->feedback[i]) {
			if (ch->init_edge < 0)
				ch->init_edge = (long)i;
			ch->nfeedback++;
		}
	}
	return 0;
}

int ring_plan_build(const struct graph *g, const struct peast_plan *p,
                    const struct graph_streams *names, stream_kind_fn kind, void *ctx,
                    struct ring_plan *out, struct cs_err *e)
{
	struct builder b = {g, p, names, kind, ctx, out, e, NULL, 0};
	int rc;

	memset(out, 0, sizeof(*out));
	out->period = p->nstages - p->nstartup;
	rc = add_edges(&b) || add_ports(&b) || find_origins(&b) || check_inout(&b) ||
	     time_ports(&b);
	free(b.parent);
	if (rc)
		ring_plan_free(out);
	return rc ? -1 : 0;
}

void ring_plan_free(struct ring_plan *r)
{
	free(r->ports);
	free(r->chans);
	memset(r, 0, sizeof(*r));
}

size_t ring_slot(const struct ring_plan *r, const struct ring_port *port, size_t item)
{
	size_t ring = r->chans[port->chan].ring;

	/* item - lag may be -1: the initial data in slot ring - 1. */
	return (item + ring - port->lag % ring) % ring;
}
