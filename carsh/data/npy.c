/*
 * The .npy header: a small reader of the one Python dict literal numpy writes (strings,
 * True/False, tuples of integers), strict about everything else, and the writer of the
 * same. Format: numpy's NEP 1 ("A simple file format for NumPy arrays").
 */
#include "data/npy.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"

static const char magic[NPY_MAGIC_LEN] = "\x93NUMPY";

/* numpy's dtype string of each scalar kind, in enum scalar's order. */
static const char *const descrs[SC_COUNT] = {"|i1", "|u1", "<i2", "<u2", "<i4",
                                             "<u4", "<i8", "<u8", "<f4", "<f8"};

const char *npy_descr(enum scalar s)
{
	return descrs[s];
}

int npy_header_size(const unsigned char *p, size_t have, size_t *size, struct cs_err *e)
{
	size_t prelude, dict;

	if (have < NPY_MAGIC_LEN + 2 || memcmp(p, magic, NPY_MAGIC_LEN) != 0)
		return err_set(e, "not a .npy file (no \\x93NUMPY magic)");
	if (p[6] < 1 || p[6] > 3)
		return err_set(e, "unsupported .npy version %u.%u", p[6], p[7]);
	prelude = p[6] == 1 ? 10 : 12;
	if (have < prelude)
		return err_set(e, "truncated .npy header (%zu bytes)", have);
	dict = p[8] | (size_t)p[9] << 8;
	if (p[6] > 1)
		dict |= (size_t)p[10] << 16 | (size_t)p[11] << 24;
	if (dict > NPY_DICT_MAX)
		return err_set(e, ".npy header of %zu bytes: longer than %d", dict, NPY_DICT_MAX);
	*size = prelude + dict;
	return 0;
}

/* A cursor over the dict, for messages by byte offset. */
struct cursor {
	const unsigned char *p;
	size_t at, end;
	struct cs_err *e;
};

static void skip_blanks(struct cursor *c)
{
	while (c->at < c->end && (c->p[c->at] == ' ' || c->p[c->at] == '\n'))
		c->at++;
}

static int expect(struct cursor *c, char ch)
{
	skip_blanks(c);
	if (c->at >= c->end || c->p[c->at] != (unsigned char)ch)
		return err_set(c->e, "bad .npy header: expected '%c' at byte %zu", ch, c->at);
	c->at++;
	return 0;
}

static bool peek(struct cursor *c, char ch)
{
	skip_blanks(c);
	return c->at < c->end && c->p[c->at] == (unsigned char)ch;
}

/* A Python string in ' or " quotes, no escapes (numpy writes none in these keys/values). */
static int read_string(struct cursor *c, char *out, size_t cap)
{
	unsigned char q;
	size_t n = 0;

	skip_blanks(c);
	if (c->at >= c->end || (c->p[c->at] != '\'' && c->p[c->at] != '"'))
		return err_set(c->e, "bad .npy header: expected a string at byte %zu", c->at);
	q = c->p[c->at++];
	while (c->at < c->end && c->p[c->at] != q) {
		if (c->p[c->at] == '\\' || n + 1 >= cap)
			return err_set(c->e, "bad .npy header: unexpected string at byte %zu",
			               c->at);
		out[n++] = (char)c->p[c->at++];
	}
	if (c->at >= c->end)
		return err_set(c->e, "bad .npy header: unterminated string");
	c->at++;
	out[n] = '\0';
	return 0;
}

static int read_bool(struct cursor *c, bool *v)
{
	skip_blanks(c);
	if (c->end - c->at >= 4 && memcmp(c->p + c->at, "True", 4) == 0) {
		*v = true;
		c->at += 4;
		return 0;
	}
	if (c->end - c->at >= 5 && memcmp(c->p + c->at, "False", 5) == 0) {
		*v = false;
		c->at += 5;
		return 0;
	}
	return err_set(c->e, "bad .npy header: expected True or False at byte %zu", c->at);
}

static int read_dim(struct cursor *c, size_t *v)
{
	size_t n = 0;
	size_t start;

	skip_blanks(c);
	start = c->at;
	while (c->at < c->end && c->p[c->at] >= '0' && c->p[c->at] <= '9') {
		if (n > (SIZE_MAX - 9) / 10)
			return err_set(c->e, "bad .npy header: dimension too large at byte %zu",
			               start);
		n = n * 10 + (size_t)(c->p[c->at++] - '0');
	}
	if (c->at < c->end && c->p[c->at] == 'L')
		c->at++; /* Python 2's long */
	if (c->at == start)
		return err_set(c->e, "bad .npy header: expected a dimension at byte %zu", start);
	*v = n;
	return 0;
}

/* (), (n,), (a, b, ...): the count is their product, refused past SIZE_MAX. */
static int read_shape(struct cursor *c, struct npy_header *h)
{
	if (expect(c, '('))
		return -1;
	h->ndim = 0;
	h->count = 1;
	while (!peek(c, ')')) {
		size_t d = 0;

		if (h->ndim == NPY_DIMS_MAX)
			return err_set(c->e, "bad .npy header: more than %d dimensions",
			               NPY_DIMS_MAX);
		if (read_dim(c, &d))
			return -1;
		if (size_mul(h->count, d, &h->count))
			return err_set(c->e, "bad .npy header: shape holds too many values");
		h->shape[h->ndim++] = d;
		if (!peek(c, ','))
			break;
		c->at++;
	}
	return expect(c, ')');
}

