#include "pack/clsrc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/strbuf.h"

/* ---- tokens ---- */

struct lexer {
	const char *t;
	size_t n, pos;
	int line;
	int directive; /* the preprocessor line being read, -1 outside */
	int ndirectives;
	bool line_start; /* only blanks since the last newline */
	struct cl_src *s;
	size_t cap;
	struct cs_err *e;
};

static bool ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static void push_tok(struct lexer *L, enum cl_tok_kind k, size_t start, size_t end)
{
	struct cl_src *s = L->s;

	s->toks = xgrow(s->toks, &L->cap, s->ntoks + 1, sizeof(*s->toks));
	s->toks[s->ntoks++] = (struct cl_tok){k, start, end, L->directive, L->line};
}

/* Skip blanks, comments and escaped newlines; a newline ends a preprocessor line. */
static int skip_space(struct lexer *L)
{
	while (L->pos < L->n) {
		char c = L->t[L->pos];

		if (c == '\\' && L->pos + 1 < L->n && L->t[L->pos + 1] == '\n') {
			L->pos += 2;
			L->line++;
		} else if (c == '\\' && L->pos + 2 < L->n && L->t[L->pos + 1] == '\r' &&
		           L->t[L->pos + 2] == '\n') {
			L->pos += 3;
			L->line++;
		} else if (c == '\n') {
			L->pos++;
			L->line++;
			L->directive = -1;
			L->line_start = true;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			L->pos++;
		} else if (c == '/' && L->pos + 1 < L->n && L->t[L->pos + 1] == '/') {
			while (L->pos < L->n && L->t[L->pos] != '\n') {
				if (L->t[L->pos] == '\\' && L->pos + 1 < L->n &&
				    L->t[L->pos + 1] == '\n') {
					L->pos++;
					L->line++;
				}
				L->pos++;
			}
		} else if (c == '/' && L->pos + 1 < L->n && L->t[L->pos + 1] == '*') {
			int line = L->line;
			const char *end = strstr(L->t + L->pos + 2, "*/");

			if (!end)
				return err_set(L->e, "%s:%d: unterminated comment", L->s->name,
				               line);
			for (const char *p = L->t + L->pos; p < end; p++)
				L->line += *p == '\n';
			L->pos = (size_t)(end - L->t) + 2;
		} else {
			break;
		}
	}
	return 0;
}

static const char *const puncts[] = {"<<=", ">>=", "...", "==", "!=", "<=", ">=", "+=",
                                     "-=",  "*=",  "/=",  "%=", "&=", "|=", "^=", "<<",
                                     ">>",  "->",  "++",  "--", "&&", "||", "##"};

static size_t punct_len(const char *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(puncts); i++) {
		size_t n = strlen(puncts[i]);

		if (strncmp(p, puncts[i], n) == 0)
			return n;
	}
	return 1;
}

static int lex_quoted(struct lexer *L)
{
	char q = L->t[L->pos];
	size_t start = L->pos++;

	while (L->pos < L->n && L->t[L->pos] != q) {
		if (L->t[L->pos] == '\n')
			return err_set(L->e, "%s:%d: unterminated %s", L->s->name, L->line,
			               q == '"' ? "string" : "character constant");
		L->pos += L->t[L->pos] == '\\' ? 2 : 1;
	}
	if (L->pos >= L->n)
		return err_set(L->e, "%s:%d: unterminated %s", L->s->name, L->line,
		               q == '"' ? "string" : "character constant");
	L->pos++;
	push_tok(L, CT_STRING, start, L->pos);
	return 0;
}

/* A preprocessing number: a digit (or '.' and a digit), then letters, digits, '_', '.',
 * and signs after an exponent letter. */
static void lex_number(struct lexer *L)
{
	size_t start = L->pos++;

	while (L->pos < L->n) {
		char c = L->t[L->pos];

		if ((c == '+' || c == '-') && strchr("eEpP", L->t[L->pos - 1]))
			L->pos++;
		else if (ident_char(c) || c == '.')
			L->pos++;
		else
			break;
	}
	push_tok(L, CT_NUMBER, start, L->pos);
}

