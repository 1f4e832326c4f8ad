#include "model/flowmodel.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "model/buildopts.h"
#include "model/fmimage.h"
#include "runtime/includes.h"
#include "util/alloc.h"
#include "util/path.h"

/* A relative kernel file not found from a flow-model that is a symbolic link: it was looked
 * for from the link's folder, which the user may not expect; say so, and name the target's
 * folder, where it may be. */
static void link_hint(const struct xml_ctx *x, const char *file)
{
	struct stat st;
	char *real, *msg, *slash;

	if (file[0] == '/' || lstat(x->file, &st) != 0 || !S_ISLNK(st.st_mode))
		return;
	real = realpath(x->file, NULL);
	if (!real)
		return;
	slash = strrchr(real, '/');
	if (slash)
		*slash = '\0';
	msg = xstrdup(x->e->msg);
	err_set(x->e,
	        "%s (%s is a symbolic link: relative paths in it start from the link's folder "
	        "'%s', not from its target's '%s')",
	        msg, x->file, x->dir, real[0] ? real : "/");
	free(msg);
	free(real);
}

static int read_runtime(const struct xml_ctx *x, xmlNodePtr n, struct flowmodel *fm)
{
	static const char *const attrs[] = {"device", NULL};
	static const char *const devices[] = {"any", "cpu", "gpu", "accelerator"};
	char *text;
	bool known = false;

	if (xml_check_attrs(x, n, attrs))
		return -1;
	text = xml_text(n, true);
	if (strcasecmp(text, "OpenCL") != 0) {
		xml_err(x, n, "unsupported runtime '%s' (carsh runs OpenCL)", text);
		free(text);
		return -1;
	}
	free(text);
	fm->device = xml_attr(n, "device");
	if (!fm->device)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(devices); i++)
		known = known || strcmp(fm->device, devices[i]) == 0;
	if (!known)
		return xml_err(x, n, "unknown device '%s' (expected any, cpu, gpu or accelerator)",
		               fm->device);
	return 0;
}

static int read_source(const struct xml_ctx *x, xmlNodePtr n, struct flowmodel *fm)
{
	static const char *const attrs[] = {"file", NULL};
	char *file, *path;

	if (xml_check_attrs(x, n, attrs))
		return -1;
	file = xml_attr(n, "file");
	if (!file) {
		fm->source = xml_text(n, false);
		fm->source_name = xasprintf("<inline in %s>", x->file);
		/* The text starts right after the start tag: on its line. */
		fm->source_line = xml_line(n);
	} else {
		if (xml_check_no_text(x, n)) {
			free(file);
			return xml_err(x, n, "give the kernel either in file= or inline, not both");
		}
		path = path_join(x->dir, file);
		fm->source_name = path;
		fm->source = file_read_text(path, NULL, x->e);
		if (!fm->source)
			link_hint(x, file);
		free(file);
		if (!fm->source)
			return err_prefix(x->e, "%s:%d: <Source>: ", x->file, xml_line(n));
	}
	if (strspn(fm->source, " \t\r\n") == strlen(fm->source))
		return xml_err(x, n, "the kernel source is empty");
	return 0;
}

/* The build options as the compiler gets them, and the files the source includes
 * (model/buildopts.h, runtime/includes.h). */
static int resolve_includes(const struct xml_ctx *x, xmlNodePtr n, struct flowmodel *fm)
{
	char *dir = fm->source_line ? xstrdup(fm->dir) : path_dirname(fm->source_name);
	char *options;
	struct rt_includes inc;
	int rc = buildopts_resolve(fm->build_options ? fm->build_options : "", dir, fm->source,
	                           &options, x->e);

	free(dir);
	if (rc)
		return err_prefix(x->e, "%s:%d: <Program>: ", x->file, xml_line(n));
	free(fm->build_options);
	fm->build_options = options;
	rt_includes_scan(fm->source, fm->build_options, &inc);
	fm->includes = inc.digest;
	fm->include_paths = inc.paths;
	fm->ninclude_paths = inc.npaths;
	return 0;
}

