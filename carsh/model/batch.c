#include "model/batch.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/path.h"

static int read_steps(const struct xml_ctx *x, xmlNodePtr parent, struct step **steps, size_t *n,
                      struct params *params);

static struct step *add_step(struct step **steps, size_t *n, enum step_kind kind, int line)
{
	struct step *s;

	*steps = xrealloc(*steps, (*n + 1) * sizeof(**steps));
	s = memset(&(*steps)[(*n)++], 0, sizeof(**steps));
	s->kind = kind;
	s->line = line;
	return s;
}

static int attr_path(const struct xml_ctx *x, xmlNodePtr n, char **out)
{
	char *file = xml_attr(n, "file");

	*out = NULL;
	if (!file)
		return 0;
	if (!file[0]) {
		free(file);
		return xml_err(x, n, "empty file name");
	}
	*out = path_join(x->dir, file);
	free(file);
	return 0;
}

static int parse_bool(const struct xml_ctx *x, xmlNodePtr n, const char *attr, bool *out)
{
	char *v = xml_attr(n, attr);
	int rc = 0;

	*out = false;
	if (!v)
		return 0;
	if (strcmp(v, "true") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "1") == 0)
		*out = true;
	else if (strcmp(v, "false") != 0 && strcmp(v, "no") != 0 && strcmp(v, "0") != 0)
		rc = xml_err(x, n, "%s must be true or false, not '%s'", attr, v);
	free(v);
	return rc;
}

/* <Exec rank="N"> or rank="auto" (docs/scale-out.md); STEP_RANK_NONE when not given. */
static int parse_rank(const struct xml_ctx *x, xmlNodePtr n, int *out)
{
	char *v = xml_attr(n, "rank"), *end = NULL;
	long r = -1;
	int rc = 0;

	*out = STEP_RANK_NONE;
	if (!v)
		return 0;
	if (strcmp(v, "auto") == 0)
		*out = STEP_RANK_AUTO;
	else if ((r = strtol(v, &end, 10)) < 0 || r > 1000000 || end == v || *end)
		rc = xml_err(x, n, "rank '%s': expected a rank number (0, 1, ...) or auto", v);
	else
		*out = (int)r;
	free(v);
	return rc;
}

static const struct {
	const char *name;
	enum vbuf_op op;
	const char *const attrs[6]; /* besides op */
	const char *required;       /* space-separated */
} vbuf_ops[] = {
        {"create", VB_CREATE, {"name", "type", "count", NULL}, "name type count"},
        {"fill", VB_FILL, {"name", "file", "value", NULL}, "name"},
        {"dump", VB_DUMP, {"name", "file", "columns", NULL}, "name"},
        {"swap", VB_SWAP, {"name", "with", NULL}, "name with"},
        {"delete", VB_DELETE, {"name", "all", NULL}, ""},
};

const char *vbuf_op_name(enum vbuf_op op)
{
	for (size_t k = 0; k < ARRAY_SIZE(vbuf_ops); k++)
		if (vbuf_ops[k].op == op)
			return vbuf_ops[k].name;
	return "?";
}

static int check_vbuf_attrs(const struct xml_ctx *x, xmlNodePtr n, size_t k)
{
	const char *allowed[8] = {"op"};
	char req[64], *save = NULL;

	memcpy(allowed + 1, vbuf_ops[k].attrs, sizeof(vbuf_ops[k].attrs));
	if (xml_check_attrs(x, n, allowed) || xml_check_no_text(x, n))
		return -1;
	snprintf(req, sizeof(req), "%s", vbuf_ops[k].required);
	for (char *a = strtok_r(req, " ", &save); a; a = strtok_r(NULL, " ", &save))
		if (!xmlHasProp(n, (const xmlChar *)a))
			return xml_err(x, n, "op=\"%s\" needs %s=\"...\"", vbuf_ops[k].name, a);
	return 0;
}

static int read_virtbuf(const struct xml_ctx *x, xmlNodePtr n, struct step *s)
{
	char *op;
	size_t k = 0;

	if (xml_attr_req(x, n, "op", &op))
		return -1;
	while (k < ARRAY_SIZE(vbuf_ops) && strcmp(op, vbuf_ops[k].name) != 0)
		k++;
	if (k == ARRAY_SIZE(vbuf_ops)) {
		xml_err(x, n, "unknown op '%s' (create, fill, dump, swap or delete)", op);
		free(op);
		return -1;
	}
	free(op);
	s->op = vbuf_ops[k].op;
	if (check_vbuf_attrs(x, n, k) || attr_path(x, n, &s->file) ||
	    parse_bool(x, n, "all", &s->all))
		return -1;
	s->name = xml_attr(n, "name");
	s->with = xml_attr(n, "with");
	s->type = xml_attr(n, "type");
	s->count = xml_attr(n, "count");
	s->value = xml_attr(n, "value");
	s->columns = xml_attr(n, "columns");
	if (s->op == VB_FILL && !s->file == !s->value)
		return xml_err(x, n, "op=\"fill\" takes either file= or value=");
	if (s->op == VB_DELETE && !s->name == !s->all)
		return xml_err(x, n, "op=\"delete\" takes either name= or all=\"true\"");
	return 0;
}

