/* Struct streams as .npy with a structured dtype (data/recnpy.h). */
#include "data/recnpy.h"

#include <stdlib.h>
#include <string.h>

#include "data/npy.h"
#include "util/alloc.h"
#include "util/strbuf.h"

static void pad(struct strbuf *sb, size_t bytes)
{
	sb_addf(sb, "%s('', '|V%zu')", sb->len > 1 ? ", " : "", bytes);
}

char *recnpy_descr(const struct cs_record *r)
{
	struct strbuf sb = STRBUF_INIT;
	size_t at = 0;

	sb_addf(&sb, "[");
	for (size_t i = 0; i < r->nfields; i++) {
		const struct rec_field *f = &r->fields[i];

		if (f->offset > at)
			pad(&sb, f->offset - at);
		sb_addf(&sb, "%s('%s', '%s'", sb.len > 1 ? ", " : "", f->name,
		        npy_descr(f->type.scalar));
		/* a 3-wide vector is 4 components in memory: numpy sees all 4 */
		unsigned w = f->type.width == 3 ? 4 : f->type.width;

		if (f->count > 1 && w > 1)
			sb_addf(&sb, ", (%zu, %u)", f->count, w);
		else if (f->count > 1 || w > 1)
			sb_addf(&sb, ", (%zu,)", f->count > 1 ? f->count : w);
		sb_addf(&sb, ")");
		at = f->offset + f->count * record_elem_size(f->type);
	}
	if (r->size > at)
		pad(&sb, r->size - at);
	sb_addf(&sb, "]");
	return sb_detach(&sb);
}

char *recnpy_header(const struct cs_record *r, size_t n, size_t *len)
{
	char *descr = recnpy_descr(r);
	char *dict =
	        xasprintf("{'descr': %s, 'fortran_order': False, 'shape': (%zu,), }", descr, n);
	size_t dlen = strlen(dict);
	/* magic, version, length, the dict, spaces, '\n': a multiple of 64; version 2.0 (a
	 * 4-byte length) where the dict needs more than 65535 bytes */
	size_t prelude = dlen + 11 + 63 < 65536 + 10 ? 10 : 12;
	size_t total = (prelude + dlen + 1 + 63) / 64 * 64;
	char *out = xmalloc(total);
	size_t hl = total - prelude;

	memcpy(out, "\x93NUMPY", 6);
	out[6] = prelude == 10 ? 1 : 2;
	out[7] = 0;
	out[8] = (char)(hl & 0xff);
	out[9] = (char)(hl >> 8 & 0xff);
	if (prelude == 12) {
		out[10] = (char)(hl >> 16 & 0xff);
		out[11] = (char)(hl >> 24 & 0xff);
	}
	memcpy(out + prelude, dict, dlen);
	memset(out + prelude + dlen, ' ', total - prelude - dlen - 1);
	out[total - 1] = '\n';
	free(dict);
	free(descr);
	*len = total;
	return out;
}

/* The text after "'key': " up to the end of its value: a bracketed list or a tuple. */
static char *dict_value(const char *dict, const char *key, char open, char close)
{
	const char *p = strstr(dict, key);
	int depth = 0;
	const char *q;

	if (!p)
		return NULL;
	p += strlen(key);
	p += strspn(p, " :");
	if (*p != open)
		return NULL;
	for (q = p; *q; q++) {
		depth += *q == open;
		depth -= *q == close;
		if (depth == 0)
			return xstrndup(p, (size_t)(q - p + 1));
	}
	return NULL;
}

/* numpy writes "(3,)"; the header is compared with its blanks removed. */
static void squeeze(char *s)
{
	char *d = s;

	for (; *s; s++)
		if (*s != ' ' && *s != '\n')
			*d++ = *s;
	*d = '\0';
}

static int check_dict(const char *dict, const char *name, const struct cs_record *r, size_t *n,
                      struct cs_err *e)
{
	char *descr = dict_value(dict, "'descr'", '[', ']');
	char *shape = dict_value(dict, "'shape'", '(', ')');
	char *want = recnpy_descr(r), *want_sq = xstrdup(want), *got_sq;
	unsigned long long count;
	char tail;
	int rc = -1;

	if (!descr) {
		err_set(e, "%s: the dtype is not a struct's (a list of fields); struct %s is %s",
		        name, r->name, want);
		goto out;
	}
	got_sq = xstrdup(descr);
	squeeze(got_sq);
	squeeze(want_sq);
	if (strcmp(got_sq, want_sq) != 0)
		err_set(e, "%s: dtype %s is not struct %s's %s", name, descr, r->name, want);
	else if (strstr(dict, "'fortran_order': True"))
		err_set(e, "%s: fortran_order arrays are not read", name);
	else if (!shape || sscanf(shape, "(%llu ,%c", &count, &tail) != 2 || tail != ')')
		err_set(e, "%s: shape %s is not one-dimensional: a stream of structs is (count,)",
		        name, shape ? shape : "?");
	else {
		*n = (size_t)count;
		rc = 0;
	}
	free(got_sq);
out:
	free(descr);
	free(shape);
	free(want);
	free(want_sq);
	return rc;
}

int recnpy_read_header(FILE *f, const char *name, const struct cs_record *r, size_t *n,
                       struct cs_err *e)
{
	unsigned char pre[NPY_PRELUDE_MAX];
	size_t have = fread(pre, 1, 8, f), prelude, size;
	char *dict;
	int rc;

	/* The magic and the version say how long the length is: read no byte past the header,
	 * so that standard input goes on at the data. */
	prelude = have == 8 && pre[6] == 1 ? 10 : 12;
	if (have == 8)
		have += fread(pre + 8, 1, prelude - 8, f);
	if (npy_header_size(pre, have, &size, e))
		return err_prefix(e, "%s: ", name);
	dict = xmalloc(size - prelude + 1);
	if (fread(dict, 1, size - prelude, f) != size - prelude) {
		free(dict);
		return err_set(e, "%s: truncated .npy header", name);
	}
	dict[size - prelude] = '\0';
	rc = check_dict(dict, name, r, n, e);
	free(dict);
	return rc;
}