static int read_program(const struct xml_ctx *x, xmlNodePtr n, struct flowmodel *fm)
{
	static const char *const none[] = {NULL};
	static const char *const kids[] = {"Source", "Kernel", "BuildOptions", NULL};
	static const char *const kernel_attrs[] = {"name", NULL};

	if (xml_check_attrs(x, n, none) || xml_check_no_text(x, n))
		return -1;
	for (xmlNodePtr c = xml_child(n); c; c = xml_next(c)) {
		if (xml_is(c, "Source") && !fm->source) {
			if (read_source(x, c, fm))
				return -1;
		} else if (xml_is(c, "Kernel") && !fm->kernel) {
			if (xml_check_attrs(x, c, kernel_attrs) ||
			    xml_attr_req(x, c, "name", &fm->kernel))
				return -1;
			fm->kernel_line = xml_line(c);
		} else if (xml_is(c, "BuildOptions") && !fm->build_options) {
			if (xml_check_attrs(x, c, none))
				return -1;
			fm->build_options = xml_text(c, true);
			fm->options_line = xml_line(c);
		} else if (xml_is(c, "Source") || xml_is(c, "Kernel") ||
		           xml_is(c, "BuildOptions")) {
			return xml_err(x, c, "given twice in <Program>");
		} else {
			return xml_unknown_child(x, c, kids);
		}
	}
	if (!fm->source)
		return xml_err(x, n, "missing <Source> (a kernel file or inline source)");
	if (!fm->kernel)
		return xml_err(x, n, "missing <Kernel name=\"...\"/>");
	return resolve_includes(x, n, fm);
}

static int read_sizes(const struct xml_ctx *x, xmlNodePtr n, const char *attr, char **parts,
                      unsigned *dims)
{
	char *text = xml_attr(n, attr);
	int k;

	*dims = 0;
	if (!text || !text[strspn(text, " \t")]) {
		free(text);
		return 0;
	}
	k = split_top_level(text, parts, 3);
	free(text);
	if (k < 0)
		return xml_err(x, n, "%s= takes 1 to 3 comma-separated expressions", attr);
	*dims = (unsigned)k;
	return 0;
}

static int read_worksize(const struct xml_ctx *x, xmlNodePtr n, struct flowmodel *fm)
{
	static const char *const attrs[] = {"global", "local", NULL};

	fm->worksize_line = xml_line(n);
	if (xml_check_attrs(x, n, attrs) || xml_check_no_text(x, n) ||
	    read_sizes(x, n, "global", fm->global, &fm->dims) ||
	    read_sizes(x, n, "local", fm->local, &fm->local_dims))
		return -1;
	if (fm->local_dims == 1 && strcmp(fm->local[0], "device") == 0) {
		free(fm->local[0]);
		fm->local[0] = NULL;
		fm->local_dims = 0;
		fm->local_device = true;
	}
	if (fm->dims == 0)
		return xml_err(x, n, "missing attribute 'global' (1 to 3 work sizes)");
	if (fm->local_dims && fm->local_dims != fm->dims)
		return xml_err(x, n, "global has %u dimensions but local has %u", fm->dims,
		               fm->local_dims);
	return 0;
}

static const struct {
	const char *tag;
	enum arg_kind kind;
} arg_tags[] = {
        {"Input", ARG_INPUT},       {"Output", ARG_OUTPUT}, {"InOut", ARG_INOUT},
        {"Constant", ARG_CONSTANT}, {"Local", ARG_LOCAL},
};

static int read_partition(const struct xml_ctx *x, xmlNodePtr n, struct fm_arg *a)
{
	char *p = xml_attr(n, "partition");
	int rc = 0;

	/* Inputs are usually read at random, so every device needs all of them. */
	a->partition = a->kind == ARG_INPUT ? PART_COPY : PART_BLOCK;
	a->unit = xml_attr(n, "unit");
	if (!p)
		return 0;
	a->partition_given = true;
	if (strcmp(p, "block") == 0)
		a->partition = PART_BLOCK;
	else if (strcmp(p, "copy") == 0)
		a->partition = PART_COPY;
	else
		rc = xml_err(x, n, "partition must be 'block' or 'copy', not '%s'", p);
	free(p);
	return rc;
}