static int read_exec(const struct xml_ctx *x, xmlNodePtr n, struct step *s)
{
	static const char *const attrs[] = {"file", "background", "rank", NULL};
	xmlNodePtr inner = xml_child(n);

	if (xml_check_attrs(x, n, attrs) || xml_check_no_text(x, n) || attr_path(x, n, &s->file) ||
	    parse_bool(x, n, "background", &s->background) || parse_rank(x, n, &s->rank))
		return -1;
	if (s->file && inner)
		return xml_err(x, n, "give the executable either in file= or inline, not both");
	if (!s->file && !inner)
		return xml_err(x, n, "needs file=\"...\" or an inline <CarshExe>");
	if (!inner)
		return 0;
	if (!xml_is(inner, "CarshExe"))
		return xml_unknown_child(x, inner, (const char *const[]){"CarshExe", NULL});
	if (xml_next(inner))
		return xml_err(x, xml_next(inner), "an <Exec> holds one executable");
	return exe_from_node(x, inner, &s->exe);
}

static int read_text_step(const struct xml_ctx *x, xmlNodePtr n, struct step *s)
{
	static const char *const none[] = {NULL};

	if (xml_check_attrs(x, n, none))
		return -1;
	for (xmlNodePtr c = n->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE)
			return xml_err(x, c, "<%s> holds text only", (const char *)n->name);
	s->text = xml_text(n, true);
	if (s->kind == STEP_COMMAND && !s->text[0])
		return xml_err(x, n, "an empty command");
	return 0;
}

/* until= and max= (a loop that stops on a device result) instead of count=. */
static int read_until(const struct xml_ctx *x, xmlNodePtr n, struct step *s)
{
	char *text = xml_attr(n, "until");
	int rc;

	s->max = xml_attr(n, "max");
	if (!text && !s->count)
		return xml_err(x, n, "missing attribute 'count' (or until= with max=)");
	if (text && s->count) {
		free(text);
		return xml_err(x, n, "give count= or until=, not both");
	}
	if (!text)
		return s->max ? xml_err(x, n, "max= goes with until=") : 0;
	s->has_until = true;
	rc = until_parse(text, &s->until, x->e);
	free(text);
	if (rc)
		return xml_err(x, n, "%s", x->e->msg);
	if (!s->max)
		return xml_err(x, n, "until= needs max= (the most times the body runs)");
	return 0;
}

static int read_repeat(const struct xml_ctx *x, xmlNodePtr n, struct step *s)
{
	static const char *const attrs[] = {"count", "index", "until", "max", NULL};

	if (xml_check_attrs(x, n, attrs) || xml_check_no_text(x, n))
		return -1;
	s->count = xml_attr(n, "count");
	if (read_until(x, n, s))
		return -1;
	s->name = xml_attr(n, "index");
	if (s->name && !param_name_valid(s->name))
		return xml_err(x, n,
		               "index '%s' is not a parameter name (a letter or '_', then "
		               "letters, digits, '_')",
		               s->name);
	return read_steps(x, n, &s->steps, &s->nsteps, NULL);
}

static int read_nested(const struct xml_ctx *x, xmlNodePtr n, struct step *s)
{
	static const char *const attrs[] = {"file", NULL};

	if (xml_check_attrs(x, n, attrs) || xml_check_no_text(x, n) || attr_path(x, n, &s->file))
		return -1;
	if (!s->file)
		return xml_err(x, n, "missing attribute 'file'");
	for (xmlNodePtr c = xml_child(n); c; c = xml_next(c)) {
		if (!xml_is(c, "Param"))
			return xml_unknown_child(x, c, (const char *const[]){"Param", NULL});
		if (xml_read_param(x, c, &s->params))
			return -1;
	}
	return 0;
}

