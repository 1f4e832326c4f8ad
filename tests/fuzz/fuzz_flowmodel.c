/* libFuzzer target: the <FlowModel> reader, then the planner with every stream bound on the
 * command line (inputs filled, in-outs from a file, outputs discarded), as `run FM.xml`. */
#include "fuzz.h"
#include "model/exe.h"
#include "model/flowmodel.h"
#include "model/planner.h"

static const char *const bind_value[] = {
        [ARG_INPUT] = "fill:3",
        [ARG_OUTPUT] = "discard",
        [ARG_INOUT] = "io.csv",
};

static void plan(struct flowmodel *fm, struct cs_err *e)
{
	struct exe *exe = exe_wrap_flowmodel(fm);
	struct plan_env env = {.caller = NULL};
	struct job_plan *jp;
	int rc = 0;

	for (size_t i = 0; i < fm->nargs && rc == 0; i++)
		if (arg_is_stream(fm->args[i].kind))
			rc = exe_bind_word(exe, fm->args[i].name, bind_value[fm->args[i].kind], e);
	if (rc == 0 && exe_check_bindings(exe, true, e) == 0 && plan_exe(exe, &env, &jp, e) == 0)
		job_plan_free(jp);
	exe_free(exe);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cs_err e;
	struct xml_doc d;
	struct xml_ctx x;
	struct flowmodel *fm;
	xmlNodePtr root = fuzz_xml(data, size, &d, &x, &e);

	if (root && xml_is(root, "FlowModel") && flowmodel_from_node(&x, root, &fm) == 0)
		plan(fm, &e);
	xml_free(&d);
	return 0;
}