/* width= and the like belong to an image: on another stream they are a slip. */
static int xml_check_image_attrs(const struct xml_ctx *x, xmlNodePtr n)
{
	static const char *const image_only[] = {"width",  "height",   "depth",
	                                         "format", "channels", NULL};

	for (size_t i = 0; image_only[i]; i++)
		if (xmlHasProp(n, (const xmlChar *)image_only[i]))
			return xml_err(x, n, "%s= is for an image stream (add image=\"2d\")",
			               image_only[i]);
	return 0;
}

static int read_arg(const struct xml_ctx *x, xmlNodePtr n, enum arg_kind kind, struct fm_arg *a)
{
	static const char *const stream_attrs[] = {"name",  "type",   "count",    "partition",
	                                           "unit",  "image",  "width",    "height",
	                                           "depth", "format", "channels", NULL};
	static const char *const const_attrs[] = {"name", "type", "value", NULL};
	static const char *const local_attrs[] = {"name", "type", "count", NULL};
	const char *const *attrs = arg_is_stream(kind)    ? stream_attrs
	                           : kind == ARG_CONSTANT ? const_attrs
	                                                  : local_attrs;
	char *type = NULL;
	int rc = -1;

	a->kind = kind;
	a->line = xml_line(n);
	char pname[64];

	if (xml_check_attrs(x, n, attrs) || xml_check_no_text(x, n) ||
	    xml_attr_req(x, n, "name", &a->name))
		goto out;
	if (arg_is_stream(kind) && fm_is_image(n)) {
		rc = fm_read_image(x, n, a) || read_partition(x, n, a) ? -1 : 0;
		goto out;
	}
	if (xml_check_image_attrs(x, n) || xml_attr_req(x, n, "type", &type))
		goto out;
	if (strncmp(type, "struct ", 7) == 0) {
		/* Sized where the structs are resolved: they may come after <Arguments>. */
		a->struct_name = xstrdup(type + 7 + strspn(type + 7, " "));
		a->type = (struct cs_type){SC_UCHAR, 1};
	} else if (param_reference(type, pname, sizeof(pname))) {
		/* Resolved where the arguments are planned; float until the defaults are read. */
		a->type_param = xstrdup(pname);
		a->type = (struct cs_type){SC_FLOAT, 1};
	} else if (type_parse(type, &a->type, x->e)) {
		xml_err(x, n, "%s", x->e->msg);
		goto out;
	}
	if (kind == ARG_CONSTANT)
		rc = xml_attr_req(x, n, "value", &a->value);
	else
		rc = xml_attr_req(x, n, "count", &a->count);
	if (rc == 0 && arg_is_stream(kind))
		rc = read_partition(x, n, a);
out:
	free(type);
	return rc;
}

static int read_arguments(const struct xml_ctx *x, xmlNodePtr n, struct flowmodel *fm)
{
	static const char *const none[] = {NULL};
	static const char *const kids[] = {"Input", "Output",  "InOut", "Constant",
	                                   "Local", "Sampler", NULL};

	fm->args_line = xml_line(n);
	if (xml_check_attrs(x, n, none) || xml_check_no_text(x, n))
		return -1;
	for (xmlNodePtr c = xml_child(n); c; c = xml_next(c)) {
		size_t t = 0;
		struct fm_arg *a;
		const struct fm_arg *dup;

		while (t < ARRAY_SIZE(arg_tags) && !xml_is(c, arg_tags[t].tag))
			t++;
		if (t == ARRAY_SIZE(arg_tags) && !xml_is(c, "Sampler"))
			return xml_unknown_child(x, c, kids);
		fm->args = xrealloc(fm->args, (fm->nargs + 1) * sizeof(*fm->args));
		a = memset(&fm->args[fm->nargs++], 0, sizeof(*a));
		if (t == ARRAY_SIZE(arg_tags) ? fm_read_sampler(x, c, a)
		                              : read_arg(x, c, arg_tags[t].kind, a))
			return -1;
		dup = flowmodel_arg(fm, a->name, NULL);
		if (dup != a)
			return xml_err(x, c, "duplicate argument name '%s' (first at line %d)",
			               a->name, dup->line);
	}
	return 0;
}

