#include "model/exe.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/path.h"

int swap_method_parse(const char *s, enum swap_method *m)
{
	static const enum swap_method all[] = {SWAP_SWAP, SWAP_COPY_DEVICE, SWAP_COPY_HOST};

	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		if (strcmp(s, swap_method_name(all[i])) == 0) {
			*m = all[i];
			return 0;
		}
	}
	return -1;
}

static struct exe_bind *add_bind(struct exe *exe)
{
	exe->binds = xrealloc(exe->binds, (exe->nbinds + 1) * sizeof(*exe->binds));
	return memset(&exe->binds[exe->nbinds++], 0, sizeof(struct exe_bind));
}

static int read_source_elem(const struct xml_ctx *x, xmlNodePtr src, struct exe_bind *b)
{
	static const char *const datafile_attrs[] = {"columns", NULL};
	static const char *const fill_attrs[] = {"value", NULL};
	static const char *const none[] = {NULL};

	if (xml_is(src, "DataFile")) {
		char *text;

		b->how = BIND_FILE;
		if (xml_check_attrs(x, src, datafile_attrs))
			return -1;
		b->columns = xml_attr(src, "columns");
		text = xml_text(src, true);
		if (!text[0]) {
			free(text);
			return xml_err(x, src,
			               "empty file name (use '-' for standard input/output)");
		}
		b->path = path_join(x->dir, text);
		free(text);
		return 0;
	}
	if (xml_is(src, "Buffer")) {
		b->how = BIND_BUFFER;
		if (xml_check_attrs(x, src, none))
			return -1;
		b->buffer = xml_text(src, true);
		return b->buffer[0] ? 0 : xml_err(x, src, "empty virtual buffer name");
	}
	if (xml_is(src, "Fill")) {
		b->how = BIND_FILL;
		return xml_check_attrs(x, src, fill_attrs) || xml_check_no_text(x, src) ||
		       xml_attr_req(x, src, "value", &b->fill);
	}
	if (xml_is(src, "Discard")) {
		b->how = BIND_DISCARD;
		return xml_check_attrs(x, src, none) || xml_check_no_text(x, src);
	}
	return xml_unknown_child(
	        x, src, (const char *const[]){"DataFile", "Buffer", "Fill", "Discard", NULL});
}

static int read_binding(const struct xml_ctx *x, xmlNodePtr n, enum arg_kind kind, struct exe *exe)
{
	static const char *const attrs[] = {"name", NULL};
	struct exe_bind *b = add_bind(exe);
	xmlNodePtr src;

	b->kind = kind;
	b->origin = xasprintf("%s:%d", x->file, xml_line(n));
	if (xml_check_attrs(x, n, attrs) || xml_check_no_text(x, n) ||
	    xml_attr_req(x, n, "name", &b->stream))
		return -1;
	src = xml_child(n);
	if (!src)
		return xml_err(x, n,
		               "needs a <DataFile>, <Buffer>, <Fill value=\"...\"/> or "
		               "<Discard/> inside");
	if (xml_next(src))
		return xml_err(x, xml_next(src), "a stream takes one source or sink");
	return read_source_elem(x, src, b);
}

static int read_pair(const struct xml_ctx *x, xmlNodePtr n, struct exe *exe)
{
	static const char *const attrs[] = {"input", "output", NULL};
	struct exe_pair *p;

	if (!xml_is(n, "SwapPair"))
		return xml_unknown_child(x, n, (const char *const[]){"SwapPair", NULL});
	exe->pairs = xrealloc(exe->pairs, (exe->npairs + 1) * sizeof(*exe->pairs));
	p = memset(&exe->pairs[exe->npairs++], 0, sizeof(*p));
	p->line = xml_line(n);
	return xml_check_attrs(x, n, attrs) || xml_check_no_text(x, n) ||
	       xml_attr_req(x, n, "input", &p->input) || xml_attr_req(x, n, "output", &p->output);
}

static int read_swap(const struct xml_ctx *x, xmlNodePtr n, struct exe *exe)
{
	static const char *const attrs[] = {"count", "method", NULL};
	char *method;

	if (exe->has_swap)
		return xml_err(x, n, "given twice (first at line %d)", exe->swap_line);
	exe->has_swap = true;
	exe->swap_line = xml_line(n);
	if (xml_check_attrs(x, n, attrs) || xml_check_no_text(x, n) ||
	    xml_attr_req(x, n, "count", &exe->swap_count))
		return -1;
	method = xml_attr(n, "method");
	exe->swap_method = SWAP_SWAP;
	if (method && swap_method_parse(method, &exe->swap_method)) {
		xml_err(x, n, "unknown swap method '%s' (swap, copy-device or copy-host)", method);
		free(method);
		return -1;
	}
	free(method);
	for (xmlNodePtr c = xml_child(n); c; c = xml_next(c))
		if (read_pair(x, c, exe))
			return -1;
	if (!exe->npairs)
		return xml_err(x, n, "needs at least one <SwapPair input=\"...\" output=\"...\"/>");
	return 0;
}

