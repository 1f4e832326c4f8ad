/* libFuzzer target: the <CarshExe> reader (with its inline or referenced <FlowModel>), then
 * the planner, with every virtual buffer a <Buffer> names taken to exist with the type and
 * count the stream needs, and a caller that sets N. */
#include <stdio.h>

#include "fuzz.h"
#include "model/exe.h"
#include "model/planner.h"

static int any_buffer(void *ctx, const char *name, struct cs_type type, size_t count, char **shm,
                      struct cs_err *e)
{
	(void)ctx;
	(void)type;
	(void)count;
	(void)e;
	*shm = xasprintf("/carsh-fuzz-%s", name);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cs_err e;
	struct xml_doc d;
	struct xml_ctx x;
	struct exe *exe;
	xmlNodePtr root = fuzz_xml(data, size, &d, &x, &e);

	if (root && xml_is(root, "CarshExe") && exe_from_node(&x, root, &exe) == 0) {
		struct params caller = PARAMS_INIT;
		struct scope sc;
		struct plan_env env = {.caller = &sc, .device_cli = "cpu", .resolve = any_buffer};
		struct job_plan *jp;

		params_set(&caller, "N", "16", "fuzz");
		scope_init(&sc);
		scope_push(&sc, &caller);
		if (plan_exe(exe, &env, &jp, &e) == 0)
			job_plan_free(jp);
		params_free(&caller);
		exe_free(exe);
	}
	xml_free(&d);
	return 0;
}
