#include "model/planner.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/fexpr.h"
#include "util/alloc.h"

struct planner {
	const struct exe *exe;
	const struct flowmodel *fm;
	const struct plan_env *env;
	struct scope scope;
	struct job_plan *jp;
	struct cs_err *e;
	bool sizes_only; /* plan_flowmodel: no stream bound, each only sized */
};

/* "fm.xml:12: <Input name="x">: " in front of the current message. */
static int arg_error(struct planner *p, const struct fm_arg *a)
{
	return err_prefix(p->e, "%s:%d: <%s name=\"%s\">: ", p->fm->file, a->line,
	                  arg_kind_name(a->kind), a->name);
}

static int eval_worksize(struct planner *p)
{
	const struct flowmodel *fm = p->fm;
	struct kernel_plan *kp = &p->jp->kp;

	kp->dims = fm->dims;
	kp->has_local = fm->local_dims > 0;
	kp->local_device = fm->local_device;
	for (unsigned d = 0; d < fm->dims; d++) {
		long long g, l = 1;

		if (scope_eval_range(&p->scope, fm->global[d], "global work size", 1, INT64_MAX, &g,
		                     p->e) ||
		    (kp->has_local && scope_eval_range(&p->scope, fm->local[d], "local work size",
		                                       1, INT64_MAX, &l, p->e)))
			return err_prefix(p->e, "%s:%d: <WorkSize>: ", fm->file, fm->worksize_line);
		if (g % l)
			return err_set(p->e,
			               "%s:%d: <WorkSize>: work size %lld is not divisible by "
			               "local size %lld in dimension %u",
			               fm->file, fm->worksize_line, g, l, d);
		kp->global[d] = (size_t)g;
		kp->local[d] = (size_t)l;
	}
	return 0;
}

/* A component of a by-value constant: a parameter's value, or the text itself. */
static const char *component_text(struct planner *p, const char *text)
{
	const struct param *par = scope_get(&p->scope, text);

	return par ? par->value : text;
}

/* A floating component: a number, a parameter's, or an expression such as 1.0/N computed in
 * double and then rounded to the component's type. */
static int parse_float(struct planner *p, enum scalar s, const char *text, void *dst)
{
	double v;

	if (!fexpr_has_operator(text))
		return number_parse(s, component_text(p, text), dst, p->e);
	if (scope_eval_float(&p->scope, text, &v, p->e))
		return -1;
	if (s == SC_FLOAT) {
		float f = (float)v;

		memcpy(dst, &f, sizeof(f));
	} else {
		memcpy(dst, &v, sizeof(v));
	}
	return 0;
}

/* Integer components may be expressions over parameters; float ones are numbers, names or
 * floating expressions. */
static int parse_component(struct planner *p, enum scalar s, const char *text, void *dst)
{
	char num[32];
	long long v;

	if (scalar_is_float(s))
		return parse_float(p, s, text, dst);
	if (scope_eval(&p->scope, text, &v, p->e))
		return -1;
	snprintf(num, sizeof(num), "%lld", v);
	return number_parse(s, num, dst, p->e);
}

/* "1,2,3,4" (or one value for every component) into one element of type t. */
static int parse_element(struct planner *p, struct cs_type t, const char *text, unsigned char *dst)
{
	char *parts[16];
	size_t ss = scalar_size(t.scalar);
	int n = split_top_level(text, parts, 16);
	int rc = 0;

	if (n != 1 && n != (int)t.width) {
		char tn[16];

		for (int i = 0; i < n; i++)
			free(parts[i]);
		return err_set(p->e, "'%s' has %d values, %s needs %u (or 1)", text, n < 0 ? 17 : n,
		               type_name(t, tn, sizeof(tn)), t.width);
	}
	for (unsigned i = 0; i < t.width && rc == 0; i++)
		rc = parse_component(p, t.scalar, parts[n == 1 ? 0 : i], dst + i * ss);
	for (int i = 0; i < n; i++)
		free(parts[i]);
	return rc;
}

