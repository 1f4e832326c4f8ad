/* A word's name checked against a flow-model's names, with the nearest one when it misses. */
#include "model/fmnames.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/strbuf.h"
#include "util/strvec.h"

/* The identifiers of an expression: a name starts with a letter or '_'; a token starting
 * with a digit or '.' is a number, letters and all ("2.5e3", "0x1f"). */
static void push_names(struct strvec *sv, const char *text)
{
	const char *p = text;

	while (p && *p) {
		const char *start = p;

		if (isalpha((unsigned char)*p) || *p == '_') {
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			sv_push_owned(sv, xstrndup(start, (size_t)(p - start)));
		} else if (isdigit((unsigned char)*p) || *p == '.') {
			while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
				p++;
		} else {
			p++;
		}
	}
}

/* The names of the ${NAME} references in a text (<BuildOptions>). */
static void push_references(struct strvec *sv, const char *text)
{
	for (const char *p = text ? strstr(text, "${") : NULL; p; p = strstr(p, "${")) {
		const char *end = strchr(p + 2, '}');

		if (!end)
			break;
		sv_push_owned(sv, xstrndup(p + 2, (size_t)(end - p - 2)));
		p = end + 1;
	}
}

static void push_expressions(struct strvec *sv, const struct flowmodel *fm)
{
	push_references(sv, fm->build_options);
	for (unsigned i = 0; i < fm->dims; i++)
		push_names(sv, fm->global[i]);
	for (unsigned i = 0; i < fm->local_dims; i++)
		push_names(sv, fm->local[i]);
	for (size_t i = 0; i < fm->params.n; i++)
		push_names(sv, fm->params.v[i].value);
	for (size_t i = 0; i < fm->nargs; i++) {
		push_names(sv, fm->args[i].count);
		push_names(sv, fm->args[i].value);
		push_names(sv, fm->args[i].unit);
		if (fm->args[i].type_param)
			sv_push(sv, fm->args[i].type_param);
	}
}

static bool listed(const struct strvec *sv, const char *name)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], name) == 0)
			return true;
	return false;
}

/* Edit distance (insert, delete, substitute); a change of case alone costs nothing, so that
 * `a` finds `A` before any other one-letter name. Names are short: a row of 64 suffices. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[65];

	if (la > 64 || lb > 64)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			bool same = tolower((unsigned char)a[i - 1]) ==
			            tolower((unsigned char)b[j - 1]);
			size_t best = diag + (same ? 0 : 1);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/* Near: at most half the longer name changed; a one-letter name only by its case. */
static const char *nearest(const struct strvec *sv, const char *name)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;

	for (size_t i = 0; i < sv->n; i++) {
		size_t d = distance(name, sv->v[i]);
		size_t len = strlen(name) > strlen(sv->v[i]) ? strlen(name) : strlen(sv->v[i]);

		if (d <= len / 2 && d < best_d) {
			best = sv->v[i];
			best_d = d;
		}
	}
	return best;
}

static void list_names(struct strbuf *sb, const struct flowmodel *fm)
{
	sb_adds(sb, " (parameters:");
	for (size_t i = 0; i < fm->params.n; i++)
		sb_addf(sb, " %s", fm->params.v[i].name);
	if (!fm->params.n)
		sb_adds(sb, " none");
	sb_adds(sb, "; streams:");
	for (size_t i = 0; i < fm->nargs; i++)
		if (arg_is_stream(fm->args[i].kind))
			sb_addf(sb, " %s", fm->args[i].name);
	sb_adds(sb, ")");
}

int flowmodel_check_name(const struct flowmodel *fm, const char *name, struct cs_err *e)
{
	struct strvec names = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	const char *near;

	for (size_t i = 0; i < fm->params.n; i++)
		sv_push(&names, fm->params.v[i].name);
	for (size_t i = 0; i < fm->nargs; i++)
		if (arg_is_stream(fm->args[i].kind))
			sv_push(&names, fm->args[i].name);
	push_expressions(&names, fm);
	if (listed(&names, name)) {
		sv_free(&names);
		return 0;
	}
	near = nearest(&names, name);
	if (near)
		sb_addf(&sb, ": did you mean %s?", near);
	else
		list_names(&sb, fm);
	err_set(e, "'%s' is neither a parameter nor a stream of %s%s", name, fm->file, sb_str(&sb));
	sb_free(&sb);
	sv_free(&names);
	return -1;
}