static const struct fm_struct *find_struct(const struct flowmodel *fm, const char *name,
                                           size_t *index)
{
	for (size_t i = 0; i < fm->nstructs; i++) {
		if (strcmp(fm->structs[i].rec.name, name) == 0) {
			if (index)
				*index = i;
			return &fm->structs[i];
		}
	}
	return NULL;
}

/* count="4": a fixed array's length, a literal (the layout cannot wait for parameters). */
static int read_field_count(const struct xml_ctx *x, xmlNodePtr n, size_t *count)
{
	char *text = xml_attr(n, "count"), *end;
	unsigned long long v;
	int rc = 0;

	*count = 1;
	if (!text)
		return 0;
	v = strtoull(text, &end, 10);
	if (end == text || *end || text[0] == '-' || v == 0 || v > 65536)
		rc = xml_err(x, n,
		             "count=\"%s\": a fixed array's length is a number from 1 to 65536",
		             text);
	*count = (size_t)v;
	free(text);
	return rc;
}

static bool field_named(const struct cs_record *r, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < r->nfields; i++)
		if (strncmp(r->fields[i].name, name, len) == 0 &&
		    (r->fields[i].name[len] == '\0' || r->fields[i].name[len] == '.' ||
		     r->fields[i].name[len] == '['))
			return true;
	return false;
}

/* A field's type: a stream's, or a 3-wide vector ("float3"), which a struct may hold (it
 * takes the room of a 4-wide one) where a stream may not. */
static int field_type(const char *text, struct cs_type *t, struct cs_err *e)
{
	size_t len = strlen(text);
	char four[32];

	if (len > 1 && len < sizeof(four) && text[len - 1] == '3' &&
	    !isdigit((unsigned char)text[len - 2])) {
		memcpy(four, text, len);
		four[len - 1] = '4';
		four[len] = '\0';
		if (type_parse(four, t, e) == 0) {
			t->width = 3;
			return 0;
		}
	}
	return type_parse(text, t, e);
}

/* One <Field>: a scalar or a vector (at the next multiple of its size), a struct declared
 * before it (at a multiple of its largest field's size), or a fixed array of either. */
static int read_field(const struct xml_ctx *x, xmlNodePtr n, struct flowmodel *fm,
                      struct fm_struct *st)
{
	static const char *const attrs[] = {"name", "type", "count", NULL};
	char *name = NULL, *type = NULL;
	struct cs_type t;
	size_t count;
	int rc = -1;

	if (!xml_is(n, "Field"))
		return xml_unknown_child(x, n, (const char *const[]){"Field", NULL});
	if (xml_check_attrs(x, n, attrs) || xml_check_no_text(x, n) ||
	    xml_attr_req(x, n, "name", &name) || xml_attr_req(x, n, "type", &type) ||
	    read_field_count(x, n, &count))
		goto out;
	if (field_named(&st->rec, name)) {
		xml_err(x, n, "duplicate field name '%s'", name);
		goto out;
	}
	if (strncmp(type, "struct ", 7) == 0) {
		const char *inner = type + 7 + strspn(type + 7, " ");
		const struct fm_struct *in = find_struct(fm, inner, NULL);

		if (!in || in == st) {
			xml_err(x, n,
			        "no <Struct name=\"%s\"> before this field (a nested struct is "
			        "declared first)",
			        inner);
			goto out;
		}
		record_add_record(&st->rec, name, &in->rec, count);
	} else if (field_type(type, &t, x->e)) {
		xml_err(x, n, "%s", x->e->msg);
		goto out;
	} else {
		record_add(&st->rec, name, t, count);
	}
	rc = 0;
out:
	free(name);
	free(type);
	return rc;
}