/* A struct value: its fields' components in order, comma-separated, each placed at its
 * field's offset in dst (r->size bytes, at most TYPE_MAX_BYTES); the padding is zero. With
 * one_for_all, a single value fills every component (a <Fill>, as for a vector). */
static int parse_record(struct planner *p, const struct cs_record *r, const char *text,
                        bool one_for_all, unsigned char *dst)
{
	char *parts[TYPE_MAX_BYTES];
	size_t want = record_components(r);
	int n, rc = 0;

	n = split_top_level(text, parts, TYPE_MAX_BYTES);
	if (n != (int)want && !(one_for_all && n == 1)) {
		for (int i = 0; i < n; i++)
			free(parts[i]);
		return err_set(p->e,
		               "'%s' has %s%d values, struct %s needs %zu (its fields' components "
		               "in order%s)",
		               text, n < 0 ? "more than " : "", n < 0 ? TYPE_MAX_BYTES : n, r->name,
		               want, one_for_all ? ", or 1 for all" : "");
	}
	memset(dst, 0, r->size);
	for (size_t k = 0; k < want && rc == 0; k++) {
		size_t offset;
		const struct rec_field *fd = record_component(r, k, &offset);

		rc = parse_component(p, fd->type.scalar, parts[n == 1 ? 0 : k], dst + offset);
		if (rc)
			err_prefix(p->e, "field '%s': ", fd->name);
	}
	for (int i = 0; i < n; i++)
		free(parts[i]);
	return rc;
}

/* A struct Constant, or one element of a struct stream's fill: at most TYPE_MAX_BYTES. */
static int parse_struct(struct planner *p, const struct cs_record *r, const char *text,
                        unsigned char *dst, bool fill)
{
	if (r->size > TYPE_MAX_BYTES)
		return err_set(p->e, "struct %s is %zu bytes; %s holds at most %d", r->name,
		               r->size, fill ? "a <Fill> value" : "a Constant", TYPE_MAX_BYTES);
	return parse_record(p, r, text, fill, dst);
}

/* An image's size: width and height, each at least 1; its count follows from them. */
static int eval_image(struct planner *p, const struct fm_arg *a, struct kernel_arg *ka)
{
	long long w, h, d = 1;

	if (scope_eval_range(&p->scope, a->width, "width", 1, INT64_MAX, &w, p->e) ||
	    scope_eval_range(&p->scope, a->height, "height", 1, INT64_MAX, &h, p->e) ||
	    (a->depth && scope_eval_range(&p->scope, a->depth, "depth", 1, INT64_MAX, &d, p->e)))
		return arg_error(p, a);
	ka->image_dims = a->image_dims;
	ka->image_order = a->image_order;
	ka->image_type = a->image_type;
	ka->width = (size_t)w;
	ka->height = (size_t)h;
	ka->depth = (size_t)d;
	return 0;
}

static int eval_arg(struct planner *p, const struct fm_arg *a, struct kernel_arg *ka)
{
	bool kept = p->jp->kp.source_kept;
	long long count;

	ka->kind = a->kind;
	ka->name = kept ? a->name : xstrdup(a->name);
	if (fm_arg_type(p->fm, a, &p->scope, &ka->type, p->e))
		return -1;
	ka->line = a->line;
	if (a->count)
		ka->count_expr = kept ? a->count : xstrdup(a->count);
	if (a->is_sampler) {
		ka->is_sampler = true;
		ka->sampler_normalized = a->sampler_normalized;
		ka->sampler_address = a->sampler_address;
		ka->sampler_filter = a->sampler_filter;
		ka->bytes = sizeof(void *); /* a cl_sampler */
		return 0;
	}
	if (a->image_dims && eval_image(p, a, ka))
		return -1;
	if (a->struct_name && a->kind == ARG_CONSTANT) {
		const struct cs_record *r = &p->fm->structs[a->struct_index].rec;

		ka->bytes = r->size;
		ka->is_struct = true;
		memset(ka->value, 0, sizeof(ka->value));
		return parse_struct(p, r, a->value, ka->value, false) ? arg_error(p, a) : 0;
	}
	if (a->struct_name) {
		ka->record = xmalloc(sizeof(*ka->record));
		record_copy(ka->record, &p->fm->structs[a->struct_index].rec);
	}
	if (a->kind == ARG_CONSTANT) {
		ka->bytes = type_size(ka->type);
		return parse_element(p, ka->type, a->value, ka->value) ? arg_error(p, a) : 0;
	}
	if (scope_eval_range(&p->scope, a->count, "count", 1, INT64_MAX, &count, p->e))
		return arg_error(p, a);
	ka->count = (size_t)count;
	if ((unsigned long long)count > SIZE_MAX ||
	    size_mul(ka->count, type_size(ka->type), &ka->bytes))
		return err_set(p->e, "%s:%d: <%s name=\"%s\">: count %lld is too large",
		               p->fm->file, a->line, arg_kind_name(a->kind), a->name, count);
	return 0;
}

