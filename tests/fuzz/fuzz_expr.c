/* libFuzzer target: integer expressions and parameter scopes. Lines of the input before the
 * last that read NAME=VALUE become parameters (so chains and cycles of parameters are
 * tried); the last line is evaluated in that scope, and also alone. */
#include "data/expr.h"
#include "data/params.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct params ps = PARAMS_INIT;
	struct scope sc;
	struct cs_err e;
	long long v;
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
	(void)expr_eval(line, NULL, NULL, &v, &e);
	params_free(&ps);
	free(text);
	return 0;
}