static int lex(struct lexer *L)
{
	for (;;) {
		char c;

		if (skip_space(L))
			return -1;
		if (L->pos >= L->n)
			return 0;
		c = L->t[L->pos];
		if (c == '#' && L->line_start && L->directive < 0)
			L->directive = L->ndirectives++;
		L->line_start = false;
		if (ident_start(c)) {
			size_t start = L->pos;

			while (L->pos < L->n && ident_char(L->t[L->pos]))
				L->pos++;
			push_tok(L, CT_IDENT, start, L->pos);
		} else if (isdigit((unsigned char)c) ||
		           (c == '.' && L->pos + 1 < L->n &&
		            isdigit((unsigned char)L->t[L->pos + 1]))) {
			lex_number(L);
		} else if (c == '"' || c == '\'') {
			if (lex_quoted(L))
				return -1;
		} else {
			size_t n = punct_len(L->t + L->pos);

			push_tok(L, CT_PUNCT, L->pos, L->pos + n);
			L->pos += n;
		}
	}
}

/* ---- token helpers ---- */

static bool tok_is(const struct cl_src *s, size_t i, const char *text)
{
	const struct cl_tok *t = &s->toks[i];
	size_t n = strlen(text);

	return i < s->ntoks && t->end - t->start == n && memcmp(s->text + t->start, text, n) == 0;
}

static char *tok_str(const struct cl_src *s, size_t i)
{
	return xstrndup(s->text + s->toks[i].start, s->toks[i].end - s->toks[i].start);
}

static bool in_code(const struct cl_src *s, size_t i)
{
	return s->toks[i].directive < 0;
}

/* The next token at or after i that is not on a preprocessor line (ntoks when none). */
static size_t next_code(const struct cl_src *s, size_t i)
{
	while (i < s->ntoks && !in_code(s, i))
		i++;
	return i;
}

/* The code token that closes the bracket opened at i, or ntoks. */
static size_t match(const struct cl_src *s, size_t i)
{
	char open = s->text[s->toks[i].start];
	char close = open == '(' ? ')' : open == '[' ? ']' : '}';
	int depth = 0;

	for (; i < s->ntoks; i = next_code(s, i + 1)) {
		const struct cl_tok *t = &s->toks[i];

		if (t->kind != CT_PUNCT || t->end - t->start != 1)
			continue;
		if (s->text[t->start] == open)
			depth++;
		else if (s->text[t->start] == close && --depth == 0)
			return i;
	}
	return s->ntoks;
}

static bool is_kernel_kw(const struct cl_src *s, size_t i)
{
	return tok_is(s, i, "__kernel") || tok_is(s, i, "kernel");
}

static const char *const not_names[] = {"__attribute__", "__attribute", "sizeof", "typeof",
                                        "__typeof__",    "_Alignas",    "if",     "while",
                                        "for",           "switch",      "return", "vec_step"};

static bool not_a_name(const struct cl_src *s, size_t i)
{
	for (size_t k = 0; k < ARRAY_SIZE(not_names); k++)
		if (tok_is(s, i, not_names[k]))
			return true;
	return false;
}

/* ---- parameters ---- */

static enum cl_space space_of(const struct cl_src *s, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		if (tok_is(s, i, "__global") || tok_is(s, i, "global"))
			return CS_GLOBAL;
		if (tok_is(s, i, "__constant") || tok_is(s, i, "constant"))
			return CS_CONSTANT;
		if (tok_is(s, i, "__local") || tok_is(s, i, "local"))
			return CS_LOCAL;
	}
	return CS_PRIVATE;
}

