/* Parameters and scopes (DESIGN §3.1): the strongest layer that sets a name wins. */
#include "data/params.h"

#include <stdlib.h>
#include <string.h>

#include "data/expr.h"
#include "data/fexpr.h"
#include "data/types.h"
#include "util/alloc.h"
#include "util/strbuf.h"

static struct param *params_find(const struct params *ps, const char *name)
{
	for (size_t i = 0; i < ps->n; i++) {
		if (strcmp(ps->v[i].name, name) == 0)
			return &ps->v[i];
	}
	return NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void params_set(struct params *ps, const char *name, const char *value, const char *origin)
{
	struct param *p = params_find(ps, name);
	/* Copy first: value or origin may point into the entry being replaced. */
	char *new_value = xstrdup(value);
	char *new_origin = dup_or_null(origin);

	if (!p) {
		ps->v = xgrow(ps->v, &ps->cap, ps->n + 1, sizeof(*ps->v));
		p = &ps->v[ps->n++];
		p->name = xstrdup(name);
	} else {
		free(p->value);
		free(p->origin);
	}
	p->value = new_value;
	p->origin = new_origin;
}

const struct param *params_get(const struct params *ps, const char *name)
{
	return params_find(ps, name);
}

static void param_free(struct param *p)
{
	free(p->name);
	free(p->value);
	free(p->origin);
}

bool params_unset(struct params *ps, const char *name)
{
	struct param *p = params_find(ps, name);
	size_t i;

	if (!p)
		return false;
	i = (size_t)(p - ps->v);
	param_free(p);
	memmove(p, p + 1, (ps->n - i - 1) * sizeof(*p));
	ps->n--;
	return true;
}

/* Sets every parameter of src in dst: a copy when dst is empty, a merge (src wins) when not. */
void params_copy(struct params *dst, const struct params *src)
{
	if (dst == src)
		return;
	for (size_t i = 0; i < src->n; i++)
		params_set(dst, src->v[i].name, src->v[i].value, src->v[i].origin);
}

void params_free(struct params *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		param_free(&ps->v[i]);
	free(ps->v);
	ps->v = NULL;
	ps->n = ps->cap = 0;
}

bool param_name_valid(const char *name)
{
	const char *p = name;

	if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_'))
		return false;
	for (p++; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	}
	return true;
}

void scope_init(struct scope *sc)
{
	sc->n = 0;
}

void scope_push(struct scope *sc, const struct params *ps)
{
	if (sc->n < SCOPE_MAX)
		sc->layer[sc->n++] = ps;
}

void scope_append(struct scope *sc, const struct scope *weaker)
{
	for (size_t i = 0; i < weaker->n; i++)
		scope_push(sc, weaker->layer[i]);
}

const struct param *scope_get(const struct scope *sc, const char *name)
{
	for (size_t i = 0; i < sc->n; i++) {
		const struct param *p = params_get(sc->layer[i], name);

		if (p)
			return p;
	}
	return NULL;
}

/*
 * Evaluation. A parameter's value is an expression over the same scope, so looking a name up
 * evaluates its value in turn. The chain of names being evaluated finds cycles (N=N+1, or
 * A=B with B=A); its length bounds the recursion.
 */
#define PARAM_CHAIN_MAX 64

/* A parameter evaluated once in this evaluation: a value naming another several times
 * (P2 = P1+P1-P1 down to P40) evaluated it again at each mention, 3^40 times. */
struct eval_memo {
	const struct param *p;
	long long value;
};

struct eval_ctx {
	const struct scope *sc;
	const char *chain[PARAM_CHAIN_MAX];
	size_t depth;
	bool reported; /* e already says which parameter failed: outer levels add nothing */
	struct eval_memo *memo;
	size_t nmemo, capmemo;
};

static bool memo_find(const struct eval_ctx *cx, const struct param *p, long long *value)
{
	for (size_t i = 0; i < cx->nmemo; i++)
		if (cx->memo[i].p == p) {
			*value = cx->memo[i].value;
			return true;
		}
	return false;
}

static void memo_add(struct eval_ctx *cx, const struct param *p, long long value)
{
	cx->memo = xgrow(cx->memo, &cx->capmemo, cx->nmemo + 1, sizeof(*cx->memo));
	cx->memo[cx->nmemo++] = (struct eval_memo){p, value};
}

static int cycle_error(struct eval_ctx *cx, size_t from, struct cs_err *e)
{
	struct strbuf sb = STRBUF_INIT;

	cx->reported = true;
	if (from + 1 == cx->depth)
		return err_set(e, "parameter '%s' refers to itself", cx->chain[from]);
	for (size_t i = from; i < cx->depth; i++)
		sb_addf(&sb, "%s -> ", cx->chain[i]);
	sb_adds(&sb, cx->chain[from]);
	err_set(e, "parameter '%s' refers to itself (%s)", cx->chain[from], sb_str(&sb));
	sb_free(&sb);
	return -1;
}

static int eval_param(void *ctx, const char *name, long long *value, struct cs_err *e)
{
	struct eval_ctx *cx = ctx;
	const struct param *p = scope_get(cx->sc, name);
	int rc;

	if (!p)
		return 1;
	if (memo_find(cx, p, value))
		return 0;
	for (size_t i = 0; i < cx->depth; i++) {
		if (strcmp(cx->chain[i], name) == 0)
			return cycle_error(cx, i, e);
	}
	if (cx->depth == PARAM_CHAIN_MAX) {
		cx->reported = true;
		return err_set(e, "parameter '%s': more than %d parameters refer to one another",
		               name, PARAM_CHAIN_MAX);
	}
	cx->chain[cx->depth++] = p->name;
	rc = expr_eval(p->value, eval_param, cx, value, e);
	cx->depth--;
	if (rc == 0)
		memo_add(cx, p, *value);
	if (rc && !cx->reported) {
		cx->reported = true;
		if (p->origin)
			err_prefix(e, "parameter '%s' (%s): ", name, p->origin);
		else
			err_prefix(e, "parameter '%s': ", name);
	}
	return rc;
}

int scope_eval(const struct scope *sc, const char *text, long long *out, struct cs_err *e)
{
	struct eval_ctx cx = {.sc = sc, .depth = 0, .reported = false};
	int rc = expr_eval(text, eval_param, &cx, out, e);

	free(cx.memo);
	return rc;
}

int scope_eval_range(const struct scope *sc, const char *text, const char *what, long long min,
                     long long max, long long *out, struct cs_err *e)
{
	long long v;

	if (!what)
		what = "value";
	if (scope_eval(sc, text, &v, e))
		return err_prefix(e, "%s: ", what);
	if (v < min)
		return err_set(e, "%s is %lld: it must be at least %lld", what, v, min);
	if (v > max)
		return err_set(e, "%s is %lld: it must be at most %lld", what, v, max);
	*out = v;
	return 0;
}

void scope_flatten(const struct scope *sc, struct params *dst)
{
	/* Weakest first, so that stronger layers overwrite. */
	for (size_t i = sc->n; i-- > 0;)
		for (size_t k = 0; k < sc->layer[i]->n; k++) {
			const struct param *p = &sc->layer[i]->v[k];

			params_set(dst, p->name, p->value, p->origin);
		}
}

int scope_expand(const struct scope *sc, const char *text, char **out, struct cs_err *e)
{
	struct strbuf sb = STRBUF_INIT;

	*out = NULL;
	for (const char *p = text; *p; p++) {
		const char *end;
		const struct param *par;
		char *name;

		if (p[0] != '$' || p[1] != '{' || !(end = strchr(p, '}'))) {
			sb_addc(&sb, *p);
			continue;
		}
		name = xstrndup(p + 2, (size_t)(end - p - 2));
		par = scope_get(sc, name);
		if (!par) {
			err_set(e, "${%s}: no such parameter", name);
			free(name);
			sb_free(&sb);
			return -1;
		}
		sb_adds(&sb, par->value);
		free(name);
		p = end;
	}
	*out = sb_detach(&sb);
	return 0;
}

const char *param_reference(const char *text, char *buf, size_t len)
{
	size_t n = strlen(text);

	if (n < 4 || n - 3 >= len || text[0] != '$' || text[1] != '{' || text[n - 1] != '}')
		return NULL;
	memcpy(buf, text + 2, n - 3);
	buf[n - 3] = '\0';
	return param_name_valid(buf) ? buf : NULL;
}

struct float_names {
	const struct scope *sc;
	int depth; /* a parameter whose value names itself ends here */
};

static int float_name(void *ctx, const char *name, double *v, struct cs_err *e)
{
	struct float_names *fn = ctx;
	const struct param *par = scope_get(fn->sc, name);
	struct cs_err ignored;
	long long i;
	int rc;

	if (!par)
		return 1;
	if (number_parse(SC_DOUBLE, par->value, v, &ignored) == 0)
		return 0;
	/* A name of an integer parameter; a value with operators is computed in double with
	 * the rest of the expression (2*PI/N), not in the integer grammar. */
	if (!fexpr_has_operator(par->value) && scope_eval(fn->sc, par->value, &i, &ignored) == 0) {
		*v = (double)i;
		return 0;
	}
	if (fn->depth >= 32)
		return err_set(e, "parameter '%s' refers to itself", name);
	fn->depth++;
	rc = fexpr_eval(par->value, float_name, fn, v, e);
	fn->depth--;
	return rc ? err_prefix(e, "parameter '%s': ", name) : 0;
}

int scope_eval_float(const struct scope *sc, const char *text, double *out, struct cs_err *e)
{
	struct float_names fn = {sc, 0};

	return fexpr_eval(text, float_name, &fn, out, e);
}