static const struct exe_bind *binding_of(const struct exe *exe, const char *stream)
{
	for (size_t i = 0; i < exe->nbinds; i++)
		if (strcmp(exe->binds[i].stream, stream) == 0)
			return &exe->binds[i];
	return NULL;
}

static int bind_file(struct planner *p, const struct exe_bind *b, const struct kernel_arg *ka,
                     struct stream_bind *sb)
{
	/* An image's rows are the file's: a PGM needs no columns= */
	long long cols = ka->image_dims ? (long long)(ka->width * ka->type.width) : ka->type.width;

	sb->path = xstrdup(b->path);
	if (b->columns &&
	    scope_eval_range(&p->scope, b->columns, "columns", 1, INT64_MAX, &cols, p->e))
		return err_prefix(p->e, "%s: <DataFile>: ", b->origin);
	sb->columns = (size_t)cols;
	sb->columns_given = b->columns != NULL || ka->image_dims;
	return 0;
}

static int bind_stream(struct planner *p, const struct kernel_arg *ka, struct stream_bind *sb)
{
	const struct exe_bind *b;

	if (p->sizes_only) {
		sb->how = BIND_DISCARD;
		return 0;
	}
	b = binding_of(p->exe, ka->name);
	sb->how = b->how;
	switch (b->how) {
	case BIND_FILE:
		return bind_file(p, b, ka, sb);
	case BIND_FILL:
		if (ka->record ? parse_struct(p, ka->record, b->fill, sb->fill, true)
		               : parse_element(p, ka->type, b->fill, sb->fill))
			return err_prefix(p->e, "%s: <Fill>: ", b->origin);
		return 0;
	case BIND_BUFFER:
		sb->buffer = xstrdup(b->buffer);
		if (!p->env->resolve)
			return err_set(p->e, "%s: <Buffer>: virtual buffers are not available here",
			               b->origin);
		/* A struct stream's buffer holds its bytes: uchar, count times the struct's size.
		 */
		if (p->env->resolve(p->env->resolve_ctx, b->buffer,
		                    ka->record ? (struct cs_type){SC_UCHAR, 1} : ka->type,
		                    ka->record ? ka->bytes : ka->count, &sb->shm, p->e))
			return err_prefix(p->e, "%s: stream '%s': ", b->origin, ka->name);
		return 0;
	case BIND_DISCARD:
		return 0;
	}
	return 0;
}

static int find_stream(struct planner *p, const char *name, int line, size_t *idx)
{
	const struct fm_arg *a = flowmodel_arg(p->fm, name, idx);

	if (!a || !arg_is_stream(a->kind))
		return err_set(p->e, "%s:%d: <SwapPair>: '%s' is not a stream of %s", p->exe->file,
		               line, name, p->fm->file);
	return 0;
}

