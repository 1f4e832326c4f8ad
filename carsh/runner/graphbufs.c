/* A graph run's rings of virtual buffers (runner/graphrun-int.h). */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "data/datafile.h"
#include "runner/buffers.h"
#include "runner/graphrun-int.h"
#include "runner/run.h"
#include "util/alloc.h"
#include "util/path.h"

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
	if (fm_arg_type(exe->fm, a, &sc, t, r->e))
		return -1;
	*count = (size_t)n;
	/* A struct stream's buffer holds its bytes, as the planner binds it. */
	if (a->struct_name) {
		*count *= t->width;
		*t = (struct cs_type){SC_UCHAR, 1};
	}
	return 0;
}

/* The struct of a port's stream, or NULL. */
static const struct cs_record *port_record(const struct grun *r, const struct ring_port *p)
{
	const struct flowmodel *fm = r->nodes[p->node].exe->fm;
	const struct fm_arg *a = flowmodel_arg(fm, p->stream, NULL);

	return a->struct_name ? &fm->structs[a->struct_index].rec : NULL;
}

/* A struct stream's buffer holds the records' bytes: it enters or leaves the graph as a raw
 * file, or starts as zeros. */
static int struct_data(struct grun *r, const struct ring_port *p, const struct graph_data *d,
                       const char *what)
{
	const struct cs_record *rec = port_record(r, p);
	enum data_format f = DF_RAW;

	if (!rec || (d->file && datafile_format(d->file, &f, r->e) == 0 && f == DF_RAW) ||
	    (!d->file && (!d->value || strcmp(d->value, "0") == 0)))
		return 0;
	return err_set(r->e,
	               "%s:%d: %s %s.%s: the stream is of struct %s, whose data a graph carries "
	               "as raw files (.raw, .bin) or value=\"0\"",
	               r->g->file, d->line, what, grun_node_name(r, p->node), p->stream, rec->name);
}