static int read_flowmodel_elem(const struct xml_ctx *x, xmlNodePtr n, struct exe *exe)
{
	static const char *const attrs[] = {"file", "name", NULL};
	char *file;
	int rc;

	if (exe->fm)
		return xml_err(x, n, "an executable has one flow-model");
	if (xml_check_attrs(x, n, attrs))
		return -1;
	file = xml_attr(n, "file");
	if (!file)
		return flowmodel_from_node(x, n, &exe->fm);
	if (xml_child(n)) {
		free(file);
		return xml_err(x, n, "give the flow-model either in file= or inline, not both");
	}
	{
		char *path = path_join(x->dir, file);

		rc = flowmodel_read(path, &exe->fm, x->e);
		if (rc)
			err_prefix(x->e, "%s:%d: <FlowModel file=\"%s\">: ", x->file, xml_line(n),
			           file);
		free(path);
	}
	free(file);
	return rc;
}

static int read_device(const struct xml_ctx *x, xmlNodePtr n, struct exe *exe)
{
	static const char *const attrs[] = {"select", NULL};

	if (exe->device)
		return xml_err(x, n, "given twice");
	return xml_check_attrs(x, n, attrs) || xml_check_no_text(x, n) ||
	       xml_attr_req(x, n, "select", &exe->device);
}

static int read_exe_child(const struct xml_ctx *x, xmlNodePtr c, struct exe *exe)
{
	static const char *const kids[] = {"FlowModel", "Param", "Device", "Input",
	                                   "Output",    "InOut", "Swap",   NULL};

	if (xml_is(c, "FlowModel"))
		return read_flowmodel_elem(x, c, exe);
	if (xml_is(c, "Param"))
		return xml_read_param(x, c, &exe->params);
	if (xml_is(c, "Device"))
		return read_device(x, c, exe);
	if (xml_is(c, "Input"))
		return read_binding(x, c, ARG_INPUT, exe);
	if (xml_is(c, "Output"))
		return read_binding(x, c, ARG_OUTPUT, exe);
	if (xml_is(c, "InOut"))
		return read_binding(x, c, ARG_INOUT, exe);
	if (xml_is(c, "Swap"))
		return read_swap(x, c, exe);
	return xml_unknown_child(x, c, kids);
}

int exe_from_node(const struct xml_ctx *x, xmlNodePtr node, struct exe **out)
{
	static const char *const none[] = {NULL};
	struct exe *exe = xcalloc(1, sizeof(*exe));

	*out = NULL;
	exe->file = xstrdup(x->file);
	exe->dir = xstrdup(x->dir);
	exe->line = xml_line(node);
	if (xml_check_attrs(x, node, none) || xml_check_no_text(x, node))
		goto fail;
	for (xmlNodePtr c = xml_child(node); c; c = xml_next(c))
		if (read_exe_child(x, c, exe))
			goto fail;
	if (!exe->fm) {
		xml_err(x, node, "missing <FlowModel file=\"...\"/>");
		goto fail;
	}
	if (exe_check_bindings(exe, false, x->e))
		goto fail;
	*out = exe;
	return 0;
fail:
	exe_free(exe);
	return -1;
}

static int exe_from_root(const struct xml_ctx *x, xmlNodePtr root, void *out)
{
	return exe_from_node(x, root, out);
}

int exe_read(const char *path, struct exe **out, struct cs_err *e)
{
	*out = NULL;
	return xml_read_file(path, "CarshExe", exe_from_root, out, e);
}

struct exe *exe_wrap_flowmodel(struct flowmodel *fm)
{
	struct exe *exe = xcalloc(1, sizeof(*exe));

	exe->fm = fm;
	exe->file = xstrdup(fm->file);
	exe->dir = xstrdup(".");
	exe->line = fm->line;
	return exe;
}

struct exe *exe_wrap_shared_flowmodel(const struct flowmodel *fm)
{
	struct exe *exe = exe_wrap_flowmodel((struct flowmodel *)fm);

	exe->fm_borrowed = true;
	return exe;
}

static bool has_prefix(const char *s, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);

	if (strncmp(s, prefix, n) != 0)
		return false;
	*rest = s + n;
	return true;
}

/* FILE, or FILE,columns=EXPR: the <DataFile columns="EXPR"> of the command line (a PGM
 * image's width, a CSV's values per row). */
static void file_word(struct exe_bind *b, const char *value)
{
	const char *cols = strstr(value, ",columns=");
	const char *last = cols;

	while (last && (last = strstr(last + 1, ",columns=")) != NULL)
		cols = last;
	if (cols && cols > value && cols[9]) {
		b->path = xstrndup(value, (size_t)(cols - value));
		b->columns = xstrdup(cols + 9);
	} else {
		b->path = xstrdup(value);
	}
}

