#include "exec/planwire.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/* Bumped when the layout changes; the two ends are one build, so this is a guard only. */
#define PLANWIRE_VERSION 5

/* A field added to these structures must be added here too: the sizes on LP64 remind. */
#if __SIZEOF_POINTER__ == 8 && __SIZEOF_LONG__ == 8
_Static_assert(sizeof(struct kernel_arg) == 264, "kernel_arg changed: update planwire");
_Static_assert(sizeof(struct kernel_plan) == 216, "kernel_plan changed: update planwire");
/* stream_bind's file_map, like host_owned, belongs to the side that staged the data. */
_Static_assert(sizeof(struct stream_bind) == 208, "stream_bind changed: update planwire");
/* job_plan's on_end, on_end_arg, timeout_s, give_back and stamp stay with the shell that
 * placed the job: not sent. */
_Static_assert(sizeof(struct job_plan) == 288, "job_plan changed: update planwire");
#endif

/* A struct stream's layout: its name, size, alignment and leaves; a flag first. */
static void put_record(struct wbuf *w, const struct cs_record *r)
{
	wb_u32(w, r != NULL);
	if (!r)
		return;
	wb_str(w, r->name);
	wb_u64(w, r->size);
	wb_u64(w, r->align);
	wb_u64(w, r->nfields);
	for (size_t i = 0; i < r->nfields; i++) {
		wb_str(w, r->fields[i].name);
		wb_u32(w, r->fields[i].type.scalar);
		wb_u32(w, r->fields[i].type.width);
		wb_u64(w, r->fields[i].count);
		wb_u64(w, r->fields[i].offset);
	}
}

static void put_arg(struct wbuf *w, const struct kernel_arg *a)
{
	wb_u32(w, a->kind);
	wb_str(w, a->name);
	wb_u32(w, a->type.scalar);
	wb_u32(w, a->type.width);
	wb_u64(w, a->count);
	wb_u64(w, a->bytes);
	wb_bytes(w, a->value, sizeof(a->value));
	wb_i64(w, a->line);
	wb_str(w, a->count_expr);
	wb_u32(w, a->is_struct);
	wb_u32(w, a->image_dims);
	wb_u32(w, a->image_order);
	wb_u32(w, a->image_type);
	wb_u64(w, a->width);
	wb_u64(w, a->height);
	wb_u64(w, a->depth);
	wb_u32(w, a->is_sampler);
	wb_u32(w, a->sampler_normalized);
	wb_u32(w, a->sampler_address);
	wb_u32(w, a->sampler_filter);
	put_record(w, a->record);
}

static void put_bind(struct wbuf *w, const struct stream_bind *b)
{
	wb_u32(w, b->how);
	wb_str(w, b->path);
	wb_u64(w, b->columns);
	wb_u32(w, b->columns_given);
	wb_str(w, b->buffer);
	wb_str(w, b->shm);
	wb_bytes(w, b->fill, sizeof(b->fill));
}

/* Everything but the arguments, the binds and the pairs. */
static void put_plan_head(struct wbuf *w, const struct kernel_plan *kp)
{
	wb_str(w, kp->label);
	wb_str(w, kp->source);
	wb_str(w, kp->source_name);
	wb_str(w, kp->fm_file);
	wb_i64(w, kp->source_line);
	wb_i64(w, kp->kernel_line);
	wb_i64(w, kp->worksize_line);
	wb_i64(w, kp->args_line);
	wb_str(w, kp->kernel);
	wb_str(w, kp->build_options);
	wb_str(w, kp->includes);
	wb_u32(w, kp->dims);
	for (int d = 0; d < 3; d++)
		wb_u64(w, kp->global[d]);
	for (int d = 0; d < 3; d++)
		wb_u64(w, kp->local[d]);
	wb_u32(w, kp->has_local);
	wb_u32(w, kp->local_device);
	wb_i64(w, kp->swap_count);
	wb_u32(w, kp->swap_method);
	wb_str(w, kp->device_exe);
	wb_str(w, kp->device_cli);
	wb_str(w, kp->device_fm);
}

void planwire_encode(const struct job_plan *jp, struct wbuf *out)
{
	const struct kernel_plan *kp = &jp->kp;

	wb_u32(out, PLANWIRE_VERSION);
	put_plan_head(out, kp);
	wb_u64(out, kp->nargs);
	for (size_t i = 0; i < kp->nargs; i++)
		put_arg(out, &kp->args[i]);
	wb_u32(out, jp->binds != NULL);
	for (size_t i = 0; jp->binds && i < kp->nargs; i++)
		put_bind(out, &jp->binds[i]);
	wb_u64(out, kp->npairs);
	for (size_t i = 0; i < kp->npairs; i++) {
		wb_u64(out, kp->pairs[i].input);
		wb_u64(out, kp->pairs[i].output);
	}
}