/* One parameter: tokens [from, to). The name is the last identifier. */
static void add_param(struct cl_src *s, struct cl_fn *f, size_t from, size_t to, size_t *cap)
{
	struct cl_param p = {0};
	size_t name = to;

	for (size_t i = from; i < to; i++)
		if (s->toks[i].kind == CT_IDENT)
			name = i;
	if (name == to || (to - from == 1 && tok_is(s, from, "void")))
		return;
	p.name = tok_str(s, name);
	p.type = xstrndup(s->text + s->toks[from].start,
	                  (name > from ? s->toks[name - 1].end : s->toks[from].start) -
	                          s->toks[from].start);
	for (size_t i = from; i < to; i++)
		p.pointer |= tok_is(s, i, "*");
	p.space = p.pointer ? space_of(s, from, to) : CS_PRIVATE;
	f->params = xgrow(f->params, cap, f->nparams + 1, sizeof(*f->params));
	f->params[f->nparams++] = p;
}

static void parse_params(struct cl_src *s, struct cl_fn *f)
{
	size_t cap = 0, from = next_code(s, f->open + 1);
	int depth = 0;

	for (size_t i = from; i < f->close; i = next_code(s, i + 1)) {
		if (tok_is(s, i, "(") || tok_is(s, i, "[") || tok_is(s, i, "{"))
			depth++;
		else if (tok_is(s, i, ")") || tok_is(s, i, "]") || tok_is(s, i, "}"))
			depth--;
		else if (depth == 0 && tok_is(s, i, ",")) {
			add_param(s, f, from, i, &cap);
			from = i + 1;
		}
	}
	if (from < f->close)
		add_param(s, f, from, f->close, &cap);
}

/* ---- top-level items ---- */

struct items {
	struct cl_src *s;
	size_t fcap;
	struct cs_err *e;
};

static void add_global(struct cl_src *s, size_t i)
{
	char *name = tok_str(s, i);

	for (size_t k = 0; k < s->globals.n; k++)
		if (strcmp(s->globals.v[k], name) == 0) {
			free(name);
			return;
		}
	sv_push_owned(&s->globals, name);
}

/* Skip `__attribute__((...))` groups from i; the next code token. */
static size_t skip_attributes(const struct cl_src *s, size_t i)
{
	while (i < s->ntoks && (tok_is(s, i, "__attribute__") || tok_is(s, i, "__attribute"))) {
		size_t open = next_code(s, i + 1);

		if (open >= s->ntoks || !tok_is(s, open, "("))
			return open;
		i = next_code(s, match(s, open) + 1);
	}
	return i;
}

/* Enumerators between the braces at open..close: identifiers after '{' or ','. */
static void add_enumerators(struct cl_src *s, size_t open, size_t close)
{
	for (size_t i = next_code(s, open + 1); i < close; i = next_code(s, i + 1)) {
		size_t prev = i - 1;

		while (prev > open && !in_code(s, prev))
			prev--;
		if (s->toks[i].kind == CT_IDENT && (prev == open || tok_is(s, prev, ",")))
			add_global(s, i);
	}
}

/* A declaration that is not a function: what names does it define? typedef names, tags,
 * enumerators, variables: the identifier before '=', '[', ',' or ';' at depth 0. */
static void declaration_names(struct cl_src *s, size_t from, size_t end)
{
	bool is_typedef = false;
	size_t last_ident = s->ntoks;

	for (size_t i = from; i < end; i = next_code(s, i + 1)) {
		if (tok_is(s, i, "typedef"))
			is_typedef = true;
		if ((tok_is(s, i, "struct") || tok_is(s, i, "union") || tok_is(s, i, "enum"))) {
			size_t tag = next_code(s, i + 1);
			size_t brace = tag < end && s->toks[tag].kind == CT_IDENT
			                       ? next_code(s, tag + 1)
			                       : tag;

			if (tag < end && s->toks[tag].kind == CT_IDENT && tok_is(s, brace, "{"))
				add_global(s, tag);
			if (tok_is(s, brace, "{")) {
				size_t close = match(s, brace);

				if (tok_is(s, i, "enum"))
					add_enumerators(s, brace, close);
				i = close;
				continue;
			}
		}
		if (tok_is(s, i, "(") || tok_is(s, i, "[") || tok_is(s, i, "{")) {
			if (last_ident < s->ntoks && !tok_is(s, i, "("))
				add_global(s, last_ident);
			last_ident = s->ntoks;
			i = match(s, i);
			continue;
		}
		if (s->toks[i].kind == CT_IDENT && !not_a_name(s, i)) {
			last_ident = i;
			continue;
		}
		if ((tok_is(s, i, "=") || tok_is(s, i, ",") || tok_is(s, i, ";")) &&
		    last_ident < s->ntoks) {
			add_global(s, last_ident);
			last_ident = s->ntoks;
			if (tok_is(s, i, "=")) {
				/* skip the initializer up to ',' or ';' at depth 0 */
				size_t k = next_code(s, i + 1);

				while (k < end && !tok_is(s, k, ",") && !tok_is(s, k, ";")) {
					if (tok_is(s, k, "(") || tok_is(s, k, "{") ||
					    tok_is(s, k, "["))
						k = match(s, k);
					k = next_code(s, k + 1);
				}
				i = k;
				if (i < end && tok_is(s, i, ";"))
					break;
			}
		}
	}
	(void)is_typedef;
}