static int read_struct(const struct xml_ctx *x, xmlNodePtr n, struct flowmodel *fm)
{
	static const char *const attrs[] = {"name", NULL};
	struct fm_struct *st;
	char *name = NULL;

	if (xml_check_attrs(x, n, attrs) || xml_check_no_text(x, n) ||
	    xml_attr_req(x, n, "name", &name))
		return -1;
	if (!param_name_valid(name) || find_struct(fm, name, NULL)) {
		xml_err(x, n,
		        find_struct(fm, name, NULL) ? "struct '%s' is declared twice"
		                                    : "'%s' is not a C identifier",
		        name);
		free(name);
		return -1;
	}
	fm->structs = xrealloc(fm->structs, (fm->nstructs + 1) * sizeof(*fm->structs));
	st = &fm->structs[fm->nstructs++];
	record_init(&st->rec, name);
	free(name);
	st->line = xml_line(n);
	for (xmlNodePtr c = xml_child(n); c; c = xml_next(c))
		if (read_field(x, c, fm, st))
			return -1;
	if (!st->rec.nfields)
		return xml_err(x, n,
		               "a struct needs at least one <Field name=\"...\" type=\"...\"/>");
	record_finish(&st->rec);
	return 0;
}

/* type="struct P" names a <Struct> of this flow-model, declared anywhere in it. A stream's
 * or a Local's elements are then P's bytes: uchar, as wide as the struct. */
static int resolve_structs(const struct xml_ctx *x, struct flowmodel *fm)
{
	for (size_t i = 0; i < fm->nargs; i++) {
		struct fm_arg *a = &fm->args[i];

		if (!a->struct_name)
			continue;
		if (!find_struct(fm, a->struct_name, &a->struct_index))
			return err_set(x->e,
			               "%s:%d: <%s name=\"%s\">: no <Struct name=\"%s\"> in %s",
			               x->file, a->line, arg_kind_name(a->kind), a->name,
			               a->struct_name, x->file);
		if (a->kind != ARG_CONSTANT)
			a->type = (struct cs_type){SC_UCHAR,
			                           (unsigned)fm->structs[a->struct_index].rec.size};
	}
	return 0;
}

static int read_child(const struct xml_ctx *x, xmlNodePtr c, struct flowmodel *fm, xmlNodePtr *seen)
{
	static const char *const kids[] = {"Param",     "RuntimeType", "Program", "WorkSize",
	                                   "Arguments", "Struct",      NULL};
	static int (*const readers[])(const struct xml_ctx *, xmlNodePtr, struct flowmodel *) = {
	        NULL, read_runtime, read_program, read_worksize, read_arguments,
	};

	if (xml_is(c, "Param"))
		return xml_read_param(x, c, &fm->params);
	if (xml_is(c, "Struct"))
		return read_struct(x, c, fm);
	for (size_t i = 1; kids[i]; i++) {
		if (!xml_is(c, kids[i]))
			continue;
		if (seen[i])
			return xml_err(x, c, "given twice (first at line %d)", xml_line(seen[i]));
		seen[i] = c;
		return readers[i](x, c, fm);
	}
	return xml_unknown_child(x, c, kids);
}

/* An argument typed by a parameter takes its default's type where the flow-model has a
 * valid one, for those that look at a flow-model without a scope (a graph's edge check). */
static void default_types(struct flowmodel *fm)
{
	for (size_t i = 0; i < fm->nargs; i++) {
		struct fm_arg *a = &fm->args[i];
		const struct param *p =
		        a->type_param ? params_get(&fm->params, a->type_param) : NULL;
		struct cs_err ignored;

		if (p)
			(void)type_parse(p->value, &a->type, &ignored);
	}
}

int fm_arg_type(const struct flowmodel *fm, const struct fm_arg *a, const struct scope *sc,
                struct cs_type *t, struct cs_err *e)
{
	const struct param *p;