/*
 * The decoder reads every field in order and checks each value's range as it goes. The
 * first value out of range is kept in `malformed` and makes the reader bad, so the reads
 * after it return zeros and allocate nothing; a value read from a reader already bad is a
 * consequence, not a finding.
 */
struct pw_dec {
	struct rbuf r;
	const char *malformed;
};

static bool refuse(struct pw_dec *d, bool wrong, const char *what)
{
	if (wrong && !d->r.bad) {
		d->malformed = what;
		d->r.bad = true;
	}
	return !wrong;
}

static uint32_t get_enum(struct pw_dec *d, uint32_t max, const char *what)
{
	uint32_t v = rb_u32(&d->r);

	return refuse(d, v > max, what) ? v : 0;
}

static bool get_bool(struct pw_dec *d, const char *what)
{
	return get_enum(d, 1, what) == 1;
}

static int get_int(struct pw_dec *d, const char *what)
{
	int64_t v = rb_i64(&d->r);

	return refuse(d, v < INT_MIN || v > INT_MAX, what) ? (int)v : 0;
}

/* A count of items of at least `least` bytes each. More than the rest of the message could
 * hold is a truncation, found before anything is allocated for them. */
static size_t get_count(struct pw_dec *d, size_t least)
{
	uint64_t n = rb_u64(&d->r);

	if (d->r.bad || n <= d->r.left / least)
		return (size_t)n;
	d->r.bad = true;
	d->r.left = 0;
	return 0;
}

static bool width_valid(uint32_t w)
{
	return w == 1 || w == 2 || w == 4 || w == 8 || w == 16;
}

static void get_type(struct pw_dec *d, struct cs_type *t)
{
	t->scalar = get_enum(d, SC_COUNT - 1, "argument type");
	t->width = rb_u32(&d->r); /* checked with the record, which may make it any size */
}

/* Each leaf inside the record, of a valid type: a layout the reader can trust. */
static struct cs_record *get_record(struct pw_dec *d)
{
	struct cs_record *r;
	size_t n;

	if (!get_bool(d, "record flag"))
		return NULL;
	r = xcalloc(1, sizeof(*r));
	r->name = rb_str(&d->r);
	r->size = rb_u64(&d->r);
	r->align = rb_u64(&d->r);
	n = get_count(d, 2 * sizeof(uint32_t) + 2 * sizeof(uint64_t));
	refuse(d, n == 0 || r->size == 0 || r->size > UINT32_MAX, "record size");
	if (d->r.bad)
		return r;
	r->fields = xcalloc(n, sizeof(*r->fields));
	r->nfields = n;
	for (size_t i = 0; i < n; i++) {
		struct rec_field *f = &r->fields[i];
		size_t bytes;

		f->name = rb_str(&d->r);
		f->type.scalar = get_enum(d, SC_COUNT - 1, "record field type");
		f->type.width = rb_u32(&d->r);
		f->count = rb_u64(&d->r);
		f->offset = rb_u64(&d->r);
		refuse(d,
		       (!width_valid(f->type.width) && f->type.width != 3) ||
		               size_mul(f->count, record_elem_size(f->type), &bytes) ||
		               f->offset > r->size || bytes > r->size - f->offset,
		       "record field");
	}
	return r;
}

static void get_arg(struct pw_dec *d, struct kernel_arg *a)
{
	a->kind = get_enum(d, ARG_LOCAL, "argument kind");
	a->name = rb_str(&d->r);
	get_type(d, &a->type);
	a->count = rb_u64(&d->r);
	a->bytes = rb_u64(&d->r);
	rb_bytes(&d->r, a->value, sizeof(a->value));
	a->line = get_int(d, "argument line");
	a->count_expr = rb_str(&d->r);
	a->is_struct = get_bool(d, "is_struct");
	a->image_dims = rb_u32(&d->r);
	refuse(d, a->image_dims == 1 || a->image_dims > 3, "image dimensions");
	a->image_order = rb_u32(&d->r);
	a->image_type = rb_u32(&d->r);
	a->width = rb_u64(&d->r);
	a->height = rb_u64(&d->r);
	a->depth = rb_u64(&d->r);
	a->is_sampler = get_bool(d, "is_sampler");
	a->sampler_normalized = get_bool(d, "sampler_normalized");
	a->sampler_address = rb_u32(&d->r);
	a->sampler_filter = rb_u32(&d->r);
	a->record = get_record(d);
	refuse(d, a->record ? a->type.width != a->record->size : !width_valid(a->type.width),
	       "argument type width");
	if (d->r.bad)
		a->type.width = 1;
}