/* A function of the item from token from: its name at token name, its parameters in the
 * parentheses at open, then after: its body's '{', or ';' or ',' of a prototype. */
static const struct cl_fn *add_fn(struct items *it, size_t from, size_t name, size_t open,
                                  size_t after, bool kernel)
{
	struct cl_src *s = it->s;
	struct cl_fn f = {0};

	f.name = tok_str(s, name);
	f.name_tok = name;
	f.open = open;
	f.close = match(s, open);
	f.kernel = kernel;
	f.first_tok = from;
	f.line = s->toks[name].line;
	if (tok_is(s, after, "{")) {
		f.body_open = after;
		f.body_close = match(s, after);
	}
	parse_params(s, &f);
	s->fns = xgrow(s->fns, &it->fcap, s->nfns + 1, sizeof(*s->fns));
	s->fns[s->nfns++] = f;
	return &s->fns[s->nfns - 1];
}

/* One item from token from: a function (definition or prototype) or another declaration.
 * Returns the token after it. */
static size_t parse_item(struct items *it, size_t from)
{
	struct cl_src *s = it->s;
	bool seen_eq = false, kernel = false;

	for (size_t i = from; i < s->ntoks; i = next_code(s, i + 1)) {
		if (is_kernel_kw(s, i))
			kernel = true;
		if (tok_is(s, i, "="))
			seen_eq = true;
		if (tok_is(s, i, ";")) {
			declaration_names(s, from, i + 1);
			return i + 1;
		}
		if (tok_is(s, i, "{")) {
			/* a struct body or an initializer: part of a declaration */
			i = match(s, i);
			continue;
		}
		if (tok_is(s, i, "(")) {
			size_t prev = i > from ? i - 1 : from, close, after;

			while (prev > from && !in_code(s, prev))
				prev--;
			close = match(s, i);
			if (seen_eq || i == from || s->toks[prev].kind != CT_IDENT ||
			    not_a_name(s, prev) || close >= s->ntoks) {
				i = close;
				continue;
			}
			after = skip_attributes(s, next_code(s, close + 1));
			if (after < s->ntoks && (tok_is(s, after, "{") || tok_is(s, after, ";") ||
			                         tok_is(s, after, ","))) {
				const struct cl_fn *f = add_fn(it, from, prev, i, after, kernel);

				if (f->body_open)
					return f->body_close + 1;
				i = after;
				if (tok_is(s, after, ";"))
					return after + 1;
				continue;
			}
			i = close;
		}
	}
	return s->ntoks;
}

/* #define NAME: the macro names, for the #undef after the source. */
static void directives(struct cl_src *s)
{
	for (size_t i = 0; i + 2 < s->ntoks; i++) {
		if (in_code(s, i) || !tok_is(s, i, "#") ||
		    (i > 0 && s->toks[i - 1].directive == s->toks[i].directive))
			continue;
		if (tok_is(s, i + 1, "define") &&
		    s->toks[i + 1].directive == s->toks[i].directive &&
		    s->toks[i + 2].directive == s->toks[i].directive &&
		    s->toks[i + 2].kind == CT_IDENT) {
			char *name = tok_str(s, i + 2);
			bool have = false;

			for (size_t k = 0; k < s->macros.n && !have; k++)
				have = strcmp(s->macros.v[k], name) == 0;
			if (have)
				free(name);
			else
				sv_push_owned(&s->macros, name);
		}
	}
}

