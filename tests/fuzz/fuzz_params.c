/* libFuzzer target: parameter expressions as the planner meets them. The input is up to four
 * layers of NAME=VALUE lines (the executable's, the command line's as a caller, a caller's,
 * the flow-model's defaults: strongest first), separated by lines "--". Every name of every
 * layer is evaluated in the whole scope, as counts and work sizes are, and each value must
 * agree with rewritings of the same expression: "(E)", "E*1", "(E)-(E)" is 0, and a fresh
 * parameter set to E evaluates to the same. A slow evaluation (a chain of parameters each
 * used several times, which once took exponential time) is caught by libFuzzer's -timeout.
 * Each name's value is also parsed as every scalar type a Constant can take. */
#include <stdio.h>

#include "data/params.h"
#include "data/types.h"
#include "fuzz.h"

#define LAYERS 4

static void check_same(const struct scope *sc, const char *fmt, const char *name, long long want)
{
	char text[512];
	struct cs_err e;
	long long got;

	snprintf(text, sizeof(text), fmt, name, name);
	if (scope_eval(sc, text, &got, &e) != 0 || got != want) {
		fprintf(stderr, "'%s' gave %lld (%s), '%s' gave %lld\n", text, got, e.msg, name,
		        want);
		abort();
	}
}

/* A fresh parameter whose value is the name: the one-level indirection must agree. */
static void check_alias(const struct scope *sc, const char *name, long long want)
{
	struct params alias = PARAMS_INIT;
	struct scope outer;
	struct cs_err e;
	long long got;

	params_set(&alias, "fuzz_alias_", name, "fuzz");
	scope_init(&outer);
	scope_push(&outer, &alias);
	scope_append(&outer, sc);
	if (scope_eval(&outer, "fuzz_alias_", &got, &e) != 0 || got != want) {
		fprintf(stderr, "alias of '%s' gave %lld (%s), want %lld\n", name, got, e.msg,
		        want);
		abort();
	}
	params_free(&alias);
}

static void check_name(const struct scope *sc, const struct param *p)
{
	static const enum scalar kinds[] = {SC_CHAR, SC_UCHAR, SC_SHORT, SC_USHORT, SC_INT,
	                                    SC_UINT, SC_LONG,  SC_ULONG, SC_FLOAT,  SC_DOUBLE};
	unsigned char bytes[8];
	struct cs_err e;
	long long v;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		(void)number_parse(kinds[k], p->value, bytes, &e);
	if (strncmp(p->name, "fuzz_alias_", 11) == 0 || scope_eval(sc, p->name, &v, &e) != 0)
		return;
	check_same(sc, "(%s)%.0s", p->name, v);
	check_same(sc, "%s*1%.0s", p->name, v);
	check_same(sc, "(%s)-(%s)", p->name, 0);
	check_alias(sc, p->name, v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *line = text, *nl;
	struct params ps[LAYERS] = {PARAMS_INIT, PARAMS_INIT, PARAMS_INIT, PARAMS_INIT};
	struct scope sc;
	size_t layer = 0;

	for (; line; line = nl ? nl + 1 : NULL) {
		char *eq;

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strcmp(line, "--") == 0) {
			layer += layer + 1 < LAYERS;
			continue;
		}
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		if (param_name_valid(line) && strlen(line) < 64)
			params_set(&ps[layer], line, eq + 1, "fuzz");
	}
	scope_init(&sc);
	for (size_t i = 0; i < LAYERS; i++)
		scope_push(&sc, &ps[i]);
	for (size_t i = 0; i < LAYERS; i++)
		for (size_t j = 0; j < ps[i].n; j++)
			check_name(&sc, &ps[i].v[j]);
	for (size_t i = 0; i < LAYERS; i++)
		params_free(&ps[i]);
	free(text);
	return 0;
}
