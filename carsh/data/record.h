/*
 * A struct as the OpenCL C compiler lays it out, flattened to its leaves: every scalar or
 * vector field, a fixed array's elements and a nested struct's fields, each with its offset.
 * A leaf sits at the next multiple of its alignment (a scalar's or a vector's size; a nested
 * struct's largest leaf), and the whole is padded to a multiple of its own alignment, as C99
 * and OpenCL C (6.1.5: a vector aligned to its size; long and double to 8) require.
 */
#ifndef CARSH_DATA_RECORD_H
#define CARSH_DATA_RECORD_H

#include <stddef.h>

#include "data/types.h"
#include "util/error.h"

struct rec_field {
	char *name; /* "starting", "pos.lat" in a nested struct */
	struct cs_type type;
	size_t count;  /* a fixed array's length; 1 for one element */
	size_t offset; /* of its first element */
};

struct cs_record {
	char *name; /* the struct's name, for messages ("struct Node") */
	struct rec_field *fields;
	size_t nfields;
	size_t size;  /* with the tail padding */
	size_t align; /* the largest leaf's alignment */
};

/* Bytes of one element of a field's type: a 3-wide vector takes the room (and the
 * alignment) of a 4-wide one, as OpenCL C 6.1.5 lays it out. */
size_t record_elem_size(struct cs_type t);

/* An empty record called name, ready for record_add. */
void record_init(struct cs_record *r, const char *name);
/* Append a field of count elements of t at the next multiple of its element size. */
void record_add(struct cs_record *r, const char *name, struct cs_type t, size_t count);
/* Append count copies of the struct inner (finished), at the next multiple of its
 * alignment, as leaves named "name.leaf" (count 1) or "name[k].leaf". */
void record_add_record(struct cs_record *r, const char *name, const struct cs_record *inner,
                       size_t count);
/* Pad the size to a multiple of the alignment: the record is then what sizeof gives. */
void record_finish(struct cs_record *r);
void record_copy(struct cs_record *dst, const struct cs_record *src);
void record_free(struct cs_record *r);

/* Scalars in one record: one CSV line's values. */
size_t record_components(const struct cs_record *r);
/* The leaf that holds component k (0-based) of a record, with the byte offset of that
 * component; k < record_components(r). */
const struct rec_field *record_component(const struct cs_record *r, size_t k, size_t *offset);
/* "starting, no_of_edges" (owned by the caller). */
char *record_field_list(const struct cs_record *r);

#endif