int clsrc_parse(const char *text, const char *name, struct cl_src **out, struct cs_err *e)
{
	struct cl_src *s = xcalloc(1, sizeof(*s));
	struct lexer L = {text, strlen(text), 0, 1, -1, 0, true, s, 0, e};
	struct items it = {s, 0, e};

	s->name = xstrdup(name);
	s->text = xstrdup(text);
	L.t = s->text;
	if (lex(&L)) {
		clsrc_free(s);
		return -1;
	}
	for (size_t i = next_code(s, 0); i < s->ntoks;) {
		if (tok_is(s, i, "}") || tok_is(s, i, ")")) {
			err_set(e, "%s:%d: unbalanced '%c'", name, s->toks[i].line,
			        s->text[s->toks[i].start]);
			clsrc_free(s);
			return -1;
		}
		if (tok_is(s, i, ";")) {
			i = next_code(s, i + 1);
			continue;
		}
		i = next_code(s, parse_item(&it, i));
	}
	directives(s);
	*out = s;
	return 0;
}

void clsrc_free(struct cl_src *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfns; i++) {
		for (size_t k = 0; k < s->fns[i].nparams; k++) {
			free(s->fns[i].params[k].name);
			free(s->fns[i].params[k].type);
		}
		free(s->fns[i].params);
		free(s->fns[i].name);
	}
	free(s->fns);
	free(s->toks);
	free(s->text);
	free(s->name);
	sv_free(&s->macros);
	sv_free(&s->globals);
	free(s);
}

const struct cl_fn *clsrc_kernel(const struct cl_src *s, const char *name)
{
	for (size_t i = 0; i < s->nfns; i++)
		if (s->fns[i].kernel && s->fns[i].body_open && strcmp(s->fns[i].name, name) == 0)
			return &s->fns[i];
	return NULL;
}

bool clsrc_defines_fn(const struct cl_src *s, const char *name)
{
	for (size_t i = 0; i < s->nfns; i++)
		if (strcmp(s->fns[i].name, name) == 0)
			return true;
	return false;
}

const char *clsrc_find_prefix(const struct cl_src *s, const char *prefix, int *line, char *buf,
                              size_t len)
{
	size_t n = strlen(prefix);

	for (size_t i = 0; i < s->ntoks; i++) {
		const struct cl_tok *t = &s->toks[i];

		if (t->kind == CT_IDENT && t->end - t->start >= n &&
		    memcmp(s->text + t->start, prefix, n) == 0) {
			snprintf(buf, len, "%.*s", (int)(t->end - t->start), s->text + t->start);
			*line = t->line;
			return buf;
		}
	}
	return NULL;
}

/* ---- what a kernel uses ---- */

static const char *const group_names[] = {"barrier",
                                          "work_group_barrier",
                                          "get_local_id",
                                          "get_local_size",
                                          "get_group_id",
                                          "get_num_groups",
                                          "get_enqueued_local_size",
                                          "get_local_linear_id",
                                          "async_work_group_copy",
                                          "async_work_group_strided_copy",
                                          "wait_group_events",
                                          "get_max_sub_group_size",
                                          "get_num_sub_groups",
                                          "get_enqueued_num_sub_groups",
                                          "get_sub_group_id",
                                          "get_sub_group_local_id",
                                          "get_sub_group_size"};

static bool group_feature(const struct cl_src *s, size_t i)
{
	const struct cl_tok *t = &s->toks[i];
	size_t n = t->end - t->start;
	const char *p = s->text + t->start;

	if (t->kind != CT_IDENT)
		return false;
	if ((n > 11 && memcmp(p, "work_group_", 11) == 0) ||
	    (n > 10 && memcmp(p, "sub_group_", 10) == 0))
		return true;
	for (size_t k = 0; k < ARRAY_SIZE(group_names); k++)
		if (tok_is(s, i, group_names[k]))
			return true;
	return false;
}

