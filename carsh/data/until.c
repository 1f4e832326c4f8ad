/* A loop's stop condition on a virtual buffer (data/until.h). */
#include "data/until.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

static const char *const op_texts[] = {"==", "!=", "<", "<=", ">", ">="};

const char *until_op_text(enum until_op op)
{
	return op_texts[op];
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* The longest operator at p (so "<=" is not read as "<"); its length, or 0. */
static size_t read_op(const char *p, enum until_op *op)
{
	size_t best = 0;

	for (size_t i = 0; i < ARRAY_SIZE(op_texts); i++) {
		size_t len = strlen(op_texts[i]);

		if (len > best && strncmp(p, op_texts[i], len) == 0) {
			best = len;
			*op = (enum until_op)i;
		}
	}
	return best;
}

static int bad_form(const char *text, struct cs_err *e)
{
	return err_set(e,
	               "until '%s': expected buffer:NAME OP VALUE (OP one of == != < <= > >=, "
	               "VALUE a number or an expression over parameters)",
	               text);
}

int until_parse(const char *text, struct until *u, struct cs_err *e)
{
	const char *p = skip_blanks(text), *name, *end;
	size_t oplen;

	memset(u, 0, sizeof(*u));
	if (strncmp(p, "buffer:", 7) != 0)
		return bad_form(text, e);
	name = p += 7;
	while (isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '-')
		p++;
	if (p == name)
		return bad_form(text, e);
	u->buffer = xstrndup(name, (size_t)(p - name));
	p = skip_blanks(p);
	oplen = read_op(p, &u->op);
	if (!oplen)
		goto bad;
	p = skip_blanks(p + oplen);
	end = p + strlen(p);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end == p)
		goto bad;
	u->value = xstrndup(p, (size_t)(end - p));
	return 0;
bad:
	until_free(u);
	return bad_form(text, e);
}

void until_free(struct until *u)
{
	free(u->buffer);
	free(u->value);
	u->buffer = u->value = NULL;
}

static bool compare(enum until_op op, double x, double v)
{
	switch (op) {
	case UNTIL_EQ:
		return x == v;
	case UNTIL_NE:
		return x != v;
	case UNTIL_LT:
		return x < v;
	case UNTIL_LE:
		return x <= v;
	case UNTIL_GT:
		return x > v;
	case UNTIL_GE:
		return x >= v;
	}
	return false;
}

bool until_holds(const struct until *u, double v, enum scalar s, const void *data, size_t n,
                 size_t *first)
{
	const unsigned char *p = data;
	size_t ss = scalar_size(s);

	for (size_t i = 0; i < n; i++) {
		if (!compare(u->op, scalar_load_double(s, p + i * ss), v)) {
			*first = i;
			return false;
		}
	}
	return true;
}