static int check_struct_data(struct grun *r)
{
	for (size_t i = 0; i < r->g->nentrances; i++) {
		long p = ring_port_find(&r->rp, r->g->entrances[i].node, r->names.entrance[i]);

		if (struct_data(r, &r->rp.ports[p], &r->entrance[i], "entrance"))
			return -1;
	}
	for (size_t i = 0; i < r->g->nexits; i++) {
		long p = ring_port_find(&r->rp, r->g->exits[i].node, r->names.exit[i]);

		if (r->exit[i].file && struct_data(r, &r->rp.ports[p], &r->exit[i], "exit"))
			return -1;
	}
	for (size_t c = 0; c < r->rp.nchans; c++) {
		const struct graph_data *d;

		if (r->rp.chans[c].nfeedback == 0)
			continue;
		if (grun_check_init(r, c, &d))
			return -1;
		if (d && struct_data(r, &r->rp.ports[r->rp.chans[c].origin], d, "initial data of"))
			return -1;
	}
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
			        r->g->file, grun_node_name(r, o->node), o->stream, count,
			        type_name(t, tn, sizeof(tn)), grun_node_name(r, p->node), p->stream,
			        pc, type_name(pt, ptn, sizeof(ptn)));
	}
	r->buf[c] = xcalloc(ch->ring + 1, sizeof(char *));
	for (size_t s = 0; s < ch->ring; s++) {
		char *name =
		        xasprintf("%s%s.%s.%zu", prefix, grun_node_name(r, o->node), o->stream, s);

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

void grun_delete_buffers(struct grun *r)
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

static int fill(struct grun *r, const char *buffer, const struct graph_data *d, size_t item)
{
	char *path = d->file ? grun_item_path(d->file, item) : NULL;
	int rc = r->here ? buffers_fill_here(&r->c, buffer, path, path ? NULL : d->value, r->e)
	         : path  ? buffers_fill_file(&r->c, buffer, path, r->e)
	                 : buffers_fill_value(&r->c, buffer, d->value, r->e);

	free(path);
	return rc;
}

/* Before the first step: the buffers, the data that serve every item, the initial data. */
int grun_prepare(struct grun *r)
{
	char prefix[32];

	snprintf(prefix, sizeof(prefix), "_g%u.", atomic_fetch_add(&run_counter, 1) + 1);
	r->buf = xcalloc(r->rp.nchans + 1, sizeof(*r->buf));
	r->constant = xcalloc(r->rp.nchans + 1, sizeof(*r->constant));
	for (size_t c = 0; c < r->rp.nchans; c++)
		if (create_channel(r, c, prefix))
			return -1;
	if (check_struct_data(r))
		return -1;
	for (size_t i = 0; i < r->g->nentrances; i++) {
		long p = ring_port_find(&r->rp, r->g->entrances[i].node, r->names.entrance[i]);
		size_t c = r->rp.ports[p].chan;

		r->constant[c] = r->rp.chans[c].read_only && !grun_has_pattern(&r->entrance[i]) &&
		                 !path_is_stdio(r->entrance[i].file ? r->entrance[i].file : "");
		if (r->constant[c] && fill(r, r->buf[c][0], &r->entrance[i], 0))
			return err_prefix(r->e, "%s: entrance %s.%s: ", r->g->file,
			                  grun_node_name(r, r->g->entrances[i].node),
			                  r->names.entrance[i]);
	}
	for (size_t c = 0; c < r->rp.nchans; c++) {
		const struct graph_edge *ed =
		        &r->g->edges[r->rp.chans[c].init_edge < 0 ? 0 : r->rp.chans[c].init_edge];
		const struct graph_data *d;

		if (r->rp.chans[c].nfeedback == 0)
			continue;
		if (grun_check_init(r, c, &d))
			return -1;
		if (fill(r, r->buf[c][r->rp.chans[c].ring - 1], d, 0))
			return err_prefix(
			        r->e,
			        "%s:%d: <Edge from=\"%s\" to=\"%s\">: initial data: ", r->g->file,
			        ed->line, grun_node_name(r, ed->from), grun_node_name(r, ed->to));
	}
	return 0;
}

/* ---- the runs ---- */

int grun_fill_entrance(struct grun *r, size_t i, size_t item)
{
	size_t node = r->g->entrances[i].node;
	long p = ring_port_find(&r->rp, node, r->names.entrance[i]);
	size_t c = r->rp.ports[p].chan;

	if (!r->constant[c] &&
	    fill(r, r->buf[c][ring_slot(&r->rp, &r->rp.ports[p], item)], &r->entrance[i], item))
		return err_prefix(r->e, "entrance %s.%s, item %zu: ", grun_node_name(r, node),
		                  r->names.entrance[i], item);
	return 0;
}

int grun_fill_entrances(struct grun *r, size_t node, size_t item)
{
	for (size_t i = 0; i < r->g->nentrances; i++)
		if (r->g->entrances[i].node == node && grun_fill_entrance(r, i, item))
			return -1;
	return 0;
}

bool grun_exit_dumped(const struct grun *r, size_t i, size_t item)
{
	return r->exit[i].file && (item + 1) % (size_t)r->g->exits[i].limit == 0;
}

const char *grun_exit_buffer(const struct grun *r, size_t i, size_t item)
{
	long p = ring_port_find(&r->rp, r->g->exits[i].node, r->names.exit[i]);

	return r->buf[r->rp.ports[p].chan][ring_slot(&r->rp, &r->rp.ports[p], item)];
}

int grun_dump_exit(struct grun *r, size_t i, size_t item)
{
	const struct graph_data *d = &r->exit[i];
	long long cols = 0;
	char *path;
	int rc;

	if (d->columns &&
	    scope_eval_range(r->c.caller, d->columns, "--columns", 1, INT64_MAX, &cols, r->e)) {
		err_prefix(r->e, "virtbuf dump: ");
		rc = -1;
	} else {
		const char *b = grun_exit_buffer(r, i, item);

		path = grun_item_path(d->file, item);
		rc = r->here ? buffers_dump_here(&r->c, b, path, (size_t)cols, r->e)
		             : buffers_dump(&r->c, b, path, (size_t)cols, r->e);
		free(path);
	}
	if (rc)
		return err_prefix(r->e,
		                  "exit %s.%s, item %zu: ", grun_node_name(r, r->g->exits[i].node),
		                  r->names.exit[i], item);
	return 0;
}

int grun_dump_exits(struct grun *r, size_t node, size_t item)
{
	for (size_t i = 0; i < r->g->nexits; i++)
		if (r->g->exits[i].node == node && grun_exit_dumped(r, i, item) &&
		    grun_dump_exit(r, i, item))
			return -1;
	return 0;
}

/* Start node's run for item as a background job, its ports bound to the item's slots. */
int grun_start_run(struct grun *r, size_t node, size_t item)
{
	struct node_run *nr = &r->nodes[node];
	char *label;
	int rc;

	for (size_t k = 0; k < nr->nports; k++) {
		const struct ring_port *p = &r->rp.ports[nr->ports[k]];

		free(nr->binds[k]->buffer);
		nr->binds[k]->buffer = xstrdup(r->buf[p->chan][ring_slot(&r->rp, p, item)]);
	}
	label = xasprintf("%s#%zu %s", grun_node_name(r, node), item, nr->label);
	r->c.background = true;
	r->c.rank = nr->rank;
	rc = run_exe(&r->c, nr->exe, NULL, label, r->e);
	r->c.background = false;
	r->c.rank = 0;
	free(label);
	r->tm.jobs++;
	return rc;
}