/* Mark function f and the source's functions it calls, transitively. */
static void reach(const struct cl_src *s, size_t f, bool *seen)
{
	const struct cl_fn *fn = &s->fns[f];

	if (seen[f] || !fn->body_open)
		return;
	seen[f] = true;
	for (size_t i = fn->body_open; i < fn->body_close; i++) {
		if (s->toks[i].kind != CT_IDENT)
			continue;
		for (size_t k = 0; k < s->nfns; k++)
			if (!seen[k] && s->fns[k].body_open && tok_is(s, i, s->fns[k].name))
				reach(s, k, seen);
	}
}

bool clsrc_group_feature(const struct cl_src *s, const char *kernel, char *buf, size_t len)
{
	bool *seen = xcalloc(s->nfns + 1, sizeof(*seen));
	bool found = false;

	for (size_t f = 0; f < s->nfns; f++)
		if (s->fns[f].kernel && strcmp(s->fns[f].name, kernel) == 0)
			reach(s, f, seen);
	for (size_t f = 0; f < s->nfns && !found; f++) {
		const struct cl_fn *fn = &s->fns[f];

		if (!seen[f])
			continue;
		for (size_t i = fn->open; i < fn->body_close && !found; i++) {
			if (!group_feature(s, i))
				continue;
			snprintf(buf, len, "%.*s (line %d, in %s)",
			         (int)(s->toks[i].end - s->toks[i].start),
			         s->text + s->toks[i].start, s->toks[i].line, fn->name);
			found = true;
		}
		for (size_t k = 0; k < fn->nparams && !found; k++)
			if (fn->params[k].space == CS_LOCAL) {
				snprintf(buf, len, "the __local parameter '%s' (line %d, in %s)",
				         fn->params[k].name, fn->line, fn->name);
				found = true;
			}
	}
	/* A macro of the source that hides a feature counts for every kernel. */
	for (size_t i = 0; i < s->ntoks && !found; i++)
		if (!in_code(s, i) && group_feature(s, i)) {
			snprintf(buf, len, "%.*s (line %d, in a preprocessor line)",
			         (int)(s->toks[i].end - s->toks[i].start),
			         s->text + s->toks[i].start, s->toks[i].line);
			found = true;
		}
	free(seen);
	return found;
}

bool clsrc_local_variable(const struct cl_src *s, const char *kernel, int *line)
{
	const struct cl_fn *f = clsrc_kernel(s, kernel);

	if (!f)
		return false;
	for (size_t i = f->body_open; i < f->body_close; i++)
		if (tok_is(s, i, "__local") || tok_is(s, i, "local")) {
			*line = s->toks[i].line;
			return true;
		}
	return false;
}

/* ---- the rewrite ---- */

struct edit {
	size_t start, end; /* replace text[start, end) ... */
	char *with;        /* ... with this (owned) */
};

struct edits {
	struct edit *v;
	size_t n, cap;
};

static void edit_add(struct edits *ed, size_t start, size_t end, char *with)
{
	ed->v = xgrow(ed->v, &ed->cap, ed->n + 1, sizeof(*ed->v));
	ed->v[ed->n++] = (struct edit){start, end, with};
}

static int edit_cmp(const void *a, const void *b)
{
	const struct edit *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* insertions (empty ranges) before replacements at the same place */
	return (x->end > x->start) - (y->end > y->start);
}

static const char *renamed(const struct cl_src *s, size_t i, const struct cl_rename *map,
                           size_t nmap)
{
	for (size_t k = 0; k < nmap; k++)
		if (tok_is(s, i, map[k].from))
			return map[k].to;
	return NULL;
}

/* Kernel headers: `__kernel` -> `static`, attributes between it and the name dropped, and
 * __constant pointer parameters made __global const. */