static int plan_pair(struct planner *p, const struct exe_pair *ep, struct swap_pair_idx *out)
{
	struct kernel_plan *kp = &p->jp->kp;
	const struct kernel_arg *in, *o;

	if (find_stream(p, ep->input, ep->line, &out->input) ||
	    find_stream(p, ep->output, ep->line, &out->output))
		return -1;
	in = &kp->args[out->input];
	o = &kp->args[out->output];
	if (in->kind == ARG_OUTPUT)
		return err_set(p->e, "%s:%d: <SwapPair>: input '%s' is an Output stream",
		               p->exe->file, ep->line, in->name);
	if (o->kind == ARG_INPUT)
		return err_set(p->e, "%s:%d: <SwapPair>: output '%s' is an Input stream",
		               p->exe->file, ep->line, o->name);
	if (out->input == out->output)
		return err_set(p->e, "%s:%d: <SwapPair>: a stream cannot pair with itself",
		               p->exe->file, ep->line);
	if (in->bytes != o->bytes)
		return err_set(p->e,
		               "%s:%d: <SwapPair>: '%s' has %zu bytes but '%s' has %zu; the "
		               "streams of a pair must have the same size",
		               p->exe->file, ep->line, in->name, in->bytes, o->name, o->bytes);
	return 0;
}

static int pair_overlap(struct planner *p, size_t i)
{
	const struct kernel_plan *kp = &p->jp->kp;
	const struct swap_pair_idx *a = &kp->pairs[i];

	for (size_t j = 0; j < i; j++) {
		const struct swap_pair_idx *b = &kp->pairs[j];

		if (a->input == b->input || a->input == b->output || a->output == b->input ||
		    a->output == b->output)
			return err_set(p->e, "%s:%d: <SwapPair>: a stream is in two swap pairs",
			               p->exe->file, p->exe->pairs[i].line);
	}
	return 0;
}