static const struct {
	const char *tag;
	enum step_kind kind;
	int (*read)(const struct xml_ctx *, xmlNodePtr, struct step *);
} step_tags[] = {
        {"Virtbuf", STEP_VIRTBUF, read_virtbuf},
        {"Exec", STEP_EXEC, read_exec},
        {"Sync", STEP_SYNC, NULL},
        {"Repeat", STEP_REPEAT, read_repeat},
        {"Batch", STEP_BATCH, read_nested},
        {"Command", STEP_COMMAND, read_text_step},
        {"Echo", STEP_ECHO, read_text_step},
};

const char *step_kind_tag(enum step_kind kind)
{
	for (size_t k = 0; k < ARRAY_SIZE(step_tags); k++)
		if (step_tags[k].kind == kind)
			return step_tags[k].tag;
	return "?";
}

static int read_step(const struct xml_ctx *x, xmlNodePtr c, struct step **steps, size_t *n)
{
	static const char *const kids[] = {"Param", "Virtbuf", "Exec", "Sync", "Repeat",
	                                   "Batch", "Command", "Echo", NULL};
	static const char *const none[] = {NULL};

	for (size_t k = 0; k < ARRAY_SIZE(step_tags); k++) {
		struct step *s;

		if (!xml_is(c, step_tags[k].tag))
			continue;
		s = add_step(steps, n, step_tags[k].kind, xml_line(c));
		if (!step_tags[k].read)
			return xml_check_attrs(x, c, none) || xml_check_no_text(x, c);
		return step_tags[k].read(x, c, s);
	}
	return xml_unknown_child(x, c, kids);
}

/* params is where top-level <Param>s go; NULL inside <Repeat>, where they are refused. */
static int read_steps(const struct xml_ctx *x, xmlNodePtr parent, struct step **steps, size_t *n,
                      struct params *params)
{
	for (xmlNodePtr c = xml_child(parent); c; c = xml_next(c)) {
		if (xml_is(c, "Param") && params) {
			if (xml_read_param(x, c, params))
				return -1;
		} else if (xml_is(c, "Param")) {
			return xml_err(x, c, "parameters belong at the top of the batch");
		} else if (read_step(x, c, steps, n)) {
			return -1;
		}
	}
	return 0;
}

int batch_from_node(const struct xml_ctx *x, xmlNodePtr node, struct batch **out)
{
	static const char *const attrs[] = {"name", NULL};
	struct batch *b = xcalloc(1, sizeof(*b));

	*out = NULL;
	b->file = xstrdup(x->file);
	b->dir = xstrdup(x->dir);
	if (xml_check_attrs(x, node, attrs) || xml_check_no_text(x, node) ||
	    read_steps(x, node, &b->steps, &b->nsteps, &b->params)) {
		batch_free(b);
		return -1;
	}
	*out = b;
	return 0;
}

static int batch_from_root(const struct xml_ctx *x, xmlNodePtr root, void *out)
{
	return batch_from_node(x, root, out);
}

int batch_read(const char *path, struct batch **out, struct cs_err *e)
{
	*out = NULL;
	return xml_read_file(path, "CarshBat", batch_from_root, out, e);
}

static void steps_free(struct step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct step *s = &steps[i];

		free(s->name);
		free(s->with);
		free(s->type);
		free(s->count);
		free(s->max);
		until_free(&s->until);
		free(s->value);
		free(s->columns);
		free(s->file);
		free(s->text);
		exe_free(s->exe);
		params_free(&s->params);
		steps_free(s->steps, s->nsteps);
	}
	free(steps);
}

void batch_free(struct batch *b)
{
	if (!b)
		return;
	steps_free(b->steps, b->nsteps);
	params_free(&b->params);
	free(b->file);
	free(b->dir);
	free(b);
}

#define DIR_PREFIX "${BATCH_DIR}"

/* A default that starts with ${BATCH_DIR} names a file shipped beside the batch, found from
 * any working directory; a value given by the caller stays relative to the current one. */
static void dir_defaults(const struct batch *b, struct params *dir)
{
	size_t n = strlen(DIR_PREFIX);

	for (size_t i = 0; i < b->params.n; i++) {
		const struct param *p = &b->params.v[i];
		char *v;

		if (strncmp(p->value, DIR_PREFIX, n) != 0)
			continue;
		v = xasprintf("%s%s", b->dir, p->value + n);
		params_set(dir, p->name, v, p->origin);
		free(v);
	}
}

void batch_scope(struct scope *sc, const struct params *args, const struct scope *caller,
                 const struct batch *b, struct params *dir)
{
	scope_init(sc);
	if (args)
		scope_push(sc, args);
	scope_append(sc, caller);
	params_set(dir, "BATCH_DIR", b->dir, b->file);
	dir_defaults(b, dir);
	scope_push(sc, dir);
	scope_push(sc, &b->params);
}
