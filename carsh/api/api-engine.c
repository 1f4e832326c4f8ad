/* Engines in a fresh copy of the carsh program (api/api-engine.h). */
#include "api/api-engine.h"

#include "cmd/cmd.h"
#include "runner/enginechild.h"
#include "runner/engineproc.h"

void carsh_engines_apart(void)
{
	engine_apart_may_exec();
}

/* The copy runs the command through the dispatcher, as the shell did. */
static int rerun(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	return cmd_exec_argv(c, argc, argv, e);
}

void carsh_engine_child(void)
{
	engine_child_main(rerun);
}
