/* The OpenCL element types (DESIGN §3.1): one table, names and sizes as in OpenCL C. */
#include "data/types.h"

#include <stdio.h>
#include <string.h>

#include "data/fill.h"
#include "util/alloc.h"

struct scalar_info {
	const char *name;
	size_t size;
	bool is_float;
	bool is_signed;
};

static const struct scalar_info scalars[SC_COUNT] = {
        [SC_CHAR] = {"char", 1, false, true},   [SC_UCHAR] = {"uchar", 1, false, false},
        [SC_SHORT] = {"short", 2, false, true}, [SC_USHORT] = {"ushort", 2, false, false},
        [SC_INT] = {"int", 4, false, true},     [SC_UINT] = {"uint", 4, false, false},
        [SC_LONG] = {"long", 8, false, true},   [SC_ULONG] = {"ulong", 8, false, false},
        [SC_FLOAT] = {"float", 4, true, true},  [SC_DOUBLE] = {"double", 8, true, true},
};

/* OpenCL also has width 3, but it is padded to 4 in memory; DESIGN §3.1 leaves it out. */
static const unsigned vector_widths[] = {2, 4, 8, 16};

const char *scalar_name(enum scalar s)
{
	return (unsigned)s < SC_COUNT ? scalars[s].name : "?";
}

size_t scalar_size(enum scalar s)
{
	return (unsigned)s < SC_COUNT ? scalars[s].size : 0;
}

bool scalar_is_float(enum scalar s)
{
	return (unsigned)s < SC_COUNT && scalars[s].is_float;
}

bool scalar_is_signed(enum scalar s)
{
	return (unsigned)s < SC_COUNT && scalars[s].is_signed;
}

size_t type_size(struct cs_type t)
{
	return scalar_size(t.scalar) * t.width;
}

const char *type_names(void)
{
	return "char uchar short ushort int uint long ulong float double";
}

static int scalar_lookup(const char *name, size_t len, enum scalar *s)
{
	for (int i = 0; i < SC_COUNT; i++) {
		if (strlen(scalars[i].name) == len && memcmp(scalars[i].name, name, len) == 0) {
			*s = (enum scalar)i;
			return 0;
		}
	}
	return -1;
}

/* The width suffix: "" for a scalar, else exactly one of vector_widths (no "04"). */
static int width_lookup(const char *suffix, unsigned *width)
{
	char text[8];

	if (*suffix == '\0') {
		*width = 1;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(vector_widths); i++) {
		snprintf(text, sizeof(text), "%u", vector_widths[i]);
		if (strcmp(text, suffix) == 0) {
			*width = vector_widths[i];
			return 0;
		}
	}
	return -1;
}

int type_parse(const char *name, struct cs_type *t, struct cs_err *e)
{
	size_t letters = strcspn(name, "0123456789");
	enum scalar s;
	unsigned width;

	if (scalar_lookup(name, letters, &s) == 0 && width_lookup(name + letters, &width) == 0) {
		t->scalar = s;
		t->width = width;
		return 0;
	}
	return err_set(e, "unknown type '%s' (types: %s, with widths 2 4 8 16)", name,
	               type_names());
}

const char *type_name(struct cs_type t, char *buf, size_t n)
{
	if (t.width == 1)
		snprintf(buf, n, "%s", scalar_name(t.scalar));
	else
		snprintf(buf, n, "%s%u", scalar_name(t.scalar), t.width);
	return buf;
}

void type_fill(struct cs_type t, void *dst, size_t n, const void *value)
{
	fill_bytes(dst, type_size(t), n, value);
}
