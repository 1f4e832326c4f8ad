/* Struct layout as the device compiler computes it (data/record.h). */
#include "data/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

static size_t round_up(size_t n, size_t align)
{
	return (n + align - 1) / align * align;
}

size_t record_elem_size(struct cs_type t)
{
	return scalar_size(t.scalar) * (t.width == 3 ? 4 : t.width);
}

void record_init(struct cs_record *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->name = xstrdup(name);
	r->align = 1;
}

static void push(struct cs_record *r, char *name, struct cs_type t, size_t count, size_t offset)
{
	struct rec_field *f;

	r->fields = xrealloc(r->fields, (r->nfields + 1) * sizeof(*r->fields));
	f = &r->fields[r->nfields++];
	f->name = name;
	f->type = t;
	f->count = count;
	f->offset = offset;
}

void record_add(struct cs_record *r, const char *name, struct cs_type t, size_t count)
{
	size_t size = record_elem_size(t);
	size_t offset = round_up(r->size, size);

	push(r, xstrdup(name), t, count, offset);
	r->size = offset + size * count;
	if (size > r->align)
		r->align = size;
}

void record_add_record(struct cs_record *r, const char *name, const struct cs_record *inner,
                       size_t count)
{
	size_t base = round_up(r->size, inner->align);

	for (size_t k = 0; k < count; k++) {
		for (size_t i = 0; i < inner->nfields; i++) {
			const struct rec_field *f = &inner->fields[i];
			char *leaf = count == 1 ? xasprintf("%s.%s", name, f->name)
			                        : xasprintf("%s[%zu].%s", name, k, f->name);

			push(r, leaf, f->type, f->count, base + k * inner->size + f->offset);
		}
	}
	r->size = base + inner->size * count;
	if (inner->align > r->align)
		r->align = inner->align;
}

void record_finish(struct cs_record *r)
{
	r->size = round_up(r->size, r->align);
}

void record_copy(struct cs_record *dst, const struct cs_record *src)
{
	*dst = *src;
	dst->name = xstrdup(src->name);
	dst->fields = xcalloc(src->nfields ? src->nfields : 1, sizeof(*dst->fields));
	for (size_t i = 0; i < src->nfields; i++) {
		dst->fields[i] = src->fields[i];
		dst->fields[i].name = xstrdup(src->fields[i].name);
	}
}

void record_free(struct cs_record *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nfields; i++)
		free(r->fields[i].name);
	free(r->fields);
	free(r->name);
	memset(r, 0, sizeof(*r));
}

size_t record_components(const struct cs_record *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nfields; i++)
		n += r->fields[i].count * r->fields[i].type.width;
	return n;
}

const struct rec_field *record_component(const struct cs_record *r, size_t k, size_t *offset)
{
	for (size_t i = 0; i < r->nfields; i++) {
		const struct rec_field *f = &r->fields[i];
		size_t n = f->count * f->type.width;

		if (k < n) {
			*offset = f->offset + k / f->type.width * record_elem_size(f->type) +
			          k % f->type.width * scalar_size(f->type.scalar);
			return f;
		}
		k -= n;
	}
	return NULL;
}

char *record_field_list(const struct cs_record *r)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < r->nfields; i++)
		len += strlen(r->fields[i].name) + 2;
	s = xcalloc(len, 1);
	for (size_t i = 0; i < r->nfields; i++) {
		if (i)
			strcat(s, ", ");
		strcat(s, r->fields[i].name);
	}
	return s;
}