static int read_entry(struct cursor *c, struct npy_header *h, unsigned *seen)
{
	char key[32];

	if (read_string(c, key, sizeof(key)) || expect(c, ':'))
		return -1;
	if (strcmp(key, "descr") == 0) {
		*seen |= 1;
		return read_string(c, h->descr, sizeof(h->descr));
	}
	if (strcmp(key, "fortran_order") == 0) {
		*seen |= 2;
		return read_bool(c, &h->fortran_order);
	}
	if (strcmp(key, "shape") == 0) {
		*seen |= 4;
		return read_shape(c, h);
	}
	return err_set(c->e, "bad .npy header: unknown key '%s'", key);
}

int npy_parse(const unsigned char *p, size_t size, struct npy_header *h, struct cs_err *e)
{
	size_t prelude = p[6] == 1 ? 10 : 12;
	struct cursor c = {p, prelude, size, e};
	unsigned seen = 0;

	memset(h, 0, sizeof(*h));
	h->data_offset = size;
	if (expect(&c, '{'))
		return -1;
	while (!peek(&c, '}')) {
		if (read_entry(&c, h, &seen))
			return -1;
		if (!peek(&c, ','))
			break;
		c.at++;
	}
	if (expect(&c, '}'))
		return -1;
	if (seen != 7)
		return err_set(e, "bad .npy header: '%s' missing",
		               !(seen & 1)   ? "descr"
		               : !(seen & 2) ? "fortran_order"
		                             : "shape");
	return 0;
}

static void shape_text(const struct npy_header *h, char *out, size_t cap)
{
	size_t n = (size_t)snprintf(out, cap, "(");

	for (int i = 0; i < h->ndim && n < cap; i++)
		n += (size_t)snprintf(out + n, cap - n, "%s%zu", i ? ", " : "", h->shape[i]);
	if (n < cap)
		snprintf(out + n, cap - n, h->ndim == 1 ? ",)" : ")");
}

/* The scalar kind of a dtype string: '<', '|' and '=' all mean the host's little-endian. */
static int descr_scalar(const char *d, enum scalar *s)
{
	for (int i = 0; i < SC_COUNT; i++) {
		if ((d[0] == '<' || d[0] == '|' || d[0] == '=') &&
		    strcmp(d + 1, descrs[i] + 1) == 0) {
			*s = (enum scalar)i;
			return 0;
		}
	}
	return -1;
}

int npy_check(const struct npy_header *h, enum scalar s, size_t n, struct cs_err *e)
{
	char shape[160];
	enum scalar got;

	if (h->descr[0] == '>' &&
	    descr_scalar((char[]){'<', h->descr[1], h->descr[2], 0}, &got) == 0)
		return err_set(e,
		               "dtype '%s' is big-endian; CarSh reads little-endian (save "
		               "a.astype('%s'))",
		               h->descr, descrs[s]);
	if (descr_scalar(h->descr, &got))
		return err_set(e, "dtype '%s' is not a stream type; the stream is %s ('%s')",
		               h->descr, scalar_name(s), descrs[s]);
	if (got != s)
		return err_set(e, "dtype '%s' (%s) does not match the stream's %s ('%s')", h->descr,
		               scalar_name(got), scalar_name(s), descrs[s]);
	if (h->fortran_order && h->ndim > 1)
		return err_set(e, "fortran_order arrays are not read (save "
		                  "numpy.ascontiguousarray(a))");
	shape_text(h, shape, sizeof(shape));
	if (h->count != n)
		return err_set(e, "shape %s holds %zu value%s, expected %zu", shape, h->count,
		               h->count == 1 ? "" : "s", n);
	return 0;
}

size_t npy_header_make(enum scalar s, size_t n, size_t columns, char *out)
{
	char dict[NPY_WRITE_MAX];
	int len;
	size_t total;

	if (columns > 1 && n % columns == 0)
		len = snprintf(dict, sizeof(dict),
		               "{'descr': '%s', 'fortran_order': False, 'shape': (%zu, %zu), }",
		               descrs[s], n / columns, columns);
	else
		len = snprintf(dict, sizeof(dict),
		               "{'descr': '%s', 'fortran_order': False, 'shape': (%zu,), }",
		               descrs[s], n);
	/* magic, version 1.0, the length, the dict, spaces, '\n': a multiple of 64 in all */
	total = (10 + (size_t)len + 1 + 63) / 64 * 64;
	memcpy(out, magic, NPY_MAGIC_LEN);
	out[6] = 1;
	out[7] = 0;
	out[8] = (char)((total - 10) & 0xff);
	out[9] = (char)((total - 10) >> 8);
	memcpy(out + 10, dict, (size_t)len);
	memset(out + 10 + len, ' ', total - 10 - (size_t)len - 1);
	out[total - 1] = '\n';
	return total;
}