static void get_bind(struct pw_dec *d, struct stream_bind *b)
{
	b->how = get_enum(d, BIND_DISCARD, "bind kind");
	b->path = rb_str(&d->r);
	b->columns = rb_u64(&d->r);
	b->columns_given = get_bool(d, "columns_given");
	b->buffer = rb_str(&d->r);
	b->shm = rb_str(&d->r);
	rb_bytes(&d->r, b->fill, sizeof(b->fill));
}

static void get_plan_head(struct pw_dec *d, struct kernel_plan *kp)
{
	kp->label = rb_str(&d->r);
	kp->source = rb_str(&d->r);
	kp->source_name = rb_str(&d->r);
	kp->fm_file = rb_str(&d->r);
	kp->source_line = get_int(d, "source line");
	kp->kernel_line = get_int(d, "kernel line");
	kp->worksize_line = get_int(d, "worksize line");
	kp->args_line = get_int(d, "arguments line");
	kp->kernel = rb_str(&d->r);
	kp->build_options = rb_str(&d->r);
	kp->includes = rb_str(&d->r);
	kp->dims = rb_u32(&d->r);
	refuse(d, kp->dims < 1 || kp->dims > 3, "dimensions");
	for (int k = 0; k < 3; k++)
		kp->global[k] = rb_u64(&d->r);
	for (int k = 0; k < 3; k++)
		kp->local[k] = rb_u64(&d->r);
	kp->has_local = get_bool(d, "has_local");
	kp->local_device = get_bool(d, "local_device");
	kp->swap_count = rb_i64(&d->r);
	kp->swap_method = get_enum(d, SWAP_COPY_HOST, "swap method");
	kp->device_exe = rb_str(&d->r);
	kp->device_cli = rb_str(&d->r);
	kp->device_fm = rb_str(&d->r);
}

/* The arguments and their binds. The arrays are allocated before they are read, at sizes
 * bounded by the message, so job_plan_free frees what was read at any point. */
static void get_args(struct pw_dec *d, struct job_plan *jp)
{
	struct kernel_plan *kp = &jp->kp;
	size_t n = get_count(d, sizeof(kp->args->value));

	if (n > 0)
		kp->args = xcalloc(n, sizeof(*kp->args));
	kp->nargs = n;
	for (size_t i = 0; i < n; i++)
		get_arg(d, &kp->args[i]);
	if (get_bool(d, "binds flag") && n > 0)
		jp->binds = xcalloc(n, sizeof(*jp->binds));
	for (size_t i = 0; jp->binds && i < n; i++)
		get_bind(d, &jp->binds[i]);
}

static void get_pairs(struct pw_dec *d, struct kernel_plan *kp)
{
	size_t n = get_count(d, 2 * sizeof(uint64_t));

	if (n == 0)
		return;
	kp->pairs = xcalloc(n, sizeof(*kp->pairs));
	kp->npairs = n;
	for (size_t i = 0; i < n; i++) {
		uint64_t in = rb_u64(&d->r), out = rb_u64(&d->r);

		refuse(d, in >= kp->nargs || out >= kp->nargs, "swap pair index");
		kp->pairs[i].input = (size_t)in;
		kp->pairs[i].output = (size_t)out;
	}
}

static int decode_error(const struct pw_dec *d, struct cs_err *e)
{
	if (d->malformed)
		return err_set(e, "job plan message: malformed %s", d->malformed);
	if (d->r.bad && d->r.left > 0)
		return err_set(e, "job plan message: malformed string (a NUL byte inside)");
	if (d->r.bad)
		return err_set(e, "job plan message: truncated");
	return err_set(e, "job plan message: malformed end (%zu bytes after the plan)", d->r.left);
}

int planwire_decode(const void *buf, size_t len, struct job_plan **out, struct cs_err *e)
{
	struct pw_dec d = {rb_init(buf, len), NULL};
	struct job_plan *jp = xcalloc(1, sizeof(*jp));

	refuse(&d, rb_u32(&d.r) != PLANWIRE_VERSION, "version (of another build)");
	get_plan_head(&d, &jp->kp);
	get_args(&d, jp);
	get_pairs(&d, &jp->kp);
	if (d.r.bad || d.r.left > 0) {
		job_plan_free(jp);
		*out = NULL;
		return decode_error(&d, e);
	}
	*out = jp;
	return 0;
}
