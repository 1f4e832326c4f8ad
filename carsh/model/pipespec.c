/* <CarshPipeline> reader (model/pipespec.h, docs/pipeline.md). */
#include "model/pipespec.h"

#include <stdlib.h>
#include <string.h>

#include "model/xml.h"
#include "util/alloc.h"
#include "util/path.h"

/* What the reader has seen so far, for the checks that span elements. */
struct reader {
	const struct xml_ctx *x;
	struct pipe_desc *p;
	int item_line, source_line, sink_line;
};

int pipe_desc_buffer(const struct pipe_desc *p, const char *name)
{
	for (size_t i = 0; i < p->nbufs; i++)
		if (strcmp(p->bufs[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* A path attribute joined to the pipeline's directory; absent is NULL, empty an error. */
static int attr_path(const struct xml_ctx *x, xmlNodePtr n, const char *attr, char **out)
{
	char *v = xml_attr(n, attr);

	*out = NULL;
	if (!v)
		return 0;
	if (!v[0]) {
		free(v);
		return xml_err(x, n, "%s=\"\": empty file name", attr);
	}
	*out = path_join(x->dir, v);
	free(v);
	return 0;
}

/* "the item has no buffer 'fram' (buffers: frame tmp out)". */
static int unknown_buffer(struct reader *r, xmlNodePtr n, const char *name)
{
	char list[512] = "";
	size_t len = 0;

	for (size_t i = 0; i < r->p->nbufs && len + 2 < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? " " : "",
		                        r->p->bufs[i].name);
	if (!r->item_line)
		return xml_err(r->x, n, "buffer '%s': the <Item> with the buffers must come first",
		               name);
	return xml_err(r->x, n, "the <Item> has no buffer '%s' (buffers: %s)", name, list);
}

static int read_buffer(struct reader *r, xmlNodePtr n)
{
	static const char *const attrs[] = {"name", "type", "count", NULL};
	struct pipe_buffer *b;
	char *type = NULL;
	int rc;

	if (xml_check_attrs(r->x, n, attrs) || xml_check_no_text(r->x, n))
		return -1;
	if (r->p->nbufs == PIPE_MAX_BUFFERS)
		return xml_err(r->x, n, "more than %d buffers in an item", PIPE_MAX_BUFFERS);
	r->p->bufs = xrealloc(r->p->bufs, (r->p->nbufs + 1) * sizeof(*r->p->bufs));
	b = memset(&r->p->bufs[r->p->nbufs++], 0, sizeof(*b));
	b->line = xml_line(n);
	if (xml_attr_req(r->x, n, "name", &b->name) || xml_attr_req(r->x, n, "type", &type) ||
	    xml_attr_req(r->x, n, "count", &b->count)) {
		free(type);
		return -1;
	}
	rc = type_parse(type, &b->type, r->x->e);
	free(type);
	if (rc)
		return xml_err(r->x, n, "%s", r->x->e->msg);
	if (!param_name_valid(b->name))
		return xml_err(r->x, n, "'%s' is not a valid buffer name", b->name);
	for (size_t i = 0; i + 1 < r->p->nbufs; i++)
		if (strcmp(r->p->bufs[i].name, b->name) == 0)
			return xml_err(r->x, n,
			               "a second buffer called '%s' (the first is on line %d)",
			               b->name, r->p->bufs[i].line);
	return 0;
}

static int read_item(struct reader *r, xmlNodePtr n)
{
	static const char *const none[] = {NULL};
	static const char *const kids[] = {"Buffer", NULL};

	if (r->item_line)
		return xml_err(r->x, n, "a second <Item> (the first is on line %d)", r->item_line);
	r->item_line = xml_line(n);
	if (xml_check_attrs(r->x, n, none) || xml_check_no_text(r->x, n))
		return -1;
	for (xmlNodePtr c = xml_child(n); c; c = xml_next(c)) {
		if (!xml_is(c, "Buffer"))
			return xml_unknown_child(r->x, c, kids);
		if (read_buffer(r, c))
			return -1;
	}
	if (r->p->nbufs == 0)
		return xml_err(r->x, n, "an item needs at least one <Buffer>");
	return 0;
}

static int read_source(struct reader *r, xmlNodePtr n)
{
	static const char *const attrs[] = {"buffer", "files", "generator", "count", NULL};
	struct pipe_source *s = &r->p->source;

	if (r->source_line)
		return xml_err(r->x, n, "a second <Source> (the first is on line %d)",
		               r->source_line);
	r->source_line = s->line = xml_line(n);
	if (xml_check_attrs(r->x, n, attrs) || xml_check_no_text(r->x, n) ||
	    xml_attr_req(r->x, n, "buffer", &s->buffer) || attr_path(r->x, n, "files", &s->files) ||
	    attr_path(r->x, n, "generator", &s->generator))
		return -1;
	s->count = xml_attr(n, "count");
	if (!s->files == !s->generator)
		return xml_err(r->x, n,
		               "give either files=\"PATTERN\" or generator=\"FM.xml\" "
		               "count=\"N\"");
	if (s->generator && !s->count)
		return xml_err(r->x, n, "a generator needs count=\"N\" (the number of items)");
	if (s->files && s->count)
		return xml_err(r->x, n,
		               "count= goes with generator=; with files= every matching "
		               "file is one item");
	if (pipe_desc_buffer(r->p, s->buffer) < 0)
		return unknown_buffer(r, n, s->buffer);
	return 0;
}

static int read_sink(struct reader *r, xmlNodePtr n)
{
	static const char *const attrs[] = {"buffer", "files", "columns", NULL};
	struct pipe_sink *s = &r->p->sink;

	if (r->sink_line)
		return xml_err(r->x, n, "a second <Sink> (the first is on line %d)", r->sink_line);
	r->sink_line = s->line = xml_line(n);
	if (xml_check_attrs(r->x, n, attrs) || xml_check_no_text(r->x, n) ||
	    xml_attr_req(r->x, n, "buffer", &s->buffer) || attr_path(r->x, n, "files", &s->files))
		return -1;
	if (!s->files)
		return xml_err(r->x, n, "missing attribute 'files'");
	s->columns = xml_attr(n, "columns");
	if (pipe_desc_buffer(r->p, s->buffer) < 0)
		return unknown_buffer(r, n, s->buffer);
	return 0;
}

static int read_bind(struct reader *r, struct pipe_stage *st, xmlNodePtr n)
{
	static const char *const attrs[] = {"stream", "buffer", NULL};
	struct pipe_bind *b;

	if (xml_check_attrs(r->x, n, attrs) || xml_check_no_text(r->x, n))
		return -1;
	st->binds = xrealloc(st->binds, (st->nbinds + 1) * sizeof(*st->binds));
	b = memset(&st->binds[st->nbinds++], 0, sizeof(*b));
	b->line = xml_line(n);
	if (xml_attr_req(r->x, n, "stream", &b->stream) ||
	    xml_attr_req(r->x, n, "buffer", &b->buffer))
		return -1;
	if (pipe_desc_buffer(r->p, b->buffer) < 0)
		return unknown_buffer(r, n, b->buffer);
	for (size_t i = 0; i + 1 < st->nbinds; i++) {
		if (strcmp(st->binds[i].stream, b->stream) == 0)
			return xml_err(r->x, n, "stream '%s' is bound twice (also on line %d)",
			               b->stream, st->binds[i].line);
		/* Two streams of one launch on one buffer would alias: an InOut says it. */
		if (strcmp(st->binds[i].buffer, b->buffer) == 0)
			return xml_err(
			        r->x, n,
			        "buffer '%s' is bound to stream '%s' too (line %d); a kernel that "
			        "reads and writes one buffer takes it as one InOut stream",
			        b->buffer, st->binds[i].stream, st->binds[i].line);
	}
	return 0;
}

static int read_gpu_attr(struct reader *r, xmlNodePtr n, struct pipe_stage *st)
{
	char *v = xml_attr(n, "gpu");
	int rc = 0;

	st->gpu = true;
	if (!v)
		return 0;
	if (strcmp(v, "no") == 0 || strcmp(v, "false") == 0)
		st->gpu = false;
	else if (strcmp(v, "yes") != 0 && strcmp(v, "true") != 0)
		rc = xml_err(r->x, n, "gpu must be yes or no, not '%s'", v);
	free(v);
	return rc;
}

static int read_stage(struct reader *r, xmlNodePtr n)
{
	static const char *const attrs[] = {"name", "flowmodel", "gpu", NULL};
	static const char *const kids[] = {"Bind", NULL};
	struct pipe_desc *p = r->p;
	struct pipe_stage *st;

	if (p->nstages == PIPE_MAX_STAGES)
		return xml_err(r->x, n, "more than %d stages (a mapping has one bit per stage)",
		               PIPE_MAX_STAGES);
	if (xml_check_attrs(r->x, n, attrs) || xml_check_no_text(r->x, n))
		return -1;
	p->stages = xrealloc(p->stages, (p->nstages + 1) * sizeof(*p->stages));
	st = memset(&p->stages[p->nstages++], 0, sizeof(*st));
	st->line = xml_line(n);
	if (xml_attr_req(r->x, n, "name", &st->name) ||
	    attr_path(r->x, n, "flowmodel", &st->flowmodel) || read_gpu_attr(r, n, st))
		return -1;
	if (!st->flowmodel)
		return xml_err(r->x, n, "missing attribute 'flowmodel'");
	for (size_t i = 0; i + 1 < p->nstages; i++)
		if (strcmp(p->stages[i].name, st->name) == 0)
			return xml_err(r->x, n,
			               "a second stage called '%s' (the first is on line %d)",
			               st->name, p->stages[i].line);
	for (xmlNodePtr c = xml_child(n); c; c = xml_next(c)) {
		if (!xml_is(c, "Bind"))
			return xml_unknown_child(r->x, c, kids);
		if (read_bind(r, st, c))
			return -1;
	}
	return 0;
}

static int read_children(struct reader *r, xmlNodePtr root)
{
	static const char *const kids[] = {"Param", "Item", "Source", "Stage", "Sink", NULL};

	for (xmlNodePtr c = xml_child(root); c; c = xml_next(c)) {
		int rc;

		if (xml_is(c, "Param"))
			rc = xml_read_param(r->x, c, &r->p->params);
		else if (xml_is(c, "Item"))
			rc = read_item(r, c);
		else if (xml_is(c, "Source"))
			rc = read_source(r, c);
		else if (xml_is(c, "Stage"))
			rc = read_stage(r, c);
		else if (xml_is(c, "Sink"))
			rc = read_sink(r, c);
		else
			rc = xml_unknown_child(r->x, c, kids);
		if (rc)
			return -1;
	}
	if (!r->item_line)
		return xml_err(r->x, root, "no <Item> (the buffers every item carries)");
	if (!r->source_line)
		return xml_err(r->x, root, "no <Source> (where the items come from)");
	if (r->p->nstages == 0)
		return xml_err(r->x, root, "no <Stage>");
	if (!r->sink_line)
		return xml_err(r->x, root, "no <Sink> (where the results go)");
	return 0;
}

static int pipe_desc_from_root(const struct xml_ctx *x, xmlNodePtr root, void *out)
{
	static const char *const attrs[] = {"name", NULL};
	struct pipe_desc *p = xcalloc(1, sizeof(*p));
	struct reader r = {x, p, 0, 0, 0};

	p->file = xstrdup(x->file);
	p->dir = xstrdup(x->dir);
	if (xml_check_attrs(x, root, attrs) || xml_check_no_text(x, root) ||
	    read_children(&r, root)) {
		pipe_desc_free(p);
		return -1;
	}
	p->name = xml_attr(root, "name");
	if (!p->name)
		p->name = xstrdup(path_basename(p->file));
	*(struct pipe_desc **)out = p;
	return 0;
}

int pipe_desc_read(const char *path, struct pipe_desc **out, struct cs_err *e)
{
	*out = NULL;
	return xml_read_file(path, "CarshPipeline", pipe_desc_from_root, out, e);
}

void pipe_desc_free(struct pipe_desc *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nbufs; i++) {
		free(p->bufs[i].name);
		free(p->bufs[i].count);
	}
	for (size_t i = 0; i < p->nstages; i++) {
		struct pipe_stage *st = &p->stages[i];

		for (size_t j = 0; j < st->nbinds; j++) {
			free(st->binds[j].stream);
			free(st->binds[j].buffer);
		}
		free(st->binds);
		free(st->name);
		free(st->flowmodel);
	}
	free(p->source.buffer);
	free(p->source.files);
	free(p->source.generator);
	free(p->source.count);
	free(p->sink.buffer);
	free(p->sink.files);
	free(p->sink.columns);
	free(p->bufs);
	free(p->stages);
	params_free(&p->params);
	free(p->name);
	free(p->file);
	free(p->dir);
	free(p);
}
