/* libFuzzer target: expressions of both value types (the one parser of data/exprparse.h)
 * and parameter scopes. Lines of the input before the last that read NAME=VALUE become
 * parameters (so chains and cycles of parameters are tried); the last line is evaluated in
 * that scope, and also alone, as an integer and as a double. */
#include <stdlib.h>

#include "data/expr.h"
#include "data/fexpr.h"
#include "data/params.h"
#include "fuzz.h"

/* A short text of digits, + - * and parentheses that the integer path takes has the same
 * value in double: at 15 characters no value or partial product reaches 2^53. */
static void check_same_value(const char *text, long long v, struct cs_err *e)
{
	double d;

	if (strlen(text) > 15 || strpbrk(text, "/%.eE") ||
	    strspn(text, "0123456789+-*() \t\n\r") != strlen(text))
		return;
	if (fexpr_eval(text, NULL, NULL, &d, e) != 0 || d != (double)v)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct params ps = PARAMS_INIT;
	struct scope sc;
	struct cs_err e;
	long long v;
	double d;
	char *line = text, *nl;

	while ((nl = strchr(line, '\n')) != NULL) {
		char *eq = strchr(line, '=');

		*nl = '\0';
		if (eq && eq < nl) {
			*eq = '\0';
			if (param_name_valid(line))
				params_set(&ps, line, eq + 1, "fuzz");
		}
		line = nl + 1;
	}
	scope_init(&sc);
	scope_push(&sc, &ps);
	(void)scope_eval(&sc, line, &v, &e);
	(void)scope_eval_range(&sc, line, "count", 1, 1 << 20, &v, &e);
	(void)scope_eval_float(&sc, line, &d, &e);
	if (expr_eval(line, NULL, NULL, &v, &e) == 0)
		check_same_value(line, v, &e);
	(void)fexpr_eval(line, NULL, NULL, &d, &e);
	params_free(&ps);
	free(text);
	return 0;
}