int exe_bind_word(struct exe *exe, const char *stream, const char *value, struct cs_err *e)
{
	const struct fm_arg *a = flowmodel_arg(exe->fm, stream, NULL);
	struct exe_bind *b;
	const char *rest;

	if (!a || !arg_is_stream(a->kind))
		return err_set(e, "'%s' is not a stream of %s", stream, exe->fm->file);
	b = add_bind(exe);
	b->stream = xstrdup(stream);
	b->kind = a->kind;
	b->origin = xstrdup("command line");
	if (has_prefix(value, "fill:", &rest)) {
		b->how = BIND_FILL;
		b->fill = xstrdup(rest);
	} else if (has_prefix(value, "buffer:", &rest)) {
		b->how = BIND_BUFFER;
		b->buffer = xstrdup(rest);
	} else if (strcmp(value, "discard") == 0) {
		b->how = BIND_DISCARD;
	} else if (!value[0]) {
		return err_set(e, "%s=: empty file name (use '-' for standard input/output)",
		               stream);
	} else {
		b->how = BIND_FILE;
		file_word(b, value);
	}
	return 0;
}

static int check_one(const struct exe *exe, const struct fm_arg *a, const struct exe_bind *b,
                     struct cs_err *e)
{
	const char *kind = arg_kind_name(a->kind);

	if (b->kind != a->kind)
		return err_set(e, "%s: '%s' is an %s stream of %s; bind it with <%s name=\"%s\">",
		               b->origin, b->stream, kind, exe->fm->file, kind, b->stream);
	if (b->how == BIND_DISCARD && a->kind != ARG_OUTPUT)
		return err_set(e, "%s: <Discard/> drops an Output; '%s' is an %s stream", b->origin,
		               b->stream, kind);
	return 0;
}

static const struct exe_bind *find_bind(const struct exe *exe, const char *stream, size_t from)
{
	for (size_t i = from; i < exe->nbinds; i++)
		if (strcmp(exe->binds[i].stream, stream) == 0)
			return &exe->binds[i];
	return NULL;
}

int exe_check_bindings(const struct exe *exe, bool from_line, struct cs_err *e)
{
	for (size_t i = 0; i < exe->nbinds; i++) {
		const struct exe_bind *b = &exe->binds[i];
		const struct fm_arg *a = flowmodel_arg(exe->fm, b->stream, NULL);

		if (!a || !arg_is_stream(a->kind))
			return err_set(e, "%s: '%s' is not a stream of %s", b->origin, b->stream,
			               exe->fm->file);
		if (find_bind(exe, b->stream, i + 1))
			return err_set(e, "%s: stream '%s' is bound twice",
			               find_bind(exe, b->stream, i + 1)->origin, b->stream);
		if (check_one(exe, a, b, e))
			return -1;
	}
	for (size_t i = 0; i < exe->fm->nargs; i++) {
		const struct fm_arg *a = &exe->fm->args[i];

		if (!arg_is_stream(a->kind) || find_bind(exe, a->name, 0))
			continue;
		if (from_line)
			return err_set(e,
			               "stream '%s' (%s of %s) is not bound: add %s=FILE, %s=- "
			               "or %s=%s to the command line",
			               a->name, arg_kind_name(a->kind), exe->fm->file, a->name,
			               a->name, a->name,
			               a->kind == ARG_OUTPUT ? "discard" : "fill:VALUE");
		return err_set(e,
		               "%s:%d: stream '%s' (%s of %s) is not bound: add <%s name=\"%s\"> "
		               "with a <DataFile>, <Buffer>%s",
		               exe->file, exe->line, a->name, arg_kind_name(a->kind), exe->fm->file,
		               arg_kind_name(a->kind), a->name,
		               a->kind == ARG_OUTPUT ? ", <Fill value=\"...\"/> or <Discard/>"
		                                     : " or <Fill value=\"...\"/>");
	}
	return 0;
}

void exe_free(struct exe *exe)
{
	if (!exe)
		return;
	for (size_t i = 0; i < exe->nbinds; i++) {
		struct exe_bind *b = &exe->binds[i];

		free(b->stream);
		free(b->path);
		free(b->columns);
		free(b->buffer);
		free(b->fill);
		free(b->origin);
	}
	for (size_t i = 0; i < exe->npairs; i++) {
		free(exe->pairs[i].input);
		free(exe->pairs[i].output);
	}
	free(exe->binds);
	free(exe->pairs);
	if (!exe->fm_borrowed)
		flowmodel_free(exe->fm);
	params_free(&exe->params);
	free(exe->file);
	free(exe->dir);
	free(exe->device);
	free(exe->swap_count);
	free(exe);
}