	*t = a->type;
	if (!a->type_param)
		return 0;
	p = scope_get(sc, a->type_param);
	if (!p)
		err_set(e, "type ${%s}: no such parameter (give it a <Param> default)",
		        a->type_param);
	else if (type_parse(p->value, t, e))
		err_prefix(e, "type ${%s} is '%s': ", a->type_param, p->value);
	else
		return 0;
	return err_prefix(e, "%s:%d: <%s name=\"%s\">: ", fm->file, a->line, arg_kind_name(a->kind),
	                  a->name);
}

int fm_build_options(const struct flowmodel *fm, const struct scope *sc, char **out, bool *owned,
                     struct cs_err *e)
{
	*owned = false;
	*out = fm->build_options;
	if (!strstr(fm->build_options, "${"))
		return 0;
	if (scope_expand(sc, fm->build_options, out, e)) {
		*out = NULL;
		return err_prefix(e, "%s:%d: <BuildOptions>: ", fm->file, fm->options_line);
	}
	*owned = true;
	return 0;
}

int flowmodel_from_node(const struct xml_ctx *x, xmlNodePtr node, struct flowmodel **out)
{
	static const char *const attrs[] = {"name", NULL};
	xmlNodePtr seen[5] = {NULL};
	struct flowmodel *fm = xcalloc(1, sizeof(*fm));

	*out = NULL;
	fm->file = xstrdup(x->file);
	fm->dir = xstrdup(x->dir);
	fm->line = xml_line(node);
	if (xml_check_attrs(x, node, attrs) || xml_check_no_text(x, node))
		goto fail;
	fm->name = xml_attr(node, "name");
	if (!fm->name)
		fm->name = xstrdup(path_basename(x->file));
	for (xmlNodePtr c = xml_child(node); c; c = xml_next(c))
		if (read_child(x, c, fm, seen))
			goto fail;
	if (!seen[2]) {
		xml_err(x, node, "missing <Program> (the kernel's <Source> and <Kernel>)");
		goto fail;
	}
	if (!seen[3]) {
		xml_err(x, node, "missing <WorkSize global=\"...\"/>");
		goto fail;
	}
	if (!fm->build_options)
		fm->build_options = xstrdup("");
	default_types(fm);
	if (resolve_structs(x, fm))
		goto fail;
	*out = fm;
	return 0;
fail:
	flowmodel_free(fm);
	return -1;
}

static int flowmodel_from_root(const struct xml_ctx *x, xmlNodePtr root, void *out)
{
	return flowmodel_from_node(x, root, out);
}

int flowmodel_read(const char *path, struct flowmodel **out, struct cs_err *e)
{
	*out = NULL;
	return xml_read_file(path, "FlowModel", flowmodel_from_root, out, e);
}

const struct fm_arg *flowmodel_arg(const struct flowmodel *fm, const char *name, size_t *index)
{
	for (size_t i = 0; i < fm->nargs; i++) {
		if (fm->args[i].name && strcmp(fm->args[i].name, name) == 0) {
			if (index)
				*index = i;
			return &fm->args[i];
		}
	}
	return NULL;
}

void flowmodel_free(struct flowmodel *fm)
{
	if (!fm)
		return;
	for (size_t i = 0; i < fm->nargs; i++) {
		free(fm->args[i].name);
		free(fm->args[i].type_param);
		free(fm->args[i].struct_name);
		free(fm->args[i].count);
		free(fm->args[i].value);
		free(fm->args[i].unit);
		free(fm->args[i].width);
		free(fm->args[i].height);
		free(fm->args[i].depth);
	}
	for (int i = 0; i < 3; i++) {
		free(fm->global[i]);
		free(fm->local[i]);
	}
	free(fm->args);
	for (size_t i = 0; i < fm->nstructs; i++)
		record_free(&fm->structs[i].rec);
	free(fm->structs);
	params_free(&fm->params);
	free(fm->name);
	free(fm->file);
	free(fm->dir);
	free(fm->device);
	free(fm->source);
	free(fm->source_name);
	free(fm->kernel);
	free(fm->build_options);
	free(fm->includes);
	for (size_t i = 0; i < fm->ninclude_paths; i++)
		free(fm->include_paths[i]);
	free(fm->include_paths);
	free(fm);
}