static int plan_swap(struct planner *p)
{
	struct kernel_plan *kp = &p->jp->kp;
	long long count;

	if (!p->exe->has_swap)
		return 0;
	if (scope_eval_range(&p->scope, p->exe->swap_count, "swap count", 0, INT64_MAX - 1, &count,
	                     p->e))
		return err_prefix(p->e, "%s:%d: <Swap>: ", p->exe->file, p->exe->swap_line);
	kp->swap_count = count;
	kp->swap_method = p->exe->swap_method;
	kp->pairs = xcalloc(p->exe->npairs, sizeof(*kp->pairs));
	kp->npairs = p->exe->npairs;
	for (size_t i = 0; i < kp->npairs; i++)
		if (plan_pair(p, &p->exe->pairs[i], &kp->pairs[i]) || pair_overlap(p, i))
			return -1;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* The build options with this run's parameters: a changed value is another program, since
 * the options are part of every program cache's key. */
static int plan_options(struct planner *p)
{
	struct kernel_plan *kp = &p->jp->kp;
	char *options;
	bool owned;

	if (fm_build_options(p->fm, &p->scope, &options, &owned, p->e))
		return -1;
	if (!owned && kp->source_kept) {
		kp->build_options = options;
		return 0;
	}
	kp->build_options = owned ? options : xstrdup(options);
	kp->options_owned = true;
	return 0;
}

static void plan_program(struct planner *p)
{
	struct kernel_plan *kp = &p->jp->kp;
	const struct flowmodel *fm = p->fm;

	kp->label = xstrdup(p->exe->file);
	kp->source_kept = p->env->source_from_cache;
	if (kp->source_kept) {
		kp->source = fm->source;
		kp->source_name = fm->source_name;
		kp->kernel = fm->kernel;
		kp->includes = fm->includes;
		kp->fm_file = fm->file;
	} else {
		kp->source = xstrdup(fm->source);
		kp->source_name = xstrdup(fm->source_name);
		kp->kernel = xstrdup(fm->kernel);
		kp->includes = dup_or_null(fm->includes);
		kp->fm_file = xstrdup(fm->file);
	}
	kp->source_line = fm->source_line;
	kp->kernel_line = fm->kernel_line;
	kp->worksize_line = fm->worksize_line;
	kp->args_line = fm->args_line;
	kp->device_exe = dup_or_null(p->exe->device);
	kp->device_cli = dup_or_null(p->env->device_cli);
	kp->device_fm = dup_or_null(fm->device);
}

static int plan_args(struct planner *p)
{
	struct kernel_plan *kp = &p->jp->kp;

	kp->nargs = p->fm->nargs;
	kp->args = xcalloc(kp->nargs ? kp->nargs : 1, sizeof(*kp->args));
	p->jp->binds = xcalloc(kp->nargs ? kp->nargs : 1, sizeof(*p->jp->binds));
	for (size_t i = 0; i < kp->nargs; i++) {
		if (eval_arg(p, &p->fm->args[i], &kp->args[i]))
			return -1;
		if (arg_is_stream(kp->args[i].kind) &&
		    bind_stream(p, &kp->args[i], &p->jp->binds[i]))
			return -1;
	}
	return 0;
}

/* The work-items a launch spans: the product of the global sizes (each at most INT64_MAX). */
static unsigned long long work_items(const struct kernel_plan *kp, bool *overflow)
{
	unsigned long long n = 1;

	*overflow = false;
	for (unsigned d = 0; d < kp->dims; d++) {
		if (kp->global[d] && n > ULLONG_MAX / kp->global[d])
			*overflow = true;
		n *= kp->global[d];
	}
	return n;
}

/* A stream written partition="block" (or given a unit) says work-item i owns elements
 * i*unit to i*unit+unit-1: a launch of more work-items than the stream holds blocks would
 * touch memory past its end (a worker hung or aborted so), so it is refused here, before
 * the kernel runs. A stream left to the default layout is not checked: a histogram's or a
 * reduction's output is smaller than its launch. */
static int check_block(struct planner *p, const struct fm_arg *a, const struct kernel_arg *ka)
{
	long long unit = 1;
	bool overflow;
	unsigned long long items = work_items(&p->jp->kp, &overflow);

	if (a->partition != PART_BLOCK || (!a->partition_given && !a->unit))
		return 0;
	if (a->unit && scope_eval_range(&p->scope, a->unit, "unit", 1, INT32_MAX, &unit, p->e))
		return arg_error(p, a);
	if (!overflow && items <= ULLONG_MAX / (unsigned long long)unit &&
	    items * (unsigned long long)unit <= ka->count)
		return 0;
	return err_set(p->e,
	               "%s:%d: <%s name=\"%s\">: partition=\"block\" with unit=%lld: the "
	               "launch of %llu work-items needs %llu x %lld elements, the stream has "
	               "%zu (make count at least the global size times the unit)",
	               p->fm->file, a->line, arg_kind_name(a->kind), a->name, unit, items, items,
	               unit, ka->count);
}

static int plan_blocks(struct planner *p)
{
	const struct kernel_plan *kp = &p->jp->kp;

	for (size_t i = 0; i < kp->nargs; i++)
		if (arg_is_stream(kp->args[i].kind) &&
		    check_block(p, &p->fm->args[i], &kp->args[i]))
			return -1;
	return 0;
}

static int plan(struct planner *p, const struct exe *exe, const struct plan_env *env,
                struct job_plan **out)
{
	*out = NULL;
	scope_init(&p->scope);
	scope_push(&p->scope, &exe->params);
	if (env->caller)
		scope_append(&p->scope, env->caller);
	scope_push(&p->scope, &exe->fm->params);
	p->jp = xcalloc(1, sizeof(*p->jp));
	plan_program(p);
	if (plan_options(p) || eval_worksize(p) || plan_args(p) || plan_blocks(p) || plan_swap(p)) {
		job_plan_free(p->jp);
		return -1;
	}
	*out = p->jp;
	return 0;
}

int plan_exe(const struct exe *exe, const struct plan_env *env, struct job_plan **out,
             struct cs_err *e)
{
	struct planner p = {exe, exe->fm, env, {{NULL}, 0}, NULL, e, false};

	return plan(&p, exe, env, out);
}

/* The flow-model as an executable of no binding of its own: its parameters in the
 * executable's scope (the strongest), its file for messages. */
int plan_flowmodel(const struct flowmodel *fm, const struct params *params,
                   const struct plan_env *env, struct job_plan **out, struct cs_err *e)
{
	struct exe exe = {.file = fm->file,
	                  .dir = ".",
	                  .line = fm->line,
	                  .fm = (struct flowmodel *)fm,
	                  .fm_borrowed = true,
	                  .params = *params};
	struct planner p = {&exe, fm, env, {{NULL}, 0}, NULL, e, true};

	return plan(&p, &exe, env, out);
}
