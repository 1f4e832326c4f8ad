/* libFuzzer target: the <CarshBat> reader, then what the batch runner evaluates before it
 * runs a step: counts and columns in the batch's scope, <Command> lines through the shell
 * parser, inline executables through the planner. */
#include "data/params.h"
#include "fuzz.h"
#include "model/batch.h"
#include "model/planner.h"
#include "model/cmdline.h"

static const char *no_variable(void *ctx, const char *name)
{
	(void)ctx;
	return strcmp(name, "N") == 0 ? "4" : NULL;
}

static void parse_commands(const char *text, struct cs_err *e)
{
	struct shell_lexer lx;
	int rc;

	shell_lexer_init(&lx, text, "fuzz.bat.xml", 1);
	do {
		struct command cmd = COMMAND_INIT;

		rc = shell_next(&lx, no_variable, NULL, &cmd, e);
		command_free(&cmd);
	} while (rc != SHELL_END && rc != SHELL_INCOMPLETE);
}

static void eval_steps(const struct step *steps, size_t n, const struct scope *sc, struct cs_err *e)
{
	for (size_t i = 0; i < n; i++) {
		const struct step *s = &steps[i];
		long long v;

		if (s->count)
			(void)scope_eval_range(sc, s->count, "count", 0, 1000000, &v, e);
		if (s->columns)
			(void)scope_eval(sc, s->columns, &v, e);
		if (s->kind == STEP_COMMAND)
			parse_commands(s->text, e);
		if (s->exe) {
			struct plan_env env = {.caller = sc};
			struct job_plan *jp;

			if (plan_exe(s->exe, &env, &jp, e) == 0)
				job_plan_free(jp);
		}
		if (s->kind == STEP_BATCH) {
			struct scope inner;

			scope_init(&inner);
			scope_push(&inner, &s->params);
			scope_append(&inner, sc);
			for (size_t k = 0; k < s->params.n; k++)
				(void)scope_eval(&inner, s->params.v[k].name, &v, e);
		}
		eval_steps(s->steps, s->nsteps, sc, e);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cs_err e;
	struct xml_doc d;
	struct xml_ctx x;
	struct batch *b;
	xmlNodePtr root = fuzz_xml(data, size, &d, &x, &e);

	if (root && xml_is(root, "CarshBat") && batch_from_node(&x, root, &b) == 0) {
		struct scope sc;

		scope_init(&sc);
		scope_push(&sc, &b->params);
		eval_steps(b->steps, b->nsteps, &sc, &e);
		batch_free(b);
	}
	xml_free(&d);
	return 0;
}
