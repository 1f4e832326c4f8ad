/* Floating expressions (data/fexpr.h): a recursive descent over the text. */
#include "data/fexpr.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "data/types.h"
#include "util/alloc.h"

struct fparse {
	const char *text;
	const char *p;
	fexpr_lookup lookup;
	void *ctx;
	struct cs_err *e;
	int depth; /* of parentheses and unary signs: a hostile text must not exhaust the stack */
};

#define FEXPR_MAX_DEPTH 200

static int expr(struct fparse *f, double *v);

static void blanks(struct fparse *f)
{
	while (*f->p == ' ' || *f->p == '\t')
		f->p++;
}

static int syntax(struct fparse *f)
{
	if (!*f->p)
		return err_set(f->e, "unexpected end of expression in '%s'", f->text);
	return err_set(f->e, "syntax error at '%.1s' in '%s'", f->p, f->text);
}

/* Digits, a point, an exponent: the token number_parse then reads. */
static int number(struct fparse *f, double *v)
{
	const char *s = f->p;
	char *tok;
	int rc;

	while (isdigit((unsigned char)*f->p) || *f->p == '.')
		f->p++;
	if ((*f->p == 'e' || *f->p == 'E') &&
	    (isdigit((unsigned char)f->p[1]) ||
	     ((f->p[1] == '+' || f->p[1] == '-') && isdigit((unsigned char)f->p[2]))))
		for (f->p += 2; isdigit((unsigned char)*f->p); f->p++)
			;
	tok = xstrndup(s, (size_t)(f->p - s));
	rc = number_parse(SC_DOUBLE, tok, v, f->e);
	free(tok);
	return rc ? err_prefix(f->e, "in '%s': ", f->text) : 0;
}

static int name(struct fparse *f, double *v)
{
	const char *s = f->p;
	char *id;
	int rc;

	while (isalnum((unsigned char)*f->p) || *f->p == '_')
		f->p++;
	id = xstrndup(s, (size_t)(f->p - s));
	rc = f->lookup ? f->lookup(f->ctx, id, v, f->e) : 1;
	if (rc == 1)
		err_set(f->e, "unknown parameter '%s' in '%s'", id, f->text);
	free(id);
	return rc ? -1 : 0;
}

static int nested(struct fparse *f, double *v);

static int primary(struct fparse *f, double *v)
{
	int rc;

	if (++f->depth > FEXPR_MAX_DEPTH)
		return err_set(f->e, "expression nested too deeply in '%.40s...'", f->text);
	rc = nested(f, v);
	f->depth--;
	return rc;
}

static int nested(struct fparse *f, double *v)
{
	blanks(f);
	if (*f->p == '-' || *f->p == '+') {
		int neg = *f->p++ == '-';

		if (primary(f, v))
			return -1;
		*v = neg ? -*v : *v;
		return 0;
	}
	if (*f->p == '(') {
		f->p++;
		if (expr(f, v))
			return -1;
		blanks(f);
		if (*f->p != ')')
			return syntax(f);
		f->p++;
		return 0;
	}
	if (isdigit((unsigned char)*f->p) || *f->p == '.')
		return number(f, v);
	if (isalpha((unsigned char)*f->p) || *f->p == '_')
		return name(f, v);
	return syntax(f);
}

static int term(struct fparse *f, double *v)
{
	if (primary(f, v))
		return -1;
	for (;;) {
		double r;
		char op;

		blanks(f);
		op = *f->p;
		if (op != '*' && op != '/')
			return 0;
		f->p++;
		if (primary(f, &r))
			return -1;
		if (op == '/' && r == 0)
			return err_set(f->e, "division by zero in '%s'", f->text);
		*v = op == '*' ? *v * r : *v / r;
	}
}

static int expr(struct fparse *f, double *v)
{
	if (term(f, v))
		return -1;
	for (;;) {
		double r;
		char op;

		blanks(f);
		op = *f->p;
		if (op != '+' && op != '-')
			return 0;
		f->p++;
		if (term(f, &r))
			return -1;
		*v = op == '+' ? *v + r : *v - r;
	}
}

bool fexpr_has_operator(const char *text)
{
	if (strpbrk(text, "*/()"))
		return true;
	for (size_t i = 1; text[i]; i++)
		if ((text[i] == '+' || text[i] == '-') && text[i - 1] != 'e' && text[i - 1] != 'E')
			return true;
	return false;
}

int fexpr_eval(const char *text, fexpr_lookup lookup, void *ctx, double *out, struct cs_err *e)
{
	struct fparse f = {text, text, lookup, ctx, e, 0};

	if (expr(&f, out))
		return -1;
	blanks(&f);
	return *f.p ? syntax(&f) : 0;
}