static void kernel_header(const struct cl_src *s, const struct cl_fn *f, struct edits *ed)
{
	for (size_t i = f->first_tok; i < f->name_tok; i++) {
		if (is_kernel_kw(s, i)) {
			edit_add(ed, s->toks[i].start, s->toks[i].end, xstrdup("static"));
		} else if (tok_is(s, i, "__attribute__") || tok_is(s, i, "__attribute")) {
			size_t open = next_code(s, i + 1);
			size_t close = tok_is(s, open, "(") ? match(s, open) : i;

			if (close >= s->ntoks)
				break;
			edit_add(ed, s->toks[i].start, s->toks[close].end, xstrdup(""));
			i = close;
		}
	}
	for (size_t i = f->open; i < f->close; i++)
		if (tok_is(s, i, "__constant") || tok_is(s, i, "constant"))
			edit_add(ed, s->toks[i].start, s->toks[i].end, xstrdup("__global const"));
}

/* With a range: `f(void)` / `f()` -> `f(const pk_range pk_r)`, `f(a)` -> `f(const pk_range
 * pk_r, a)`; calls `g(x)` -> `g(pk_r, x)`. */
static void range_params(const struct cl_src *s, const struct cl_fn *f, struct edits *ed)
{
	size_t first = f->open + 1, last = f->close;

	if (first == last || (last == first + 1 && tok_is(s, first, "void")))
		edit_add(ed, s->toks[f->open].end, s->toks[f->close].start,
		         xstrdup("const pk_range pk_r"));
	else
		edit_add(ed, s->toks[f->open].end, s->toks[f->open].end,
		         xstrdup("const pk_range pk_r, "));
}

static bool is_fn_name_tok(const struct cl_src *s, size_t i)
{
	for (size_t k = 0; k < s->nfns; k++)
		if (s->fns[k].name_tok == i)
			return true;
	return false;
}

static void range_calls(const struct cl_src *s, struct edits *ed)
{
	for (size_t i = 0; i + 1 < s->ntoks; i++) {
		bool fn = false;
		size_t open = i + 1;

		if (s->toks[i].kind != CT_IDENT || is_fn_name_tok(s, i))
			continue;
		if (!tok_is(s, open, "(") || s->toks[open].directive != s->toks[i].directive)
			continue;
		/* `#define f(x)` defines a macro, it does not call f */
		if (i >= 2 && s->toks[i].directive >= 0 && tok_is(s, i - 1, "define") &&
		    s->toks[i - 1].directive == s->toks[i].directive)
			continue;
		for (size_t k = 0; k < s->nfns && !fn; k++)
			fn = tok_is(s, i, s->fns[k].name);
		if (!fn)
			continue;
		edit_add(ed, s->toks[open].end, s->toks[open].end,
		         xstrdup(open + 1 < s->ntoks && tok_is(s, open + 1, ")") ? "pk_r"
		                                                                 : "pk_r, "));
	}
}

char *clsrc_rewrite(const struct cl_src *s, const struct cl_rename *map, size_t nmap, bool range)
{
	struct edits ed = {0};
	struct strbuf sb = STRBUF_INIT;
	size_t at = 0;

	for (size_t i = 0; i < s->nfns; i++) {
		if (s->fns[i].kernel)
			kernel_header(s, &s->fns[i], &ed);
		if (range)
			range_params(s, &s->fns[i], &ed);
	}
	if (range)
		range_calls(s, &ed);
	for (size_t i = 0; i < s->ntoks; i++) {
		const char *to = s->toks[i].kind == CT_IDENT ? renamed(s, i, map, nmap) : NULL;

		if (to)
			edit_add(&ed, s->toks[i].start, s->toks[i].end, xstrdup(to));
	}
	if (ed.n)
		qsort(ed.v, ed.n, sizeof(*ed.v), edit_cmp);
	for (size_t k = 0; k < ed.n; k++) {
		/* An edit inside text an earlier one replaced is dropped (an attribute that
		 * held a renamed name). */
		if (ed.v[k].start < at) {
			free(ed.v[k].with);
			continue;
		}
		sb_add(&sb, s->text + at, ed.v[k].start - at);
		sb_adds(&sb, ed.v[k].with);
		at = ed.v[k].end;
		free(ed.v[k].with);
	}
	sb_adds(&sb, s->text + at);
	free(ed.v);
	return sb_detach(&sb);
}
